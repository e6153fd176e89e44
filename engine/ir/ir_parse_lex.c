/* The parser's cursor: positions and errors, blanks and comments, tokens
 * (identifiers, integers, strings, punctuation) and bracket-balanced spans. */
#include "engine/ir/ir_parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors and positions ---- */

void ps_linecol(struct pstate *ps, const char *at, uint32_t *line, uint32_t *col)
{
	if (at < ps->lc_pos) {
		/* count again from the last point whose line is known and whose
		 * text is still there (ps_release_consumed) */
		bool floor = ps->lc_floor && at >= ps->lc_floor;
		ps->lc_pos = floor ? ps->lc_floor : ps->buf;
		ps->lc_line = floor ? ps->lc_floor_line : 1;
		ps->lc_linestart = floor ? ps->lc_floor_linestart : ps->buf;
	}
	const char *p = ps->lc_pos;
	const char *nl;
	while (p < at && (nl = memchr(p, '\n', (size_t)(at - p)))) {
		ps->lc_line++;
		ps->lc_linestart = nl + 1;
		p = nl + 1;
	}
	ps->lc_pos = at;
	*line = ps->lc_line;
	*col = (uint32_t)(at - ps->lc_linestart) + 1;
}

void ps_fail(struct pstate *ps, const char *at, const char *fmt, ...)
{
	uint32_t line, col;
	if (at < ps->buf || at > ps->end)
		at = ps->p;
	ps_linecol(ps, at, &line, &col);
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tp_err_set(ps->err, TP_EXIT_USAGE, "%s:%u:%u: %s", ps->path, line, col, msg);
	longjmp(ps->fail, 1);
}

void ps_expected(struct pstate *ps, const char *what)
{
	ps_ws(ps);
	if (ps->p >= ps->end)
		ps_fail(ps, ps->p, "expected %s, found end of file", what);
	const char *q = ps->p;
	while (q < ps->end && q - ps->p < 24 && *q != '\n' && *q != ' ' && *q != '\t' &&
	       *q != '\r')
		q++;
	if (q == ps->p)
		q++;
	char found[64];
	size_t k = 0;
	for (const char *c = ps->p; c < q && k + 5 < sizeof(found); c++) {
		unsigned char u = (unsigned char)*c;
		if (u >= 0x20 && u < 0x7f && u != '\'')
			found[k++] = (char)u;
		else
			k += (size_t)snprintf(found + k, sizeof(found) - k, "\\x%02x", u);
	}
	found[k] = '\0';
	ps_fail(ps, ps->p, "expected %s, found '%s'", what, found);
}

void ps_set_loc(struct pstate *ps, struct ir_op *op, const char *start)
{
	const char *end = ps->p;
	while (end > start && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' ||
			       end[-1] == '\r'))
		end--;
	uint32_t col;
	ps_linecol(ps, start, &op->loc.line, &col);
	ps_linecol(ps, end > start ? end - 1 : start, &op->loc.end_line, &col);
}

/* ---- cursor ---- */

void ps_ws_skip(struct pstate *ps)
{
	const char *p = ps->p, *e = ps->end;
	for (;;) {
		while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
			p++;
		if (p + 1 < e && p[0] == '/' && p[1] == '/') {
			const char *nl = memchr(p, '\n', (size_t)(e - p));
			p = nl ? nl + 1 : e;
			continue;
		}
		break;
	}
	ps->p = p;
}


bool ps_peek(struct pstate *ps, char c)
{
	ps_ws(ps);
	return ps->p < ps->end && *ps->p == c;
}

void ps_expected_lit(struct pstate *ps, const char *lit)
{
	char what[64];
	snprintf(what, sizeof(what), "'%s'", lit);
	ps_expected(ps, what);
}

size_t ps_ident(struct pstate *ps, const char **s)
{
	ps_ws(ps);
	const char *p = ps->p;
	if (p >= ps->end || !ps_ident_start(*p))
		return 0;
	while (p < ps->end && ps_ident_char(*p))
		p++;
	*s = ps->p;
	size_t n = (size_t)(p - ps->p);
	ps->p = p;
	return n;
}

