/* Tile IR bytecode: the table sections — strings, types, constants,
 * globals, producer (§4.1–§4.5) — and the checks on indices into them. */
#include "engine/ir/bc_priv.h"

#include <string.h>

/* ---- scalar type facts ------------------------------------------------ */

static const struct {
	const char *name;
	uint8_t since, bits, bytes, isfloat;
} scalars[BC_TY_COUNT] = {
	[BC_TY_I1] = {"i1", 1, 1, 1, 0},
	[BC_TY_I8] = {"i8", 1, 8, 1, 0},
	[BC_TY_I16] = {"i16", 1, 16, 2, 0},
	[BC_TY_I32] = {"i32", 1, 32, 4, 0},
	[BC_TY_I64] = {"i64", 1, 64, 8, 0},
	[BC_TY_F16] = {"f16", 1, 16, 2, 1},
	[BC_TY_BF16] = {"bf16", 1, 16, 2, 1},
	[BC_TY_F32] = {"f32", 1, 32, 4, 1},
	[BC_TY_TF32] = {"tf32", 1, 19, 3, 1},
	[BC_TY_F64] = {"f64", 1, 64, 8, 1},
	[BC_TY_F8E4M3FN] = {"f8E4M3FN", 1, 8, 1, 1},
	[BC_TY_F8E5M2] = {"f8E5M2", 1, 8, 1, 1},
	[BC_TY_PTR] = {NULL, 1, 0, 0, 0},
	[BC_TY_TILE] = {NULL, 1, 0, 0, 0},
	[BC_TY_TENSOR_VIEW] = {NULL, 1, 0, 0, 0},
	[BC_TY_PARTITION_VIEW] = {NULL, 1, 0, 0, 0},
	[BC_TY_FUNC] = {NULL, 1, 0, 0, 0},
	[BC_TY_TOKEN] = {"token", 1, 0, 0, 0},
	[BC_TY_F8E8M0FNU] = {"f8E8M0FNU", 2, 8, 1, 1},
	[BC_TY_F4E2M1FN] = {"f4E2M1FN", 3, 4, 1, 1},
	[BC_TY_GATHER_SCATTER_VIEW] = {NULL, 3, 0, 0, 0},
	[BC_TY_STRIDED_VIEW] = {NULL, 3, 0, 0, 0},
	[BC_TY_I4] = {"i4", 3, 4, 1, 0},
};

static const char *const tag_names[BC_TY_COUNT] = {
	"Int1", "Int8", "Int16", "Int32", "Int64", "Float16", "BFloat16", "Float32",
	"TFloat32", "Float64", "Float8E4M3FN", "Float8E5M2", "Pointer", "Tile",
	"TensorView", "PartitionView", "Function", "Token", "Float8E8M0FNU",
	"Float4E2M1FN", "GatherScatterView", "StridedView", "Int4",
};

bool bc_tag_is_int(unsigned tag)
{
	return tag < BC_TY_COUNT && scalars[tag].bits && !scalars[tag].isfloat;
}

bool bc_tag_is_float(unsigned tag)
{
	return tag < BC_TY_COUNT && scalars[tag].isfloat;
}

unsigned bc_tag_bits(unsigned tag)
{
	return tag < BC_TY_COUNT ? scalars[tag].bits : 0;
}

unsigned bc_tag_since(unsigned tag)
{
	return tag < BC_TY_COUNT ? scalars[tag].since : 0;
}

const char *bc_scalar_name(unsigned tag)
{
	return tag < BC_TY_COUNT ? scalars[tag].name : NULL;
}

unsigned bc_elem_bytes(unsigned tag)
{
	return tag < BC_TY_COUNT ? scalars[tag].bytes : 0;
}

static bool is_number(unsigned tag)
{
	return bc_tag_bits(tag) != 0;
}

/* ---- offset tables (strings, types) ------------------------------------ */

/* varint n, pad to 4, u32 offset[n], data: returns n slices of the data. */
static struct bc_slice *read_u32_table(struct bc_ctx *cx, int id, uint32_t *n,
				       const char *what)
{
	struct bc_rd r;
	bc_rd_init(&r, cx, &cx->sec[id]);
	*n = bc_count(&r, 0, what);
	if (*n == 0)
		return NULL;
	bc_pad(&r, 4);
	if (*n > bc_left(&r) / 4)
		bc_fail(cx, r.pos, "%s count %u cannot fit in the %zu bytes left", what, *n,
			bc_left(&r));
	size_t tab = r.pos;
	size_t data = tab + (size_t)*n * 4;
	size_t dlen = r.end - data;
	struct bc_slice *s = bc_alloc_array(cx->ar, *n, sizeof(*s));
	uint32_t prev = 0;
	for (uint32_t i = 0; i < *n; i++) {
		size_t at = r.pos;
		uint32_t off = bc_u32(&r);
		if (off > dlen || off < prev)
			bc_fail(cx, at, "%s offset %u of entry %u is out of order or past the data (%zu bytes)",
				what, off, i, dlen);
		s[i].offset = data + off;
		prev = off;
	}
	for (uint32_t i = 0; i < *n; i++) {
		size_t endoff = i + 1 < *n ? s[i + 1].offset : r.end;
		s[i].len = endoff - s[i].offset;
		s[i].p = cx->m->data + s[i].offset;
	}
	return s;
}

