/* Parsing types of the cuda_tile text form (attribute values: ir_parse_attr.c). */
#include "engine/ir/ir_parse.h"

#include <stdlib.h>
#include <string.h>

void ps_skip_prefix(struct pstate *ps, const char *prefix)
{
	size_t n = strlen(prefix);
	if ((size_t)(ps->end - ps->p) >= n && memcmp(ps->p, prefix, n) == 0)
		ps->p += n;
}

const struct ir_type *ps_elem_type(struct pstate *ps)
{
	const char *at = ps->p;
	const char *s;
	size_t n = ps_ident(ps, &s);
	enum ir_elem e = n ? ir_elem_lookup(s, n) : IR_ELEM_NONE;
	if (e == IR_ELEM_NONE) {
		ps->p = at;
		ps_expected(ps, "an element type (i32, f16, ...)");
	}
	return ir_type_elem(ps->m, e);
}

/* Element of a tile: an element type or ptr<E>. */
static const struct ir_type *tile_elem(struct pstate *ps)
{
	ps_ws(ps);
	ps_skip_prefix(ps, "!cuda_tile.");
	if (ps_peek_word(ps, "ptr")) {
		ps_expect(ps, "ptr");
		ps_expect(ps, "<");
		const struct ir_type *e = ps_elem_type(ps);
		ps_expect(ps, ">");
		return ir_type_ptr(ps->m, e);
	}
	return ps_elem_type(ps);
}

/* "128x64x" prefix of a shape (allow_dyn: '?' too); stops before the element. */
static uint32_t shape_dims(struct pstate *ps, int64_t *dims, uint32_t cap, bool allow_dyn)
{
	uint32_t n = 0;
	for (;;) {
		ps_ws(ps);
		const char *save = ps->p;
		int64_t v;
		if (allow_dyn && ps->p < ps->end && *ps->p == '?') {
			ps->p++;
			v = IR_DYN;
		} else if (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
			v = 0;
			while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
				if (v > (INT64_MAX - 9) / 10)
					ps_fail(ps, save, "dimension too large");
				v = v * 10 + (*ps->p++ - '0');
			}
		} else {
			return n;
		}
		if (ps->p >= ps->end || *ps->p != 'x') {
			ps->p = save;
			ps_expected(ps, "'x' after a dimension");
		}
		ps->p++;
		if (n == cap)
			ps_fail(ps, save, "too many dimensions (at most %u)", cap);
		dims[n++] = v;
	}
}

/* "(16x64)" of a view's tile=. */
static uint32_t paren_dims(struct pstate *ps, int64_t *dims, uint32_t cap)
{
	ps_expect(ps, "(");
	uint32_t n = 0;
	do {
		if (n == cap)
			ps_fail(ps, ps->p, "too many dimensions (at most %u)", cap);
		/* decimal only: "0x64" is the dimensions 0 and 64 */
		ps_ws(ps);
		if (ps->p >= ps->end || *ps->p < '0' || *ps->p > '9')
			ps_expected(ps, "a tile dimension");
		int64_t v = 0;
		while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
			if (v > (INT64_MAX - 9) / 10)
				ps_fail(ps, ps->p, "dimension too large");
			v = v * 10 + (*ps->p++ - '0');
		}
		dims[n++] = v;
		ps_ws(ps);
	} while (ps->p < ps->end && *ps->p == 'x' && ps->p++);
	ps_expect(ps, ")");
	return n;
}

uint32_t ps_int_list(struct pstate *ps, int64_t *v, uint32_t cap, bool allow_dyn)
{
	ps_expect(ps, "[");
	uint32_t n = 0;
	if (ps_accept(ps, "]"))
		return 0;
	do {
		if (n == cap)
			ps_fail(ps, ps->p, "too many values (at most %u)", cap);
		if (allow_dyn && ps_accept(ps, "?"))
			v[n++] = IR_DYN;
		else
			v[n++] = ps_expect_int(ps, "an integer");
	} while (ps_accept(ps, ","));
	ps_expect(ps, "]");
	return n;
}

static int padding_kw(struct pstate *ps)
{
	const char *s;
	const char *at = ps->p;
	size_t n = ps_ident(ps, &s);
	int v = n ? ir_enum_lookup(IR_EN_PADDING, s, n) : -1;
	if (v < 0) {
		ps->p = at;
		ps_expected(ps, "a padding value (zero, neg_zero, nan, pos_inf, neg_inf)");
	}
	return v;
}

