/* Tile IR bytecode: the byte cursor (varints, fixed widths, padding), the
 * arena, the header and section framing (§1, §2), and bc_decode, which
 * parses the sections in dependency order. */
#include "engine/base/files.h"
#include "engine/ir/bc_priv.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena ----------------------------------------------------------- */

struct bc_chunk {
	struct bc_chunk *next;
	size_t used, cap;
	max_align_t data[];
};

struct bc_arena {
	struct bc_chunk *head;
};

struct bc_arena *bc_arena_new(void)
{
	return xcalloc(1, sizeof(struct bc_arena));
}

void bc_arena_free(struct bc_arena *a)
{
	if (!a)
		return;
	struct bc_chunk *c = a->head;
	while (c) {
		struct bc_chunk *next = c->next;
		free(c);
		c = next;
	}
	free(a);
}

void *bc_alloc(struct bc_arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	if (n == 0)
		n = 16;
	struct bc_chunk *c = a->head;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > 65536 ? n : 65536;
		c = xmalloc(sizeof(*c) + cap);
		c->used = 0;
		c->cap = cap;
		c->next = a->head;
		a->head = c;
	}
	void *p = (char *)c->data + c->used;
	c->used += n;
	memset(p, 0, n);
	return p;
}

void *bc_alloc_array(struct bc_arena *a, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size / 2)
		tp_die("bytecode: allocation overflow");
	return bc_alloc(a, n * size);
}

/* ---- cursor ---------------------------------------------------------- */

void bc_fail(struct bc_ctx *cx, size_t offset, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tp_err_set(cx->err, TP_EXIT_USAGE, "%s: offset %zu (0x%zx): %s", cx->name, offset,
		   offset, msg);
	longjmp(cx->fail, 1);
}

void bc_rd_init(struct bc_rd *r, struct bc_ctx *cx, const struct bc_slice *s)
{
	r->cx = cx;
	r->base = cx->m->data;
	r->pos = r->start = s->offset;
	r->end = s->offset + s->len;
}

size_t bc_left(const struct bc_rd *r)
{
	return r->end - r->pos;
}

static void need(struct bc_rd *r, size_t n, const char *what)
{
	if (bc_left(r) < n)
		bc_fail(r->cx, r->pos, "unexpected end of data reading %s (%zu byte%s needed, %zu left)",
			what, n, n == 1 ? "" : "s", bc_left(r));
}

uint8_t bc_u8(struct bc_rd *r)
{
	need(r, 1, "a byte");
	return r->base[r->pos++];
}

static uint64_t read_le(struct bc_rd *r, unsigned n, const char *what)
{
	need(r, n, what);
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)r->base[r->pos + i] << (8 * i);
	r->pos += n;
	return v;
}

uint16_t bc_u16(struct bc_rd *r)
{
	return (uint16_t)read_le(r, 2, "a 16-bit integer");
}

uint32_t bc_u32(struct bc_rd *r)
{
	return (uint32_t)read_le(r, 4, "a 32-bit integer");
}

uint64_t bc_u64(struct bc_rd *r)
{
	return read_le(r, 8, "a 64-bit integer");
}

uint64_t bc_varint(struct bc_rd *r)
{
	size_t at = r->pos;
	uint64_t v = 0;
	for (unsigned i = 0; i < 10; i++) {
		if (r->pos >= r->end)
			bc_fail(r->cx, at, "data ends inside a varint");
		uint8_t b = r->base[r->pos++];
		if (i == 9 && (b & 0x7e))
			bc_fail(r->cx, at, "varint does not fit in 64 bits");
		v |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80))
			return v;
	}
	bc_fail(r->cx, at, "varint longer than 10 bytes");
}

int64_t bc_svarint(struct bc_rd *r)
{
	uint64_t u = bc_varint(r);
	return (int64_t)((u >> 1) ^ (~(u & 1) + 1));
}

uint64_t bc_varint_max(struct bc_rd *r, uint64_t max, const char *what)
{
	size_t at = r->pos;
	uint64_t v = bc_varint(r);
	if (v > max)
		bc_fail(r->cx, at, "%s %llu out of range (at most %llu)", what,
			(unsigned long long)v, (unsigned long long)max);
	return v;
}

