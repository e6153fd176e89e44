/* Python statements over the tokens of engine/base/pytok.h: simple
 * statements (assignments of every form, return, raise, import, ...) and
 * compound ones (if/elif/else, for, while, try, with, def and class with
 * decorators), plus the parser's shared helpers and the module API. */
#include "engine/base/files.h"
#include "engine/port/py_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena ---- */

struct py_arena {
	struct py_arena *next;
	size_t used, cap;
	_Alignas(max_align_t) unsigned char data[];
};

void *pp_alloc(struct pp *p, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	struct py_arena *a = p->m->arena;
	if (!a || a->used + n > a->cap) {
		size_t cap = n > 16384 ? n : 16384;
		struct py_arena *b = xmalloc(sizeof(*b) + cap);
		b->next = a;
		b->used = 0;
		b->cap = cap;
		p->m->arena = a = b;
	}
	void *r = a->data + a->used;
	a->used += n;
	memset(r, 0, n);
	return r;
}

struct py_node *pp_node(struct pp *p, enum py_kind kind, size_t at)
{
	struct py_node *n = pp_alloc(p, sizeof(*n));
	const struct pytok *t = pp_tok(p, at);
	n->kind = kind;
	n->line = t->line;
	n->col = t->col;
	n->tb = at < p->n ? at : p->n - 1;
	n->te = n->tb + 1;
	return n;
}

void pp_add(struct pp *p, struct py_node *parent, struct py_node *kid)
{
	/* kids grow by doubling inside the arena; the old array is dropped */
	size_t n = parent->nkids;
	if ((n & (n - 1)) == 0) {
		size_t cap = n ? n * 2 : 2;
		struct py_node **v = pp_alloc(p, cap * sizeof(*v));
		if (n)
			memcpy(v, parent->kids, n * sizeof(*v));
		parent->kids = v;
	}
	parent->kids[parent->nkids++] = kid;
}

struct py_node *pp_end(struct pp *p, struct py_node *n)
{
	if (p->i > n->tb)
		n->te = p->i;
	return n;
}

void pp_fail(struct pp *p, size_t at, int code, const char *fmt, ...)
{
	if (p->failed)
		return;
	p->failed = true;
	const struct pytok *t = pp_tok(p, at);
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tp_err_set(p->err, code, "%s:%d:%d: %s", p->m->path, t->line, t->col, msg);
}

/* ---- token tests ---- */

const struct pytok *pp_tok(const struct pp *p, size_t k)
{
	return &p->t[k < p->n ? k : p->n - 1];
}

static bool tok_is(const struct pytok *t, enum pytok_kind kind, const char *s)
{
	size_t n = strlen(s);
	return t->kind == kind && t->n == n && memcmp(t->s, s, n) == 0;
}

bool pp_op_at(const struct pp *p, size_t k, const char *s)
{
	return tok_is(pp_tok(p, k), PYT_OP, s);
}

bool pp_op(const struct pp *p, const char *s)
{
	return pp_op_at(p, p->i, s);
}

bool pp_name(const struct pp *p, const char *s)
{
	return tok_is(pp_tok(p, p->i), PYT_NAME, s);
}

bool pp_kind(const struct pp *p, enum pytok_kind kind)
{
	return pp_tok(p, p->i)->kind == kind;
}

bool pp_accept_op(struct pp *p, const char *s)
{
	if (!pp_op(p, s))
		return false;
	p->i++;
	return true;
}

bool pp_expect_op(struct pp *p, const char *s, const char *what)
{
	if (pp_accept_op(p, s))
		return true;
	pp_fail(p, p->i, TP_EXIT_USAGE, "expected %s", what);
	return false;
}

bool pp_is_keyword(const struct pytok *t)
{
	static const char *const kw[] = {
		"False", "None", "True", "and", "as", "assert", "async", "await", "break",
		"class", "continue", "def", "del", "elif", "else", "except", "finally", "for",
		"from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or",
		"pass", "raise", "return", "try", "while", "with", "yield",
	};
	if (t->kind != PYT_NAME)
		return false;
	for (size_t k = 0; k < TP_ARRAY_LEN(kw); k++)
		if (tok_is(t, PYT_NAME, kw[k]))
			return true;
	return false;
}

/* ---- statements ---- */

static struct py_node *block(struct pp *p);
static void statement(struct pp *p, struct py_node *into);

