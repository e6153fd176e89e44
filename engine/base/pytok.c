/* The Python tokenizer (engine/base/pytok.h). Errors name the line and
 * column; the token stream always ends with PYT_END, so a consumer can
 * stop at the first error and still walk what came before. */
#include "engine/base/pytok.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define PY_MAX_INDENT 1000

struct lexer {
	const char *src;
	size_t len, i;
	int line;
	size_t line_start;
	int depth; /* bracket nesting */
	int *indents;
	size_t nindent, indent_cap;
	struct pytoks *out;
	bool line_has_tokens;
};

static void emit(struct lexer *lx, enum pytok_kind kind, size_t at, size_t n)
{
	struct pytoks *t = lx->out;
	t->v = xgrow(t->v, &t->cap, t->n + 1, sizeof(*t->v));
	struct pytok *k = &t->v[t->n++];
	k->kind = kind;
	k->s = lx->src + at;
	k->n = n;
	k->line = lx->line;
	k->col = (int)(at >= lx->line_start ? at - lx->line_start : 0) + 1;
	if (kind != PYT_NEWLINE && kind != PYT_INDENT && kind != PYT_DEDENT)
		lx->line_has_tokens = true;
}

static bool name_start(unsigned char c)
{
	return isalpha(c) || c == '_' || c >= 0x80;
}

static bool name_char(unsigned char c)
{
	return isalnum(c) || c == '_' || c >= 0x80;
}

static int fail(struct lexer *lx, struct tp_err *err, size_t at, const char *what)
{
	int col = (int)(at >= lx->line_start ? at - lx->line_start : 0) + 1;
	tp_err_set(err, TP_EXIT_USAGE, "%d:%d: %s", lx->line, col, what);
	return -1;
}

static void newline_at(struct lexer *lx, size_t nl)
{
	lx->line++;
	lx->line_start = nl + 1;
}

/* Indentation of the line starting at lx->i; returns false for blank and
 * comment-only lines (which the caller skips). */
static bool measure_indent(struct lexer *lx, int *col)
{
	int c = 0;
	size_t i = lx->i;
	while (i < lx->len) {
		char ch = lx->src[i];
		if (ch == ' ')
			c++;
		else if (ch == '\t')
			c = (c / 8 + 1) * 8;
		else if (ch == '\f' || ch == '\r')
			;
		else
			break;
		i++;
	}
	lx->i = i;
	*col = c;
	return i < lx->len && lx->src[i] != '\n' && lx->src[i] != '#';
}

static void indent_to(struct lexer *lx, int col)
{
	int top = lx->indents[lx->nindent - 1];
	if (col > top) {
		if (lx->nindent >= PY_MAX_INDENT)
			return; /* absurd nesting: stay flat rather than grow */
		lx->indents = xgrow(lx->indents, &lx->indent_cap, lx->nindent + 1, sizeof(int));
		lx->indents[lx->nindent++] = col;
		emit(lx, PYT_INDENT, lx->i, 0);
		return;
	}
	while (lx->nindent > 1 && col < lx->indents[lx->nindent - 1]) {
		lx->nindent--;
		emit(lx, PYT_DEDENT, lx->i, 0);
	}
	/* an unindent to a column never used: Python rejects it; treat the
	 * line as a new level so scanning can go on */
	if (col > lx->indents[lx->nindent - 1]) {
		lx->indents = xgrow(lx->indents, &lx->indent_cap, lx->nindent + 1, sizeof(int));
		lx->indents[lx->nindent++] = col;
		emit(lx, PYT_INDENT, lx->i, 0);
	}
}

/* Scan a string literal whose prefix starts at `at` and whose quote is at
 * lx->i. */
static int scan_string(struct lexer *lx, size_t at, struct tp_err *err)
{
	const char *s = lx->src;
	char q = s[lx->i];
	bool triple = lx->i + 2 < lx->len && s[lx->i + 1] == q && s[lx->i + 2] == q;
	int start_line = lx->line;
	size_t start_ls = lx->line_start;
	size_t i = lx->i + (triple ? 3 : 1);
	for (;;) {
		if (i >= lx->len) {
			lx->line = start_line;
			lx->line_start = start_ls;
			return fail(lx, err, at, triple ? "unterminated triple-quoted string"
							: "unterminated string");
		}
		char c = s[i];
		if (c == '\\') {
			if (i + 1 < lx->len && s[i + 1] == '\n')
				newline_at(lx, i + 1);
			i += 2;
			continue;
		}
		if (c == '\n') {
			if (!triple) {
				lx->line = start_line;
				lx->line_start = start_ls;
				return fail(lx, err, at, "unterminated string");
			}
			newline_at(lx, i);
			i++;
			continue;
		}
		if (c == q) {
			if (!triple) {
				i++;
				break;
			}
			if (i + 2 < lx->len && s[i + 1] == q && s[i + 2] == q) {
				i += 3;
				break;
			}
		}
		i++;
	}
	/* the token carries the line it started on */
	int end_line = lx->line;
	size_t end_ls = lx->line_start;
	lx->line = start_line;
	lx->line_start = start_ls;
	emit(lx, PYT_STRING, at, i - at);
	lx->line = end_line;
	lx->line_start = end_ls;
	lx->i = i;
	return 0;
}

