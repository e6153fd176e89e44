/* Tile IR bytecode: the function section (§4.6), op records (§6), regions
 * and blocks (§7), SSA value numbering (§6.5) and the attachment of debug
 * references to ops in pre-order (§8). */
#include "engine/ir/bc_priv.h"

#include <string.h>

static bool is_terminator(unsigned opcode)
{
	return opcode == 0x0A || opcode == 0x11 || opcode == 0x5C || opcode == 0x6D;
}

/* ---- value list ---------------------------------------------------- */

/* A new value id; `visible` = it takes a position in the scoped list that
 * operands index (results the file predates do not, §6.2.1). */
static uint32_t new_value(struct bc_ctx *cx, bool visible)
{
	uint32_t id = (uint32_t)cx->nvalues++;
	if (visible) {
		cx->scope = xgrow(cx->scope, &cx->cscope, cx->nscope + 1, sizeof(*cx->scope));
		cx->scope[cx->nscope++] = id;
	}
	return id;
}

static uint32_t read_operand(struct bc_rd *r)
{
	size_t at = r->pos;
	uint64_t i = bc_varint(r);
	if (i >= r->cx->nscope)
		bc_fail(r->cx, at, "operand refers to value %llu, but only %zu values are defined here",
			(unsigned long long)i, r->cx->nscope);
	return r->cx->scope[i];
}

static void push_tmp(struct bc_ctx *cx, size_t *n, uint32_t v)
{
	cx->tmp = xgrow(cx->tmp, &cx->ctmp, *n + 1, sizeof(*cx->tmp));
	cx->tmp[(*n)++] = v;
}

/* ---- debug references ------------------------------------------------ */

static uint64_t next_loc(struct bc_ctx *cx)
{
	if (!cx->dbg_on || cx->dbg_pos >= cx->dbg_end)
		return 0;
	const uint8_t *p = cx->dbg + 8 * cx->dbg_pos++;
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v <= cx->m->ndi ? v : 0;
}

/* ---- op records ------------------------------------------------------ */

static void read_block(struct bc_rd *r, struct bc_block *b, const struct bc_op *parent);

static void read_attr_field(struct bc_rd *r, struct bc_op *op, const struct bc_field *f,
			    struct bc_fval *v)
{
	struct bc_ctx *cx = r->cx;
	size_t at = r->pos;
	v->present = true;
	switch (f->kind) {
	case BC_F_ENUM:
		v->v = bc_read_enum(r, f->en);
		break;
	case BC_F_INT:
		v->v = bc_varint(r);
		break;
	case BC_F_BOOL:
		v->v = bc_u8(r) != 0;
		break;
	case BC_F_STR:
		v->v = bc_varint(r);
		bc_check_string(cx, v->v, at);
		break;
	case BC_F_I32ARR:
		v->i32 = bc_i32_array(r, &v->n, "array length");
		break;
	case BC_F_CONST:
		v->v = bc_varint(r);
		if (op->nres < 1)
			bc_fail(cx, at, "constant value without a result type");
		bc_check_dense(cx, op->res_types[0], v->v, at);
		break;
	case BC_F_ATTRARR:
		v->n = bc_count(r, 2, "attribute array size");
		v->attr = bc_alloc_array(cx->ar, v->n, sizeof(struct bc_attr));
		for (uint32_t i = 0; i < v->n; i++)
			bc_read_tagged(r, &v->attr[i], 1);
		break;
	case BC_F_HINTS:
		v->attr = bc_alloc(cx->ar, sizeof(struct bc_attr));
		bc_read_dict_payload(r, v->attr, BC_AT_HINTS, 1);
		break;
	case BC_F_PRED:
		v->attr = bc_alloc(cx->ar, sizeof(struct bc_attr));
		bc_read_tagged(r, v->attr, 1);
		if (v->attr->kind != BC_AT_DIVBY && v->attr->kind != BC_AT_SAME &&
		    v->attr->kind != BC_AT_BOUNDED)
			bc_fail(cx, at, "assume predicate must be div_by, same_elements or bounded (tag %u)",
				v->attr->kind);
		break;
	default:
		break;
	}
}

/* Operand groups (§6.2.4). Non-segmented ops with a variadic group carry
 * one total count; the variadic group takes what the single groups leave. */