void bc_read_strings(struct bc_ctx *cx)
{
	struct bc_module *m = cx->m;
	m->strings = read_u32_table(cx, 1, &m->nstrings, "string");
	/* NUL-terminated copies, so names can be used as C strings. */
	for (uint32_t i = 0; i < m->nstrings; i++) {
		char *c = bc_alloc(cx->ar, m->strings[i].len + 1);
		memcpy(c, m->strings[i].p, m->strings[i].len);
		m->strings[i].p = (const uint8_t *)c;
	}
}

void bc_check_string(struct bc_ctx *cx, uint64_t i, size_t off)
{
	if (i >= cx->m->nstrings)
		bc_fail(cx, off, "string index %llu out of range (%u strings)", (unsigned long long)i,
			cx->m->nstrings);
}

void bc_check_type(struct bc_ctx *cx, uint64_t i, size_t off)
{
	if (i >= cx->m->ntypes)
		bc_fail(cx, off, "type index %llu out of range (%u types)", (unsigned long long)i,
			cx->m->ntypes);
}

void bc_read_producer(struct bc_ctx *cx)
{
	struct bc_rd r;
	bc_rd_init(&r, cx, &cx->sec[7]);
	size_t at = r.pos;
	uint64_t s = bc_varint(&r);
	bc_check_string(cx, s, at);
	cx->m->producer = (int64_t)s;
}

/* ---- types ------------------------------------------------------------ */

static uint32_t type_ref(struct bc_rd *r)
{
	size_t at = r->pos;
	uint64_t t = bc_varint(r);
	bc_check_type(r->cx, t, at);
	return (uint32_t)t;
}

static void read_padding_enum(struct bc_rd *r, struct bc_type *t)
{
	t->has_padding = true;
	t->padding = (uint8_t)bc_read_enum(r, BC_EN_PADDING);
}

/* The 13.3 optional-field bitfield of view types: bit 0 = padding_value.
 * Other bits name no field; like undefined op flag bits they are ignored. */
static uint64_t read_view_flags(struct bc_rd *r)
{
	return bc_varint(r);
}

static void read_type(struct bc_ctx *cx, struct bc_type *t, const struct bc_slice *s)
{
	struct bc_rd r;
	bc_rd_init(&r, cx, s);
	size_t at = r.pos;
	uint64_t tag = bc_varint(&r);
	if (tag >= BC_TY_COUNT)
		bc_fail(cx, at, "unknown type tag %llu", (unsigned long long)tag);
	if (bc_tag_since((unsigned)tag) > cx->minor)
		bc_fail(cx, at, "type '%s' requires bytecode version 13.%u+, file version is 13.%u",
			tag_names[tag], bc_tag_since((unsigned)tag), cx->minor);
	t->tag = (uint8_t)tag;
	uint64_t flags = 0;
	switch (tag) {
	case BC_TY_PTR:
		t->elem = type_ref(&r);
		break;
	case BC_TY_TILE:
		t->elem = type_ref(&r);
		at = r.pos;
		t->shape = bc_i64_array(&r, &t->rank, "tile rank");
		for (uint32_t i = 0; i < t->rank; i++)
			if (t->shape[i] <= 0)
				bc_fail(cx, at, "tile dimension %u is %lld (tile shapes are static and positive)",
					i, (long long)t->shape[i]);
		break;
	case BC_TY_TENSOR_VIEW:
		t->elem = type_ref(&r);
		at = r.pos;
		t->shape = bc_i64_array(&r, &t->rank, "tensor_view rank");
		for (uint32_t i = 0; i < t->rank; i++)
			if (t->shape[i] < 0 && t->shape[i] != BC_DYNAMIC)
				bc_fail(cx, at, "tensor_view dimension %u is %lld (a size or dynamic)", i,
					(long long)t->shape[i]);
		t->strides = bc_i64_array(&r, &t->nstrides, "tensor_view stride count");
		break;
	case BC_TY_PARTITION_VIEW:
		if (cx->minor >= 3)
			flags = read_view_flags(&r);
		t->tile = bc_i32_array(&r, &t->ntile, "partition_view tile rank");
		t->view = type_ref(&r);
		t->dim_map = bc_i32_array(&r, &t->ndim_map, "partition_view dim_map length");
		if (cx->minor >= 3) {
			if (flags & 1)
				read_padding_enum(&r, t);
		} else if (bc_u8(&r)) {
			read_padding_enum(&r, t);
		}
		break;
	case BC_TY_GATHER_SCATTER_VIEW:
		flags = read_view_flags(&r);
		t->tile = bc_i32_array(&r, &t->ntile, "gather_scatter_view tile rank");
		t->view = type_ref(&r);
		t->sparse_dim = (uint32_t)bc_varint_max(&r, UINT32_MAX, "sparse_dim");
		if (flags & 1)
			read_padding_enum(&r, t);
		break;
	case BC_TY_STRIDED_VIEW:
		flags = read_view_flags(&r);
		t->tile = bc_i32_array(&r, &t->ntile, "strided_view tile rank");
		t->trav = bc_i32_array(&r, &t->ntrav, "strided_view traversal stride count");
		t->view = type_ref(&r);
		t->dim_map = bc_i32_array(&r, &t->ndim_map, "strided_view dim_map length");
		if (flags & 1)
			read_padding_enum(&r, t);
		break;
	case BC_TY_FUNC:
		t->nin = bc_count(&r, 1, "function input count");
		t->in = bc_alloc_array(cx->ar, t->nin, sizeof(uint32_t));
		for (uint32_t i = 0; i < t->nin; i++)
			t->in[i] = type_ref(&r);
		t->nout = bc_count(&r, 1, "function result count");
		t->out = bc_alloc_array(cx->ar, t->nout, sizeof(uint32_t));
		for (uint32_t i = 0; i < t->nout; i++)
			t->out[i] = type_ref(&r);
		break;
	default:
		break;
	}
}

