/* Tile IR bytecode: the debug-info section (§8). The per-function index
 * lists are kept in place and consumed in pre-order as ops are read; the
 * debug attributes are decoded and their references checked. */
#include "engine/ir/bc_priv.h"

/* Payload fields per tag: 'r' debug reference, 's' string, 'n' number. */
static const char *const di_layout[7] = {
	"", "r", "ss", "rrnn", "rsnn", "rnssrn", "rr",
};

static void read_diattr(struct bc_ctx *cx, struct bc_diattr *d, const struct bc_slice *s,
			uint32_t ndi)
{
	struct bc_rd r;
	bc_rd_init(&r, cx, s);
	uint64_t tag = bc_varint(&r);
	if (tag > 6) {
		d->tag = 0; /* other tags read as unknown */
		return;
	}
	d->tag = (uint8_t)tag;
	const char *lay = di_layout[tag];
	for (unsigned i = 0; lay[i]; i++) {
		size_t at = r.pos;
		d->f[i] = bc_varint(&r);
		if (lay[i] == 's')
			bc_check_string(cx, d->f[i], at);
		else if (lay[i] == 'r' && d->f[i] > ndi)
			bc_fail(cx, at, "debug reference %llu out of range (%u debug attributes)",
				(unsigned long long)d->f[i], ndi);
	}
}

void bc_read_debug(struct bc_ctx *cx)
{
	struct bc_module *m = cx->m;
	struct bc_rd r;
	bc_rd_init(&r, cx, &cx->sec[3]);
	size_t at = r.pos;
	uint64_t nf = bc_varint(&r);
	bc_pad(&r, 4);
	if (nf > bc_left(&r) / 4)
		bc_fail(cx, at, "debug function count %llu cannot fit in the %zu bytes left",
			(unsigned long long)nf, bc_left(&r));
	cx->nlists = (uint32_t)nf;
	cx->list_start = bc_bytes(&r, 4 * (size_t)nf);
	at = r.pos;
	uint64_t total = bc_varint(&r);
	bc_pad(&r, 8);
	if (total > bc_left(&r) / 8)
		bc_fail(cx, at, "debug index count %llu cannot fit in the %zu bytes left",
			(unsigned long long)total, bc_left(&r));
	cx->ndbg = total;
	cx->dbg = bc_bytes(&r, 8 * (size_t)total);
	for (uint32_t i = 0; i < cx->nlists; i++) {
		const uint8_t *p = cx->list_start + 4 * i;
		uint64_t v = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
			     (uint64_t)p[3] << 24;
		if (v > total)
			bc_fail(cx, (size_t)(p - m->data),
				"debug list %u starts at entry %llu, past the %llu entries", i + 1,
				(unsigned long long)v, (unsigned long long)total);
	}
	at = r.pos;
	uint64_t na = bc_varint(&r);
	bc_pad(&r, 4);
	if (na > bc_left(&r) / 4)
		bc_fail(cx, at, "debug attribute count %llu cannot fit in the %zu bytes left",
			(unsigned long long)na, bc_left(&r));
	m->ndi = (uint32_t)na;
	size_t tab = r.pos;
	size_t data = tab + 4 * (size_t)na;
	size_t dlen = r.end - data;
	uint32_t *offs = bc_alloc_array(cx->ar, na, sizeof(uint32_t));
	for (uint32_t i = 0; i < m->ndi; i++) {
		at = r.pos;
		offs[i] = bc_u32(&r);
		if (offs[i] > dlen || (i && offs[i] < offs[i - 1]))
			bc_fail(cx, at, "debug attribute offset %u of entry %u is out of order or past the data",
				offs[i], i);
	}
	m->di = bc_alloc_array(cx->ar, na, sizeof(struct bc_diattr));
	for (uint32_t i = 0; i < m->ndi; i++) {
		size_t end = i + 1 < m->ndi ? data + offs[i + 1] : r.end;
		struct bc_slice s = {m->data + data + offs[i], end - data - offs[i], data + offs[i]};
		read_diattr(cx, &m->di[i], &s, m->ndi);
	}
	for (uint64_t k = 0; k < total; k++) {
		const uint8_t *p = cx->dbg + 8 * k;
		uint64_t v = 0;
		for (int b = 0; b < 8; b++)
			v |= (uint64_t)p[b] << (8 * b);
		if (v > m->ndi)
			bc_fail(cx, (size_t)(p - m->data),
				"debug reference %llu out of range (%u debug attributes)",
				(unsigned long long)v, m->ndi);
	}
}
