/* Python expressions by precedence climbing: lambda, conditional
 * expressions, or/and/not, comparisons, the bitwise and arithmetic
 * levels, unary operators, `**`, await, and primaries (attributes, calls
 * with keywords and unpacking, subscripts with slices) over atoms
 * (names, numbers, strings, displays and comprehensions). */
#include "engine/port/py_int.h"

#include <string.h>

static struct py_node *atom_expr(struct pp *p);
static struct py_node *unary(struct pp *p);

static bool enter(struct pp *p)
{
	if (++p->depth > PY_MAX_DEPTH) {
		pp_fail(p, p->i, TP_EXIT_USAGE, "expression nested too deeply");
		p->depth--;
		return false;
	}
	return true;
}

static struct py_node *leave(struct pp *p, struct py_node *n)
{
	p->depth--;
	return n;
}

static bool starts_expr(const struct pp *p)
{
	const struct pytok *t = pp_tok(p, p->i);
	switch (t->kind) {
	case PYT_NAME:
		if (!pp_is_keyword(t))
			return true;
		return pp_name(p, "not") || pp_name(p, "lambda") || pp_name(p, "await") ||
		       pp_name(p, "True") || pp_name(p, "False") || pp_name(p, "None") ||
		       pp_name(p, "yield");
	case PYT_NUMBER:
	case PYT_STRING:
		return true;
	case PYT_OP:
		return pp_op(p, "(") || pp_op(p, "[") || pp_op(p, "{") || pp_op(p, "-") ||
		       pp_op(p, "+") || pp_op(p, "~") || pp_op(p, "...") || pp_op(p, "*");
	default:
		return false;
	}
}

/* ---- comprehensions ---- */

static void comp_fors(struct pp *p, struct py_node *comp)
{
	while (!p->failed && (pp_name(p, "for") || (pp_name(p, "async") &&
						    pp_tok(p, p->i + 1)->kind == PYT_NAME))) {
		struct py_node *f = pp_node(p, PY_COMPFOR, p->i);
		if (pp_name(p, "async")) {
			f->is_async = true;
			p->i++;
		}
		p->i++; /* for */
		pp_add(p, f, pp_target_list(p));
		if (!pp_name(p, "in")) {
			pp_fail(p, p->i, TP_EXIT_USAGE, "expected 'in' in a comprehension");
			return;
		}
		p->i++;
		pp_add(p, f, pp_expr_nocond(p));
		while (!p->failed && pp_name(p, "if")) {
			p->i++;
			pp_add(p, f, pp_expr_nocond(p));
		}
		pp_add(p, comp, pp_end(p, f));
	}
}

static bool at_comp(const struct pp *p)
{
	return pp_name(p, "for") ||
	       (pp_name(p, "async") && pp_tok(p, p->i + 1)->kind == PYT_NAME &&
		pp_tok(p, p->i + 1)->n == 3 && memcmp(pp_tok(p, p->i + 1)->s, "for", 3) == 0);
}

/* ---- atoms ---- */

static struct py_node *paren(struct pp *p)
{
	size_t at = p->i++;
	if (pp_accept_op(p, ")"))
		return pp_end(p, pp_node(p, PY_TUPLE, at));
	if (pp_name(p, "yield")) {
		struct py_node *y = pp_node(p, PY_YIELD, p->i++);
		if (pp_name(p, "from")) {
			p->i++;
			y->op = 1;
		}
		if (!pp_op(p, ")"))
			pp_add(p, y, pp_exprlist(p, true));
		pp_expect_op(p, ")", "')'");
		return pp_end(p, y);
	}
	struct py_node *first = pp_star_expr(p);
	if (p->failed)
		return first;
	if (at_comp(p)) {
		struct py_node *c = pp_node(p, PY_COMP, at);
		c->op = '(';
		pp_add(p, c, first);
		comp_fors(p, c);
		pp_expect_op(p, ")", "')' after a generator expression");
		return pp_end(p, c);
	}
	if (pp_accept_op(p, ")")) {
		/* a parenthesised expression keeps its own position; the
		 * parentheses are part of its text */
		first->tb = at;
		return pp_end(p, first);
	}
	struct py_node *t = pp_node(p, PY_TUPLE, at);
	pp_add(p, t, first);
	while (!p->failed && pp_accept_op(p, ",")) {
		if (pp_op(p, ")"))
			break;
		pp_add(p, t, pp_star_expr(p));
	}
	pp_expect_op(p, ")", "')' or ','");
	return pp_end(p, t);
}