static const char *const ops3[] = {"**=", "//=", ">>=", "<<=", "..."};
static const char *const ops2[] = {"->", ":=", "==", "!=", "<=", ">=", "**", "//", "<<", ">>",
				   "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "@="};

static size_t op_len(const char *s, size_t left)
{
	for (size_t k = 0; k < TP_ARRAY_LEN(ops3); k++)
		if (left >= 3 && strncmp(s, ops3[k], 3) == 0)
			return 3;
	for (size_t k = 0; k < TP_ARRAY_LEN(ops2); k++)
		if (left >= 2 && strncmp(s, ops2[k], 2) == 0)
			return 2;
	return 1;
}

static bool string_prefix(const char *s, size_t n)
{
	if (n == 0 || n > 2)
		return false;
	bool seen_r = false, seen_bfu = false;
	for (size_t k = 0; k < n; k++) {
		char c = (char)tolower((unsigned char)s[k]);
		if (c == 'r' && !seen_r)
			seen_r = true;
		else if ((c == 'b' || c == 'f' || c == 'u') && !seen_bfu)
			seen_bfu = true;
		else
			return false;
	}
	return !(n == 2 && tolower((unsigned char)s[0]) == 'u') &&
	       !(n == 2 && tolower((unsigned char)s[1]) == 'u');
}

/* Where src stops being UTF-8 (RFC 3629: no overlong forms, surrogates or
 * code points past U+10FFFF), or len when it is all UTF-8. */
static size_t utf8_bad(const unsigned char *s, size_t len)
{
	size_t i = 0;
	while (i < len) {
		unsigned char c = s[i];
		size_t need;
		unsigned char lo = 0x80, hi = 0xBF; /* the second byte's range */
		if (c < 0x80) {
			i++;
			continue;
		} else if (c >= 0xC2 && c <= 0xDF) {
			need = 1;
		} else if (c >= 0xE0 && c <= 0xEF) {
			need = 2;
			lo = c == 0xE0 ? 0xA0 : 0x80;
			hi = c == 0xED ? 0x9F : 0xBF;
		} else if (c >= 0xF0 && c <= 0xF4) {
			need = 3;
			lo = c == 0xF0 ? 0x90 : 0x80;
			hi = c == 0xF4 ? 0x8F : 0xBF;
		} else {
			return i;
		}
		if (i + need >= len) /* cut short by the end */
			return i;
		if (s[i + 1] < lo || s[i + 1] > hi)
			return i;
		for (size_t k = 2; k <= need; k++)
			if (s[i + k] < 0x80 || s[i + k] > 0xBF)
				return i;
		i += need + 1;
	}
	return len;
}

static int scan(const char *src, size_t len, struct pytoks *out, struct tp_err *err);

/* Python source is UTF-8 (PEP 3120), and a byte that is not would reach
 * the Rust written from it: refused where it is, after the tokens before
 * it. */
int pytok_scan(const char *src, size_t len, struct pytoks *out, struct tp_err *err)
{
	size_t bad = utf8_bad((const unsigned char *)src, len);
	if (bad == len)
		return scan(src, len, out, err);
	struct tp_err before;
	scan(src, bad, out, &before);
	int line = 1;
	size_t line_start = 0;
	for (size_t i = 0; i < bad; i++)
		if (src[i] == '\n') {
			line++;
			line_start = i + 1;
		}
	tp_err_set(err, TP_EXIT_USAGE, "%d:%zu: invalid UTF-8 (byte 0x%02x); Python source is UTF-8", line,
		   bad - line_start + 1, (unsigned char)src[bad]);
	return -1;
}

static int scan(const char *src, size_t len, struct pytoks *out, struct tp_err *err)
{
	struct lexer lx = {src, len, 0, 1, 0, 0, NULL, 0, 0, out, false};
	lx.indents = xgrow(NULL, &lx.indent_cap, 1, sizeof(int));
	lx.indents[lx.nindent++] = 0;
	bool at_line_start = true;
	int rc = 0;
	while (lx.i < len) {
		if (at_line_start && lx.depth == 0) {
			int col;
			if (!measure_indent(&lx, &col)) {
				/* blank or comment line: skip to its end */
				while (lx.i < len && src[lx.i] != '\n')
					lx.i++;
				if (lx.i < len) {
					newline_at(&lx, lx.i);
					lx.i++;
				}
				continue;
			}
			indent_to(&lx, col);
			at_line_start = false;
		}
		char c = src[lx.i];
		if (c == '\n') {
			if (lx.depth == 0 && lx.line_has_tokens) {
				emit(&lx, PYT_NEWLINE, lx.i, 1);
				lx.line_has_tokens = false;
				at_line_start = true;
			}
			newline_at(&lx, lx.i);
			lx.i++;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\f' || c == '\r') {
			lx.i++;
			continue;
		}
		if (c == '#') {
			while (lx.i < len && src[lx.i] != '\n')
				lx.i++;
			continue;
		}
		if (c == '\\') {
			size_t j = lx.i + 1;
			while (j < len && src[j] == '\r')
				j++;
			if (j < len && src[j] == '\n') {
				newline_at(&lx, j);
				lx.i = j + 1;
				continue;
			}
			if (j >= len) {
				lx.i = len;
				break;
			}
			rc = fail(&lx, err, lx.i, "unexpected character after line continuation");
			break;
		}
		if (c == '"' || c == '\'') {
			if ((rc = scan_string(&lx, lx.i, err)) < 0)
				break;
			continue;
		}
		if (name_start((unsigned char)c)) {
			size_t at = lx.i;
			while (lx.i < len && name_char((unsigned char)src[lx.i]))
				lx.i++;
			if (lx.i < len && (src[lx.i] == '"' || src[lx.i] == '\'') &&
			    string_prefix(src + at, lx.i - at)) {
				if ((rc = scan_string(&lx, at, err)) < 0)
					break;
				continue;
			}
			emit(&lx, PYT_NAME, at, lx.i - at);
			continue;
		}
		if (isdigit((unsigned char)c) ||
		    (c == '.' && lx.i + 1 < len && isdigit((unsigned char)src[lx.i + 1]))) {
			size_t at = lx.i;
			while (lx.i < len) {
				char d = src[lx.i];
				if (isalnum((unsigned char)d) || d == '_' || d == '.')
					lx.i++;
				else if ((d == '+' || d == '-') && (src[lx.i - 1] == 'e' ||
								    src[lx.i - 1] == 'E') &&
					 !(lx.i - at > 1 && (src[at + 1] == 'x' || src[at + 1] == 'X')))
					lx.i++;
				else
					break;
			}
			emit(&lx, PYT_NUMBER, at, lx.i - at);
			continue;
		}
		size_t n = op_len(src + lx.i, len - lx.i);
		if (n == 1) {
			if (c == '(' || c == '[' || c == '{')
				lx.depth++;
			else if ((c == ')' || c == ']' || c == '}') && lx.depth > 0)
				lx.depth--;
		}
		emit(&lx, PYT_OP, lx.i, n);
		lx.i += n;
	}
	if (lx.line_has_tokens)
		emit(&lx, PYT_NEWLINE, lx.i, 0);
	while (lx.nindent > 1) {
		lx.nindent--;
		emit(&lx, PYT_DEDENT, lx.i, 0);
	}
	emit(&lx, PYT_END, lx.i, 0);
	free(lx.indents);
	return rc;
}

void pytoks_free(struct pytoks *t)
{
	free(t->v);
	t->v = NULL;
	t->n = t->cap = 0;
}

bool pytok_str_equals(const struct pytok *t, const char *value)
{
	if (t->kind != PYT_STRING)
		return false;
	size_t p = 0;
	while (p < t->n && t->s[p] != '"' && t->s[p] != '\'') {
		if (t->s[p] == 'f' || t->s[p] == 'F')
			return false;
		p++;
	}
	if (p >= t->n)
		return false;
	char q = t->s[p];
	size_t qn = (p + 2 < t->n && t->s[p + 1] == q && t->s[p + 2] == q && t->n - p >= 6) ? 3 : 1;
	if (t->n < p + 2 * qn)
		return false;
	const char *body = t->s + p + qn;
	size_t blen = t->n - p - 2 * qn;
	return blen == strlen(value) && memchr(body, '\\', blen) == NULL &&
	       memcmp(body, value, blen) == 0;
}