static bool end_of_simple(const struct pp *p)
{
	return pp_kind(p, PYT_NEWLINE) || pp_kind(p, PYT_END) || pp_op(p, ";");
}

static struct py_node *dotted_name(struct pp *p, struct py_node *n)
{
	size_t start = p->i;
	const struct pytok *t = pp_tok(p, p->i);
	if (t->kind != PYT_NAME) {
		pp_fail(p, p->i, TP_EXIT_USAGE, "expected a module name");
		return n;
	}
	p->i++;
	while (pp_op(p, ".") && pp_tok(p, p->i + 1)->kind == PYT_NAME)
		p->i += 2;
	const struct pytok *last = pp_tok(p, p->i - 1);
	n->s = pp_tok(p, start)->s;
	n->n = (size_t)(last->s + last->n - n->s);
	return n;
}

static void as_name(struct pp *p, struct py_node *alias)
{
	if (!pp_name(p, "as"))
		return;
	p->i++;
	const struct pytok *t = pp_tok(p, p->i);
	if (t->kind != PYT_NAME) {
		pp_fail(p, p->i, TP_EXIT_USAGE, "expected a name after 'as'");
		return;
	}
	alias->s2 = t->s;
	alias->n2 = t->n;
	p->i++;
}

static struct py_node *import_stmt(struct pp *p)
{
	struct py_node *s = pp_node(p, PY_IMPORT, p->i++);
	do {
		struct py_node *a = pp_node(p, PY_ALIAS, p->i);
		dotted_name(p, a);
		as_name(p, a);
		pp_add(p, s, pp_end(p, a));
	} while (!p->failed && pp_accept_op(p, ","));
	return s;
}

static struct py_node *from_stmt(struct pp *p)
{
	struct py_node *s = pp_node(p, PY_FROM, p->i++);
	size_t start = p->i;
	while (pp_op(p, ".") || pp_op(p, "..."))
		p->i++;
	if (!pp_name(p, "import"))
		dotted_name(p, s);
	const struct pytok *last = pp_tok(p, p->i - 1);
	s->s = pp_tok(p, start)->s;
	s->n = (size_t)(last->s + last->n - s->s);
	if (!pp_name(p, "import")) {
		pp_fail(p, p->i, TP_EXIT_USAGE, "expected 'import'");
		return s;
	}
	p->i++;
	if (pp_op(p, "*")) {
		struct py_node *a = pp_node(p, PY_ALIAS, p->i);
		a->s = pp_tok(p, p->i)->s;
		a->n = 1;
		p->i++;
		pp_add(p, s, pp_end(p, a));
		return s;
	}
	bool paren = pp_accept_op(p, "(");
	while (!p->failed) {
		const struct pytok *t = pp_tok(p, p->i);
		if (t->kind != PYT_NAME) {
			pp_fail(p, p->i, TP_EXIT_USAGE, "expected a name to import");
			break;
		}
		struct py_node *a = pp_node(p, PY_ALIAS, p->i);
		a->s = t->s;
		a->n = t->n;
		p->i++;
		as_name(p, a);
		pp_add(p, s, pp_end(p, a));
		if (!pp_accept_op(p, ","))
			break;
		if (paren && pp_op(p, ")"))
			break;
	}
	if (paren)
		pp_expect_op(p, ")", "')'");
	return s;
}

static int aug_op(const struct pp *p)
{
	static const struct {
		const char *s;
		int op;
	} ops[] = {
		{"+=", PYOP_ADD},     {"-=", PYOP_SUB},     {"*=", PYOP_MUL},    {"/=", PYOP_DIV},
		{"//=", PYOP_FLOORDIV}, {"%=", PYOP_MOD},   {"**=", PYOP_POW},   {"@=", PYOP_MATMUL},
		{"&=", PYOP_BITAND},  {"|=", PYOP_BITOR},   {"^=", PYOP_BITXOR}, {">>=", PYOP_RSHIFT},
		{"<<=", PYOP_LSHIFT},
	};
	for (size_t k = 0; k < TP_ARRAY_LEN(ops); k++)
		if (pp_op(p, ops[k].s))
			return ops[k].op;
	return 0;
}

static struct py_node *rhs(struct pp *p)
{
	return pp_name(p, "yield") ? pp_expr(p) : pp_exprlist(p, true);
}