static struct py_node *list_display(struct pp *p)
{
	size_t at = p->i++;
	struct py_node *l = pp_node(p, PY_LIST, at);
	if (pp_accept_op(p, "]"))
		return pp_end(p, l);
	struct py_node *first = pp_star_expr(p);
	if (!p->failed && at_comp(p)) {
		l->kind = PY_COMP;
		l->op = '[';
		pp_add(p, l, first);
		comp_fors(p, l);
		pp_expect_op(p, "]", "']' after a list comprehension");
		return pp_end(p, l);
	}
	pp_add(p, l, first);
	while (!p->failed && pp_accept_op(p, ",")) {
		if (pp_op(p, "]"))
			break;
		pp_add(p, l, pp_star_expr(p));
	}
	pp_expect_op(p, "]", "']' or ','");
	return pp_end(p, l);
}

static struct py_node *brace_display(struct pp *p)
{
	size_t at = p->i++;
	struct py_node *d = pp_node(p, PY_DICT, at);
	if (pp_accept_op(p, "}"))
		return pp_end(p, d);
	bool dict;
	if (pp_op(p, "**")) {
		p->i++;
		pp_add(p, d, NULL);
		pp_add(p, d, pp_expr_nocond(p));
		dict = true;
	} else {
		struct py_node *k = pp_star_expr(p);
		if (p->failed)
			return d;
		if (pp_accept_op(p, ":")) {
			struct py_node *v = pp_expr(p);
			if (!p->failed && at_comp(p)) {
				d->kind = PY_COMP;
				d->op = ':';
				pp_add(p, d, k);
				pp_add(p, d, v);
				comp_fors(p, d);
				pp_expect_op(p, "}", "'}' after a dict comprehension");
				return pp_end(p, d);
			}
			pp_add(p, d, k);
			pp_add(p, d, v);
			dict = true;
		} else {
			if (at_comp(p)) {
				d->kind = PY_COMP;
				d->op = '{';
				pp_add(p, d, k);
				comp_fors(p, d);
				pp_expect_op(p, "}", "'}' after a set comprehension");
				return pp_end(p, d);
			}
			d->kind = PY_SET;
			pp_add(p, d, k);
			dict = false;
		}
	}
	while (!p->failed && pp_accept_op(p, ",")) {
		if (pp_op(p, "}"))
			break;
		if (dict) {
			if (pp_accept_op(p, "**")) {
				pp_add(p, d, NULL);
				pp_add(p, d, pp_expr_nocond(p));
				continue;
			}
			pp_add(p, d, pp_expr(p));
			pp_expect_op(p, ":", "':' in a dict display");
			pp_add(p, d, pp_expr(p));
		} else {
			pp_add(p, d, pp_star_expr(p));
		}
	}
	pp_expect_op(p, "}", "'}' or ','");
	return pp_end(p, d);
}

