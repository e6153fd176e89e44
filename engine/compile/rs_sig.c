/* The signatures of a kernel file's #[cutile::entry] functions: the module
 * they sit in, their generic parameters and their parameters, enough to give
 * the lowering its generic arguments, tensor strides and scalar hints. Read
 * from tokens, so Rust written by anyone (the translator, an agent, a person)
 * is read alike; comments, strings and char literals never confuse it. */
#include "engine/compile/compile.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"

enum tk { TK_IDENT, TK_PUNCT, TK_LIT, TK_LIFETIME };
struct tok {
	enum tk kind;
	const char *s;
	size_t n;
	int line, col;
};
struct toks {
	struct tok *v;
	size_t n, cap;
};

static void push(struct toks *t, enum tk kind, const char *s, size_t n, int line, int col)
{
	t->v = xgrow(t->v, &t->cap, t->n + 1, sizeof(*t->v));
	t->v[t->n++] = (struct tok){kind, s, n, line, col};
}

/* Tokens of a Rust source; -1 with *bad set at an unterminated literal or
 * comment. */
static int lex(const char *src, size_t len, struct toks *t, size_t *bad)
{
	int line = 1;
	size_t bol = 0;
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)src[i];
		int col = (int)(i - bol) + 1;
		if (c == '\n') {
			line++;
			bol = ++i;
		} else if (isspace(c)) {
			i++;
		} else if (c == '/' && i + 1 < len && src[i + 1] == '/') {
			while (i < len && src[i] != '\n')
				i++;
		} else if (c == '/' && i + 1 < len && src[i + 1] == '*') {
			int depth = 0;
			size_t start = i;
			do {
				if (i + 1 < len && src[i] == '/' && src[i + 1] == '*') {
					depth++;
					i += 2;
				} else if (i + 1 < len && src[i] == '*' && src[i + 1] == '/') {
					depth--;
					i += 2;
				} else {
					if (src[i] == '\n') {
						line++;
						bol = i + 1;
					}
					i++;
				}
			} while (depth > 0 && i < len);
			if (depth > 0) {
				*bad = start;
				return -1;
			}
		} else if (c == '"' || (c == 'r' && i + 1 < len && (src[i + 1] == '"' || src[i + 1] == '#')) ||
			   (c == 'b' && i + 1 < len && src[i + 1] == '"')) {
			/* strings, raw strings r#"..."#, byte strings */
			size_t start = i;
			int hashes = 0;
			bool raw = c == 'r';
			if (c != '"')
				i++;
			while (raw && i < len && src[i] == '#') {
				hashes++;
				i++;
			}
			if (i >= len || src[i] != '"') { /* `r` as an identifier after all */
				i = start;
				goto ident;
			}
			i++;
			bool done = false;
			while (i < len && !done) {
				if (!raw && src[i] == '\\') {
					i += 2;
					continue;
				}
				if (src[i] == '\n') {
					line++;
					bol = i + 1;
				}
				if (src[i] == '"') {
					int k = 0;
					while (k < hashes && i + 1 + (size_t)k < len && src[i + 1 + k] == '#')
						k++;
					if (k == hashes) {
						i += 1 + (size_t)hashes;
						done = true;
						continue;
					}
				}
				i++;
			}
			if (!done) {
				*bad = start;
				return -1;
			}
			push(t, TK_LIT, src + start, i - start, line, col);
		} else if (c == '\'') {
			/* a char literal 'x', '\n', or a lifetime 'a */
			size_t start = i;
			if (i + 2 < len && src[i + 1] != '\\' && src[i + 2] == '\'') {
				i += 3;
				push(t, TK_LIT, src + start, 3, line, col);
			} else if (i + 1 < len && src[i + 1] == '\\') {
				i += 2;
				while (i < len && src[i] != '\'' && src[i] != '\n')
					i++;
				if (i >= len || src[i] != '\'') {
					*bad = start;
					return -1;
				}
				i++;
				push(t, TK_LIT, src + start, i - start, line, col);
			} else {
				i++;
				while (i < len && (isalnum((unsigned char)src[i]) || src[i] == '_'))
					i++;
				push(t, TK_LIFETIME, src + start, i - start, line, col);
			}
		} else if (isdigit(c)) {
			size_t start = i;
			while (i < len && (isalnum((unsigned char)src[i]) || src[i] == '_' ||
					   (src[i] == '.' && i + 1 < len && isdigit((unsigned char)src[i + 1]))))
				i++;
			push(t, TK_LIT, src + start, i - start, line, col);
		} else if (isalpha(c) || c == '_' || c >= 0x80) {
		ident:;
			size_t start = i;
			while (i < len && (isalnum((unsigned char)src[i]) || src[i] == '_' ||
					   (unsigned char)src[i] >= 0x80))
				i++;
			push(t, TK_IDENT, src + start, i - start, line, col);
		} else {
			size_t n = 1;
			if (i + 1 < len && ((c == ':' && src[i + 1] == ':') || (c == '-' && src[i + 1] == '>')))
				n = 2;
			push(t, TK_PUNCT, src + i, n, line, col);
			i += n;
		}
	}
	return 0;
}