uint32_t bc_count(struct bc_rd *r, size_t elem, const char *what)
{
	size_t at = r->pos;
	uint64_t n = bc_varint(r);
	if (n > BC_COUNT_CAP)
		bc_fail(r->cx, at, "%s %llu exceeds the limit 4294967294", what,
			(unsigned long long)n);
	if (elem && n > bc_left(r) / elem)
		bc_fail(r->cx, at, "%s %llu cannot fit in the %zu bytes left", what,
			(unsigned long long)n, bc_left(r));
	return (uint32_t)n;
}

void bc_pad(struct bc_rd *r, size_t align)
{
	size_t rel = r->pos - r->start;
	size_t pad = (align - rel % align) % align;
	/* Unlike the official reader, zero padding at the end is fine (§1.6). */
	if (pad > bc_left(r))
		bc_fail(r->cx, r->pos, "padding to %zu bytes runs past the end of the section", align);
	r->pos += pad;
}

const uint8_t *bc_bytes(struct bc_rd *r, size_t n)
{
	need(r, n, "raw bytes");
	const uint8_t *p = r->base + r->pos;
	r->pos += n;
	return p;
}

int32_t *bc_i32_array(struct bc_rd *r, uint32_t *n, const char *what)
{
	*n = bc_count(r, 4, what);
	int32_t *v = bc_alloc_array(r->cx->ar, *n, sizeof(int32_t));
	for (uint32_t i = 0; i < *n; i++) {
		size_t at = r->pos;
		v[i] = (int32_t)bc_u32(r);
		if (v[i] == INT32_MIN || v[i] == INT32_MAX)
			bc_fail(r->cx, at, "array contains unsupported value %d", (int)v[i]);
	}
	return v;
}

int64_t *bc_i64_array(struct bc_rd *r, uint32_t *n, const char *what)
{
	*n = bc_count(r, 8, what);
	int64_t *v = bc_alloc_array(r->cx->ar, *n, sizeof(int64_t));
	for (uint32_t i = 0; i < *n; i++)
		v[i] = (int64_t)bc_u64(r);
	return v;
}

/* ---- header and sections --------------------------------------------- */

bool bc_is_bytecode(const void *buf, size_t len)
{
	return len >= BC_MAGIC_LEN && memcmp(buf, BC_MAGIC, BC_MAGIC_LEN) == 0;
}

static const char *const section_names[8] = {
	"end", "string", "function", "debug", "constant", "type", "global", "producer",
};

static void read_header(struct bc_ctx *cx)
{
	struct bc_module *m = cx->m;
	for (size_t i = 0; i < BC_MAGIC_LEN; i++)
		if (i >= m->len || m->data[i] != (uint8_t)BC_MAGIC[i])
			bc_fail(cx, 0, "invalid magic number at position %zu (not Tile IR bytecode)", i);
	if (m->len < BC_HEADER_LEN)
		bc_fail(cx, m->len, "file ends inside the 12-byte header");
	m->major = m->data[8];
	m->minor = m->data[9];
	m->tag = (uint16_t)(m->data[10] | m->data[11] << 8);
	if (m->major != 13 || m->minor < BC_MIN_MINOR || m->minor > BC_MAX_MINOR)
		bc_fail(cx, 8,
			"unsupported Tile version %u.%u.%u, this reader supports versions [13.1 - 13.3]",
			m->major, m->minor, m->tag);
	cx->minor = m->minor;
}