static struct py_node *atom(struct pp *p)
{
	const struct pytok *t = pp_tok(p, p->i);
	switch (t->kind) {
	case PYT_NAME: {
		bool konst = pp_name(p, "True") || pp_name(p, "False") || pp_name(p, "None");
		if (!konst && pp_is_keyword(t))
			break;
		struct py_node *n = pp_node(p, konst ? PY_CONST : PY_NAME, p->i++);
		n->s = t->s;
		n->n = t->n;
		return pp_end(p, n);
	}
	case PYT_NUMBER: {
		struct py_node *n = pp_node(p, PY_NUM, p->i++);
		n->s = t->s;
		n->n = t->n;
		return pp_end(p, n);
	}
	case PYT_STRING: {
		struct py_node *n = pp_node(p, PY_STR, p->i++);
		n->s = t->s;
		n->n = t->n;
		while (pp_kind(p, PYT_STRING))
			p->i++; /* implicit concatenation */
		return pp_end(p, n);
	}
	case PYT_OP:
		if (pp_op(p, "("))
			return paren(p);
		if (pp_op(p, "["))
			return list_display(p);
		if (pp_op(p, "{"))
			return brace_display(p);
		if (pp_op(p, "...")) {
			struct py_node *n = pp_node(p, PY_CONST, p->i++);
			n->s = t->s;
			n->n = t->n;
			return pp_end(p, n);
		}
		break;
	default:
		break;
	}
	pp_fail(p, p->i, TP_EXIT_USAGE, "expected an expression");
	return pp_node(p, PY_CONST, p->i);
}

static struct py_node *subscript_item(struct pp *p)
{
	size_t at = p->i;
	struct py_node *lo = NULL;
	if (!pp_op(p, ":")) {
		lo = pp_star_expr(p);
		if (p->failed || !pp_op(p, ":"))
			return lo;
	}
	struct py_node *s = pp_node(p, PY_SLICE, at);
	p->i++; /* : */
	pp_add(p, s, lo);
	pp_add(p, s, (pp_op(p, ":") || pp_op(p, "]") || pp_op(p, ",")) ? NULL : pp_expr(p));
	if (pp_accept_op(p, ":"))
		pp_add(p, s, (pp_op(p, "]") || pp_op(p, ",")) ? NULL : pp_expr(p));
	else
		pp_add(p, s, NULL);
	return pp_end(p, s);
}

static void call_args(struct pp *p, struct py_node *call)
{
	while (!p->failed && !pp_op(p, ")")) {
		size_t at = p->i;
		if (pp_accept_op(p, "*")) {
			struct py_node *s = pp_node(p, PY_STARRED, at);
			pp_add(p, s, pp_expr(p));
			pp_add(p, call, pp_end(p, s));
		} else if (pp_accept_op(p, "**")) {
			struct py_node *s = pp_node(p, PY_DSTAR, at);
			pp_add(p, s, pp_expr(p));
			pp_add(p, call, pp_end(p, s));
		} else if (pp_kind(p, PYT_NAME) && !pp_is_keyword(pp_tok(p, p->i)) &&
			   pp_op_at(p, p->i + 1, "=")) {
			struct py_node *k = pp_node(p, PY_KEYWORD, at);
			k->s = pp_tok(p, p->i)->s;
			k->n = pp_tok(p, p->i)->n;
			p->i += 2;
			pp_add(p, k, pp_expr(p));
			pp_add(p, call, pp_end(p, k));
		} else {
			struct py_node *a = pp_expr(p);
			if (!p->failed && at_comp(p)) {
				struct py_node *c = pp_node(p, PY_COMP, at);
				c->op = '(';
				pp_add(p, c, a);
				comp_fors(p, c);
				a = pp_end(p, c);
			}
			pp_add(p, call, a);
		}
		if (!pp_accept_op(p, ","))
			break;
	}
	pp_expect_op(p, ")", "')' or ',' in a call");
}