/* Kinds of the types a compound type refers to. These rules also make
 * reference cycles impossible: the referenced kinds form a strict order
 * (function > views > tensor_view, tile > ptr > number). */
static void check_type_refs(struct bc_ctx *cx, uint32_t i)
{
	const struct bc_module *m = cx->m;
	const struct bc_type *t = &m->types[i];
	size_t off = cx->sec[5].offset;
	const char *bad = NULL;
	switch (t->tag) {
	case BC_TY_PTR:
		if (!is_number(m->types[t->elem].tag))
			bad = "a pointer's pointee must be an integer or float type";
		break;
	case BC_TY_TILE:
		if (!is_number(m->types[t->elem].tag) && m->types[t->elem].tag != BC_TY_PTR)
			bad = "a tile's element must be a number or pointer type";
		break;
	case BC_TY_TENSOR_VIEW:
		if (!is_number(m->types[t->elem].tag) && m->types[t->elem].tag != BC_TY_PTR)
			bad = "a tensor_view's element must be a number or pointer type";
		break;
	case BC_TY_PARTITION_VIEW:
	case BC_TY_GATHER_SCATTER_VIEW:
	case BC_TY_STRIDED_VIEW:
		if (m->types[t->view].tag != BC_TY_TENSOR_VIEW)
			bad = "a view must refer to a tensor_view type";
		break;
	case BC_TY_FUNC:
		for (uint32_t k = 0; k < t->nin + t->nout && !bad; k++) {
			uint32_t r = k < t->nin ? t->in[k] : t->out[k - t->nin];
			if (m->types[r].tag == BC_TY_FUNC)
				bad = "a function type cannot take or return a function type";
		}
		break;
	default:
		break;
	}
	if (bad)
		bc_fail(cx, off, "type %u: %s", i, bad);
}

void bc_read_types(struct bc_ctx *cx)
{
	struct bc_module *m = cx->m;
	struct bc_slice *s = read_u32_table(cx, 5, &m->ntypes, "type");
	m->types = bc_alloc_array(cx->ar, m->ntypes, sizeof(struct bc_type));
	for (uint32_t i = 0; i < m->ntypes; i++) {
		if (s[i].len == 0)
			bc_fail(cx, s[i].offset, "type %u is empty", i);
		read_type(cx, &m->types[i], &s[i]);
	}
	for (uint32_t i = 0; i < m->ntypes; i++)
		check_type_refs(cx, i);
}

/* ---- constants -------------------------------------------------------- */