static struct py_node *expr_stmt(struct pp *p)
{
	size_t at = p->i;
	struct py_node *first = pp_exprlist(p, true);
	if (p->failed)
		return first;
	int aug = aug_op(p);
	if (aug) {
		struct py_node *s = pp_node(p, PY_AUGASSIGN, at);
		s->op = aug;
		p->i++;
		pp_add(p, s, first);
		pp_add(p, s, rhs(p));
		return s;
	}
	if (pp_op(p, ":")) {
		struct py_node *s = pp_node(p, PY_ANNASSIGN, at);
		p->i++;
		pp_add(p, s, first);
		pp_add(p, s, pp_expr(p));
		pp_add(p, s, pp_accept_op(p, "=") ? rhs(p) : NULL);
		return s;
	}
	if (!pp_op(p, "=")) {
		struct py_node *s = pp_node(p, PY_EXPR_STMT, at);
		pp_add(p, s, first);
		return s;
	}
	struct py_node *s = pp_node(p, PY_ASSIGN, at);
	pp_add(p, s, first);
	while (!p->failed && pp_accept_op(p, "="))
		pp_add(p, s, rhs(p));
	return s;
}

static struct py_node *simple(struct pp *p)
{
	size_t at = p->i;
	struct py_node *s;
	if (pp_name(p, "pass") || pp_name(p, "break") || pp_name(p, "continue")) {
		s = pp_node(p, pp_name(p, "pass") ? PY_PASS : pp_name(p, "break") ? PY_BREAK
										   : PY_CONTINUE,
			    p->i);
		p->i++;
	} else if (pp_name(p, "return")) {
		s = pp_node(p, PY_RETURN, p->i++);
		pp_add(p, s, end_of_simple(p) ? NULL : pp_exprlist(p, true));
	} else if (pp_name(p, "raise")) {
		s = pp_node(p, PY_RAISE, p->i++);
		pp_add(p, s, end_of_simple(p) ? NULL : pp_expr(p));
		if (!p->failed && pp_name(p, "from")) {
			p->i++;
			pp_add(p, s, pp_expr(p));
		} else {
			pp_add(p, s, NULL);
		}
	} else if (pp_name(p, "global") || pp_name(p, "nonlocal")) {
		s = pp_node(p, PY_GLOBAL, p->i++);
		do {
			const struct pytok *t = pp_tok(p, p->i);
			if (t->kind != PYT_NAME) {
				pp_fail(p, p->i, TP_EXIT_USAGE, "expected a name");
				break;
			}
			struct py_node *n = pp_node(p, PY_NAME, p->i++);
			n->s = t->s;
			n->n = t->n;
			pp_add(p, s, pp_end(p, n));
		} while (pp_accept_op(p, ","));
	} else if (pp_name(p, "del")) {
		s = pp_node(p, PY_DEL, p->i++);
		pp_add(p, s, pp_exprlist(p, false));
	} else if (pp_name(p, "assert")) {
		s = pp_node(p, PY_ASSERT, p->i++);
		pp_add(p, s, pp_expr(p));
		pp_add(p, s, pp_accept_op(p, ",") ? pp_expr(p) : NULL);
	} else if (pp_name(p, "import")) {
		s = import_stmt(p);
	} else if (pp_name(p, "from")) {
		s = from_stmt(p);
	} else {
		s = expr_stmt(p);
	}
	s->tb = at;
	return pp_end(p, s);
}

static void simple_line(struct pp *p, struct py_node *into)
{
	for (;;) {
		pp_add(p, into, simple(p));
		if (p->failed)
			return;
		if (!pp_accept_op(p, ";"))
			break;
		if (pp_kind(p, PYT_NEWLINE) || pp_kind(p, PYT_END))
			break;
	}
	if (pp_kind(p, PYT_NEWLINE))
		p->i++;
	else if (!pp_kind(p, PYT_END))
		pp_fail(p, p->i, TP_EXIT_USAGE, "expected the end of the statement");
}