static void read_operands(struct bc_rd *r, struct bc_op *op)
{
	struct bc_ctx *cx = r->cx;
	const struct bc_opinfo *in = op->info;
	size_t n = 0;
	unsigned singles = 0;
	bool has_var = false;
	for (unsigned i = 0; i < in->nfields; i++) {
		singles += in->f[i].kind == BC_F_ONE;
		has_var |= in->f[i].kind == BC_F_VAR;
	}
	if (!in->s && has_var) {
		size_t at = r->pos;
		uint32_t total = bc_count(r, 1, "operand count");
		if (total < singles)
			bc_fail(cx, at, "%s needs at least %u operands, the record has %u", in->name,
				singles, total);
		uint32_t start = 0;
		for (unsigned i = 0; i < in->nfields; i++) {
			const struct bc_field *f = &in->f[i];
			if (f->kind != BC_F_ONE && f->kind != BC_F_VAR)
				continue;
			op->fv[i].present = true;
			op->fv[i].start = start;
			op->fv[i].n = f->kind == BC_F_ONE ? 1 : total - singles;
			start += op->fv[i].n;
		}
		for (uint32_t k = 0; k < total; k++)
			push_tmp(cx, &n, read_operand(r));
	} else {
		for (unsigned i = 0; i < in->nfields; i++) {
			const struct bc_field *f = &in->f[i];
			struct bc_fval *v = &op->fv[i];
			uint32_t cnt = 0;
			if (f->kind == BC_F_ONE) {
				cnt = 1;
			} else if (f->kind == BC_F_VAR) {
				cnt = bc_count(r, 1, "operand count");
			} else if (f->kind == BC_F_OPT) {
				bool set = f->bit != BC_NO_BIT && (op->flags >> f->bit & 1);
				if (set && f->since > cx->minor)
					bc_fail(cx, op->offset, "malformed bytecode: flag set for operand '%s', which needs version 13.%u",
						f->name, f->since);
				cnt = set;
			} else {
				continue;
			}
			v->present = f->kind != BC_F_OPT || cnt;
			v->start = (uint32_t)n;
			v->n = cnt;
			for (uint32_t k = 0; k < cnt; k++)
				push_tmp(cx, &n, read_operand(r));
		}
	}
	op->nopnd = (uint32_t)n;
	op->opnd = bc_alloc_array(cx->ar, n, sizeof(uint32_t));
	if (n)
		memcpy(op->opnd, cx->tmp, n * sizeof(uint32_t));
}