static struct py_node *atom_expr(struct pp *p)
{
	if (!enter(p))
		return pp_node(p, PY_CONST, p->i);
	size_t at = p->i;
	struct py_node *e = atom(p);
	while (!p->failed) {
		if (pp_accept_op(p, ".")) {
			const struct pytok *t = pp_tok(p, p->i);
			if (t->kind != PYT_NAME) {
				pp_fail(p, p->i, TP_EXIT_USAGE, "expected an attribute name after '.'");
				break;
			}
			struct py_node *a = pp_node(p, PY_ATTR, at);
			pp_add(p, a, e);
			a->s = t->s;
			a->n = t->n;
			p->i++;
			e = pp_end(p, a);
		} else if (pp_op(p, "(")) {
			struct py_node *c = pp_node(p, PY_CALL, at);
			p->i++;
			pp_add(p, c, e);
			call_args(p, c);
			e = pp_end(p, c);
		} else if (pp_op(p, "[")) {
			struct py_node *s = pp_node(p, PY_SUBSCRIPT, at);
			p->i++;
			pp_add(p, s, e);
			size_t iat = p->i;
			struct py_node *first = subscript_item(p);
			if (!p->failed && pp_op(p, ",")) {
				struct py_node *t = pp_node(p, PY_TUPLE, iat);
				pp_add(p, t, first);
				while (!p->failed && pp_accept_op(p, ",")) {
					if (pp_op(p, "]"))
						break;
					pp_add(p, t, subscript_item(p));
				}
				first = pp_end(p, t);
			}
			pp_add(p, s, first);
			pp_expect_op(p, "]", "']' after a subscript");
			e = pp_end(p, s);
		} else {
			break;
		}
	}
	return leave(p, e);
}

static struct py_node *power(struct pp *p)
{
	size_t at = p->i;
	struct py_node *e;
	if (pp_name(p, "await")) {
		e = pp_node(p, PY_AWAIT, p->i++);
		pp_add(p, e, atom_expr(p));
		e = pp_end(p, e);
	} else {
		e = atom_expr(p);
	}
	if (!p->failed && pp_op(p, "**")) {
		struct py_node *b = pp_node(p, PY_BINOP, at);
		b->op = PYOP_POW;
		p->i++;
		pp_add(p, b, e);
		pp_add(p, b, unary(p));
		e = pp_end(p, b);
	}
	return e;
}

static struct py_node *unary(struct pp *p)
{
	int op = pp_op(p, "-") ? PYOP_NEG : pp_op(p, "+") ? PYOP_POS : pp_op(p, "~") ? PYOP_INVERT : 0;
	if (!op)
		return power(p);
	if (!enter(p))
		return pp_node(p, PY_CONST, p->i);
	struct py_node *u = pp_node(p, PY_UNARY, p->i++);
	u->op = op;
	pp_add(p, u, unary(p));
	return leave(p, pp_end(p, u));
}

struct binlevel {
	const char *ops[5];
	int codes[5];
};

static const struct binlevel levels[] = {
	{{"|"}, {PYOP_BITOR}},
	{{"^"}, {PYOP_BITXOR}},
	{{"&"}, {PYOP_BITAND}},
	{{"<<", ">>"}, {PYOP_LSHIFT, PYOP_RSHIFT}},
	{{"+", "-"}, {PYOP_ADD, PYOP_SUB}},
	{{"*", "/", "//", "%", "@"}, {PYOP_MUL, PYOP_DIV, PYOP_FLOORDIV, PYOP_MOD, PYOP_MATMUL}},
};

static struct py_node *binary(struct pp *p, size_t level)
{
	if (level >= TP_ARRAY_LEN(levels))
		return unary(p);
	size_t at = p->i;
	struct py_node *e = binary(p, level + 1);
	for (;;) {
		int code = 0;
		for (size_t k = 0; k < 5 && levels[level].ops[k]; k++)
			if (pp_op(p, levels[level].ops[k]))
				code = levels[level].codes[k];
		if (!code || p->failed)
			return e;
		struct py_node *b = pp_node(p, PY_BINOP, at);
		b->op = code;
		p->i++;
		pp_add(p, b, e);
		pp_add(p, b, binary(p, level + 1));
		e = pp_end(p, b);
	}
}