static const struct ir_type *view_type(struct pstate *ps, enum ir_type_kind k)
{
	int64_t tile[PS_MAX_RANK], ts[PS_MAX_RANK];
	int32_t dm[PS_MAX_RANK];
	uint32_t rank = 0, nts = 0, ndm = 0;
	int pad = IR_PAD_ABSENT;
	int64_t sparse = 0;
	const struct ir_type *tv = NULL;
	bool have_tile = false, masked = false;
	ps_expect(ps, "<");
	do {
		/* the specification's spelling: `<masked tile=(..), view=tensor_view<..>>` */
		masked |= ps_accept(ps, "masked");
		if (ps_accept(ps, "tile")) {
			ps_expect(ps, "=");
			rank = paren_dims(ps, tile, PS_MAX_RANK);
			have_tile = true;
		} else if (ps_accept(ps, "padding_value")) {
			ps_expect(ps, "=");
			pad = padding_kw(ps);
		} else if (ps_accept(ps, "traversal_strides")) {
			ps_expect(ps, "=");
			nts = ps_int_list(ps, ts, PS_MAX_RANK, false);
		} else if (ps_accept(ps, "dim_map")) {
			ps_expect(ps, "=");
			int64_t tmp[PS_MAX_RANK];
			ndm = ps_int_list(ps, tmp, PS_MAX_RANK, false);
			for (uint32_t i = 0; i < ndm; i++)
				dm[i] = (int32_t)tmp[i];
		} else if (ps_accept(ps, "sparse_dim")) {
			ps_expect(ps, "=");
			sparse = ps_expect_int(ps, "a dimension");
		} else {
			if (ps_accept(ps, "view"))
				ps_expect(ps, "=");
			const struct ir_type *t = ps_type(ps);
			if (t->kind != IR_TY_TENSOR_VIEW)
				ps_fail(ps, ps->p, "expected a tensor_view inside a view type");
			tv = t;
		}
	} while (ps_accept(ps, ","));
	ps_expect(ps, ">");
	if (!have_tile || !tv)
		ps_fail(ps, ps->p, "expected tile=(..) and a tensor_view in the view type");
	if (ndm && ndm != rank)
		ps_fail(ps, ps->p, "dim_map has %u entries, tile has %u", ndm, rank);
	/* masked with a value is just the value; without one it stays unknown */
	if (masked && pad == IR_PAD_ABSENT)
		pad = IR_PAD_MASKED;
	if (k == IR_TY_PARTITION_VIEW)
		return ir_type_partition_view(ps->m, rank, tile, tv, ndm, ndm ? dm : NULL, pad);
	if (k == IR_TY_STRIDED_VIEW)
		return ir_type_strided_view(ps->m, rank, tile, nts, ts, tv, ndm, ndm ? dm : NULL,
					    pad);
	return ir_type_gather_scatter_view(ps->m, rank, tile, tv, sparse, pad);
}

static const struct ir_type *func_type(struct pstate *ps)
{
	const struct ir_type *ins[64], *outs[64];
	uint32_t nin = 0, nout = 0;
	ps_expect(ps, "(");
	if (!ps_accept(ps, ")")) {
		do {
			if (nin == 64)
				ps_fail(ps, ps->p, "too many inputs");
			ins[nin++] = ps_type(ps);
		} while (ps_accept(ps, ","));
		ps_expect(ps, ")");
	}
	ps_expect(ps, "->");
	if (ps_accept(ps, "(")) {
		if (!ps_accept(ps, ")")) {
			do {
				if (nout == 64)
					ps_fail(ps, ps->p, "too many results");
				outs[nout++] = ps_type(ps);
			} while (ps_accept(ps, ","));
			ps_expect(ps, ")");
		}
	} else {
		outs[nout++] = ps_type(ps);
	}
	return ir_type_func(ps->m, nin, ins, nout, outs);
}

/* Brackets of an opaque type must close, or printing it inside another
 * op's type list would swallow what follows. */
static bool balanced(const char *s, size_t n)
{
	char stack[64];
	int d = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '(' || c == '[' || c == '{' || c == '<') {
			if (d == 64)
				return false;
			stack[d++] = c == '(' ? ')' : c == '[' ? ']' : c == '{' ? '}' : '>';
		} else if (c == '-' && i + 1 < n && s[i + 1] == '>') {
			i++;
		} else if (c == ')' || c == ']' || c == '}' || c == '>') {
			if (!d || stack[--d] != c)
				return false;
		}
	}
	return d == 0;
}