static bool is(const struct tok *k, const char *s)
{
	return k->n == strlen(s) && memcmp(k->s, s, k->n) == 0;
}

/* The index of the token closing the bracket at i ( ( [ { < ), or n. Angle
 * brackets count only themselves: `->` is one token. */
static size_t close_of(const struct toks *t, size_t i)
{
	if (i >= t->n) /* a file that ends at the bracket's place */
		return t->n;
	char open = t->v[i].s[0];
	char shut = open == '(' ? ')' : open == '[' ? ']' : open == '{' ? '}' : '>';
	int depth = 0;
	for (size_t k = i; k < t->n; k++) {
		const struct tok *x = &t->v[k];
		if (x->kind != TK_PUNCT || x->n != 1)
			continue;
		if (x->s[0] == open)
			depth++;
		else if (x->s[0] == shut && --depth == 0)
			return k;
	}
	return t->n;
}

/* The top-level comma-separated items of the brackets (a, b): [start, end)
 * token ranges. */
static size_t split_items(const struct toks *t, size_t open, size_t shut, size_t (*rng)[2], size_t max)
{
	size_t n = 0, from = open + 1;
	int depth = 0;
	for (size_t k = open + 1; k <= shut && k < t->n; k++) {
		const struct tok *x = &t->v[k];
		if (x->kind == TK_PUNCT && x->n == 1) {
			char c = x->s[0];
			if (c == '(' || c == '[' || c == '{' || c == '<')
				depth++;
			else if ((c == ')' || c == ']' || c == '}' || c == '>') && k != shut)
				depth--;
			if ((c == ',' && depth == 0) || k == shut) {
				if (k > from && n < max) {
					rng[n][0] = from;
					rng[n][1] = k;
					n++;
				}
				from = k + 1;
			}
		}
	}
	return n;
}

static char *text_of(const struct toks *t, size_t a, size_t b)
{
	struct sbuf sb = SBUF_INIT;
	for (size_t k = a; k < b; k++) {
		const struct tok *x = &t->v[k];
		bool word = x->kind != TK_PUNCT;
		bool prev_word = k > a && t->v[k - 1].kind != TK_PUNCT;
		if (k > a && ((word && prev_word) || is(x, "{") || is(&t->v[k - 1], ",") ||
			      is(&t->v[k - 1], ":") || is(x, "}")))
			sb_addc(&sb, ' ');
		sb_add(&sb, x->s, x->n);
	}
	return sb_detach(&sb);
}

static const char *const scalar_types[] = {"i8",  "i16", "i32", "i64", "u8",  "u16", "u32",
					   "u64", "f16", "f32", "f64", "bool", "bf16"};

static void read_param(const struct toks *t, size_t a, size_t b, struct rs_param *p)
{
	memset(p, 0, sizeof(*p));
	p->rank = -1;
	size_t k = a;
	if (k < b && is(&t->v[k], "mut"))
		k++;
	p->name = xstrndup(t->v[k].s, t->v[k].n);
	while (k < b && !is(&t->v[k], ":"))
		k++;
	k++;
	p->type = text_of(t, k, b);
	p->kind = RSP_OTHER;
	if (k < b && is(&t->v[k], "*")) {
		p->kind = RSP_PTR;
		return;
	}
	size_t j = k;
	if (j < b && is(&t->v[j], "&"))
		j++;
	if (j < b && is(&t->v[j], "mut"))
		j++;
	if (j < b && (is(&t->v[j], "Tensor") || is(&t->v[j], "MappedPartitionMut"))) {
		p->kind = RSP_TENSOR;
		/* the shape `{ [-1, -1] }`: count the items of its brackets */
		for (size_t q = j; q < b; q++)
			if (is(&t->v[q], "[")) {
				size_t s = close_of(t, q);
				size_t rng[16][2];
				p->rank = s < b ? (int)split_items(t, q, s, rng, 16) : -1;
				break;
			}
		return;
	}
	if (k + 1 == b)
		for (size_t i = 0; i < TP_ARRAY_LEN(scalar_types); i++)
			if (is(&t->v[k], scalar_types[i]))
				p->kind = RSP_SCALAR;
}

static void read_generic(const struct toks *t, size_t a, size_t b, struct rs_generic *g)
{
	memset(g, 0, sizeof(*g));
	if (is(&t->v[a], "const")) {
		g->kind = RSG_CONST;
		g->name = xstrndup(t->v[a + 1].s, t->v[a + 1].n);
		size_t k = a + 2;
		if (k < b && is(&t->v[k], ":"))
			k++;
		g->type = text_of(t, k, b);
	} else {
		g->kind = RSG_TYPE;
		g->name = xstrndup(t->v[a].s, t->v[a].n);
		g->type = xstrdup("");
	}
}