/* ':' then an indented block or simple statements on the same line. */
static struct py_node *block(struct pp *p)
{
	struct py_node *b = pp_node(p, PY_BLOCK, p->i);
	if (!pp_expect_op(p, ":", "':'"))
		return b;
	if (++p->depth > PY_MAX_DEPTH) {
		pp_fail(p, p->i, TP_EXIT_USAGE, "blocks nested too deeply");
		return b;
	}
	if (!pp_kind(p, PYT_NEWLINE)) {
		simple_line(p, b);
	} else {
		p->i++;
		if (!pp_kind(p, PYT_INDENT)) {
			pp_fail(p, p->i, TP_EXIT_USAGE, "expected an indented block");
		} else {
			p->i++;
			while (!p->failed && !pp_kind(p, PYT_DEDENT) && !pp_kind(p, PYT_END))
				statement(p, b);
			if (pp_kind(p, PYT_DEDENT))
				p->i++;
		}
	}
	p->depth--;
	return pp_end(p, b);
}

static struct py_node *if_stmt(struct pp *p)
{
	struct py_node *s = pp_node(p, PY_IF, p->i++); /* if / elif */
	pp_add(p, s, pp_expr(p));
	pp_add(p, s, block(p));
	if (!p->failed && pp_name(p, "elif")) {
		struct py_node *b = pp_node(p, PY_BLOCK, p->i);
		pp_add(p, b, if_stmt(p));
		pp_add(p, s, pp_end(p, b));
	} else if (!p->failed && pp_name(p, "else")) {
		p->i++;
		pp_add(p, s, block(p));
	} else {
		pp_add(p, s, NULL);
	}
	return pp_end(p, s);
}

static struct py_node *opt_else(struct pp *p)
{
	if (p->failed || !pp_name(p, "else"))
		return NULL;
	p->i++;
	return block(p);
}

static struct py_node *def_stmt(struct pp *p, struct py_node *decorators, size_t at, bool is_async)
{
	struct py_node *s = pp_node(p, PY_DEF, at);
	s->is_async = is_async;
	p->i++; /* def */
	const struct pytok *t = pp_tok(p, p->i);
	if (t->kind != PYT_NAME || pp_is_keyword(t)) {
		pp_fail(p, p->i, TP_EXIT_USAGE, "expected a function name");
		return s;
	}
	s->s = t->s;
	s->n = t->n;
	p->i++;
	pp_add(p, s, decorators);
	if (!pp_expect_op(p, "(", "'(' after the function name"))
		return s;
	pp_add(p, s, pp_params(p, ")", true));
	pp_expect_op(p, ")", "')' after the parameters");
	pp_add(p, s, pp_accept_op(p, "->") ? pp_expr(p) : NULL);
	pp_add(p, s, block(p));
	return pp_end(p, s);
}

static struct py_node *class_stmt(struct pp *p, struct py_node *decorators, size_t at)
{
	struct py_node *s = pp_node(p, PY_CLASS, at);
	p->i++;
	const struct pytok *t = pp_tok(p, p->i);
	if (t->kind != PYT_NAME || pp_is_keyword(t)) {
		pp_fail(p, p->i, TP_EXIT_USAGE, "expected a class name");
		return s;
	}
	s->s = t->s;
	s->n = t->n;
	p->i++;
	pp_add(p, s, decorators);
	struct py_node *bases = pp_node(p, PY_TUPLE, p->i);
	if (pp_accept_op(p, "(")) {
		while (!p->failed && !pp_op(p, ")")) {
			size_t kat = p->i;
			if (pp_kind(p, PYT_NAME) && pp_op_at(p, p->i + 1, "=")) {
				struct py_node *k = pp_node(p, PY_KEYWORD, kat);
				k->s = pp_tok(p, p->i)->s;
				k->n = pp_tok(p, p->i)->n;
				p->i += 2;
				pp_add(p, k, pp_expr(p));
				pp_add(p, bases, pp_end(p, k));
			} else {
				pp_add(p, bases, pp_star_expr(p));
			}
			if (!pp_accept_op(p, ","))
				break;
		}
		pp_expect_op(p, ")", "')' after the bases");
	}
	pp_add(p, s, pp_end(p, bases));
	pp_add(p, s, block(p));
	return pp_end(p, s);
}