bool ps_peek_type(struct pstate *ps)
{
	ps_ws(ps);
	if (ps_peek(ps, '!') || ps_peek(ps, '('))
		return true;
	static const char *const words[] = {"tile", "ptr", "tensor_view", "partition_view",
					    "strided_view", "gather_scatter_view", "token"};
	for (size_t i = 0; i < TP_ARRAY_LEN(words); i++)
		if (ps_peek_word(ps, words[i]))
			return true;
	const char *s, *at = ps->p;
	size_t n = ps_ident(ps, &s);
	ps->p = at;
	return n && ir_elem_lookup(s, n) != IR_ELEM_NONE;
}

/* The text a type would span from p: a word and, if it opens one, its
 * balanced <...>; 0 when it holds something a type cannot (a value name, a
 * string, a line break), so that only plain spellings are remembered. */
static size_t type_extent(const char *p, const char *end)
{
	const char *q = p;
	while (q < end && (ps_ident_char(*q) || *q == '!'))
		q++;
	if (q == p)
		return 0;
	if (q < end && *q == '<') {
		int d = 0;
		do {
			if (*q == '<')
				d++;
			else if (*q == '>')
				d--;
			else if (*q == '%' || *q == '"' || *q == '\n' || *q == '-')
				return 0;
			q++;
		} while (q < end && d > 0);
		if (d)
			return 0;
	}
	return (size_t)(q - p);
}

static size_t tspan_slot(const struct pstate *ps, const char *s, size_t n)
{
	return (size_t)tp_hash(s, n, 0) & (ps->captypes - 1);
}

static const struct tspan *tspan_get(const struct pstate *ps, const char *s, size_t n)
{
	if (!ps->captypes)
		return NULL;
	for (size_t i = tspan_slot(ps, s, n); ps->types[i].text; i = (i + 1) & (ps->captypes - 1))
		if (ps->types[i].len == n && memcmp(ps->types[i].text, s, n) == 0)
			return &ps->types[i];
	return NULL;
}

/* The table keeps its own copy of each spelling: the input it came from
 * may be given back before the parse ends (ps_release_consumed). */
static const char *tspan_copy(struct pstate *ps, const char *s, size_t n)
{
	struct tchunk *c = ps->tchunks;
	if (!c || c->size - c->used < n) {
		size_t sz = n > 4096 ? n : 4096;
		c = xmalloc(sizeof(*c) + sz);
		c->size = sz;
		c->used = 0;
		c->next = ps->tchunks;
		ps->tchunks = c;
	}
	char *p = c->data + c->used;
	memcpy(p, s, n);
	c->used += n;
	return p;
}

static void tspan_put(struct pstate *ps, const char *s, size_t n, const struct ir_type *t)
{
	if (2 * (ps->ntypes + 1) > ps->captypes) {
		struct tspan *old = ps->types;
		size_t oldcap = ps->captypes;
		ps->captypes = oldcap ? oldcap * 2 : 256;
		ps->types = xcalloc(ps->captypes, sizeof(*ps->types));
		ps->ntypes = 0;
		for (size_t i = 0; i < oldcap; i++)
			if (old[i].text)
				tspan_put(ps, old[i].text, old[i].len, old[i].type);
		free(old);
	}
	size_t i = tspan_slot(ps, s, n);
	while (ps->types[i].text)
		i = (i + 1) & (ps->captypes - 1);
	ps->types[i] = (struct tspan){s, (uint32_t)n, t};
	ps->ntypes++;
}

static const struct ir_type *parse_type(struct pstate *ps);

/* A type read before is the same type here only if a fresh parse would end
 * where it ends: an opaque type (`!dialect.x<..>`) runs on to the next
 * `,)>}=` or blank, so one followed by anything else is longer here. */
static bool ends_here(const struct pstate *ps, const struct ir_type *t, const char *after)
{
	return t->kind != IR_TY_OPAQUE || after >= ps->end || strchr(",)>}= \t\r\n", *after);
}

/* One of the last few types read, spelled the same at the cursor: the
 * common case (an op's operand and result types, the next op's), checked
 * without measuring the text. A balanced <...> that matches is the whole
 * type; a bare word must end where it ends. */
