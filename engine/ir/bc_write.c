/* Tile IR bytecode: a small writer that lays files out by the encoding
 * rules (§1, §2, §4, §8). Used by the tests, the fuzz seed corpus and the
 * benchmark; op records themselves are written by the caller. */
#include "engine/ir/bytecode.h"

#include <stdlib.h>
#include <string.h>

#define PAD_BYTE 0xCB

void bcw_varint(struct sbuf *b, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;
		v >>= 7;
		if (v)
			c |= 0x80;
		sb_addc(b, (char)c);
	} while (v);
}

void bcw_svarint(struct sbuf *b, int64_t v)
{
	bcw_varint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void bcw_uint(struct sbuf *b, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		sb_addc(b, (char)(v >> (8 * i)));
}

void bcw_va(struct sbuf *b, const uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		bcw_varint(b, v[i]);
}

void bcw_i32s(struct sbuf *b, unsigned n, const int32_t *v)
{
	bcw_varint(b, n);
	for (unsigned i = 0; i < n; i++)
		bcw_uint(b, (uint32_t)v[i], 4);
}

void bcw_i64s(struct sbuf *b, unsigned n, const int64_t *v)
{
	bcw_varint(b, n);
	for (unsigned i = 0; i < n; i++)
		bcw_uint(b, (uint64_t)v[i], 8);
}

/* ---- tables ------------------------------------------------------------- */

struct blobs {
	struct sbuf *v;
	size_t n, cap;
};

static uint32_t blob_add(struct blobs *t, const void *p, size_t len, bool dedup)
{
	if (dedup)
		for (size_t i = 0; i < t->n; i++)
			if (t->v[i].len == len && (!len || memcmp(t->v[i].buf, p, len) == 0))
				return (uint32_t)i;
	t->v = xgrow(t->v, &t->cap, t->n + 1, sizeof(*t->v));
	t->v[t->n] = (struct sbuf)SBUF_INIT;
	sb_add(&t->v[t->n], p, len);
	return (uint32_t)t->n++;
}

static void blobs_free(struct blobs *t)
{
	for (size_t i = 0; i < t->n; i++)
		sb_free(&t->v[i]);
	free(t->v);
}

struct bc_writer {
	unsigned minor;
	enum bcw_style style;
	struct blobs strings, types, consts, dattrs;
	struct sbuf globals, funcs;
	uint32_t nglobals, nfuncs;
	int64_t producer;
	uint64_t *dbg;      /* all debug lists, concatenated */
	size_t ndbg, cdbg;
	uint32_t *lists;    /* start of each list */
	size_t nlists, clists;
};

struct bc_writer *bcw_new(unsigned minor, enum bcw_style style)
{
	struct bc_writer *w = xcalloc(1, sizeof(*w));
	w->minor = minor;
	w->style = style;
	w->producer = -1;
	return w;
}

void bcw_free(struct bc_writer *w)
{
	if (!w)
		return;
	blobs_free(&w->strings);
	blobs_free(&w->types);
	blobs_free(&w->consts);
	blobs_free(&w->dattrs);
	sb_free(&w->globals);
	sb_free(&w->funcs);
	free(w->dbg);
	free(w->lists);
	free(w);
}

uint32_t bcw_string(struct bc_writer *w, const char *s)
{
	return blob_add(&w->strings, s, strlen(s), true);
}

uint32_t bcw_type_raw(struct bc_writer *w, const struct sbuf *entry)
{
	return blob_add(&w->types, entry->buf, entry->len, true);
}

static uint32_t type_done(struct bc_writer *w, struct sbuf *e)
{
	uint32_t t = bcw_type_raw(w, e);
	sb_free(e);
	return t;
}

uint32_t bcw_scalar(struct bc_writer *w, unsigned tag)
{
	struct sbuf e = SBUF_INIT;
	bcw_varint(&e, tag);
	return type_done(w, &e);
}

uint32_t bcw_ptr(struct bc_writer *w, uint32_t pointee)
{
	struct sbuf e = SBUF_INIT;
	BCW_V(&e, (uint64_t)BC_TY_PTR, (uint64_t)pointee);
	return type_done(w, &e);
}

uint32_t bcw_tile(struct bc_writer *w, uint32_t elem, unsigned rank, const int64_t *shape)
{
	struct sbuf e = SBUF_INIT;
	BCW_V(&e, (uint64_t)BC_TY_TILE, (uint64_t)elem);
	bcw_i64s(&e, rank, shape);
	return type_done(w, &e);
}

uint32_t bcw_tensor_view(struct bc_writer *w, uint32_t elem, unsigned rank, const int64_t *shape,
			 const int64_t *strides)
{
	struct sbuf e = SBUF_INIT;
	BCW_V(&e, (uint64_t)BC_TY_TENSOR_VIEW, (uint64_t)elem);
	bcw_i64s(&e, rank, shape);
	bcw_i64s(&e, rank, strides);
	return type_done(w, &e);
}

static void dim_map_or_identity(struct sbuf *e, unsigned n, const int32_t *dim_map)
{
	int32_t id[16];
	if (!dim_map) {
		for (unsigned i = 0; i < n && i < 16; i++)
			id[i] = (int32_t)i;
		dim_map = id;
		if (n > 16)
			n = 16;
	}
	bcw_i32s(e, n, dim_map);
}

uint32_t bcw_partition_view(struct bc_writer *w, unsigned ntile, const int32_t *tile,
			    uint32_t tview, const int32_t *dim_map, int padding)
{
	struct sbuf e = SBUF_INIT;
	bcw_varint(&e, BC_TY_PARTITION_VIEW);
	if (w->minor >= 3) {
		bcw_varint(&e, padding >= 0);
		bcw_i32s(&e, ntile, tile);
		bcw_varint(&e, tview);
		dim_map_or_identity(&e, ntile, dim_map);
		if (padding >= 0)
			bcw_varint(&e, (uint64_t)padding);
	} else {
		bcw_i32s(&e, ntile, tile);
		bcw_varint(&e, tview);
		dim_map_or_identity(&e, ntile, dim_map);
		sb_addc(&e, padding >= 0);
		if (padding >= 0)
			bcw_varint(&e, (uint64_t)padding);
	}
	return type_done(w, &e);
}

uint32_t bcw_strided_view(struct bc_writer *w, unsigned ntile, const int32_t *tile,
			  const int32_t *trav, uint32_t tview, const int32_t *dim_map, int padding)
{
	struct sbuf e = SBUF_INIT;
	BCW_V(&e, (uint64_t)BC_TY_STRIDED_VIEW, (uint64_t)(padding >= 0));
	bcw_i32s(&e, ntile, tile);
	bcw_i32s(&e, ntile, trav);
	bcw_varint(&e, tview);
	dim_map_or_identity(&e, ntile, dim_map);
	if (padding >= 0)
		bcw_varint(&e, (uint64_t)padding);
	return type_done(w, &e);
}

uint32_t bcw_gather_scatter_view(struct bc_writer *w, unsigned ntile, const int32_t *tile,
				 uint32_t tview, uint32_t sparse_dim, int padding)
{
	struct sbuf e = SBUF_INIT;
	BCW_V(&e, (uint64_t)BC_TY_GATHER_SCATTER_VIEW, (uint64_t)(padding >= 0));
	bcw_i32s(&e, ntile, tile);
	BCW_V(&e, (uint64_t)tview, (uint64_t)sparse_dim);
	if (padding >= 0)
		bcw_varint(&e, (uint64_t)padding);
	return type_done(w, &e);
}

uint32_t bcw_func_type(struct bc_writer *w, unsigned nin, const uint32_t *in, unsigned nout,
		       const uint32_t *out)
{
	struct sbuf e = SBUF_INIT;
	BCW_V(&e, (uint64_t)BC_TY_FUNC, (uint64_t)nin);
	for (unsigned i = 0; i < nin; i++)
		bcw_varint(&e, in[i]);
	bcw_varint(&e, nout);
	for (unsigned i = 0; i < nout; i++)
		bcw_varint(&e, out[i]);
	return type_done(w, &e);
}

uint32_t bcw_constant(struct bc_writer *w, const void *bytes, size_t len)
{
	struct sbuf e = SBUF_INIT;
	bcw_varint(&e, len);
	sb_add(&e, bytes, len);
	uint32_t c = blob_add(&w->consts, e.buf, e.len, false);
	sb_free(&e);
	return c;
}

void bcw_global(struct bc_writer *w, const char *name, uint32_t type, uint32_t constant,
		uint64_t alignment, unsigned visibility, bool is_constant)
{
	BCW_V(&w->globals, (uint64_t)bcw_string(w, name), (uint64_t)type,
	       (uint64_t)constant, alignment);
	if (w->minor >= 3)
		BCW_V(&w->globals, (uint64_t)visibility, (uint64_t)is_constant);
	w->nglobals++;
}

void bcw_producer(struct bc_writer *w, const char *producer)
{
	w->producer = bcw_string(w, producer);
}

uint32_t bcw_debug_attr(struct bc_writer *w, unsigned tag, const uint64_t *f, size_t n)
{
	struct sbuf e = SBUF_INIT;
	bcw_varint(&e, tag);
	bcw_va(&e, f, n);
	uint32_t ref = blob_add(&w->dattrs, e.buf, e.len, false) + 1;
	sb_free(&e);
	return ref;
}

uint32_t bcw_debug_list(struct bc_writer *w, unsigned n, const uint64_t *refs)
{
	w->lists = xgrow(w->lists, &w->clists, w->nlists + 1, sizeof(*w->lists));
	w->lists[w->nlists++] = (uint32_t)w->ndbg;
	w->dbg = xgrow(w->dbg, &w->cdbg, w->ndbg + n, sizeof(*w->dbg));
	memcpy(w->dbg + w->ndbg, refs, n * sizeof(*refs));
	w->ndbg += n;
	return (uint32_t)w->nlists;
}

void bcw_func(struct bc_writer *w, const char *name, uint32_t sig, uint32_t loc,
	      const struct sbuf *hints, const struct sbuf *body)
{
	BCW_V(&w->funcs, (uint64_t)bcw_string(w, name), (uint64_t)sig);
	sb_addc(&w->funcs, hints ? 6 : 2);
	bcw_varint(&w->funcs, loc);
	if (hints)
		sb_add(&w->funcs, hints->buf, hints->len);
	bcw_varint(&w->funcs, body->len);
	sb_add(&w->funcs, body->buf, body->len);
	w->nfuncs++;
}

/* ---- layout ------------------------------------------------------------- */

static void pad_to(struct sbuf *b, size_t base, size_t align)
{
	while ((b->len - base) % align)
		sb_addc(b, (char)PAD_BYTE);
}

/* varint n, pad, fixed-width offsets, data (strings, types, constants). */
static void offset_table(struct sbuf *p, const struct blobs *t, unsigned width)
{
	bcw_varint(p, t->n);
	if (!t->n)
		return;
	pad_to(p, 0, width);
	uint64_t off = 0;
	for (size_t i = 0; i < t->n; i++) {
		bcw_uint(p, off, width);
		off += t->v[i].len;
	}
	for (size_t i = 0; i < t->n; i++)
		sb_add(p, t->v[i].buf, t->v[i].len);
}

static void debug_payload(const struct bc_writer *w, struct sbuf *p)
{
	bcw_varint(p, w->nlists);
	pad_to(p, 0, 4);
	for (size_t i = 0; i < w->nlists; i++)
		bcw_uint(p, w->lists[i], 4);
	bcw_varint(p, w->ndbg);
	pad_to(p, 0, 8);
	for (size_t i = 0; i < w->ndbg; i++)
		bcw_uint(p, w->dbg[i], 8);
	bcw_varint(p, w->dattrs.n);
	pad_to(p, 0, 4);
	uint32_t off = 0;
	for (size_t i = 0; i < w->dattrs.n; i++) {
		bcw_uint(p, off, 4);
		off += (uint32_t)w->dattrs.v[i].len;
	}
	for (size_t i = 0; i < w->dattrs.n; i++)
		sb_add(p, w->dattrs.v[i].buf, w->dattrs.v[i].len);
}

static void section(struct sbuf *out, unsigned id, unsigned align, const struct sbuf *payload)
{
	sb_addc(out, (char)(id | (align > 1 ? 0x80 : 0)));
	bcw_varint(out, payload->len);
	if (align > 1) {
		bcw_varint(out, align);
		pad_to(out, 0, align);
	}
	sb_add(out, payload->buf, payload->len);
}

static void emit(const struct bc_writer *w, unsigned id, struct sbuf *out)
{
	struct sbuf p = SBUF_INIT;
	unsigned align = 1;
	switch (id) {
	case 1:
		offset_table(&p, &w->strings, 4);
		align = 4;
		break;
	case 2:
		bcw_varint(&p, w->nfuncs);
		sb_add(&p, w->funcs.buf, w->funcs.len);
		if (w->style == BCW_CPP)
			pad_to(&p, 0, 8);
		align = 8;
		break;
	case 3:
		if (!w->nlists && !w->dattrs.n && w->style == BCW_CPP)
			return;
		debug_payload(w, &p);
		align = 8;
		break;
	case 4:
		if (!w->consts.n && w->style == BCW_CPP)
			return;
		offset_table(&p, &w->consts, 8);
		align = 8;
		break;
	case 5:
		offset_table(&p, &w->types, 4);
		align = 4;
		break;
	case 6:
		if (!w->nglobals)
			return;
		bcw_varint(&p, w->nglobals);
		sb_add(&p, w->globals.buf, w->globals.len);
		break;
	case 7:
		if (w->producer < 0 || w->minor < 3)
			return;
		bcw_varint(&p, (uint64_t)w->producer);
		break;
	}
	section(out, id, align, &p);
	sb_free(&p);
}

void bcw_finish(struct bc_writer *w, struct sbuf *out)
{
	static const unsigned cpp[] = {6, 2, 4, 3, 5, 7, 1};
	static const unsigned python[] = {2, 6, 4, 3, 5, 1};
	sb_add(out, BC_MAGIC, BC_MAGIC_LEN);
	sb_addc(out, 13);
	sb_addc(out, (char)w->minor);
	bcw_uint(out, 0, 2);
	const unsigned *order = w->style == BCW_CPP ? cpp : python;
	size_t n = w->style == BCW_CPP ? TP_ARRAY_LEN(cpp) : TP_ARRAY_LEN(python);
	for (size_t i = 0; i < n; i++)
		emit(w, order[i], out);
	sb_addc(out, 0);
}
