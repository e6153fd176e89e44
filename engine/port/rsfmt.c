/* Rust written in rustfmt's layout (edition 2024, 100 columns), for the
 * few statement shapes the writers produce: a statement on one line when
 * it fits; `let PAT =` then the expression on the next line when that
 * fits; else the outer call's arguments one per line (and an `unsafe {`
 * block opened around its body), match arms likewise. The tests check the
 * result with `rustfmt --check`. */
#include "engine/port/rsfmt.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>


void rsfmt_put(struct sbuf *o, int indent, const char *s, size_t n)
{
	for (int i = 0; i < indent; i++)
		sb_adds(o, "    ");
	sb_add(o, s, n);
	sb_addc(o, '\n');
}

/* Bracket depth change of s[i] for splitting at top level: ( [ { and the
 * <> of generics (a `<` right after a name or `::`, not a comparison). */
static int depth_step(const char *s, size_t i, int *gen)
{
	char c = s[i];
	if (c == '(' || c == '[' || c == '{')
		return 1;
	if (c == ')' || c == ']' || c == '}')
		return -1;
	if (c == '<' && i > 0 && s[i - 1] != ' ') {
		(*gen)++;
		return 1;
	}
	if (c == '>' && *gen > 0 && i > 0 && s[i - 1] != ' ' && s[i - 1] != '-') {
		(*gen)--;
		return -1;
	}
	return 0;
}

/* Index of the first top-level occurrence of `pat` in s[0, n), or -1. */
static long top_find(const char *s, size_t n, const char *pat)
{
	int d = 0, gen = 0;
	size_t pl = strlen(pat);
	for (size_t i = 0; i + pl <= n; i++) {
		if (d == 0 && memcmp(s + i, pat, pl) == 0)
			return (long)i;
		d += depth_step(s, i, &gen);
	}
	return -1;
}

static void fmt_expr(struct sbuf *o, int indent, const char *s, size_t n, const char *tail);

/* rustfmt's width heuristics: the arguments of a call (or the items of a
 * vec!) on one line only when they are at most 60 columns. */
#define FN_CALL_WIDTH 60

static bool needs_vertical(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '(' && s[i] != '[')
			continue;
		if (s[i] == '[' && !(i > 0 && s[i - 1] == '!'))
			continue;
		if (s[i] == '(' && !(i > 0 && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_' ||
					       s[i - 1] == '>')))
			continue;
		int d = 0, gen = 0;
		size_t j = i;
		for (; j < n; j++) {
			d += depth_step(s, j, &gen);
			if (d == 0)
				break;
		}
		if (j - i - 1 > FN_CALL_WIDTH)
			return true;
	}
	return false;
}

/* s[0, n) ends in a call `...name(args)` (then `tail`): the head on one
 * line, each argument on its own, the closer back at the indentation. */
