/* Rust source into the syntax tree of sem_rs.h: a lexer and a recursive
 * descent parser with Rust's operator precedence. */
#include "engine/sem/sem_rs.h"
#include "engine/sem/sem_int.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- lexer ---- */

static void tok(struct rtoks *t, enum rtk kind, const char *s, size_t n, int line)
{
	t->v = xgrow(t->v, &t->cap, t->n + 1, sizeof(*t->v));
	t->v[t->n++] = (struct rtok){kind, s, (uint32_t)n, line};
}

static bool ident_char(int c)
{
	return isalnum(c) || c == '_' || c >= 0x80;
}

void rs_lex(const char *src, size_t len, struct rtoks *t)
{
	static const char *const ops[] = {"..=", "...", "<<=", ">>=", "::", "->", "=>", "==", "!=",
					  "<=",  ">=",  "&&",  "||",  "..", "+=", "-=", "*=", "/=",
					  "%=",  "^=",  "&=",  "|="};
	int line = 1;
	size_t i = 0;
	while (i < len) {
		unsigned char c = (unsigned char)src[i];
		if (c == '\n') {
			line++;
			i++;
		} else if (isspace(c)) {
			i++;
		} else if (c == '/' && i + 1 < len && src[i + 1] == '/') {
			while (i < len && src[i] != '\n')
				i++;
		} else if (c == '/' && i + 1 < len && src[i + 1] == '*') {
			int depth = 0;
			do {
				if (src[i] == '/' && i + 1 < len && src[i + 1] == '*') {
					depth++;
					i += 2;
				} else if (src[i] == '*' && i + 1 < len && src[i + 1] == '/') {
					depth--;
					i += 2;
				} else {
					line += src[i] == '\n';
					i++;
				}
			} while (i < len && depth > 0);
		} else if (c == '"' || (c == 'r' && i + 1 < len && (src[i + 1] == '"' || src[i + 1] == '#')) ||
			   (c == 'b' && i + 1 < len && src[i + 1] == '"') ||
			   (c == 'b' && i + 2 < len && src[i + 1] == 'r' && (src[i + 2] == '"' || src[i + 2] == '#'))) {
			size_t at = i;
			int sline = line, hashes = 0;
			bool raw = false;
			if (c == 'b')
				i++;
			if (i < len && src[i] == 'r') {
				raw = true;
				i++;
				while (i < len && src[i] == '#') {
					hashes++;
					i++;
				}
			}
			if (i >= len || src[i] != '"') {
				/* r#ident */
				i = at + 1;
				tok(t, RT_IDENT, src + at, 1, line);
				continue;
			}
			i++;
			while (i < len) {
				if (src[i] == '\\' && !raw) {
					i += 2;
					continue;
				}
				if (src[i] == '\n')
					line++;
				if (src[i] == '"') {
					int h = 0;
					while (h < hashes && i + 1 + (size_t)h < len && src[i + 1 + h] == '#')
						h++;
					if (h == hashes) {
						i += 1 + (size_t)hashes;
						break;
					}
				}
				i++;
			}
			tok(t, RT_STR, src + at, i - at, sline);
		} else if (c == '\'') {
			size_t at = i++;
			if (i < len && src[i] == '\\') {
				while (i < len && src[i] != '\'' && src[i] != '\n')
					i++;
				if (i < len && src[i] == '\'')
					i++;
				tok(t, RT_CHAR, src + at, i - at, line);
			} else if (i + 1 < len && src[i + 1] == '\'') {
				i += 2;
				tok(t, RT_CHAR, src + at, i - at, line);
			} else {
				while (i < len && ident_char((unsigned char)src[i]))
					i++;
				tok(t, RT_LIFETIME, src + at, i - at, line);
			}
		} else if (ident_char(c) && !isdigit(c)) {
			size_t at = i;
			while (i < len && ident_char((unsigned char)src[i]))
				i++;
			tok(t, RT_IDENT, src + at, i - at, line);
		} else if (isdigit(c)) {
			size_t at = i;
			bool flt = false;
			bool after_dot = t->n && t->v[t->n - 1].kind == RT_PUNCT && t->v[t->n - 1].n == 1 &&
					 t->v[t->n - 1].s[0] == '.';
			if (c == '0' && i + 1 < len && (src[i + 1] == 'x' || src[i + 1] == 'b' || src[i + 1] == 'o')) {
				i += 2;
				while (i < len && (isxdigit((unsigned char)src[i]) || src[i] == '_'))
					i++;
			} else {
				while (i < len && (isdigit((unsigned char)src[i]) || src[i] == '_'))
					i++;
				if (!after_dot && i + 1 < len && src[i] == '.' && isdigit((unsigned char)src[i + 1])) {
					flt = true;
					i++;
					while (i < len && (isdigit((unsigned char)src[i]) || src[i] == '_'))
						i++;
				} else if (!after_dot && i < len && src[i] == '.' &&
					   (i + 1 >= len || (src[i + 1] != '.' && !ident_char((unsigned char)src[i + 1])))) {
					flt = true; /* `1.` */
					i++;
				}
				if (!after_dot && i < len && (src[i] == 'e' || src[i] == 'E') &&
				    (i + 1 < len && (isdigit((unsigned char)src[i + 1]) ||
						     ((src[i + 1] == '-' || src[i + 1] == '+') && i + 2 < len &&
						      isdigit((unsigned char)src[i + 2]))))) {
					flt = true;
					i += 2;
					while (i < len && isdigit((unsigned char)src[i]))
						i++;
				}
			}
			/* the suffix */
			while (i < len && ident_char((unsigned char)src[i]))
				i++;
			size_t n = i - at;
			if (n >= 3 && (memcmp(src + i - 3, "f32", 3) == 0 || memcmp(src + i - 3, "f64", 3) == 0))
				flt = true;
			tok(t, flt ? RT_FLOAT : RT_INT, src + at, n, line);
		} else {
			size_t n = 1;
			for (size_t k = 0; k < TP_ARRAY_LEN(ops); k++) {
				size_t l = strlen(ops[k]);
				if (i + l <= len && memcmp(src + i, ops[k], l) == 0) {
					n = l;
					break;
				}
			}
			tok(t, RT_PUNCT, src + i, n, line);
			i += n;
		}
	}
	tok(t, RT_END, src + len, 0, line);
}