static void read_op(struct bc_rd *r, struct bc_op *op)
{
	struct bc_ctx *cx = r->cx;
	op->offset = r->pos;
	uint64_t opcode = bc_varint(r);
	if (opcode <= BC_MAX_OPCODE && opcode > bc_max_opcode(cx->minor) && bc_opinfo((unsigned)opcode))
		bc_fail(cx, op->offset, "unsupported opcode %llu (%s) for bytecode version 13.%u",
			(unsigned long long)opcode, bc_opinfo((unsigned)opcode)->name, cx->minor);
	const struct bc_opinfo *in = bc_opinfo((unsigned)(opcode <= BC_MAX_OPCODE ? opcode : 0xffff));
	if (!in) {
		if (opcode == 0x16 || opcode == 0x31 || opcode == 0x4B)
			bc_fail(cx, op->offset, "op '%s' (opcode 0x%llX) cannot appear inside a function body",
				opcode == 0x16 ? "entry" : opcode == 0x31 ? "global" : "module",
				(unsigned long long)opcode);
		bc_fail(cx, op->offset, "unknown or unimplemented opcode %llu (0x%llX)",
			(unsigned long long)opcode, (unsigned long long)opcode);
	}
	op->opcode = (uint16_t)opcode;
	op->info = in;
	op->loc = next_loc(cx);

	/* results */
	if (in->v) {
		size_t at = r->pos;
		op->nres = bc_count(r, 1, "result count");
		if (in->nres != BC_VARIADIC) {
			uint32_t want = cx->minor >= in->res_since ? in->nres : 0;
			if (op->nres != want)
				bc_fail(cx, at, "result count mismatch: %s has %u results in version 13.%u, the record has %u",
					in->name, want, cx->minor, op->nres);
		}
	} else {
		op->nres = in->nres;
	}
	/* A result the file predates still exists in the op, with its default
	 * type (token), but operands cannot refer to it. */
	uint32_t nread = op->nres, nall = op->nres;
	if (in->v && in->nres != BC_VARIADIC && cx->minor < in->res_since)
		nall = in->nres;
	op->res_types = bc_alloc_array(cx->ar, nall, sizeof(uint32_t));
	for (uint32_t i = nread; i < nall; i++)
		op->res_types[i] = BC_TYPE_DEFAULT_TOKEN;
	for (uint32_t i = 0; i < nread; i++) {
		size_t at = r->pos;
		uint64_t t = bc_varint(r);
		bc_check_type(cx, t, at);
		if (cx->m->types[t].tag == BC_TY_FUNC)
			bc_fail(cx, at, "result %u of %s has a function type", i, in->name);
		op->res_types[i] = (uint32_t)t;
	}

	/* flags, attributes, operands */
	if (in->flags_since && cx->minor >= in->flags_since)
		op->flags = bc_varint(r);
	op->fv = bc_alloc_array(cx->ar, in->nfields, sizeof(struct bc_fval));
	for (unsigned i = 0; i < in->nfields; i++) {
		const struct bc_field *f = &in->f[i];
		struct bc_fval *v = &op->fv[i];
		bool bit = f->bit != BC_NO_BIT && (op->flags >> f->bit & 1);
		if (f->kind >= BC_F_ONE)
			continue;
		if (f->kind == BC_F_UNIT) {
			v->present = bit && f->since <= cx->minor;
			v->v = v->present;
		} else if (f->since > cx->minor) {
			v->present = true; /* the default of a newer attribute */
			v->v = f->dflt;
		} else if (f->bit == BC_NO_BIT || bit) {
			read_attr_field(r, op, f, v);
		}
	}
	read_operands(r, op);

	/* regions */
	if (in->nregions) {
		size_t at = r->pos;
		uint64_t n = bc_varint(r);
		if (n != in->nregions)
			bc_fail(cx, at, "%s must have %u region%s, the record has %llu", in->name,
				in->nregions, in->nregions == 1 ? "" : "s", (unsigned long long)n);
		if (++cx->depth > BC_MAX_DEPTH)
			bc_fail(cx, at, "regions nested more than %d deep", BC_MAX_DEPTH);
		op->nregions = in->nregions;
		op->regions = bc_alloc_array(cx->ar, n, sizeof(struct bc_region));
		for (uint32_t k = 0; k < n; k++) {
			struct bc_region *rg = &op->regions[k];
			size_t bat = r->pos;
			rg->nblocks = bc_count(r, 2, "block count");
			bool may_be_empty = op->opcode == 0x32 && k == 1; /* if without else */
			if (rg->nblocks > 1 || (rg->nblocks == 0 && !may_be_empty))
				bc_fail(cx, bat, "region %u of %s has %u blocks (expected %s)", k,
					in->name, rg->nblocks, may_be_empty ? "0 or 1" : "1");
			rg->blocks = bc_alloc_array(cx->ar, rg->nblocks, sizeof(struct bc_block));
			for (uint32_t b = 0; b < rg->nblocks; b++)
				read_block(r, &rg->blocks[b], op);
		}
		cx->depth--;
	}

	op->end = r->pos;
	/* results become values only now (§6.5) */
	op->nres = nall;
	for (uint32_t i = 0; i < op->nres; i++) {
		uint32_t id = new_value(cx, i < nread);
		if (i == 0)
			op->first_result = id;
	}
}

static void check_block_end(struct bc_ctx *cx, const struct bc_block *b, size_t at)
{
	if (b->nops == 0)
		bc_fail(cx, at, "invalid block structure: empty block");
	const struct bc_op *last = &b->ops[b->nops - 1];
	if (!is_terminator(last->opcode))
		bc_fail(cx, last->offset, "invalid block structure: block ends with %s, not a terminator",
			last->info->name);
}

static void read_block(struct bc_rd *r, struct bc_block *b, const struct bc_op *parent)
{
	struct bc_ctx *cx = r->cx;
	size_t at = r->pos;
	b->nargs = bc_count(r, 1, "block argument count");
	b->arg_types = bc_alloc_array(cx->ar, b->nargs, sizeof(uint32_t));
	size_t mark = cx->nscope;
	for (uint32_t i = 0; i < b->nargs; i++) {
		size_t tat = r->pos;
		uint64_t t = bc_varint(r);
		bc_check_type(cx, t, tat);
		b->arg_types[i] = (uint32_t)t;
	}
	for (uint32_t i = 0; i < b->nargs; i++) {
		uint32_t id = new_value(cx, true);
		if (i == 0)
			b->first_arg = id;
	}
	b->nops = bc_count(r, 2, "op count");
	b->ops = bc_alloc_array(cx->ar, b->nops, sizeof(struct bc_op));
	for (uint32_t i = 0; i < b->nops; i++)
		read_op(r, &b->ops[i]);
	check_block_end(cx, b, at);
	cx->nscope = mark;
	(void)parent;
}