static bool fmt_call(struct sbuf *o, int indent, const char *s, size_t n, const char *tail)
{
	if (n == 0 || s[n - 1] != ')')
		return false;
	/* the `(` matching the last `)` */
	int d = 0, gen = 0;
	long open = -1;
	for (size_t i = 0; i < n; i++) {
		int step = depth_step(s, i, &gen);
		if (step > 0 && d == 0 && s[i] == '(')
			open = (long)i;
		d += step;
	}
	if (open <= 0)
		return false;
	const char *a = s + open + 1;
	size_t an = n - (size_t)open - 2;
	/* the arguments, split at top-level commas */
	const char *args[256];
	size_t alen[256], na = 0, start = 0;
	d = 0;
	gen = 0;
	for (size_t i = 0; i <= an && na < 256; i++) {
		if (i == an || (d == 0 && a[i] == ',')) {
			size_t b = start, e = i;
			while (b < e && a[b] == ' ')
				b++;
			if (e > b) {
				args[na] = a + b;
				alen[na++] = e - b;
			}
			start = i + 1;
			continue;
		}
		d += depth_step(a, i, &gen);
	}
	/* one argument that is itself bracketed (vec![..], a call): it
	 * overflows, opened on this line */
	if (na == 1 && alen[0] > 1 && (args[0][alen[0] - 1] == ']' || args[0][alen[0] - 1] == ')')) {
		char closer = args[0][alen[0] - 1];
		char opener = closer == ']' ? '[' : '(';
		const char *op = memchr(args[0], opener, alen[0]);
		if (op && (size_t)(op - args[0]) + 1 < alen[0]) {
			struct sbuf head = SBUF_INIT;
			sb_add(&head, s, (size_t)open + 1);
			sb_add(&head, args[0], (size_t)(op - args[0]) + 1);
			rsfmt_put(o, indent, head.buf, head.len);
			sb_free(&head);
			const char *in = op + 1;
			size_t inn = alen[0] - (size_t)(op - args[0]) - 2;
			size_t st = 0;
			int dd = 0, gg = 0;
			for (size_t i = 0; i <= inn; i++) {
				if (i == inn || (dd == 0 && in[i] == ',')) {
					size_t b = st, e = i;
					while (b < e && in[b] == ' ')
						b++;
					if (e > b)
						fmt_expr(o, indent + 1, in + b, e - b, ",");
					st = i + 1;
					continue;
				}
				dd += depth_step(in, i, &gg);
			}
			struct sbuf close = SBUF_INIT;
			sb_addc(&close, closer);
			sb_addc(&close, ')');
			sb_adds(&close, tail);
			rsfmt_put(o, indent, close.buf, close.len);
			sb_free(&close);
			return true;
		}
	}
	/* a parenthesised expression, not a call or tuple: a comma after its
	 * one element would make it a tuple */
	char before = s[open - 1];
	const char *sep = na == 1 && !(isalnum((unsigned char)before) || before == '_' ||
				       before == '>' || before == '!')
				  ? ""
				  : ",";
	rsfmt_put(o, indent, s, (size_t)open + 1);
	/* arguments that are all short and simple (names, literals, &names,
	 * &*names: rustfmt's simple expressions) fill lines; others go one
	 * per line */
	bool simple = na > 0;
	for (size_t i = 0; i < na && simple; i++) {
		simple = alen[i] <= 10;
		size_t prefix = strspn(args[i], "&*");
		for (size_t c = prefix; c < alen[i] && simple; c++) {
			char ch = args[i][c];
			simple = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
				 (ch >= '0' && ch <= '9') || ch == '_' || ch == '.' || ch == ':';
		}
	}
	if (simple) {
		struct sbuf l = SBUF_INIT;
		size_t room = RSFMT_WIDTH - (size_t)(indent + 1) * 4;
		for (size_t i = 0; i < na; i++) {
			if (l.len && l.len + 1 + alen[i] + 1 > room) {
				rsfmt_put(o, indent + 1, l.buf, l.len - 1);
				sb_reset(&l);
			}
			sb_add(&l, args[i], alen[i]);
			sb_adds(&l, ", ");
		}
		if (l.len)
			rsfmt_put(o, indent + 1, l.buf, l.len - 2 + strlen(sep));
		sb_free(&l);
	} else {
		for (size_t i = 0; i < na; i++)
			fmt_expr(o, indent + 1, args[i], alen[i], sep);
	}
	struct sbuf close = SBUF_INIT;
	sb_addc(&close, ')');
	sb_adds(&close, tail);
	rsfmt_put(o, indent, close.buf, close.len);
	sb_free(&close);
	return true;
}

/* One expression (plus `tail`, a `;` or `,`) in rustfmt's manner: on one
 * line when it fits, an `unsafe { .. }` opened around its body, a call
 * with its arguments one per line. */
static void fmt_expr(struct sbuf *o, int indent, const char *s, size_t n, const char *tail)
{
	size_t tl = strlen(tail);
	if ((size_t)indent * 4 + n + tl <= RSFMT_WIDTH && !needs_vertical(s, n)) {
		struct sbuf l = SBUF_INIT;
		sb_add(&l, s, n);
		sb_adds(&l, tail);
		rsfmt_put(o, indent, l.buf, l.len);
		sb_free(&l);
		return;
	}
	/* `unsafe { .. }`, or `let x = unsafe { .. }` */
	size_t u = 0;
	for (size_t i = 0; i + 9 <= n; i++)
		if (memcmp(s + i, "unsafe { ", 9) == 0 && (i == 0 || (i >= 2 && memcmp(s + i - 2, "= ", 2) == 0))) {
			u = i;
			break;
		} else if (i == 0 && memcmp(s, "let ", 4) != 0) {
			break;
		}
	if (n > u + 11 && memcmp(s + u, "unsafe { ", 9) == 0 && memcmp(s + n - 2, " }", 2) == 0) {
		rsfmt_put(o, indent, s, u + 8);
		fmt_expr(o, indent + 1, s + u + 9, n - u - 11, "");
		struct sbuf l = SBUF_INIT;
		sb_addc(&l, '}');
		sb_adds(&l, tail);
		rsfmt_put(o, indent, l.buf, l.len);
		sb_free(&l);
		return;
	}
	if (!fmt_call(o, indent, s, n, tail)) {
		struct sbuf l = SBUF_INIT;
		sb_add(&l, s, n);
		sb_adds(&l, tail);
		rsfmt_put(o, indent, l.buf, l.len);
		sb_free(&l);
	}
}