static const struct ir_type *recent_type(struct pstate *ps)
{
	for (unsigned i = 0; i < ps->nrecent && i < TP_ARRAY_LEN(ps->recent); i++) {
		const struct tspan *r = &ps->recent[i];
		if ((size_t)(ps->end - ps->p) < r->len || memcmp(ps->p, r->text, r->len) != 0)
			continue;
		if (r->text[r->len - 1] != '>' && ps->p + r->len < ps->end &&
		    (ps_ident_char(ps->p[r->len]) || ps->p[r->len] == '!' || ps->p[r->len] == '<'))
			continue;
		if (!ends_here(ps, r->type, ps->p + r->len))
			continue;
		ps->p += r->len;
		return r->type;
	}
	return NULL;
}

static void remember(struct pstate *ps, const char *s, size_t n, const struct ir_type *t)
{
	ps->recent[ps->nrecent++ % TP_ARRAY_LEN(ps->recent)] = (struct tspan){s, (uint32_t)n, t};
}

/* A type; one spelled as before is not parsed again. */
const struct ir_type *ps_type(struct pstate *ps)
{
	ps_ws(ps);
	const struct ir_type *t = recent_type(ps);
	if (t)
		return t;
	const char *start = ps->p;
	size_t n = type_extent(start, ps->end);
	const struct tspan *known = n ? tspan_get(ps, start, n) : NULL;
	if (known && ends_here(ps, known->type, start + n)) {
		ps->p += n;
		remember(ps, known->text, n, known->type);
		return known->type;
	}
	t = parse_type(ps);
	if (n && (size_t)(ps->p - start) == n) {
		const char *copy = tspan_copy(ps, start, n);
		tspan_put(ps, copy, n, t);
		remember(ps, copy, n, t);
	}
	return t;
}

static const struct ir_type *parse_type(struct pstate *ps)
{
	ps_nest(ps, ps->p, "types");
	ps_ws(ps);
	const struct ir_type *t;
	if (ps_peek(ps, '(')) {
		t = func_type(ps);
		ps->depth--;
		return t;
	}
	const char *start = ps->p;
	ps_skip_prefix(ps, "!cuda_tile.");
	if (ps_accept(ps, "tile")) {
		int64_t dims[PS_MAX_RANK];
		ps_expect(ps, "<");
		uint32_t rank = shape_dims(ps, dims, PS_MAX_RANK, false);
		const struct ir_type *e = tile_elem(ps);
		ps_expect(ps, ">");
		t = ir_type_tile(ps->m, e, rank, dims);
	} else if (ps_accept(ps, "tensor_view")) {
		int64_t dims[PS_MAX_RANK], str[PS_MAX_RANK];
		uint32_t ns = 0;
		ps_expect(ps, "<");
		uint32_t rank = shape_dims(ps, dims, PS_MAX_RANK, true);
		const struct ir_type *e = ps_elem_type(ps);
		if (ps_accept(ps, ",")) {
			ps_expect(ps, "strides");
			ps_expect(ps, "=");
			ns = ps_int_list(ps, str, PS_MAX_RANK, true);
		}
		ps_expect(ps, ">");
		t = ir_type_tensor_view(ps->m, e, rank, dims, ns, str);
	} else if (ps_accept(ps, "partition_view")) {
		t = view_type(ps, IR_TY_PARTITION_VIEW);
	} else if (ps_accept(ps, "strided_view")) {
		t = view_type(ps, IR_TY_STRIDED_VIEW);
	} else if (ps_accept(ps, "gather_scatter_view")) {
		t = view_type(ps, IR_TY_GATHER_SCATTER_VIEW);
	} else if (ps_accept(ps, "token")) {
		t = ir_type_token(ps->m);
	} else if (ps_peek_word(ps, "ptr")) {
		t = tile_elem(ps);
	} else if (*start == '!') {
		ps->p = start;
		size_t len;
		const char *txt = ps_balanced(ps, ",)>}= \t\r\n", &len);
		/* a value name inside would change when names are invented again */
		if (!len || memchr(txt, '%', len) || memchr(txt, '"', len) || !balanced(txt, len)) {
			ps->p = start;
			ps_expected(ps, "a type");
		}
		t = ir_type_opaque(ps->m, ir_strdup(ps->m, txt, len));
	} else {
		t = ps_elem_type(ps);
	}
	ps->depth--;
	return t;
}
