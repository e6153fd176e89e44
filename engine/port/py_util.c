/* Questions asked of the syntax tree everywhere in engine/port: names and
 * dotted names, literal values, call arguments, source text. */
#include "engine/port/py.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool py_is_name(const struct py_node *n, const char *name)
{
	return n && n->kind == PY_NAME && n->n == strlen(name) && memcmp(n->s, name, n->n) == 0;
}

static bool dotted_into(const struct py_node *n, struct sbuf *sb)
{
	if (!n)
		return false;
	if (n->kind == PY_NAME) {
		sb_add(sb, n->s, n->n);
		return true;
	}
	if (n->kind != PY_ATTR || !dotted_into(n->kids[0], sb))
		return false;
	sb_addc(sb, '.');
	sb_add(sb, n->s, n->n);
	return true;
}

char *py_dotted(const struct py_node *n)
{
	struct sbuf sb = SBUF_INIT;
	if (!dotted_into(n, &sb)) {
		sb_free(&sb);
		return NULL;
	}
	return sb_detach(&sb);
}

bool py_is_dotted(const struct py_node *n, const char *dotted)
{
	const char *dot = strrchr(dotted, '.');
	if (!dot)
		return py_is_name(n, dotted);
	if (!n || n->kind != PY_ATTR)
		return false;
	size_t al = strlen(dot + 1);
	if (n->n != al || memcmp(n->s, dot + 1, al) != 0)
		return false;
	char *head = xstrndup(dotted, (size_t)(dot - dotted));
	bool ok = py_is_dotted(n->kids[0], head);
	free(head);
	return ok;
}

char *py_str(const struct py_node *n)
{
	return n && n->s ? xstrndup(n->s, n->n) : xstrdup("");
}

/* The last token of a node that is not layout (NEWLINE, INDENT, DEDENT,
 * END: those a block's tokens end with, positioned at the next line). */
static size_t last_token(const struct py_module *m, const struct py_node *n)
{
	size_t last = n->te > n->tb ? n->te - 1 : n->tb;
	if (last >= m->toks.n)
		last = m->toks.n ? m->toks.n - 1 : 0;
	while (last > n->tb && (m->toks.v[last].kind == PYT_NEWLINE ||
				m->toks.v[last].kind == PYT_INDENT ||
				m->toks.v[last].kind == PYT_DEDENT || m->toks.v[last].kind == PYT_END))
		last--;
	return last;
}

size_t py_node_end(const struct py_module *m, const struct py_node *n)
{
	if (!m->toks.n)
		return 0;
	size_t last = last_token(m, n);
	return (size_t)(m->toks.v[last].s - m->src) + m->toks.v[last].n;
}

int py_end_line(const struct py_module *m, const struct py_node *n)
{
	if (!m->toks.n)
		return n->line;
	size_t last = last_token(m, n);
	const struct pytok *t = &m->toks.v[last];
	int line = t->line;
	for (size_t k = 0; k < t->n; k++)
		line += t->s[k] == '\n';
	return line;
}

char *py_node_text(const struct py_module *m, const struct py_node *n)
{
	if (!m->toks.n || n->tb >= m->toks.n)
		return xstrdup("");
	size_t last = last_token(m, n);
	const char *a = m->toks.v[n->tb].s;
	const char *b = m->toks.v[last].s + m->toks.v[last].n;
	return b > a ? xstrndup(a, (size_t)(b - a)) : xstrdup("");
}

/* One string token's value appended to sb. */
static void str_token(const char *s, size_t n, struct sbuf *sb)
{
	size_t p = 0;
	bool raw = false;
	while (p < n && s[p] != '"' && s[p] != '\'') {
		raw |= s[p] == 'r' || s[p] == 'R';
		p++;
	}
	if (p >= n)
		return;
	char q = s[p];
	size_t qn = (p + 2 < n && s[p + 1] == q && s[p + 2] == q && n - p >= 6) ? 3 : 1;
	if (n < p + 2 * qn)
		return;
	const char *b = s + p + qn, *e = s + n - qn;
	while (b < e) {
		if (*b == '\\' && !raw && b + 1 < e) {
			char c = b[1];
			static const char from[] = "ntr0\\'\"ab";
			static const char to[] = "\n\t\r\0\\'\"\a\b";
			const char *k = strchr(from, c);
			if (c == '\n') {
				b += 2;
				continue;
			}
			if (k && c) {
				sb_addc(sb, to[k - from]);
				b += 2;
				continue;
			}
		}
		sb_addc(sb, *b++);
	}
}