static struct py_node *try_stmt(struct pp *p)
{
	struct py_node *s = pp_node(p, PY_TRY, p->i++);
	pp_add(p, s, block(p));
	struct py_node *handlers = pp_node(p, PY_BLOCK, p->i);
	while (!p->failed && pp_name(p, "except")) {
		struct py_node *h = pp_node(p, PY_EXCEPT, p->i++);
		pp_accept_op(p, "*"); /* except* */
		pp_add(p, h, pp_op(p, ":") ? NULL : pp_expr(p));
		if (!p->failed && pp_name(p, "as")) {
			p->i++;
			const struct pytok *t = pp_tok(p, p->i);
			if (t->kind != PYT_NAME) {
				pp_fail(p, p->i, TP_EXIT_USAGE, "expected a name after 'as'");
				break;
			}
			h->s2 = t->s;
			h->n2 = t->n;
			p->i++;
		}
		pp_add(p, h, block(p));
		pp_add(p, handlers, pp_end(p, h));
	}
	pp_add(p, s, opt_else(p));
	if (!p->failed && pp_name(p, "finally")) {
		p->i++;
		pp_add(p, s, block(p));
	} else {
		pp_add(p, s, NULL);
	}
	for (size_t k = 0; k < handlers->nkids; k++)
		pp_add(p, s, handlers->kids[k]);
	if (!p->failed && handlers->nkids == 0 && !s->kids[2])
		pp_fail(p, p->i, TP_EXIT_USAGE, "expected 'except' or 'finally'");
	return pp_end(p, s);
}

static struct py_node *with_stmt(struct pp *p, size_t at, bool is_async)
{
	struct py_node *s = pp_node(p, PY_WITH, at);
	s->is_async = is_async;
	p->i++;
	struct py_node *items = pp_node(p, PY_BLOCK, p->i);
	bool paren = pp_op(p, "(") && !pp_op_at(p, p->i + 1, ")");
	size_t save = p->i;
	if (paren)
		p->i++;
	do {
		if (paren && pp_op(p, ")"))
			break;
		struct py_node *it = pp_node(p, PY_WITHITEM, p->i);
		pp_add(p, it, pp_expr(p));
		pp_add(p, it, (!p->failed && pp_name(p, "as") && (p->i++, true)) ? pp_target(p)
										  : NULL);
		pp_add(p, items, pp_end(p, it));
	} while (!p->failed && pp_accept_op(p, ","));
	if (paren && !(pp_accept_op(p, ")") && pp_op(p, ":"))) {
		/* `with (a, b) as c:` is one parenthesised expression */
		p->i = save;
		p->failed = false;
		items->nkids = 0;
		struct py_node *it = pp_node(p, PY_WITHITEM, p->i);
		pp_add(p, it, pp_expr(p));
		pp_add(p, it, (!p->failed && pp_name(p, "as") && (p->i++, true)) ? pp_target(p)
										  : NULL);
		pp_add(p, items, pp_end(p, it));
	}
	pp_add(p, s, block(p));
	for (size_t k = 0; k < items->nkids; k++)
		pp_add(p, s, items->kids[k]);
	return pp_end(p, s);
}

/* `match x:` followed by an indented `case`: the soft keyword. */
static bool at_match(const struct pp *p)
{
	if (!pp_name(p, "match"))
		return false;
	const struct pytok *nx = pp_tok(p, p->i + 1);
	if (nx->kind == PYT_NEWLINE || nx->kind == PYT_END ||
	    (nx->kind == PYT_OP && nx->n == 1 && strchr("=.(,:)[", nx->s[0]) && nx->s[0] != '(' &&
	     nx->s[0] != '['))
		return false;
	size_t k = p->i;
	while (k < p->n && p->t[k].kind != PYT_NEWLINE && p->t[k].kind != PYT_END)
		k++;
	return k > 0 && pp_op_at(p, k - 1, ":") && k + 2 < p->n && p->t[k + 1].kind == PYT_INDENT &&
	       tok_is(&p->t[k + 2], PYT_NAME, "case");
}