bool rt_is(const struct rtok *t, const char *s)
{
	size_t n = strlen(s);
	return t->kind != RT_END && t->kind != RT_STR && t->kind != RT_CHAR && t->n == n &&
	       memcmp(t->s, s, n) == 0;
}

bool rn_is(const struct rnode *n, const char *s)
{
	return n && n->s && strlen(s) == n->n && memcmp(n->s, s, n->n) == 0;
}

/* ---- parser ---- */

struct rp {
	struct rfile *f;
	const struct rtok *t;
	size_t i, n;
	int depth;
};

static const struct rtok *cur(struct rp *p)
{
	return &p->t[p->i < p->n ? p->i : p->n - 1];
}

static const struct rtok *peek(struct rp *p, size_t k)
{
	return &p->t[p->i + k < p->n ? p->i + k : p->n - 1];
}

static bool at(struct rp *p, const char *s)
{
	return rt_is(cur(p), s);
}

static bool eat(struct rp *p, const char *s)
{
	if (!at(p, s))
		return false;
	p->i++;
	return true;
}

static void fail(struct rp *p, const char *fmt, ...) TP_PRINTF(2, 3);
static void fail(struct rp *p, const char *fmt, ...)
{
	if (p->f->error)
		return;
	va_list ap;
	va_start(ap, fmt);
	char *m = xvasprintf(fmt, ap);
	va_end(ap);
	const struct rtok *t = cur(p);
	p->f->error = xasprintf("%d: %s, found '%.*s'", t->line, m, (int)(t->n > 20 ? 20 : t->n),
				t->kind == RT_END ? "end of file" : t->s);
	if (t->kind == RT_END)
		free(p->f->error), p->f->error = xasprintf("%d: %s, found the end of the file", t->line, m);
	p->f->error_line = t->line;
	free(m);
	p->i = p->n - 1; /* stop */
}

static void expect(struct rp *p, const char *s)
{
	if (!eat(p, s))
		fail(p, "expected '%s'", s);
}

static struct rnode *mk(struct rp *p, enum rn kind, int line)
{
	struct rnode *n = sa_alloc(p->f->arena, sizeof(*n));
	n->kind = kind;
	n->line = line;
	return n;
}

static void add(struct rp *p, struct rnode *n, struct rnode *k)
{
	struct rnode **v = sa_alloc(p->f->arena, (n->nkids + 1) * sizeof(*v));
	if (n->nkids)
		memcpy(v, n->kids, n->nkids * sizeof(*v));
	v[n->nkids++] = k;
	n->kids = v;
}