/* The comparison operator at the cursor (consumed), or 0. */
static int cmp_op(struct pp *p)
{
	static const struct {
		const char *s;
		int op;
	} ops[] = {{"<", PYOP_LT}, {"<=", PYOP_LE}, {">", PYOP_GT}, {">=", PYOP_GE},
		   {"==", PYOP_EQ}, {"!=", PYOP_NE}};
	for (size_t k = 0; k < TP_ARRAY_LEN(ops); k++)
		if (pp_accept_op(p, ops[k].s))
			return ops[k].op;
	if (pp_name(p, "in")) {
		p->i++;
		return PYOP_IN;
	}
	if (pp_name(p, "not") && pp_tok(p, p->i + 1)->kind == PYT_NAME &&
	    pp_tok(p, p->i + 1)->n == 2 && memcmp(pp_tok(p, p->i + 1)->s, "in", 2) == 0) {
		p->i += 2;
		return PYOP_NOT_IN;
	}
	if (pp_name(p, "is")) {
		p->i++;
		if (pp_name(p, "not")) {
			p->i++;
			return PYOP_IS_NOT;
		}
		return PYOP_IS;
	}
	return 0;
}

static struct py_node *comparison(struct pp *p)
{
	size_t at = p->i;
	struct py_node *e = binary(p, 0);
	struct py_node *c = NULL;
	for (;;) {
		size_t opat = p->i;
		int op = p->failed ? 0 : cmp_op(p);
		if (!op)
			break;
		if (!c) {
			c = pp_node(p, PY_COMPARE, at);
			pp_add(p, c, e);
		}
		struct py_node *o = pp_node(p, PY_CMPOP, opat);
		o->op = op;
		pp_add(p, c, pp_end(p, o));
		pp_add(p, c, binary(p, 0));
	}
	return c ? pp_end(p, c) : e;
}

static struct py_node *not_test(struct pp *p)
{
	if (!pp_name(p, "not"))
		return comparison(p);
	if (!enter(p))
		return pp_node(p, PY_CONST, p->i);
	struct py_node *u = pp_node(p, PY_UNARY, p->i++);
	u->op = PYOP_NOT;
	pp_add(p, u, not_test(p));
	return leave(p, pp_end(p, u));
}

static struct py_node *bool_chain(struct pp *p, const char *kw, int op,
				  struct py_node *(*next)(struct pp *))
{
	size_t at = p->i;
	struct py_node *e = next(p);
	if (p->failed || !pp_name(p, kw))
		return e;
	struct py_node *b = pp_node(p, PY_BOOLOP, at);
	b->op = op;
	pp_add(p, b, e);
	while (!p->failed && pp_name(p, kw)) {
		p->i++;
		pp_add(p, b, next(p));
	}
	return pp_end(p, b);
}

static struct py_node *and_test(struct pp *p)
{
	return bool_chain(p, "and", PYOP_AND, not_test);
}

struct py_node *pp_expr_nocond(struct pp *p)
{
	return bool_chain(p, "or", PYOP_OR, and_test);
}

struct py_node *pp_expr(struct pp *p)
{
	if (!enter(p))
		return pp_node(p, PY_CONST, p->i);
	size_t at = p->i;
	if (pp_name(p, "lambda")) {
		struct py_node *l = pp_node(p, PY_LAMBDA, p->i++);
		pp_add(p, l, pp_params(p, ":", false));
		pp_expect_op(p, ":", "':' after lambda parameters");
		pp_add(p, l, pp_expr(p));
		return leave(p, pp_end(p, l));
	}
	if (pp_name(p, "yield")) {
		struct py_node *y = pp_node(p, PY_YIELD, p->i++);
		if (pp_name(p, "from")) {
			p->i++;
			y->op = 1;
		}
		if (starts_expr(p))
			pp_add(p, y, pp_exprlist(p, true));
		return leave(p, pp_end(p, y));
	}
	struct py_node *e = pp_expr_nocond(p);
	if (!p->failed && pp_op(p, ":=") && e->kind == PY_NAME) {
		struct py_node *w = pp_node(p, PY_NAMED, at);
		p->i++;
		pp_add(p, w, e);
		pp_add(p, w, pp_expr(p));
		return leave(p, pp_end(p, w));
	}
	if (!p->failed && pp_name(p, "if")) {
		struct py_node *c = pp_node(p, PY_IFEXP, at);
		p->i++;
		pp_add(p, c, e);
		pp_add(p, c, pp_expr_nocond(p));
		if (!pp_name(p, "else")) {
			pp_fail(p, p->i, TP_EXIT_USAGE, "expected 'else' in a conditional expression");
			return leave(p, c);
		}
		p->i++;
		pp_add(p, c, pp_expr(p));
		e = pp_end(p, c);
	}
	return leave(p, e);
}