static void statement(struct pp *p, struct py_node *into)
{
	size_t at = p->i;
	struct py_node *decorators = NULL;
	while (!p->failed && pp_op(p, "@")) {
		if (!decorators)
			decorators = pp_node(p, PY_BLOCK, p->i);
		p->i++;
		pp_add(p, decorators, pp_expr(p));
		if (!pp_kind(p, PYT_NEWLINE)) {
			pp_fail(p, p->i, TP_EXIT_USAGE, "expected a new line after the decorator");
			return;
		}
		p->i++;
	}
	if (p->failed)
		return;
	if (!decorators)
		decorators = pp_node(p, PY_BLOCK, p->i);
	bool is_async = false;
	if (pp_name(p, "async")) {
		is_async = true;
		p->i++;
	}
	struct py_node *s = NULL;
	if (pp_name(p, "def"))
		s = def_stmt(p, decorators, at, is_async);
	else if (decorators->nkids && !is_async && pp_name(p, "class"))
		s = class_stmt(p, decorators, at);
	else if (decorators->nkids)
		pp_fail(p, p->i, TP_EXIT_USAGE, "expected 'def' or 'class' after a decorator");
	else if (pp_name(p, "class"))
		s = class_stmt(p, decorators, at);
	else if (pp_name(p, "for")) {
		s = pp_node(p, PY_FOR, at);
		s->is_async = is_async;
		p->i++;
		pp_add(p, s, pp_target_list(p));
		if (!pp_name(p, "in")) {
			pp_fail(p, p->i, TP_EXIT_USAGE, "expected 'in' in a for statement");
			return;
		}
		p->i++;
		pp_add(p, s, pp_exprlist(p, true));
		pp_add(p, s, block(p));
		pp_add(p, s, opt_else(p));
		pp_end(p, s);
	} else if (pp_name(p, "with"))
		s = with_stmt(p, at, is_async);
	else if (is_async)
		pp_fail(p, p->i, TP_EXIT_USAGE, "expected 'def', 'for' or 'with' after 'async'");
	else if (pp_name(p, "if"))
		s = if_stmt(p);
	else if (pp_name(p, "while")) {
		s = pp_node(p, PY_WHILE, p->i++);
		pp_add(p, s, pp_expr(p));
		pp_add(p, s, block(p));
		pp_add(p, s, opt_else(p));
		pp_end(p, s);
	} else if (pp_name(p, "try"))
		s = try_stmt(p);
	else if (at_match(p))
		pp_fail(p, p->i, TP_EXIT_FAILED, "unsupported: match statement");
	else if (pp_kind(p, PYT_INDENT))
		pp_fail(p, p->i, TP_EXIT_USAGE, "unexpected indent");
	else {
		simple_line(p, into);
		return;
	}
	if (s)
		pp_add(p, into, s);
}

/* ---- the module ---- */

int py_parse(struct py_module *m, const char *path, const char *src, size_t len,
	     struct tp_err *err)
{
	memset(m, 0, sizeof(*m));
	m->path = xstrdup(path);
	/* a NUL inside the text stays part of it: copy by length */
	m->src = xmalloc(len + 1);
	memcpy(m->src, src, len);
	m->src[len] = '\0';
	m->len = len;
	struct tp_err lex = {0};
	int lrc = pytok_scan(m->src, m->len, &m->toks, &lex);
	struct pp p = {m, m->toks.v, m->toks.n, 0, err, false, 0};
	m->body = pp_node(&p, PY_BLOCK, 0);
	if (lrc < 0) {
		tp_err_set(err, TP_EXIT_USAGE, "%s:%s", path, lex.msg);
		return -1;
	}
	while (!p.failed && !pp_kind(&p, PYT_END)) {
		if (pp_kind(&p, PYT_NEWLINE) || pp_kind(&p, PYT_DEDENT)) {
			p.i++;
			continue;
		}
		size_t before = p.i;
		statement(&p, m->body);
		if (!p.failed && p.i == before)
			pp_fail(&p, p.i, TP_EXIT_USAGE, "unexpected token");
	}
	pp_end(&p, m->body);
	return p.failed ? -1 : 0;
}

int py_parse_file(struct py_module *m, const char *path, struct tp_err *err)
{
	size_t len;
	struct tp_err rerr = {0};
	char *src = read_file(path, &len, &rerr);
	if (!src) {
		memset(m, 0, sizeof(*m));
		tp_err_set(err, TP_EXIT_USAGE, "%s", rerr.msg);
		return -1;
	}
	int rc = py_parse(m, path, src, len, err);
	free(src);
	return rc;
}

void py_module_free(struct py_module *m)
{
	struct py_arena *a = m->arena;
	while (a) {
		struct py_arena *next = a->next;
		free(a);
		a = next;
	}
	pytoks_free(&m->toks);
	free(m->src);
	free(m->path);
	memset(m, 0, sizeof(*m));
}