/* Skip a balanced group starting at the current bracket. */
static void skip_group(struct rp *p)
{
	int d = 0;
	do {
		const struct rtok *t = cur(p);
		if (t->kind == RT_END)
			return;
		if (t->kind == RT_PUNCT && (t->s[0] == '(' || t->s[0] == '[' || t->s[0] == '{'))
			d++;
		else if (t->kind == RT_PUNCT && (t->s[0] == ')' || t->s[0] == ']' || t->s[0] == '}'))
			d--;
		p->i++;
	} while (d > 0);
}

static struct rnode *expr(struct rp *p);
static struct rnode *expr_bp(struct rp *p, int min);
static struct rnode *block(struct rp *p);
static struct rnode *type(struct rp *p);
static struct rnode *pattern(struct rp *p);

/* Generic arguments `<...>` (the `<` current): types and const exprs. */
static struct rnode *generic_args(struct rp *p)
{
	struct rnode *g = mk(p, RN_TYPE, cur(p)->line);
	expect(p, "<");
	while (!p->f->error && !at(p, ">") && cur(p)->kind != RT_END) {
		if (at(p, "{")) {
			add(p, g, block(p));
		} else if (cur(p)->kind == RT_INT || cur(p)->kind == RT_FLOAT || at(p, "-") || at(p, "[")) {
			add(p, g, expr_bp(p, 100));
		} else {
			add(p, g, type(p));
		}
		if (!eat(p, ","))
			break;
	}
	expect(p, ">");
	return g;
}

static struct rnode *type(struct rp *p)
{
	struct rnode *t = mk(p, RN_TYPE, cur(p)->line);
	if (++p->depth > 200) {
		fail(p, "nesting too deep");
		return t;
	}
	if (eat(p, "&")) {
		t->op = '&';
		eat(p, "mut");
		if (cur(p)->kind == RT_LIFETIME)
			p->i++;
		add(p, t, type(p));
	} else if (eat(p, "*")) {
		t->op = '*';
		if (!eat(p, "mut"))
			eat(p, "const");
		add(p, t, type(p));
	} else if (eat(p, "(")) {
		t->op = '(';
		while (!p->f->error && !at(p, ")")) {
			add(p, t, type(p));
			if (!eat(p, ","))
				break;
		}
		expect(p, ")");
	} else if (eat(p, "[")) {
		t->op = '[';
		add(p, t, type(p));
		if (eat(p, ";"))
			add(p, t, expr(p));
		expect(p, "]");
	} else if (at(p, "{")) {
		p->depth--;
		return block(p);
	} else if (cur(p)->kind == RT_IDENT || at(p, "::")) {
		eat(p, "::");
		while (cur(p)->kind == RT_IDENT) {
			t->s = cur(p)->s;
			t->n = cur(p)->n;
			p->i++;
			if (at(p, "<")) {
				struct rnode *g = generic_args(p);
				t->kids = g->kids;
				t->nkids = g->nkids;
			}
			if (!eat(p, "::"))
				break;
		}
	} else if (eat(p, "_")) {
		t->s = "_";
		t->n = 1;
	} else {
		fail(p, "expected a type");
	}
	p->depth--;
	return t;
}

static struct rnode *pattern(struct rp *p)
{
	int line = cur(p)->line;
	if (eat(p, "(")) {
		struct rnode *n = mk(p, RN_PTUPLE, line);
		while (!p->f->error && !at(p, ")")) {
			add(p, n, pattern(p));
			if (!eat(p, ","))
				break;
		}
		expect(p, ")");
		return n;
	}
	if (eat(p, "_"))
		return mk(p, RN_PWILD, line);
	eat(p, "ref");
	struct rnode *n = mk(p, RN_PIDENT, line);
	if (eat(p, "mut"))
		n->flag = true;
	if (cur(p)->kind != RT_IDENT) {
		fail(p, "expected a pattern");
		return n;
	}
	n->s = cur(p)->s;
	n->n = cur(p)->n;
	p->i++;
	return n;
}

/* Arguments `(a, b, ...)` into n (the `(` current). */
static void call_args(struct rp *p, struct rnode *n, const char *open, const char *close)
{
	expect(p, open);
	while (!p->f->error && !at(p, close) && cur(p)->kind != RT_END) {
		add(p, n, expr(p));
		if (!eat(p, ","))
			break;
	}
	expect(p, close);
}