bool ps_int(struct pstate *ps, int64_t *v)
{
	ps_ws(ps);
	const char *p = ps->p;
	bool neg = false;
	if (p < ps->end && *p == '-')
		neg = true, p++;
	if (p >= ps->end || *p < '0' || *p > '9')
		return false;
	uint64_t u = 0;
	if (p + 1 < ps->end && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		p += 2;
		const char *d = p;
		while (p < ps->end) {
			char c = *p;
			int x = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
				: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
			if (x < 0)
				break;
			if (u >> 60)
				ps_fail(ps, ps->p, "integer too large");
			u = u * 16 + (uint64_t)x;
			p++;
		}
		if (p == d)
			return false;
	} else {
		while (p < ps->end && *p >= '0' && *p <= '9') {
			if (u > (UINT64_MAX - 9) / 10)
				ps_fail(ps, ps->p, "integer too large");
			u = u * 10 + (uint64_t)(*p - '0');
			p++;
		}
		/* "1.5" or "1e3" is a float, not an integer */
		if (p < ps->end && (*p == '.' || *p == 'e' || *p == 'E'))
			return false;
	}
	if (p < ps->end && ps_ident_start(*p) && *p != 'x')
		return false;
	*v = neg ? (int64_t)(0 - u) : (int64_t)u;
	ps->p = p;
	return true;
}

int64_t ps_expect_int(struct pstate *ps, const char *what)
{
	int64_t v;
	if (!ps_int(ps, &v))
		ps_expected(ps, what);
	return v;
}

bool ps_string(struct pstate *ps, const char **s, size_t *len)
{
	ps_ws(ps);
	if (ps->p >= ps->end || *ps->p != '"')
		return false;
	const char *start = ps->p++;
	struct sbuf sb = SBUF_INIT;
	while (ps->p < ps->end && *ps->p != '"') {
		char c = *ps->p++;
		if (c == '\n') {
			sb_free(&sb);
			ps_fail(ps, start, "unterminated string");
		}
		if (c != '\\') {
			sb_addc(&sb, c);
			continue;
		}
		if (ps->p >= ps->end)
			break;
		char d = *ps->p++;
		if (d == '\\' || d == '"') {
			sb_addc(&sb, d);
		} else if (d == 'n') {
			sb_addc(&sb, '\n');
		} else if (d == 't') {
			sb_addc(&sb, '\t');
		} else {
			char h[3] = {d, ps->p < ps->end ? *ps->p : 0, 0};
			char *e;
			unsigned long x = strtoul(h, &e, 16);
			if (e != h + 2) {
				sb_free(&sb);
				ps_fail(ps, ps->p - 2, "bad escape in string");
			}
			ps->p++;
			sb_addc(&sb, (char)x);
		}
	}
	if (ps->p >= ps->end) {
		sb_free(&sb);
		ps_fail(ps, start, "unterminated string");
	}
	ps->p++;
	*len = sb.len;
	*s = ir_strdup(ps->m, sb.buf ? sb.buf : "", sb.len);
	sb_free(&sb);
	return true;
}

const char *ps_balanced(struct pstate *ps, const char *stops, size_t *len)
{
	ps_ws(ps);
	const char *start = ps->p;
	int depth = 0;
	char stack[256];
	while (ps->p < ps->end) {
		char c = *ps->p;
		if (c == '\n' || (depth == 0 && strchr(stops, c)))
			break;
		if (c == '"') {
			const char *s;
			size_t l;
			ps_string(ps, &s, &l);
			continue;
		}
		if (c == '(' || c == '[' || c == '{' || c == '<') {
			if (depth == 256)
				ps_fail(ps, ps->p, "nested too deeply");
			stack[depth++] = c == '(' ? ')' : c == '[' ? ']' : c == '{' ? '}' : '>';
		} else if (depth && c == stack[depth - 1]) {
			depth--;
		} else if (c == '-' && ps->p + 1 < ps->end && ps->p[1] == '>') {
			ps->p++; /* "->" is not a closing '>' */
		}
		ps->p++;
	}
	*len = (size_t)(ps->p - start);
	while (*len && (start[*len - 1] == ' ' || start[*len - 1] == '\t' ||
			start[*len - 1] == '\r'))
		(*len)--;
	return start;
}

/* Consume a bracketed group starting at the cursor ("(...)", "<...>"), with
 * strings and nested brackets. */
void ps_skip_group(struct pstate *ps)
{
	char stack[256];
	int depth = 0;
	const char *start = ps->p;
	while (ps->p < ps->end) {
		char c = *ps->p;
		if (c == '"') {
			const char *s;
			size_t l;
			ps_string(ps, &s, &l);
			continue;
		}
		if (c == '(' || c == '[' || c == '{' || c == '<') {
			if (depth == 256)
				ps_fail(ps, ps->p, "nested too deeply");
			stack[depth++] = c == '(' ? ')' : c == '[' ? ']' : c == '{' ? '}' : '>';
		} else if (c == '-' && ps->p + 1 < ps->end && ps->p[1] == '>') {
			ps->p++;
		} else if (depth && c == stack[depth - 1]) {
			if (--depth == 0) {
				ps->p++;
				return;
			}
		}
		ps->p++;
	}
	ps_fail(ps, start, "unbalanced brackets");
}