char *py_str_value(const struct py_module *m, const struct py_node *n)
{
	if (!n || n->kind != PY_STR)
		return NULL;
	struct sbuf sb = SBUF_INIT;
	sb_adds(&sb, "");
	for (size_t k = n->tb; k < n->te && k < m->toks.n; k++)
		if (m->toks.v[k].kind == PYT_STRING)
			str_token(m->toks.v[k].s, m->toks.v[k].n, &sb);
	return sb_detach(&sb);
}

static char *digits(const struct py_node *n)
{
	char *d = xmalloc(n->n + 1), *w = d;
	for (size_t k = 0; k < n->n; k++)
		if (n->s[k] != '_')
			*w++ = n->s[k];
	*w = '\0';
	return d;
}

bool py_int_value(const struct py_node *n, long long *v)
{
	if (n && n->kind == PY_UNARY && (n->op == PYOP_NEG || n->op == PYOP_POS) &&
	    py_int_value(n->kids[0], v)) {
		if (n->op == PYOP_NEG)
			*v = -*v;
		return true;
	}
	if (!n || n->kind != PY_NUM)
		return false;
	char *d = digits(n);
	int base = 10;
	const char *s = d;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16, s += 2;
	else if (s[0] == '0' && (s[1] == 'o' || s[1] == 'O'))
		base = 8, s += 2;
	else if (s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
		base = 2, s += 2;
	char *end;
	errno = 0;
	long long r = strtoll(s, &end, base);
	bool ok = *s && *end == '\0' && errno == 0;
	free(d);
	if (ok)
		*v = r;
	return ok;
}

bool py_float_value(const struct py_node *n, double *v)
{
	if (n && n->kind == PY_UNARY && (n->op == PYOP_NEG || n->op == PYOP_POS) &&
	    py_float_value(n->kids[0], v)) {
		if (n->op == PYOP_NEG)
			*v = -*v;
		return true;
	}
	long long i;
	if (py_int_value(n, &i)) {
		*v = (double)i;
		return true;
	}
	if (!n || n->kind != PY_NUM)
		return false;
	char *d = digits(n);
	char *end;
	errno = 0;
	double r = strtod(d, &end);
	bool ok = *d && *end == '\0';
	free(d);
	if (ok)
		*v = r;
	return ok;
}

const struct py_node *py_call_kw(const struct py_node *call, const char *name)
{
	if (!call || call->kind != PY_CALL)
		return NULL;
	size_t nl = strlen(name);
	for (size_t k = 1; k < call->nkids; k++) {
		const struct py_node *a = call->kids[k];
		if (a->kind == PY_KEYWORD && a->n == nl && memcmp(a->s, name, nl) == 0)
			return a->kids[0];
	}
	return NULL;
}

static bool positional(const struct py_node *a)
{
	return a->kind != PY_KEYWORD && a->kind != PY_DSTAR && a->kind != PY_STARRED;
}

size_t py_call_nargs(const struct py_node *call)
{
	size_t n = 0;
	for (size_t k = 1; call && call->kind == PY_CALL && k < call->nkids; k++)
		n += positional(call->kids[k]);
	return n;
}

const struct py_node *py_call_arg(const struct py_node *call, size_t i)
{
	for (size_t k = 1; call && call->kind == PY_CALL && k < call->nkids; k++)
		if (positional(call->kids[k]) && i-- == 0)
			return call->kids[k];
	return NULL;
}

const struct py_node *py_call_param(const struct py_node *call, size_t i, const char *name)
{
	const struct py_node *a = py_call_arg(call, i);
	return a ? a : py_call_kw(call, name);
}

const char *py_op_text(int op)
{
	static const char *const text[] = {
		[PYOP_NONE] = "?",   [PYOP_ADD] = "+",    [PYOP_SUB] = "-",     [PYOP_MUL] = "*",
		[PYOP_MATMUL] = "@", [PYOP_DIV] = "/",    [PYOP_FLOORDIV] = "//", [PYOP_MOD] = "%",
		[PYOP_POW] = "**",   [PYOP_LSHIFT] = "<<", [PYOP_RSHIFT] = ">>", [PYOP_BITAND] = "&",
		[PYOP_BITOR] = "|",  [PYOP_BITXOR] = "^", [PYOP_NEG] = "-",     [PYOP_POS] = "+",
		[PYOP_INVERT] = "~", [PYOP_NOT] = "not",  [PYOP_AND] = "and",   [PYOP_OR] = "or",
		[PYOP_LT] = "<",     [PYOP_LE] = "<=",    [PYOP_GT] = ">",      [PYOP_GE] = ">=",
		[PYOP_EQ] = "==",    [PYOP_NE] = "!=",    [PYOP_IN] = "in",     [PYOP_NOT_IN] = "not in",
		[PYOP_IS] = "is",    [PYOP_IS_NOT] = "is not",
	};
	return op >= 0 && (size_t)op < TP_ARRAY_LEN(text) && text[op] ? text[op] : "?";
}

static const char *const kind_names[] = {
	[PY_NAME] = "name",       [PY_NUM] = "num",         [PY_STR] = "str",
	[PY_CONST] = "const",     [PY_ATTR] = "attr",       [PY_CALL] = "call",
	[PY_KEYWORD] = "kw",      [PY_DSTAR] = "dstar",     [PY_STARRED] = "star",
	[PY_SUBSCRIPT] = "sub",   [PY_SLICE] = "slice",     [PY_TUPLE] = "tuple",
	[PY_LIST] = "list",       [PY_SET] = "set",         [PY_DICT] = "dict",
	[PY_BINOP] = "binop",     [PY_UNARY] = "unary",     [PY_BOOLOP] = "boolop",
	[PY_COMPARE] = "compare", [PY_CMPOP] = "cmpop",     [PY_IFEXP] = "ifexp",
	[PY_LAMBDA] = "lambda",   [PY_COMP] = "comp",       [PY_COMPFOR] = "compfor",
	[PY_NAMED] = "named",     [PY_AWAIT] = "await",     [PY_YIELD] = "yield",
	[PY_EXPR_STMT] = "expr",  [PY_ASSIGN] = "assign",   [PY_AUGASSIGN] = "augassign",
	[PY_ANNASSIGN] = "annassign", [PY_RETURN] = "return", [PY_PASS] = "pass",
	[PY_BREAK] = "break",     [PY_CONTINUE] = "continue", [PY_RAISE] = "raise",
	[PY_DEL] = "del",         [PY_GLOBAL] = "global",   [PY_ASSERT] = "assert",
	[PY_IMPORT] = "import",   [PY_FROM] = "from",       [PY_ALIAS] = "alias",
	[PY_IF] = "if",           [PY_WHILE] = "while",     [PY_FOR] = "for",
	[PY_TRY] = "try",         [PY_EXCEPT] = "except",   [PY_WITH] = "with",
	[PY_WITHITEM] = "withitem", [PY_DEF] = "def",       [PY_CLASS] = "class",
	[PY_PARAMS] = "params",   [PY_PARAM] = "param",     [PY_BLOCK] = "block",
};

static void dump(const struct py_node *n, struct sbuf *sb)
{
	if (!n) {
		sb_adds(sb, "_");
		return;
	}
	sb_printf(sb, "(%s", kind_names[n->kind]);
	if (n->kind == PY_BINOP || n->kind == PY_UNARY || n->kind == PY_BOOLOP ||
	    n->kind == PY_CMPOP || n->kind == PY_AUGASSIGN)
		sb_printf(sb, " %s", py_op_text(n->op));
	if (n->s)
		sb_printf(sb, " %.*s", (int)n->n, n->s);
	if (n->s2)
		sb_printf(sb, " as %.*s", (int)n->n2, n->s2);
	for (size_t k = 0; k < n->nkids; k++) {
		sb_addc(sb, ' ');
		dump(n->kids[k], sb);
	}
	sb_addc(sb, ')');
}

char *py_dump(const struct py_node *n)
{
	struct sbuf sb = SBUF_INIT;
	dump(n, &sb);
	return sb_detach(&sb);
}