static struct rnode *number(struct rp *p)
{
	const struct rtok *t = cur(p);
	struct rnode *n = mk(p, t->kind == RT_FLOAT ? RN_FLOAT : RN_INT, t->line);
	char buf[80];
	size_t k = 0;
	size_t end = t->n;
	/* the suffix */
	size_t sfx = end;
	for (size_t q = 0; q < t->n; q++)
		if ((t->s[q] == 'i' || t->s[q] == 'u' || t->s[q] == 'f') &&
		    !(t->n > 1 && t->s[0] == '0' && (t->s[1] == 'x' || t->s[1] == 'b'))) {
			sfx = q;
			break;
		}
	for (size_t q = 0; q < sfx && k < sizeof(buf) - 1; q++)
		if (t->s[q] != '_')
			buf[k++] = t->s[q];
	buf[k] = '\0';
	if (sfx < end) {
		n->s = t->s + sfx;
		n->n = (uint32_t)(end - sfx);
	}
	if (n->kind == RN_FLOAT)
		n->fval = strtod(buf, NULL);
	else
		n->ival = strtoll(buf, NULL, 0);
	p->i++;
	return n;
}

static struct rnode *primary(struct rp *p)
{
	const struct rtok *t = cur(p);
	int line = t->line;
	if (t->kind == RT_INT || t->kind == RT_FLOAT)
		return number(p);
	if (t->kind == RT_STR || t->kind == RT_CHAR) {
		p->i++;
		return mk(p, RN_STR, line);
	}
	if (eat(p, "true") || eat(p, "false")) {
		struct rnode *n = mk(p, RN_BOOL, line);
		n->ival = rt_is(t, "true");
		return n;
	}
	if (at(p, "(")) {
		p->i++;
		if (eat(p, ")"))
			return mk(p, RN_TUPLE, line);
		struct rnode *e = expr(p);
		if (eat(p, ")"))
			return e;
		struct rnode *tu = mk(p, RN_TUPLE, line);
		add(p, tu, e);
		while (eat(p, ",") && !at(p, ")"))
			add(p, tu, expr(p));
		expect(p, ")");
		return tu;
	}
	if (at(p, "[")) {
		p->i++;
		struct rnode *a = mk(p, RN_ARRAY, line);
		if (eat(p, "]"))
			return a;
		struct rnode *e = expr(p);
		if (eat(p, ";")) {
			struct rnode *r = mk(p, RN_REPEAT, line);
			add(p, r, e);
			add(p, r, expr(p));
			expect(p, "]");
			return r;
		}
		add(p, a, e);
		while (eat(p, ",") && !at(p, "]"))
			add(p, a, expr(p));
		expect(p, "]");
		return a;
	}
	if (at(p, "{") || at(p, "unsafe")) {
		eat(p, "unsafe");
		return block(p);
	}
	if (at(p, "if")) {
		p->i++;
		struct rnode *n = mk(p, RN_IF, line);
		if (at(p, "let")) {
			n->kind = RN_OTHER;
			n->s = "if let";
			n->n = 6;
			while (!at(p, "{") && cur(p)->kind != RT_END)
				p->i++;
			skip_group(p);
			if (eat(p, "else"))
				skip_group(p);
			return n;
		}
		add(p, n, expr_bp(p, 1));
		add(p, n, block(p));
		if (eat(p, "else"))
			add(p, n, at(p, "if") ? primary(p) : block(p));
		else
			add(p, n, NULL);
		return n;
	}
	if (eat(p, "for")) {
		struct rnode *n = mk(p, RN_FOR, line);
		add(p, n, pattern(p));
		expect(p, "in");
		add(p, n, expr_bp(p, 1));
		add(p, n, block(p));
		return n;
	}
	if (eat(p, "while")) {
		struct rnode *n = mk(p, RN_WHILE, line);
		add(p, n, expr_bp(p, 1));
		add(p, n, block(p));
		return n;
	}
	if (eat(p, "loop")) {
		struct rnode *n = mk(p, RN_LOOP, line);
		add(p, n, block(p));
		return n;
	}
	if (at(p, "match")) {
		struct rnode *n = mk(p, RN_OTHER, line);
		n->s = "match";
		n->n = 5;
		p->i++;
		while (!at(p, "{") && cur(p)->kind != RT_END)
			p->i++;
		skip_group(p);
		return n;
	}
	if (at(p, "|") || at(p, "||") || at(p, "move")) {
		eat(p, "move");
		struct rnode *n = mk(p, RN_CLOSURE, line);
		struct rnode *ps = mk(p, RN_TUPLE, line);
		if (!eat(p, "||")) {
			expect(p, "|");
			while (!p->f->error && !at(p, "|")) {
				add(p, ps, pattern(p));
				if (eat(p, ":"))
					type(p);
				if (!eat(p, ","))
					break;
			}
			expect(p, "|");
		}
		add(p, n, ps);
		add(p, n, expr(p));
		return n;
	}
	if (t->kind == RT_IDENT || at(p, "::")) {
		struct rnode *n = mk(p, RN_PATH, line);
		eat(p, "::");
		for (;;) {
			if (cur(p)->kind != RT_IDENT) {
				fail(p, "expected a name");
				return n;
			}
			n->s = cur(p)->s;
			n->n = cur(p)->n;
			p->i++;
			/* a macro */
			if (at(p, "!") && (rt_is(peek(p, 1), "(") || rt_is(peek(p, 1), "[") || rt_is(peek(p, 1), "{"))) {
				p->i++;
				struct rnode *m = mk(p, RN_MACRO, line);
				m->s = n->s;
				m->n = n->n;
				const char *o = cur(p)->s[0] == '(' ? "(" : cur(p)->s[0] == '[' ? "[" : "{";
				const char *c = o[0] == '(' ? ")" : o[0] == '[' ? "]" : "}";
				size_t save = p->i;
				char *err = p->f->error;
				call_args(p, m, o, c);
				if (p->f->error && !err) {
					/* not expressions (format strings, macro_rules): skip */
					free(p->f->error);
					p->f->error = NULL;
					p->i = save;
					skip_group(p);
					m->nkids = 0;
				}
				return m;
			}
			if (at(p, "::") && rt_is(peek(p, 1), "<")) {
				p->i++;
				n->gen = generic_args(p);
				if (!eat(p, "::"))
					break;
				continue;
			}
			if (!eat(p, "::"))
				break;
		}
		/* a struct literal (`Shape::<{ [-1] }> { dims: &[n] }`): a field
		 * name and a colon after the brace, where a block has a statement */
		if (at(p, "{") && peek(p, 1)->kind == RT_IDENT && rt_is(peek(p, 2), ":")) {
			struct rnode *o = mk(p, RN_OTHER, line);
			o->s = "struct literal";
			o->n = 14;
			skip_group(p);
			return o;
		}
		return n;
	}
	fail(p, "expected an expression");
	return mk(p, RN_OTHER, line);
}