void bc_read_constants(struct bc_ctx *cx)
{
	struct bc_module *m = cx->m;
	struct bc_rd r;
	bc_rd_init(&r, cx, &cx->sec[4]);
	m->nconsts = bc_count(&r, 0, "constant count");
	if (m->nconsts == 0)
		return;
	bc_pad(&r, 8);
	if (m->nconsts > bc_left(&r) / 8)
		bc_fail(cx, r.pos, "constant count %u cannot fit in the %zu bytes left", m->nconsts,
			bc_left(&r));
	size_t data = r.pos + (size_t)m->nconsts * 8;
	size_t dlen = r.end - data;
	m->consts = bc_alloc_array(cx->ar, m->nconsts, sizeof(struct bc_slice));
	uint64_t prev = 0;
	size_t *starts = bc_alloc_array(cx->ar, m->nconsts, sizeof(size_t));
	for (uint32_t i = 0; i < m->nconsts; i++) {
		size_t at = r.pos;
		uint64_t off = bc_u64(&r);
		if (off > dlen || off < prev)
			bc_fail(cx, at, "constant offset %llu of entry %u is out of order or past the data (%zu bytes)",
				(unsigned long long)off, i, dlen);
		starts[i] = data + (size_t)off;
		prev = off;
	}
	for (uint32_t i = 0; i < m->nconsts; i++) {
		struct bc_slice s = {NULL, (i + 1 < m->nconsts ? starts[i + 1] : r.end) - starts[i],
				     starts[i]};
		struct bc_rd c;
		bc_rd_init(&c, cx, &s);
		size_t at = c.pos;
		uint64_t n = bc_varint(&c);
		if (n > bc_left(&c))
			bc_fail(cx, at, "constant %u: %llu bytes do not fit in its %zu-byte entry", i,
				(unsigned long long)n, bc_left(&c));
		m->consts[i].offset = c.pos;
		m->consts[i].p = m->data + c.pos;
		m->consts[i].len = (size_t)n;
	}
}

uint64_t bc_tile_elems(const struct bc_type *t)
{
	uint64_t n = 1;
	for (uint32_t i = 0; i < t->rank; i++) {
		int64_t d = t->shape[i];
		if (d <= 0)
			return 0;
		if (n > UINT64_MAX / (uint64_t)d)
			return UINT64_MAX;
		n *= (uint64_t)d;
	}
	return n;
}

const struct bc_type *bc_dense_type(struct bc_ctx *cx, uint64_t type, size_t off)
{
	bc_check_type(cx, type, off);
	const struct bc_type *t = &cx->m->types[type];
	if (t->tag != BC_TY_TILE || !is_number(cx->m->types[t->elem].tag))
		bc_fail(cx, off, "dense value type %llu is not a tile of integers or floats",
			(unsigned long long)type);
	for (uint32_t i = 0; i < t->rank; i++)
		if (t->shape[i] <= 0)
			bc_fail(cx, off, "dense value type %llu has a non-positive dimension",
				(unsigned long long)type);
	return t;
}

void bc_check_dense(struct bc_ctx *cx, uint64_t type, uint64_t c, size_t off)
{
	const struct bc_type *t = bc_dense_type(cx, type, off);
	if (c >= cx->m->nconsts)
		bc_fail(cx, off, "constant index %llu out of range (%u constants)",
			(unsigned long long)c, cx->m->nconsts);
	unsigned tag = cx->m->types[t->elem].tag;
	uint64_t n = bc_tile_elems(t);
	size_t len = cx->m->consts[c].len;
	unsigned eb = bc_elem_bytes(tag);
	if (len == eb)
		return; /* splat */
	if (n != UINT64_MAX && n <= SIZE_MAX / eb && len == n * eb)
		return;
	if (tag == BC_TY_I1 && n > 1 && len == (n + 7) / 8)
		return; /* legacy bit-packed i1 (§4.3) */
	bc_fail(cx, off, "failed to validate buffer size and format: constant %llu has %zu bytes for %llu elements of %s",
		(unsigned long long)c, len, (unsigned long long)n, bc_scalar_name(tag));
}

/* ---- globals ---------------------------------------------------------- */

void bc_read_globals(struct bc_ctx *cx)
{
	struct bc_module *m = cx->m;
	struct bc_rd r;
	bc_rd_init(&r, cx, &cx->sec[6]);
	m->nglobals = bc_count(&r, cx->minor >= 3 ? 6 : 4, "global count");
	m->globals = bc_alloc_array(cx->ar, m->nglobals, sizeof(struct bc_global));
	for (uint32_t i = 0; i < m->nglobals; i++) {
		struct bc_global *g = &m->globals[i];
		size_t at = r.pos;
		uint64_t name = bc_varint(&r);
		bc_check_string(cx, name, at);
		if (m->strings[name].len == 0)
			bc_fail(cx, at, "global %u has an empty name", i);
		g->name = (uint32_t)name;
		at = r.pos;
		uint64_t type = bc_varint(&r);
		uint64_t c = bc_varint(&r);
		bc_check_dense(cx, type, c, at);
		g->type = (uint32_t)type;
		g->constant = (uint32_t)c;
		g->alignment = bc_varint(&r);
		if (cx->minor >= 3) {
			g->visibility = (uint8_t)bc_read_enum(&r, BC_EN_VISIBILITY);
			g->is_constant = bc_varint(&r) != 0;
		}
	}
}