void rs_sigs_free(struct rs_sig *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].module);
		free(v[i].name);
		for (size_t k = 0; k < v[i].ngen; k++) {
			free(v[i].gen[k].name);
			free(v[i].gen[k].type);
		}
		for (size_t k = 0; k < v[i].npar; k++) {
			free(v[i].par[k].name);
			free(v[i].par[k].type);
		}
		free(v[i].gen);
		free(v[i].par);
	}
	free(v);
}

/* Is the attribute at i (`#`) `#[cutile::WHAT...]` or `#[WHAT...]`? */
static bool attr_is(const struct toks *t, size_t i, const char *what)
{
	if (i + 2 >= t->n || !is(&t->v[i + 1], "["))
		return false;
	size_t k = i + 2;
	if (k + 2 < t->n && is(&t->v[k], "cutile") && is(&t->v[k + 1], "::"))
		k += 2;
	return is(&t->v[k], what);
}

int rs_sigs_read(const char *path, const char *src, size_t len, struct rs_sig **out, size_t *n,
		 struct tp_err *err)
{
	struct toks t = {0};
	size_t bad = 0;
	*out = NULL;
	*n = 0;
	if (lex(src, len, &t, &bad) < 0) {
		int l, c;
		text_line_col(src, bad, &l, &c);
		tp_err_set(err, TP_EXIT_USAGE, "%s:%d:%d: expected the end of this literal or comment",
			   path, l, c);
		free(t.v);
		return -1;
	}
	size_t cap = 0;
	bool any_module = false;
	for (size_t i = 0; i < t.n; i++) {
		if (!is(&t.v[i], "#") || !attr_is(&t, i, "module"))
			continue;
		size_t k = close_of(&t, i + 1) + 1;
		while (k < t.n && !is(&t.v[k], "mod"))
			k++;
		if (k + 2 >= t.n || !is(&t.v[k + 2], "{"))
			continue;
		any_module = true;
		char *module = xstrndup(t.v[k + 1].s, t.v[k + 1].n);
		size_t body_end = close_of(&t, k + 2);
		for (size_t e = k + 3; e < body_end; e++) {
			if (!is(&t.v[e], "#") || !attr_is(&t, e, "entry"))
				continue;
			size_t f = close_of(&t, e + 1) + 1;
			/* further attributes, then pub / unsafe / extern "C" */
			while (f < body_end && is(&t.v[f], "#"))
				f = close_of(&t, f + 1) + 1;
			while (f < body_end && !is(&t.v[f], "fn"))
				f++;
			if (f + 2 >= body_end) {
				tp_err_set(err, TP_EXIT_USAGE, "%s:%d:%d: expected a function after #[cutile::entry]",
					   path, t.v[e].line, t.v[e].col);
				goto fail;
			}
			*out = xgrow(*out, &cap, *n + 1, sizeof(**out));
			struct rs_sig *s = &(*out)[(*n)++];
			memset(s, 0, sizeof(*s));
			s->module = xstrdup(module);
			s->name = xstrndup(t.v[f + 1].s, t.v[f + 1].n);
			s->line = t.v[f + 1].line;
			size_t p = f + 2;
			if (is(&t.v[p], "<")) {
				size_t g = close_of(&t, p);
				size_t rng[32][2];
				size_t ng = split_items(&t, p, g, rng, 32);
				s->gen = xcalloc(ng + 1, sizeof(*s->gen));
				for (size_t q = 0; q < ng; q++)
					if (t.v[rng[q][0]].kind != TK_LIFETIME)
						read_generic(&t, rng[q][0], rng[q][1], &s->gen[s->ngen++]);
				p = g + 1;
			}
			if (p >= t.n || !is(&t.v[p], "(")) {
				tp_err_set(err, TP_EXIT_USAGE, "%s:%d:%d: expected the parameters of %s", path,
					   t.v[f + 1].line, t.v[f + 1].col, s->name);
				goto fail;
			}
			size_t pc = close_of(&t, p);
			size_t rng[64][2];
			size_t np = split_items(&t, p, pc, rng, 64);
			s->par = xcalloc(np + 1, sizeof(*s->par));
			for (size_t q = 0; q < np; q++)
				read_param(&t, rng[q][0], rng[q][1], &s->par[s->npar++]);
			e = pc;
		}
		free(module);
		i = body_end;
		continue;
	fail:
		free(module);
		rs_sigs_free(*out, *n);
		*out = NULL;
		*n = 0;
		free(t.v);
		return -1;
	}
	free(t.v);
	if (!any_module) {
		tp_err_set(err, TP_EXIT_USAGE, "%s:1:1: expected a #[cutile::module] with a body", path);
		return -1;
	}
	return 0;
}