static void read_sections(struct bc_ctx *cx)
{
	struct bc_module *m = cx->m;
	struct bc_slice all = {m->data, m->len, 0};
	struct bc_rd r;
	bc_rd_init(&r, cx, &all);
	r.pos = BC_HEADER_LEN;
	for (;;) {
		size_t at = r.pos;
		if (r.pos >= r.end)
			bc_fail(cx, at, "missing end section (file ends after the last section)");
		uint8_t b = bc_u8(&r);
		unsigned id = b & 0x7f;
		bool aligned = b & 0x80;
		if (id >= 8)
			bc_fail(cx, at, "unknown section ID: %u", id);
		if (id == 0) {
			if (aligned)
				bc_fail(cx, at, "end section has the alignment flag set");
			if (r.pos != r.end)
				bc_fail(cx, at, "end section is not the last section (%zu bytes follow)",
					r.end - r.pos);
			break;
		}
		const char *nm = section_names[id];
		size_t lat = r.pos;
		uint64_t len = bc_varint(&r);
		if (len > bc_left(&r))
			bc_fail(cx, lat, "%s section length %llu exceeds remaining data size %zu", nm,
				(unsigned long long)len, bc_left(&r));
		uint64_t align = 1;
		if (aligned) {
			size_t aat = r.pos;
			align = bc_varint(&r);
			if (align == 0 || (align & (align - 1)))
				bc_fail(cx, aat, "%s section alignment %llu is not a power of two", nm,
					(unsigned long long)align);
			uint64_t pad = (align - r.pos % align) % align;
			if (pad > bc_left(&r))
				bc_fail(cx, aat, "%s section padding runs past the end of the file", nm);
			r.pos += pad;
			if (len > bc_left(&r))
				bc_fail(cx, lat, "%s section length %llu exceeds remaining data size %zu",
					nm, (unsigned long long)len, bc_left(&r));
		}
		unsigned want = 0;
		if (id == 1 || id == 5)
			want = 4;
		else if (id == 2 || id == 3 || id == 4)
			want = 8;
		if (want && (!aligned || align % want))
			bc_fail(cx, at, "%s section must be aligned to a multiple of %u", nm, want);
		if (cx->have[id])
			bc_fail(cx, at, "duplicate %s section", nm);
		cx->have[id] = true;
		cx->sec[id].p = m->data + r.pos;
		cx->sec[id].len = len;
		cx->sec[id].offset = r.pos;
		r.pos += len;
	}
	if (!cx->have[1])
		bc_fail(cx, BC_HEADER_LEN, "string section is mandatory");
	if (!cx->have[2])
		bc_fail(cx, BC_HEADER_LEN, "function section is mandatory");
}

static void ctx_release(struct bc_ctx *cx)
{
	free(cx->scope);
	free(cx->tmp);
}

struct bc_module *bc_decode(const void *buf, size_t len, const char *name, struct tp_err *err)
{
	struct bc_ctx *cx = xcalloc(1, sizeof(*cx));
	struct bc_module *m = xcalloc(1, sizeof(*m));
	cx->err = err;
	cx->name = name ? name : "<bytecode>";
	cx->m = m;
	cx->ar = m->arena = bc_arena_new();
	m->data = xmalloc(len ? len : 1);
	if (len)
		memcpy(m->data, buf, len);
	m->len = len;
	m->producer = -1;
	if (setjmp(cx->fail)) {
		ctx_release(cx);
		free(cx);
		bc_module_free(m);
		return NULL;
	}
	read_header(cx);
	read_sections(cx);
	bc_read_strings(cx);
	if (cx->have[7])
		bc_read_producer(cx);
	if (cx->have[5])
		bc_read_types(cx);
	if (cx->have[4])
		bc_read_constants(cx);
	if (cx->have[3])
		bc_read_debug(cx);
	if (cx->have[6])
		bc_read_globals(cx);
	bc_read_functions(cx);
	ctx_release(cx);
	free(cx);
	return m;
}

struct bc_module *bc_load_file(const char *path, struct tp_err *err)
{
	size_t len;
	char *buf = read_file(path, &len, err);
	if (!buf)
		return NULL;
	struct bc_module *m = bc_decode(buf, len, path, err);
	free(buf);
	return m;
}

void bc_module_free(struct bc_module *m)
{
	if (!m)
		return;
	bc_arena_free(m->arena);
	free(m->data);
	free(m);
}

const char *bc_str(const struct bc_module *m, uint32_t i)
{
	static const char empty[] = "";
	if (i >= m->nstrings)
		return empty;
	/* Strings are copied NUL-terminated into the arena by bc_read_strings. */
	return (const char *)m->strings[i].p;
}