struct py_node *pp_star_expr(struct pp *p)
{
	if (!pp_op(p, "*"))
		return pp_expr(p);
	struct py_node *s = pp_node(p, PY_STARRED, p->i++);
	pp_add(p, s, binary(p, 0));
	return pp_end(p, s);
}

struct py_node *pp_exprlist(struct pp *p, bool allow_star)
{
	size_t at = p->i;
	struct py_node *first = allow_star ? pp_star_expr(p) : pp_expr(p);
	if (p->failed || !pp_op(p, ","))
		return first;
	struct py_node *t = pp_node(p, PY_TUPLE, at);
	pp_add(p, t, first);
	while (!p->failed && pp_accept_op(p, ",")) {
		if (!starts_expr(p))
			break;
		pp_add(p, t, allow_star ? pp_star_expr(p) : pp_expr(p));
	}
	return pp_end(p, t);
}

struct py_node *pp_target(struct pp *p)
{
	return pp_op(p, "*") ? pp_star_expr(p) : binary(p, 0);
}

struct py_node *pp_target_list(struct pp *p)
{
	size_t at = p->i;
	struct py_node *first = pp_op(p, "*") ? pp_star_expr(p) : binary(p, 0);
	if (p->failed || !pp_op(p, ","))
		return first;
	struct py_node *t = pp_node(p, PY_TUPLE, at);
	pp_add(p, t, first);
	while (!p->failed && pp_accept_op(p, ",")) {
		if (pp_name(p, "in") || pp_op(p, "="))
			break;
		pp_add(p, t, pp_op(p, "*") ? pp_star_expr(p) : binary(p, 0));
	}
	return pp_end(p, t);
}

struct py_node *pp_params(struct pp *p, const char *end, bool annotated)
{
	struct py_node *ps = pp_node(p, PY_PARAMS, p->i);
	while (!p->failed && !pp_op(p, end)) {
		size_t at = p->i;
		int kind = PYP_PLAIN;
		if (pp_accept_op(p, "**"))
			kind = PYP_DSTAR;
		else if (pp_accept_op(p, "*"))
			kind = PYP_STAR;
		else if (pp_accept_op(p, "/")) { /* positional-only marker */
			if (!pp_accept_op(p, ","))
				break;
			continue;
		}
		struct py_node *param = pp_node(p, PY_PARAM, at);
		param->op = kind;
		const struct pytok *t = pp_tok(p, p->i);
		if (t->kind == PYT_NAME && !pp_is_keyword(t)) {
			param->s = t->s;
			param->n = t->n;
			p->i++;
		} else if (kind != PYP_STAR) {
			pp_fail(p, p->i, TP_EXIT_USAGE, "expected a parameter name");
			break;
		}
		struct py_node *ann = NULL, *def = NULL;
		if (annotated && param->s && pp_accept_op(p, ":"))
			ann = pp_expr(p);
		if (kind == PYP_PLAIN && pp_accept_op(p, "="))
			def = pp_expr(p);
		pp_add(p, param, ann);
		pp_add(p, param, def);
		pp_add(p, ps, pp_end(p, param));
		if (!pp_accept_op(p, ","))
			break;
	}
	return pp_end(p, ps);
}