/* ---- functions ------------------------------------------------------- */

static void start_debug_list(struct bc_ctx *cx, struct bc_func *f, size_t at)
{
	cx->dbg_on = false;
	if (f->loc == 0)
		return;
	if (f->loc > cx->nlists)
		bc_fail(cx, at, "function debug list %u out of range (%u lists)", f->loc, cx->nlists);
	const uint8_t *p = cx->list_start + 4 * (f->loc - 1);
	cx->dbg_pos = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
		      (uint64_t)p[3] << 24;
	cx->dbg_end = cx->ndbg;
	if (f->loc < cx->nlists) {
		p += 4;
		uint64_t next = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
				(uint64_t)p[3] << 24;
		if (next < cx->dbg_end)
			cx->dbg_end = next;
	}
	cx->dbg_on = true;
	next_loc(cx); /* entry 0: the function's own location */
}

static void read_body(struct bc_rd *r, struct bc_func *f, size_t len)
{
	struct bc_ctx *cx = r->cx;
	struct bc_rd body = *r;
	body.end = r->pos + len;
	size_t at = body.pos;
	struct bc_op *ops = NULL;
	size_t nops = 0, cap = 0;
	while (body.pos < body.end) {
		/* A grown array cannot live across a longjmp: keep it in the arena
		 * by copying when it fills up. */
		if (nops == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			struct bc_op *n = bc_alloc_array(cx->ar, ncap, sizeof(*n));
			if (nops)
				memcpy(n, ops, nops * sizeof(*n));
			ops = n;
			cap = ncap;
		}
		read_op(&body, &ops[nops++]);
	}
	f->body.ops = ops;
	f->body.nops = (uint32_t)nops;
	check_block_end(cx, &f->body, at);
	r->pos = body.end;
}

void bc_read_functions(struct bc_ctx *cx)
{
	struct bc_module *m = cx->m;
	struct bc_rd r;
	bc_rd_init(&r, cx, &cx->sec[2]);
	m->nfuncs = bc_count(&r, 1, "function count");
	m->funcs = bc_alloc_array(cx->ar, m->nfuncs, sizeof(struct bc_func));
	for (uint32_t i = 0; i < m->nfuncs; i++) {
		struct bc_func *f = &m->funcs[i];
		size_t at = f->offset = r.pos;
		uint64_t name = bc_varint(&r);
		bc_check_string(cx, name, at);
		if (m->strings[name].len == 0)
			bc_fail(cx, at, "function %u has an empty name", i);
		f->name = (uint32_t)name;
		size_t sat = r.pos;
		uint64_t sig = bc_varint(&r);
		bc_check_type(cx, sig, sat);
		if (m->types[sig].tag != BC_TY_FUNC)
			bc_fail(cx, sat, "signature of function '%s' (type %llu) is not a function type",
				bc_str(m, f->name), (unsigned long long)sig);
		f->sig = (uint32_t)sig;
		size_t fat = r.pos;
		f->flags = bc_u8(&r);
		if (!(f->flags & 2))
			bc_fail(cx, fat, "un-expected non-entry function '%s'", bc_str(m, f->name));
		size_t lat = r.pos;
		f->loc = (uint32_t)bc_varint_max(&r, UINT32_MAX, "function debug list index");
		if ((f->flags & 6) == 6) {
			size_t hat = r.pos;
			f->hints = bc_alloc(cx->ar, sizeof(struct bc_attr));
			bc_read_tagged(&r, f->hints, 0);
			if (f->hints->kind != BC_AT_HINTS)
				bc_fail(cx, hat, "hints of function '%s' are not optimization hints (tag %u)",
					bc_str(m, f->name), f->hints->kind);
		}
		size_t blat = r.pos;
		uint64_t blen = bc_varint(&r);
		if (blen > bc_left(&r))
			bc_fail(cx, blat, "function body length %llu exceeds the %zu bytes left",
				(unsigned long long)blen, bc_left(&r));

		/* the entry block: arguments from the signature */
		const struct bc_type *st = &m->types[f->sig];
		cx->nvalues = cx->nscope = 0;
		f->body.nargs = st->nin;
		f->body.arg_types = st->in;
		for (uint32_t k = 0; k < st->nin; k++)
			new_value(cx, true);
		start_debug_list(cx, f, lat);
		cx->depth = 0;
		read_body(&r, f, (size_t)blen);
		f->nvalues = (uint32_t)cx->nvalues;
	}
}