static struct rnode *postfix(struct rp *p)
{
	struct rnode *e = primary(p);
	for (;;) {
		int line = cur(p)->line;
		if (at(p, "(")) {
			struct rnode *c = mk(p, RN_CALL, line);
			add(p, c, e);
			call_args(p, c, "(", ")");
			e = c;
		} else if (at(p, "[")) {
			struct rnode *x = mk(p, RN_INDEX, line);
			p->i++;
			add(p, x, e);
			add(p, x, expr(p));
			expect(p, "]");
			e = x;
		} else if (at(p, ".")) {
			p->i++;
			const struct rtok *t = cur(p);
			if (t->kind == RT_INT) {
				struct rnode *f = mk(p, RN_FIELD, line);
				f->s = t->s;
				f->n = t->n;
				p->i++;
				add(p, f, e);
				e = f;
				continue;
			}
			if (t->kind != RT_IDENT) {
				fail(p, "expected a field or method");
				return e;
			}
			p->i++;
			struct rnode *gen = NULL;
			if (at(p, "::") && rt_is(peek(p, 1), "<")) {
				p->i++;
				gen = generic_args(p);
			}
			if (at(p, "(")) {
				struct rnode *m = mk(p, RN_METHOD, line);
				m->s = t->s;
				m->n = t->n;
				m->gen = gen;
				add(p, m, e);
				call_args(p, m, "(", ")");
				e = m;
			} else {
				struct rnode *f = mk(p, RN_FIELD, line);
				f->s = t->s;
				f->n = t->n;
				add(p, f, e);
				e = f;
			}
		} else if (at(p, "?")) {
			p->i++;
		} else {
			return e;
		}
	}
}