/* s[0, head) then `unsafe { BODY }` up to s[end]: the head and `unsafe {`
 * on one line, the body one level in, then `closer`. */
static bool unsafe_block(struct sbuf *o, int indent, const char *s, size_t head, size_t end,
			 const char *closer)
{
	const char *rhs = s + head;
	size_t rn = end - head;
	if (rn <= 11 || memcmp(rhs, "unsafe { ", 9) != 0 || memcmp(rhs + rn - 2, " }", 2) != 0)
		return false;
	struct sbuf h = SBUF_INIT;
	sb_add(&h, s, head);
	sb_adds(&h, "unsafe {");
	rsfmt_put(o, indent, h.buf, h.len);
	sb_free(&h);
	fmt_expr(o, indent + 1, rhs + 9, rn - 11, "");
	rsfmt_put(o, indent, closer, strlen(closer));
	return true;
}

/* A statement ending in `;`: `let PAT = EXPR;` breaks after the `=` when
 * the expression then fits, else inside the expression. */
void rsfmt_line(struct sbuf *o, int indent, const char *s)
{
	size_t n = strlen(s);
	long arrow = (size_t)indent * 4 + n > RSFMT_WIDTH && n > 1 && s[n - 1] == ','
			     ? top_find(s, n, " => ")
			     : -1;
	if (arrow > 0) {
		/* a match arm: `PAT => unsafe {` / the body / `},` */
		if (unsafe_block(o, indent, s, (size_t)arrow + 4, n - 1, "},"))
			return;
	}
	if (s[0] == '.') {
		/* a chain element on its own line */
		bool semi = s[n - 1] == ';';
		fmt_expr(o, indent, s, n - semi, semi ? ";" : "");
		return;
	}
	if (((size_t)indent * 4 + n <= RSFMT_WIDTH && !needs_vertical(s, n)) || n < 2 ||
	    s[n - 1] != ';' || str_starts(s, "//") || str_starts(s, "for ") || str_starts(s, "if ")) {
		rsfmt_put(o, indent, s, n);
		return;
	}
	n--; /* the `;` */
	long eq = top_find(s, n, " = ");
	if (eq > 0 && str_starts(s, "let ")) {
		const char *rhs = s + eq + 3;
		size_t rn = n - (size_t)eq - 3;
		if ((size_t)(indent + 1) * 4 + rn + 1 <= RSFMT_WIDTH && !needs_vertical(rhs, rn)) {
			rsfmt_put(o, indent, s, (size_t)eq + 2);
			fmt_expr(o, indent + 1, rhs, rn, ";");
			return;
		}
		if (unsafe_block(o, indent, s, (size_t)eq + 3, n, "};"))
			return;
	}
	fmt_expr(o, indent, s, n, ";");
}


int rsfmt_chain_head(struct sbuf *o, int indent, const char *lhs, const char *head)
{
	size_t ln = strlen(lhs), hn = strlen(head);
	/* rustfmt moves the right-hand side to the next line when the head
	 * would otherwise break after its `(` and fits whole there */
	if (ln > 2 && (size_t)indent * 4 + ln + hn > RSFMT_WIDTH &&
	    (size_t)(indent + 1) * 4 + hn <= RSFMT_WIDTH && !needs_vertical(head, hn)) {
		rsfmt_put(o, indent, lhs, ln - 1);
		rsfmt_put(o, indent + 1, head, hn);
		return indent + 2;
	}
	char *line = xasprintf("%s%s", lhs, head);
	bool broke = rsfmt_expr(o, indent, line, "");
	free(line);
	return broke ? indent : indent + 1;
}

bool rsfmt_expr(struct sbuf *o, int indent, const char *s, const char *tail)
{
	size_t before = o->len;
	fmt_expr(o, indent, s, strlen(s), tail);
	size_t lines = 0;
	for (size_t i = before; i < o->len; i++)
		lines += o->buf[i] == '\n';
	return lines > 1;
}
