/* The Rust side of the inventory: a cuTile Rust kernel (written by the
 * translator or by anyone else) read into the same op vocabulary by a
 * token scan of each #[cutile::entry] function: the calls of the API of
 * ../shared/reference/tile-ir.md §4 in source order, with the partition a
 * view load goes through (for its padding), the type a converting `let`
 * names, and the loops and statement-level branches around them. */
#include "engine/port/inv.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum rk { RK_IDENT, RK_NUM, RK_PUNCT, RK_STR, RK_END };

struct rtok {
	enum rk kind;
	const char *s;
	size_t n;
	int line;
};

struct rtoks {
	struct rtok *v;
	size_t n, cap;
};

static void add(struct rtoks *t, enum rk kind, const char *s, size_t n, int line)
{
	t->v = xgrow(t->v, &t->cap, t->n + 1, sizeof(*t->v));
	t->v[t->n++] = (struct rtok){kind, s, n, line};
}

static void lex(const char *src, size_t len, struct rtoks *t)
{
	int line = 1;
	size_t i = 0;
	while (i < len) {
		char c = src[i];
		if (c == '\n') {
			line++;
			i++;
		} else if (isspace((unsigned char)c)) {
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
			   (c == 'b' && i + 1 < len && src[i + 1] == '"')) {
			size_t at = i;
			int hashes = 0;
			bool raw = c == 'r';
			if (c == 'b')
				i++;
			if (raw) {
				i++;
				while (i < len && src[i] == '#') {
					hashes++;
					i++;
				}
				if (i >= len || src[i] != '"') {
					/* r# of a raw identifier */
					i = at + 1;
					add(t, RK_IDENT, src + at, 1, line);
					continue;
				}
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
			add(t, RK_STR, src + at, i - at, line);
		} else if (c == '\'') {
			/* a char literal or a lifetime */
			size_t at = i++;
			if (i + 1 < len && src[i] == '\\') {
				while (i < len && src[i] != '\'' && src[i] != '\n')
					i++;
				if (i < len && src[i] == '\'')
					i++;
			} else if (i + 1 < len && src[i + 1] == '\'') {
				i += 2;
			} else {
				while (i < len && (isalnum((unsigned char)src[i]) || src[i] == '_'))
					i++;
			}
			add(t, RK_STR, src + at, i - at, line);
		} else if (isalpha((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80) {
			size_t at = i;
			while (i < len && (isalnum((unsigned char)src[i]) || src[i] == '_' ||
					   (unsigned char)src[i] >= 0x80))
				i++;
			add(t, RK_IDENT, src + at, i - at, line);
		} else if (isdigit((unsigned char)c)) {
			size_t at = i;
			while (i < len && (isalnum((unsigned char)src[i]) || src[i] == '_' ||
					   (src[i] == '.' && i + 1 < len && isdigit((unsigned char)src[i + 1]))))
				i++;
			add(t, RK_NUM, src + at, i - at, line);
		} else {
			size_t n = (c == ':' && i + 1 < len && src[i + 1] == ':') ||
					   (c == '-' && i + 1 < len && src[i + 1] == '>') ||
					   (c == '=' && i + 1 < len && src[i + 1] == '>')
				   ? 2
				   : 1;
			add(t, RK_PUNCT, src + i, n, line);
			i += n;
		}
	}
	add(t, RK_END, src + len, 0, line);
}

static bool is(const struct rtok *t, const char *s)
{
	size_t n = strlen(s);
	return t->kind != RK_END && t->kind != RK_STR && t->n == n && memcmp(t->s, s, n) == 0;
}

struct scan {
	const struct rtoks *t;
	/* partition variables and the padding their views give a load */
	char **pvar;
	const char **ppad;
	size_t np, capp, capp2;
	/* tile variables and their element types, for assignments */
	char **tvar;
	char **telem;
	size_t nt, capt, capt2;
};

/* The matching closer of the bracket at i (or the end). */
static size_t close_of(const struct rtoks *t, size_t i)
{
	int depth = 0;
	for (size_t k = i; k < t->n; k++) {
		const struct rtok *x = &t->v[k];
		if (x->kind != RK_PUNCT)
			continue;
		if (x->s[0] == '(' || x->s[0] == '[' || x->s[0] == '{')
			depth++;
		else if (x->s[0] == ')' || x->s[0] == ']' || x->s[0] == '}') {
			if (--depth == 0)
				return k;
		}
	}
	return t->n - 1;
}

/* Token index of top-level argument `which` of the call whose `(` is at
 * open, or SIZE_MAX. */
static size_t arg_at(const struct rtoks *t, size_t open, size_t which)
{
	size_t end = close_of(t, open);
	int depth = 0;
	size_t argi = 0, start = open + 1;
	for (size_t k = open + 1; k < end; k++) {
		const struct rtok *x = &t->v[k];
		if (x->kind == RK_PUNCT && (x->s[0] == '(' || x->s[0] == '[' || x->s[0] == '{' ||
					    (x->s[0] == '<' && k > 0 && is(&t->v[k - 1], "::"))))
			depth++;
		else if (x->kind == RK_PUNCT && (x->s[0] == ')' || x->s[0] == ']' || x->s[0] == '}' ||
						 (x->s[0] == '>' && depth > 0 && t->v[k].n == 1 &&
						  !is(&t->v[k - 1], "-"))))
			depth--;
		else if (depth == 0 && is(x, ",")) {
			if (argi == which)
				return start;
			argi++;
			start = k + 1;
		}
	}
	return argi == which && start < end ? start : SIZE_MAX;
}

static void note_type(struct scan *s, const struct rtok *name, const char *elem)
{
	s->tvar = xgrow(s->tvar, &s->capt, s->nt + 1, sizeof(*s->tvar));
	s->telem = xgrow(s->telem, &s->capt2, s->nt + 1, sizeof(*s->telem));
	s->tvar[s->nt] = xstrndup(name->s, name->n);
	s->telem[s->nt] = xstrdup(elem);
	s->nt++;
}

static const char *type_of_var(const struct scan *s, const struct rtok *name)
{
	for (size_t i = s->nt; i-- > 0;)
		if (strlen(s->tvar[i]) == name->n && memcmp(s->tvar[i], name->s, name->n) == 0)
			return s->telem[i];
	return "";
}

/* The statement holding the call at `call`: `let NAME[: Tile<T, ..>] = ...`
 * (NAME and T) or `NAME = ...` (NAME, and T from its declaration). */
static void let_before(struct scan *s, size_t call, const struct rtok **name, char *elem,
		       size_t elem_len)
{
	const struct rtoks *t = s->t;
	*name = NULL;
	elem[0] = '\0';
	size_t k = call;
	while (k > 0 && !is(&t->v[k - 1], ";") && !is(&t->v[k - 1], "{") && call - k < 96) {
		if (is(&t->v[k - 1], "}")) {
			/* a const-generic shape `{ [..] }` is part of the statement */
			if (k < 2 || !is(&t->v[k - 2], "]"))
				break;
			int d = 0;
			while (k > 0) {
				k--;
				if (is(&t->v[k], "}"))
					d++;
				else if (is(&t->v[k], "{") && --d == 0)
					break;
			}
			continue;
		}
		k--;
	}
	if (t->v[k].kind == RK_IDENT && is(&t->v[k + 1], "=") && !is(&t->v[k], "let")) {
		*name = &t->v[k];
		snprintf(elem, elem_len, "%s", type_of_var(s, &t->v[k]));
		return;
	}
	if (!is(&t->v[k], "let"))
		return;
	k++;
	if (is(&t->v[k], "mut"))
		k++;
	if (t->v[k].kind == RK_IDENT)
		*name = &t->v[k];
	for (size_t q = k; q < call; q++)
		if ((is(&t->v[q], "Tile") || is(&t->v[q], "Tensor")) && is(&t->v[q + 1], "<") &&
		    t->v[q + 2].kind == RK_IDENT) {
			size_t n = t->v[q + 2].n < elem_len - 1 ? t->v[q + 2].n : elem_len - 1;
			memcpy(elem, t->v[q + 2].s, n);
			elem[n] = '\0';
			break;
		}
	if (*name && *elem)
		note_type(s, *name, elem);
}

static const char *padding_name(const struct rtok *marker)
{
	static const struct {
		const char *rs, *name;
	} pads[] = {{"None", "UNDETERMINED"}, {"Zero", "ZERO"},     {"NegZero", "NEG_ZERO"},
		    {"Nan", "NAN"},           {"PosInf", "POS_INF"}, {"NegInf", "NEG_INF"}};
	for (size_t i = 0; i < TP_ARRAY_LEN(pads); i++)
		if (is(marker, pads[i].rs))
			return pads[i].name;
	return "?";
}

static void remember(struct scan *s, const struct rtok *name, const char *pad)
{
	if (!name)
		return;
	s->pvar = xgrow(s->pvar, &s->capp, s->np + 1, sizeof(*s->pvar));
	s->ppad = xgrow(s->ppad, &s->capp2, s->np + 1, sizeof(*s->ppad));
	s->pvar[s->np] = xstrndup(name->s, name->n);
	s->ppad[s->np] = pad;
	s->np++;
}

static const char *padding_of(const struct scan *s, const struct rtok *name, const char *dflt)
{
	for (size_t i = s->np; i-- > 0;)
		if (strlen(s->pvar[i]) == name->n && memcmp(s->pvar[i], name->s, name->n) == 0)
			return s->ppad[i];
	return dflt;
}

static bool has_some(const struct rtoks *t, size_t at)
{
	return at != SIZE_MAX && is(&t->v[at], "Some");
}

static void entry_body(struct scan *s, size_t open, size_t close, struct inv_list *out)
{
	const struct rtoks *t = s->t;
	int depth = 0;
	for (size_t i = open + 1; i < close; i++) {
		const struct rtok *x = &t->v[i];
		if (is(x, "{")) {
			depth++;
			continue;
		}
		if (is(x, "}")) {
			depth--;
			continue;
		}
		if (x->kind != RK_IDENT)
			continue;
		const struct rtok *prev = &t->v[i - 1];
		bool stmt = is(prev, ";") || is(prev, "{") || is(prev, "}");
		if (is(x, "let") && stmt) {
			/* `let x: Tile<T, ..>;` declares a variable assigned later */
			size_t k = i + 1 + is(&t->v[i + 1], "mut");
			if (t->v[k].kind == RK_IDENT && is(&t->v[k + 1], ":") && is(&t->v[k + 2], "Tile") &&
			    is(&t->v[k + 3], "<") && t->v[k + 4].kind == RK_IDENT) {
				char el[32];
				size_t n = t->v[k + 4].n < sizeof(el) - 1 ? t->v[k + 4].n : sizeof(el) - 1;
				memcpy(el, t->v[k + 4].s, n);
				el[n] = '\0';
				note_type(s, &t->v[k], el);
			}
			continue;
		}
		if (is(x, "for") && stmt) {
			inv_add(out, "for", "", x->line, 0, false, depth);
			continue;
		}
		if (is(x, "if") && stmt && !is(prev, "else")) {
			inv_add(out, "if", "", x->line, 0, false, depth);
			continue;
		}
		/* a call: name(  name::<..>(  .name( */
		size_t open_p = i + 1;
		if (is(&t->v[open_p], "::") && is(&t->v[open_p + 1], "<")) {
			int d = 0;
			size_t k = open_p + 1;
			for (; k < close; k++) {
				if (is(&t->v[k], "<"))
					d++;
				else if (is(&t->v[k], ">") && --d == 0)
					break;
			}
			open_p = k + 1;
		}
		if (!is(&t->v[open_p], "("))
			continue;
		bool method = is(prev, ".");
		char name[64];
		size_t nl = x->n < sizeof(name) - 1 ? x->n : sizeof(name) - 1;
		memcpy(name, x->s, nl);
		name[nl] = '\0';
		const struct rtok *let;
		char elem[32];
		let_before(s, i, &let, elem, sizeof(elem));
		size_t end = close_of(t, open_p);
		if (strcmp(name, "get_tile_block_id") == 0 || strcmp(name, "get_num_tile_blocks") == 0) {
			char attr[16] = "";
			if (is(&t->v[end + 1], ".") && t->v[end + 2].kind == RK_NUM)
				snprintf(attr, sizeof(attr), "axis=%.*s", (int)t->v[end + 2].n,
					 t->v[end + 2].s);
			inv_add(out, name[4] == 't' ? "bid" : "num_blocks", attr, x->line, 0, false, depth);
		} else if (strcmp(name, "get_index_space_shape") == 0) {
			char attr[16] = "";
			if (is(&t->v[end + 1], "[") && t->v[end + 2].kind == RK_NUM)
				snprintf(attr, sizeof(attr), "axis=%.*s", (int)t->v[end + 2].n,
					 t->v[end + 2].s);
			inv_add(out, "num_tiles", attr, x->line, 0, false, depth);
			i = end; /* its make_partition_view is part of it */
		} else if (strcmp(name, "make_partition_view") == 0) {
			size_t p = arg_at(t, open_p, 2);
			const char *pad = "?";
			if (p != SIZE_MAX && is(&t->v[p], "padding") && is(&t->v[p + 1], "::"))
				pad = padding_name(&t->v[p + 2]);
			remember(s, let, pad);
		} else if (method && (strcmp(name, "partition") == 0 ||
				      strcmp(name, "partition_permuted") == 0)) {
			remember(s, let, "ZERO");
		} else if (strcmp(name, "load_view_tko") == 0 || (method && strcmp(name, "load") == 0) ||
			   (method && strcmp(name, "load_tile") == 0)) {
			const char *pad = "ZERO";
			if (!method) {
				size_t p = arg_at(t, open_p, 0);
				if (p != SIZE_MAX && is(&t->v[p], "&"))
					p++;
				pad = p != SIZE_MAX ? padding_of(s, &t->v[p], "?") : "?";
			} else if (t->v[i - 2].kind == RK_IDENT) {
				pad = padding_of(s, &t->v[i - 2], "ZERO");
			}
			char attr[40];
			snprintf(attr, sizeof(attr), "padding=%s", pad);
			inv_add(out, "load", attr, x->line, 0, false, depth);
		} else if (strcmp(name, "store_view_tko_mut") == 0 || strcmp(name, "store_view_tko") == 0 ||
			   (method && strcmp(name, "store") == 0)) {
			inv_add(out, "store", "", x->line, 0, false, depth);
		} else if (strcmp(name, "load_ptr_tko") == 0) {
			inv_add(out, "gather", has_some(t, arg_at(t, open_p, 3)) ? "mask" : "", x->line, 0,
				false, depth);
		} else if (strcmp(name, "store_ptr_tko") == 0) {
			inv_add(out, "scatter", has_some(t, arg_at(t, open_p, 4)) ? "mask" : "", x->line, 0,
				false, depth);
		} else if (strcmp(name, "convert_tile") == 0) {
			inv_add(out, "convert", *elem ? elem : "?", x->line, 0, false, depth);
		} else if (str_starts(name, "reduce_")) {
			char attr[96] = "";
			size_t a = arg_at(t, open_p, 1);
			if (a != SIZE_MAX && t->v[a].kind == RK_NUM)
				/* `1` or `1i32`: the value without its type suffix */
				snprintf(attr, sizeof(attr), "%s axis=%.*s", name + 7,
					 (int)strspn(t->v[a].s, "0123456789"), t->v[a].s);
			inv_add(out, "reduce", attr, x->line, 0, false, depth);
		} else if (strcmp(name, "mmaf") == 0 || strcmp(name, "mmai") == 0 ||
			   strcmp(name, "mma") == 0) {
			char attr[40] = "";
			if (*elem)
				snprintf(attr, sizeof(attr), "acc=%s", elem);
			inv_add(out, "mma", attr, x->line, 0, false, depth);
		} else if (strcmp(name, "iota") == 0 || strcmp(name, "permute") == 0) {
			inv_add(out, name, "", x->line, 0, false, depth);
		} else if (strcmp(name, "assume_div_by") == 0) {
			inv_add(out, "assume", "", x->line, 0, false, depth);
		} else if (!method) {
			const char *attr;
			const char *op = inv_name_for_fn(name, &attr);
			if (op)
				inv_add(out, op, attr, x->line, 0, false, depth);
		}
	}
}

size_t inv_from_rust(const char *src, size_t len, struct inv_list **out)
{
	struct rtoks t = {0};
	lex(src, len, &t);
	struct scan s = {.t = &t};
	struct inv_list *lists = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i + 4 < t.n; i++) {
		/* #[cutile::entry ...] then [pub] [unsafe] fn NAME ... { body } */
		if (!(is(&t.v[i], "#") && is(&t.v[i + 1], "[") && is(&t.v[i + 2], "cutile") &&
		      is(&t.v[i + 3], "::") && is(&t.v[i + 4], "entry")))
			continue;
		size_t k = close_of(&t, i + 1) + 1;
		while (k < t.n && !is(&t.v[k], "fn"))
			k++;
		if (k + 1 >= t.n || t.v[k + 1].kind != RK_IDENT)
			continue;
		const struct rtok *name = &t.v[k + 1];
		size_t b = k + 2;
		while (b < t.n && !is(&t.v[b], "{") && !is(&t.v[b], ";"))
			b = is(&t.v[b], "(") || is(&t.v[b], "<") ? (is(&t.v[b], "(") ? close_of(&t, b) + 1
										   : b + 1)
								 : b + 1;
		if (b >= t.n || !is(&t.v[b], "{"))
			continue;
		size_t e = close_of(&t, b);
		lists = xgrow(lists, &cap, n + 1, sizeof(*lists));
		memset(&lists[n], 0, sizeof(lists[n]));
		lists[n].entry = xstrndup(name->s, name->n);
		entry_body(&s, b, e, &lists[n]);
		n++;
		i = e;
	}
	for (size_t i = 0; i < s.np; i++)
		free(s.pvar[i]);
	free(s.pvar);
	free(s.ppad);
	for (size_t i = 0; i < s.nt; i++) {
		free(s.tvar[i]);
		free(s.telem[i]);
	}
	free(s.tvar);
	free(s.telem);
	free(t.v);
	*out = lists;
	return n;
}