static struct rnode *unary(struct rp *p)
{
	int line = cur(p)->line;
	int op = 0;
	if (at(p, "-"))
		op = '-';
	else if (at(p, "!"))
		op = '!';
	else if (at(p, "*"))
		op = '*';
	else if (at(p, "&") || at(p, "&&"))
		op = '&';
	if (!op)
		return postfix(p);
	bool dbl = at(p, "&&");
	p->i++;
	if (op == '&' && eat(p, "mut"))
		op = 'm';
	struct rnode *n = mk(p, RN_UNARY, line);
	n->op = op;
	if (++p->depth > 200) {
		fail(p, "nesting too deep");
		return n;
	}
	add(p, n, unary(p));
	p->depth--;
	if (dbl) {
		struct rnode *o = mk(p, RN_UNARY, line);
		o->op = '&';
		add(p, o, n);
		return o;
	}
	return n;
}

/* Binary operators: token, op code, binding power. */
static int binop(struct rp *p, int *op, int *width)
{
	const struct rtok *t = cur(p), *u = peek(p, 1);
	*width = 1;
	bool adj = u->kind == RT_PUNCT && u->s == t->s + 1;
	if (rt_is(t, "||")) return *op = RB_LOR, 3;
	if (rt_is(t, "&&")) return *op = RB_LAND, 4;
	if (rt_is(t, "==")) return *op = RB_EQ, 5;
	if (rt_is(t, "!=")) return *op = RB_NE, 5;
	if (rt_is(t, "<=")) return *op = RB_LE, 5;
	if (rt_is(t, ">=")) return *op = RB_GE, 5;
	if (rt_is(t, "<") && adj && rt_is(u, "<")) return *width = 2, *op = RB_SHL, 9;
	if (rt_is(t, ">") && adj && rt_is(u, ">")) return *width = 2, *op = RB_SHR, 9;
	if (rt_is(t, "<")) return *op = RB_LT, 5;
	if (rt_is(t, ">")) return *op = RB_GT, 5;
	if (rt_is(t, "|")) return *op = RB_OR, 6;
	if (rt_is(t, "^")) return *op = RB_XOR, 7;
	if (rt_is(t, "&")) return *op = RB_AND, 8;
	if (rt_is(t, "+")) return *op = RB_ADD, 10;
	if (rt_is(t, "-")) return *op = RB_SUB, 10;
	if (rt_is(t, "*")) return *op = RB_MUL, 11;
	if (rt_is(t, "/")) return *op = RB_DIV, 11;
	if (rt_is(t, "%")) return *op = RB_REM, 11;
	return 0;
}

static struct rnode *expr_bp(struct rp *p, int min)
{
	struct rnode *lhs;
	int line = cur(p)->line;
	/* a range with no start */
	if (at(p, "..") || at(p, "..=")) {
		bool incl = at(p, "..=");
		p->i++;
		lhs = mk(p, RN_RANGE, line);
		lhs->op = incl ? '=' : 0;
		add(p, lhs, NULL);
		add(p, lhs, at(p, ")") || at(p, "]") || at(p, "{") || at(p, ",") ? NULL : expr_bp(p, 3));
		return lhs;
	}
	lhs = unary(p);
	for (;;) {
		if (p->f->error)
			return lhs;
		if (at(p, "as") && min <= 12) {
			p->i++;
			struct rnode *c = mk(p, RN_CAST, cur(p)->line);
			add(p, c, lhs);
			add(p, c, type(p));
			lhs = c;
			continue;
		}
		if ((at(p, "..") || at(p, "..=")) && min <= 2) {
			bool incl = at(p, "..=");
			p->i++;
			struct rnode *r = mk(p, RN_RANGE, line);
			r->op = incl ? '=' : 0;
			add(p, r, lhs);
			bool end = at(p, ")") || at(p, "]") || at(p, "{") || at(p, ",") || at(p, ";");
			add(p, r, end ? NULL : expr_bp(p, 3));
			lhs = r;
			continue;
		}
		int op, width;
		int bp = binop(p, &op, &width);
		if (!bp || bp < min)
			return lhs;
		p->i += (size_t)width;
		struct rnode *b = mk(p, RN_BINARY, line);
		b->op = op;
		add(p, b, lhs);
		if (++p->depth > 200) {
			fail(p, "nesting too deep");
			return b;
		}
		add(p, b, expr_bp(p, bp + 1));
		p->depth--;
		lhs = b;
	}
}

static struct rnode *expr(struct rp *p)
{
	return expr_bp(p, 1);
}

static bool block_like(const struct rnode *e)
{
	return e && (e->kind == RN_BLOCK || e->kind == RN_IF || e->kind == RN_FOR ||
		     e->kind == RN_WHILE || e->kind == RN_LOOP || (e->kind == RN_OTHER && e->s && e->s[0] == 'm'));
}

