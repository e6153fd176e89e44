/* Parsing types and attribute values of the cuda_tile text form. */
#include "engine/ir/ir_parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void skip_prefix(struct pstate *ps, const char *prefix)
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
	skip_prefix(ps, "!cuda_tile.");
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

/* "[1, ?, 3]" */
static uint32_t int_list(struct pstate *ps, int64_t *v, uint32_t cap, bool allow_dyn)
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

#define MAXR 16

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
	int64_t tile[MAXR], ts[MAXR];
	int32_t dm[MAXR];
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
			rank = paren_dims(ps, tile, MAXR);
			have_tile = true;
		} else if (ps_accept(ps, "padding_value")) {
			ps_expect(ps, "=");
			pad = padding_kw(ps);
		} else if (ps_accept(ps, "traversal_strides")) {
			ps_expect(ps, "=");
			nts = int_list(ps, ts, MAXR, false);
		} else if (ps_accept(ps, "dim_map")) {
			ps_expect(ps, "=");
			int64_t tmp[MAXR];
			ndm = int_list(ps, tmp, MAXR, false);
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
	skip_prefix(ps, "!cuda_tile.");
	if (ps_accept(ps, "tile")) {
		int64_t dims[MAXR];
		ps_expect(ps, "<");
		uint32_t rank = shape_dims(ps, dims, MAXR, false);
		const struct ir_type *e = tile_elem(ps);
		ps_expect(ps, ">");
		t = ir_type_tile(ps->m, e, rank, dims);
	} else if (ps_accept(ps, "tensor_view")) {
		int64_t dims[MAXR], str[MAXR];
		uint32_t ns = 0;
		ps_expect(ps, "<");
		uint32_t rank = shape_dims(ps, dims, MAXR, true);
		const struct ir_type *e = ps_elem_type(ps);
		if (ps_accept(ps, ",")) {
			ps_expect(ps, "strides");
			ps_expect(ps, "=");
			ns = int_list(ps, str, MAXR, true);
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

/* ---- scalars and dense data ---- */

static bool scalar_token(struct pstate *ps, const char **s, size_t *n)
{
	ps_ws(ps);
	const char *p = ps->p;
	if (p < ps->end && (*p == '-' || *p == '+'))
		p++;
	const char *q = p;
	while (q < ps->end && (strchr("0123456789abcdefABCDEFxX.+-", *q) || *q == 'n' ||
			       *q == 'i' || *q == 'N' || *q == 'I'))
		q++;
	/* only a sign, or nothing: not a number */
	if (q == p)
		return false;
	*s = ps->p;
	*n = (size_t)(q - ps->p);
	return true;
}

uint64_t ps_scalar(struct pstate *ps, enum ir_elem e)
{
	ps_ws(ps);
	if (ps_accept(ps, "true"))
		return 1;
	if (ps_accept(ps, "false"))
		return 0;
	const char *s;
	size_t n;
	if (!scalar_token(ps, &s, &n))
		ps_expected(ps, "a number");
	char buf[80];
	if (n >= sizeof(buf))
		ps_fail(ps, s, "number too long");
	memcpy(buf, s, n);
	buf[n] = '\0';
	bool neg = buf[0] == '-';
	const char *digits = buf + (neg || buf[0] == '+');
	bool hex = digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
	char *endp;
	errno = 0;
	if (hex || !ir_elem_is_float(e)) {
		if (!hex && strpbrk(buf, ".eEn") && !ir_elem_is_float(e))
			ps_fail(ps, s, "expected an integer for %s, found '%s'", ir_elem_name(e), buf);
		unsigned long long u = strtoull(digits, &endp, 0);
		if (*endp || errno)
			ps_fail(ps, s, "malformed number '%s'", buf);
		ps->p = s + n;
		if (hex && ir_elem_is_float(e)) { /* a float given as its bit pattern */
			int bits = ir_elem_bits(e);
			if (neg || (bits < 64 && (u >> bits)))
				ps_fail(ps, s, "0x%llx does not fit %s", u, ir_elem_name(e));
			return u;
		}
		int64_t v = neg ? -(int64_t)u : (int64_t)u;
		if (ir_elem_is_float(e))
			return ir_float_from_double(e, (double)v);
		return (uint64_t)v;
	}
	double d = strtod(buf, &endp);
	if (*endp)
		ps_fail(ps, s, "malformed number '%s'", buf);
	ps->p = s + n;
	return ir_float_from_double(e, d);
}

/* In the arena, so that an error (a longjmp) leaks nothing. */
static void dense_push(struct pstate *ps, struct dense_pending *d, uint64_t v)
{
	d->vals = ir_grow(ps->m, d->vals, &d->cap, d->n + 1, sizeof(*d->vals));
	d->vals[d->n++] = v;
}

static void dense_list(struct pstate *ps, struct dense_pending *d, enum ir_elem e)
{
	ps_nest(ps, ps->p, "dense data");
	if (ps_accept(ps, "[")) {
		d->list = true;
		if (!ps_accept(ps, "]")) {
			do
				dense_list(ps, d, e);
			while (ps_accept(ps, ","));
			ps_expect(ps, "]");
		}
	} else {
		dense_push(ps, d, ps_scalar(ps, e));
	}
	ps->depth--;
}

void ps_dense_begin(struct pstate *ps, struct dense_pending *d)
{
	memset(d, 0, sizeof(*d));
	ps_expect(ps, "<");
	d->at = ps->p;
	d->elem = ps_elem_type(ps);
	ps_expect(ps, ":");
	ps_ws(ps);
	if (ps_peek(ps, '"')) {
		const char *s;
		size_t len;
		ps_string(ps, &s, &len);
		/* "0x<hex>": the raw little-endian buffer */
		if (len < 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || (len % 2))
			ps_fail(ps, d->at, "expected a \"0x...\" hex buffer");
		size_t nb = (len - 2) / 2;
		char *bytes = ir_alloc(ps->m, nb + 1);
		for (size_t i = 0; i < nb; i++) {
			char h[3] = {s[2 + 2 * i], s[3 + 2 * i], 0};
			char *e;
			bytes[i] = (char)strtoul(h, &e, 16);
			if (*e)
				ps_fail(ps, d->at, "bad hex digit in dense buffer");
		}
		d->hex = true;
		d->hexs = bytes;
		d->hexlen = nb;
	} else {
		dense_list(ps, d, d->elem->elem);
	}
	ps_expect(ps, ">");
}

static int elem_bytes(enum ir_elem e)
{
	int b = ir_elem_bits(e);
	return b <= 8 ? 1 : (b + 7) / 8;
}

const struct ir_attr *ps_dense_finish(struct pstate *ps, struct dense_pending *d,
				      const struct ir_type *tile)
{
	if (tile->kind != IR_TY_TILE || !tile->inner || tile->inner->kind != IR_TY_ELEM)
		ps_fail(ps, d->at, "a constant needs a tile type of numbers");
	enum ir_elem e = tile->inner->elem;
	if (e != d->elem->elem)
		ps_fail(ps, d->at, "constant element type %s does not match %s", ir_elem_name(d->elem->elem),
			ir_elem_name(e));
	uint64_t count = 1;
	for (uint32_t i = 0; i < tile->rank; i++) {
		count *= (uint64_t)tile->shape[i];
		if (count > (1u << 28))
			ps_fail(ps, d->at, "constant too large");
	}
	if (d->hex) {
		size_t eb = (size_t)elem_bytes(e);
		size_t n = d->hexlen / eb;
		if (d->hexlen % eb || (n != count && n != 1))
			ps_fail(ps, d->at, "dense buffer of %zu bytes does not fit %llu elements",
				d->hexlen, (unsigned long long)count);
		for (size_t i = 0; i < n; i++) {
			uint64_t v = 0;
			for (size_t k = 0; k < eb; k++)
				v |= (uint64_t)(unsigned char)d->hexs[i * eb + k] << (8 * k);
			int bits = ir_elem_bits(e);
			if (ir_elem_is_int(e) && bits < 64 && e != IR_I1 && (v >> (bits - 1)) & 1)
				v |= ~0ULL << bits;
			if (e == IR_I1)
				v = v != 0;
			dense_push(ps, d, v);
		}
	} else if (d->n != 1 && d->n != count) {
		ps_fail(ps, d->at, "constant has %u values, its type %llu elements", d->n,
			(unsigned long long)count);
	}
	return ir_attr_dense(ps->m, tile, d->n, d->vals);
}

/* ---- attribute values ---- */

static const struct ir_attr *hint_value(struct pstate *ps)
{
	ps_ws(ps);
	if (ps_accept(ps, "true"))
		return ir_attr_bool(ps->m, true);
	if (ps_accept(ps, "false"))
		return ir_attr_bool(ps->m, false);
	if (ps_peek(ps, '"')) {
		const char *s;
		size_t len;
		ps_string(ps, &s, &len);
		return ir_attr_string(ps->m, s, len);
	}
	const char *at = ps->p;
	int64_t v;
	if (ps_int(ps, &v)) {
		if (ps_accept(ps, ":")) { /* typed integer in generic dictionaries */
			ps_elem_type(ps);
			return ir_attr_int(ps->m, v, NULL);
		}
		ps_ws(ps);
		if (ps->p >= ps->end || *ps->p == ',' || *ps->p == '}')
			return ir_attr_int(ps->m, v, NULL);
		ps->p = at; /* the start of a float, say */
	}
	/* Real hints hold integers and booleans only; any other attribute a
	 * bytecode file carries there prints in generic syntax (a typed float,
	 * a type, an array, dense<...>), and reads back the same way. */
	const struct ir_attr *a = ps_generic_attr(ps, NULL);
	if (a->kind == IR_ATTR_OPAQUE) {
		ps->p = at;
		ps_expected(ps, "a hint value");
	}
	return a;
}

static const struct ir_attr *dict_body(struct pstate *ps, bool nested)
{
	const char *keys[128];
	const struct ir_attr *vals[128];
	uint32_t n = 0;
	ps_ws(ps);
	if (!ps_peek(ps, '}') && !ps_peek(ps, '>')) {
		do {
			const char *s;
			size_t len;
			if (ps_peek(ps, '"')) /* keys that are not identifiers print quoted */
				ps_string(ps, &s, &len);
			else if (!(len = ps_ident(ps, &s)))
				ps_expected(ps, "a hint name");
			if (n == 128)
				ps_fail(ps, s, "too many hints");
			keys[n] = ir_strdup(ps->m, s, len);
			ps_expect(ps, "=");
			if (nested) {
				ps_expect(ps, "{");
				vals[n] = dict_body(ps, false);
				ps_expect(ps, "}");
			} else {
				vals[n] = hint_value(ps);
			}
			n++;
		} while (ps_accept(ps, ","));
	}
	return nested ? ir_attr_hints(ps->m, n, keys, vals) : ir_attr_dict(ps->m, n, keys, vals);
}

const struct ir_attr *ps_hints(struct pstate *ps)
{
	ps_ws(ps);
	skip_prefix(ps, "#cuda_tile.optimization_hints");
	ps_expect(ps, "<");
	const struct ir_attr *a = dict_body(ps, true);
	ps_expect(ps, ">");
	return a;
}

const struct ir_attr *ps_predicate(struct pstate *ps)
{
	ps_ws(ps);
	skip_prefix(ps, "#cuda_tile.");
	if (ps_accept(ps, "div_by")) {
		ps_expect(ps, "<");
		int64_t d = ps_expect_int(ps, "a divisor"), every = 0, along = 0;
		bool has = false;
		if (ps_accept(ps, ",")) {
			ps_expect(ps, "every");
			every = ps_expect_int(ps, "an 'every' count");
			ps_expect(ps, "along");
			along = ps_expect_int(ps, "an 'along' dimension");
			has = true;
		}
		ps_expect(ps, ">");
		return ir_attr_div_by(ps->m, d, has, every, along);
	}
	if (ps_accept(ps, "same_elements")) {
		ps_expect(ps, "<");
		int64_t v[MAXR];
		uint32_t n = int_list(ps, v, MAXR, false);
		ps_expect(ps, ">");
		return ir_attr_same_elements(ps->m, n, v);
	}
	if (ps_accept(ps, "bounded")) {
		int64_t lb = 0, ub = 0;
		bool hl = false, hu = false;
		ps_expect(ps, "<");
		if (!ps_accept(ps, "?"))
			lb = ps_expect_int(ps, "a lower bound or '?'"), hl = true;
		ps_expect(ps, ",");
		if (!ps_accept(ps, "?"))
			ub = ps_expect_int(ps, "an upper bound or '?'"), hu = true;
		ps_expect(ps, ">");
		return ir_attr_bounded(ps->m, hl, lb, hu, ub);
	}
	ps_expected(ps, "an assume predicate (div_by, same_elements, bounded)");
}

const struct ir_attr *ps_typed_array(struct pstate *ps)
{
	const struct ir_attr *el[256];
	uint32_t n = 0;
	ps_expect(ps, "[");
	if (!ps_accept(ps, "]")) {
		do {
			if (n == 256)
				ps_fail(ps, ps->p, "too many elements");
			ps_ws(ps);
			const char *vstart = ps->p;
			if (!ps_accept(ps, "true") && !ps_accept(ps, "false")) {
				const char *s;
				size_t len;
				if (!scalar_token(ps, &s, &len))
					ps_expected(ps, "a value");
				ps->p = s + len;
			}
			/* the type follows the value: read it first, then the value */
			ps_expect(ps, ":");
			const struct ir_type *t = ps_elem_type(ps);
			const char *after = ps->p;
			ps->p = vstart;
			uint64_t v = ps_scalar(ps, t->elem);
			ps->p = after;
			el[n++] = ir_elem_is_float(t->elem) ? ir_attr_float(ps->m, v, t)
							     : ir_attr_int(ps->m, (int64_t)v, t);
		} while (ps_accept(ps, ","));
		ps_expect(ps, "]");
	}
	return ir_attr_array(ps->m, n, el);
}

const struct ir_attr *ps_int_array(struct pstate *ps)
{
	int64_t v[MAXR];
	uint32_t n = 0;
	ps_ws(ps);
	if (ps_accept(ps, "array")) {
		ps_expect(ps, "<");
		ps_elem_type(ps);
		if (ps_accept(ps, ":"))
			do {
				if (n == MAXR)
					ps_fail(ps, ps->p, "too many values");
				v[n++] = ps_expect_int(ps, "an integer");
			} while (ps_accept(ps, ","));
		ps_expect(ps, ">");
	} else {
		n = int_list(ps, v, MAXR, false);
	}
	return ir_attr_int_array(ps->m, n, v);
}

static int enum_kw(struct pstate *ps, enum ir_enum_kind k)
{
	const char *s, *at = ps->p;
	size_t n = ps_ident(ps, &s);
	int v = n ? ir_enum_lookup(k, s, n) : -1;
	if (v < 0) {
		ps->p = at;
		char what[96];
		snprintf(what, sizeof(what), "a %s keyword", ir_enum_name(k));
		ps_expected(ps, what);
	}
	return v;
}

bool ps_attr_starts(struct pstate *ps, const struct ir_attr_def *def)
{
	ps_ws(ps);
	const char *at = ps->p, *s;
	size_t n;
	bool ok = false;
	switch (def->spec) {
	case IR_AK_ENUM:
		n = ps_ident(ps, &s);
		ok = n && ir_enum_lookup(def->ekind, s, n) >= 0;
		break;
	case IR_AK_ROUNDING:
		ok = ps_peek_word(ps, "rounding");
		break;
	case IR_AK_OVERFLOW:
		ok = ps_peek_word(ps, "overflow");
		break;
	case IR_AK_HINTS:
		ok = ps_peek(ps, '<');
		break;
	default:
		ok = true;
	}
	ps->p = at;
	return ok;
}

const struct ir_attr *ps_attr_spec(struct pstate *ps, const struct ir_attr_def *def)
{
	ps_ws(ps);
	switch (def->spec) {
	case IR_AK_ENUM:
		return ir_attr_enum(ps->m, def->ekind, enum_kw(ps, def->ekind));
	case IR_AK_ROUNDING:
	case IR_AK_OVERFLOW: {
		const char *w = def->spec == IR_AK_ROUNDING ? "rounding" : "overflow";
		if (!ps_peek_word(ps, w))
			return NULL;
		ps_expect(ps, w);
		ps_expect(ps, "<");
		int v = enum_kw(ps, def->ekind);
		ps_expect(ps, ">");
		return ir_attr_enum(ps->m, def->ekind, v);
	}
	case IR_AK_UNIT:
		return NULL;
	case IR_AK_INT:
		return ir_attr_int(ps->m, ps_expect_int(ps, "an integer"), NULL);
	case IR_AK_BOOL:
		if (ps_accept(ps, "true"))
			return ir_attr_bool(ps->m, true);
		ps_expect(ps, "false");
		return ir_attr_bool(ps->m, false);
	case IR_AK_STRING: {
		const char *s;
		size_t len;
		if (!ps_string(ps, &s, &len))
			ps_expected(ps, "a quoted string");
		return ir_attr_string(ps->m, s, len);
	}
	case IR_AK_SYMBOL: {
		ps_expect(ps, "@");
		const char *s;
		size_t len;
		if (ps_peek(ps, '"')) {
			ps_string(ps, &s, &len);
		} else {
			len = ps_ident(ps, &s);
			if (!len)
				ps_expected(ps, "a symbol name");
		}
		return ir_attr_symbol(ps->m, ir_strdup(ps->m, s, len));
	}
	case IR_AK_INT_ARRAY:
		return ps_int_array(ps);
	case IR_AK_ATTR_ARRAY:
		return ps_typed_array(ps);
	case IR_AK_HINTS:
		return ps_hints(ps);
	case IR_AK_PREDICATE:
		return ps_predicate(ps);
	case IR_AK_TYPE:
		return ir_attr_type(ps->m, ps_type(ps));
	case IR_AK_DENSE:
		break;
	}
	ps_fail(ps, ps->p, "internal: attribute '%s' cannot be parsed here", def->name);
}