static void skip_item(struct rp *p)
{
	/* to the end of the item: a `;` or a balanced `{}` at depth 0 */
	while (cur(p)->kind != RT_END) {
		if (at(p, ";")) {
			p->i++;
			return;
		}
		if (at(p, "{")) {
			skip_group(p);
			return;
		}
		if (at(p, "(") || at(p, "["))
			skip_group(p);
		else
			p->i++;
	}
}

static struct rnode *statement(struct rp *p, bool *tail)
{
	int line = cur(p)->line;
	*tail = false;
	if (at(p, "#")) {
		/* an attribute on a statement */
		p->i++;
		skip_group(p);
		return NULL;
	}
	if (at(p, "use") || at(p, "fn") || at(p, "const") || at(p, "struct") || at(p, "impl") ||
	    at(p, "macro_rules") || (at(p, "pub") && !rt_is(peek(p, 1), "("))) {
		struct rnode *n = mk(p, RN_ITEM, line);
		skip_item(p);
		return n;
	}
	if (eat(p, "let")) {
		struct rnode *n = mk(p, RN_LET, line);
		add(p, n, pattern(p));
		add(p, n, eat(p, ":") ? type(p) : NULL);
		add(p, n, eat(p, "=") ? expr(p) : NULL);
		if (eat(p, "else"))
			skip_group(p);
		expect(p, ";");
		return n;
	}
	struct rnode *e = expr(p);
	static const struct {
		const char *tok;
		int op;
	} assigns[] = {{"=", '='},  {"+=", '+'}, {"-=", '-'}, {"*=", '*'}, {"/=", '/'},
		       {"%=", '%'}, {"&=", '&'}, {"|=", '|'}, {"^=", '^'}};
	for (size_t k = 0; k < TP_ARRAY_LEN(assigns); k++)
		if (at(p, assigns[k].tok)) {
			p->i++;
			struct rnode *a = mk(p, RN_ASSIGN, line);
			a->op = assigns[k].op;
			add(p, a, e);
			add(p, a, expr(p));
			expect(p, ";");
			return a;
		}
	struct rnode *s = mk(p, RN_EXPR, line);
	add(p, s, e);
	if (eat(p, ";")) {
		s->flag = true;
	} else if (!at(p, "}")) {
		if (!block_like(e))
			fail(p, "expected ';'");
	} else {
		*tail = true;
	}
	return s;
}

static struct rnode *block(struct rp *p)
{
	struct rnode *b = mk(p, RN_BLOCK, cur(p)->line);
	expect(p, "{");
	if (++p->depth > 200) {
		fail(p, "nesting too deep");
		return b;
	}
	bool tail = false;
	while (!p->f->error && !at(p, "}") && cur(p)->kind != RT_END) {
		if (eat(p, ";"))
			continue;
		struct rnode *s = statement(p, &tail);
		if (s)
			add(p, b, s);
	}
	b->flag = tail;
	expect(p, "}");
	p->depth--;
	return b;
}

/* ---- items ---- */

static void fn_generics(struct rp *p, struct rfn *fn)
{
	if (!eat(p, "<"))
		return;
	size_t cap = 0;
	while (!p->f->error && !at(p, ">") && cur(p)->kind != RT_END) {
		struct rgeneric gen = {0};
		if (cur(p)->kind == RT_LIFETIME) {
			p->i++;
			if (eat(p, ":"))
				while (!at(p, ",") && !at(p, ">") && cur(p)->kind != RT_END)
					p->i++;
		} else {
			gen.is_const = eat(p, "const");
			if (cur(p)->kind != RT_IDENT) {
				fail(p, "expected a generic parameter");
				return;
			}
			gen.name = cur(p)->s;
			gen.n = cur(p)->n;
			p->i++;
			if (eat(p, ":")) {
				if (gen.is_const) {
					gen.type = type(p);
				} else {
					/* bounds */
					int d = 0;
					while (cur(p)->kind != RT_END && (d > 0 || (!at(p, ",") && !at(p, ">")))) {
						if (at(p, "<"))
							d++;
						else if (at(p, ">"))
							d--;
						p->i++;
					}
				}
			}
			if (eat(p, "="))
				expr_bp(p, 6);
			fn->generics = xgrow(fn->generics, &cap, fn->ngenerics + 1, sizeof(*fn->generics));
			fn->generics[fn->ngenerics++] = gen;
		}
		if (!eat(p, ","))
			break;
	}
	expect(p, ">");
}

static void fn_params(struct rp *p, struct rfn *fn)
{
	expect(p, "(");
	size_t cap = 0;
	while (!p->f->error && !at(p, ")") && cur(p)->kind != RT_END) {
		if (at(p, "&") || at(p, "self") || at(p, "mut")) {
			/* self parameters */
			while (!at(p, ",") && !at(p, ")") && cur(p)->kind != RT_END)
				p->i++;
		} else {
			struct rparam pm = {0};
			pm.line = cur(p)->line;
			struct rnode *pat = pattern(p);
			pm.name = pat->s;
			pm.n = pat->n;
			expect(p, ":");
			pm.type = type(p);
			fn->params = xgrow(fn->params, &cap, fn->nparams + 1, sizeof(*fn->params));
			fn->params[fn->nparams++] = pm;
		}
		if (!eat(p, ","))
			break;
	}
	expect(p, ")");
}

static void items(struct rp *p, size_t *cap)
{
	const struct rtok *attr = NULL;
	size_t nattr = 0;
	bool entry = false;
	while (!p->f->error && cur(p)->kind != RT_END && !at(p, "}")) {
		if (at(p, "#")) {
			p->i++;
			eat(p, "!");
			size_t start = p->i;
			if (rt_is(peek(p, 1), "cutile") && rt_is(peek(p, 2), "::") && rt_is(peek(p, 3), "entry")) {
				entry = true;
				attr = &p->t[start];
			}
			skip_group(p);
			if (entry && attr == &p->t[start])
				nattr = p->i - start;
			continue;
		}
		if (eat(p, "pub")) {
			if (at(p, "("))
				skip_group(p);
			continue;
		}
		if (eat(p, "unsafe") || eat(p, "extern") || eat(p, "async") ||
		    (at(p, "const") && rt_is(peek(p, 1), "fn") && (p->i++, true)))
			continue;
		if (cur(p)->kind == RT_STR) { /* extern "C" */
			p->i++;
			continue;
		}
		if (eat(p, "mod")) {
			if (cur(p)->kind == RT_IDENT)
				p->i++;
			if (eat(p, "{")) {
				items(p, cap);
				expect(p, "}");
			} else {
				eat(p, ";");
			}
			entry = false;
			continue;
		}
		if (eat(p, "fn")) {
			struct rfn fn = {0};
			fn.line = cur(p)->line;
			fn.entry = entry;
			fn.attr = attr;
			fn.nattr = nattr;
			entry = false;
			attr = NULL;
			nattr = 0;
			if (cur(p)->kind != RT_IDENT) {
				fail(p, "expected a function name");
				return;
			}
			fn.name = cur(p)->s;
			fn.n = cur(p)->n;
			p->i++;
			fn_generics(p, &fn);
			fn_params(p, &fn);
			if (eat(p, "->"))
				type(p);
			if (eat(p, "where"))
				while (!at(p, "{") && cur(p)->kind != RT_END)
					p->i++;
			if (eat(p, ";")) {
				free(fn.generics);
				free(fn.params);
				continue;
			}
			fn.body = block(p);
			fn.end_line = p->t[p->i ? p->i - 1 : 0].line;
			p->f->fns = xgrow(p->f->fns, cap, p->f->nfns + 1, sizeof(*p->f->fns));
			p->f->fns[p->f->nfns++] = fn;
			continue;
		}
		if (eat(p, "impl") || eat(p, "trait")) {
			while (!at(p, "{") && cur(p)->kind != RT_END)
				p->i++;
			skip_group(p);
			entry = false;
			continue;
		}
		/* use, const, static, struct, enum, type, macro_rules ... */
		entry = false;
		skip_item(p);
	}
}

void rs_parse(struct rfile *f, const char *src, size_t len)
{
	memset(f, 0, sizeof(*f));
	f->arena = sarena_new();
	rs_lex(src, len, &f->toks);
	struct rp p = {.f = f, .t = f->toks.v, .n = f->toks.n};
	size_t cap = 0;
	while (!f->error && cur(&p)->kind != RT_END) {
		items(&p, &cap);
		if (at(&p, "}"))
			p.i++; /* a stray closer */
	}
}

void rs_file_free(struct rfile *f)
{
	for (size_t i = 0; i < f->nfns; i++) {
		free(f->fns[i].generics);
		free(f->fns[i].params);
	}
	free(f->fns);
	free(f->toks.v);
	free(f->error);
	sarena_free(f->arena);
	memset(f, 0, sizeof(*f));
}
