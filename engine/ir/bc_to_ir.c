/* Tile IR bytecode -> the shared in-memory model (engine/ir/ir.h): the
 * bytecode reader's entry point for ir_module_load. The decoded tables
 * (bytecode.h) are mapped through the model's builders, so text and
 * bytecode give the same module, printer and diff. */
#include "engine/ir/bc_priv.h"
#include "engine/ir/ir.h"
#include "engine/ir/ir_internal.h"

#include <stdlib.h>
#include <string.h>

struct conv {
	const struct bc_module *bm;
	struct ir_module *m;
	const struct ir_type **types; /* memo per bytecode type index */
	struct ir_value **vals;       /* per value id of the current function */
	const struct bc_func *f;
	/* per opcode: the registry entry and, per bytecode field, the index of
	 * the registry's attribute or operand group (looked up by name once) */
	const struct ir_opdef *defs[BC_MAX_OPCODE + 1];
	int16_t fmap[BC_MAX_OPCODE + 1][BC_MAX_FIELDS];
	bool mapped[BC_MAX_OPCODE + 1];
};

static void map_opcode(struct conv *c, const struct bc_opinfo *in, unsigned opcode)
{
	const struct ir_opdef *d = ir_opdef_by_bc((int)opcode);
	c->defs[opcode] = d;
	int group = 0;
	for (unsigned i = 0; i < in->nfields; i++) {
		const struct bc_field *f = &in->f[i];
		int k = -1;
		if (d && f->kind < BC_F_ONE) {
			for (uint32_t a = 0; a < d->nattrs; a++)
				if (strcmp(d->attrs[a].name, f->name) == 0)
					k = (int)a;
		} else if (d) {
			k = ir_opdef_group(d, f->name);
			if (k < 0)
				k = group;
			group++;
		}
		c->fmap[opcode][i] = (int16_t)k;
	}
	c->mapped[opcode] = true;
}

static enum ir_elem elem_of_tag(unsigned tag)
{
	static const enum ir_elem map[BC_TY_COUNT] = {
		[BC_TY_I1] = IR_I1, [BC_TY_I8] = IR_I8, [BC_TY_I16] = IR_I16,
		[BC_TY_I32] = IR_I32, [BC_TY_I64] = IR_I64, [BC_TY_F16] = IR_F16,
		[BC_TY_BF16] = IR_BF16, [BC_TY_F32] = IR_F32, [BC_TY_TF32] = IR_TF32,
		[BC_TY_F64] = IR_F64, [BC_TY_F8E4M3FN] = IR_F8E4M3FN, [BC_TY_F8E5M2] = IR_F8E5M2,
		[BC_TY_F8E8M0FNU] = IR_F8E8M0FNU, [BC_TY_F4E2M1FN] = IR_F4E2M1FN, [BC_TY_I4] = IR_I4,
	};
	return tag < BC_TY_COUNT ? map[tag] : IR_ELEM_NONE;
}

static int64_t *widen(struct ir_module *m, const int32_t *v, uint32_t n)
{
	int64_t *w = ir_alloc(m, (n ? n : 1) * sizeof(*w));
	for (uint32_t i = 0; i < n; i++)
		w[i] = v[i];
	return w;
}

static const struct ir_type *type_of(struct conv *c, uint32_t i)
{
	if (i == BC_TYPE_DEFAULT_TOKEN)
		return ir_type_token(c->m);
	if (i >= c->bm->ntypes)
		return ir_type_opaque(c->m, "<<invalid type>>");
	if (c->types[i])
		return c->types[i];
	const struct bc_type *t = &c->bm->types[i];
	struct ir_module *m = c->m;
	const struct ir_type *r;
	int pad = t->has_padding ? t->padding : IR_PAD_ABSENT;
	switch (t->tag) {
	case BC_TY_PTR:
		r = ir_type_ptr(m, type_of(c, t->elem));
		break;
	case BC_TY_TILE:
		r = ir_type_tile(m, type_of(c, t->elem), t->rank, t->shape);
		break;
	case BC_TY_TENSOR_VIEW:
		r = ir_type_tensor_view(m, type_of(c, t->elem), t->rank, t->shape, t->nstrides,
					t->strides);
		break;
	case BC_TY_PARTITION_VIEW:
		r = ir_type_partition_view(m, t->ntile, widen(m, t->tile, t->ntile),
					   type_of(c, t->view), t->ndim_map, t->dim_map, pad);
		break;
	case BC_TY_STRIDED_VIEW:
		r = ir_type_strided_view(m, t->ntile, widen(m, t->tile, t->ntile), t->ntrav,
					 widen(m, t->trav, t->ntrav), type_of(c, t->view),
					 t->ndim_map, t->dim_map, pad);
		break;
	case BC_TY_GATHER_SCATTER_VIEW:
		r = ir_type_gather_scatter_view(m, t->ntile, widen(m, t->tile, t->ntile),
						type_of(c, t->view), t->sparse_dim, pad);
		break;
	case BC_TY_TOKEN:
		r = ir_type_token(m);
		break;
	case BC_TY_FUNC: {
		const struct ir_type **in = ir_alloc(m, (t->nin + 1) * sizeof(*in));
		const struct ir_type **out = ir_alloc(m, (t->nout + 1) * sizeof(*out));
		for (uint32_t k = 0; k < t->nin; k++)
			in[k] = type_of(c, t->in[k]);
		for (uint32_t k = 0; k < t->nout; k++)
			out[k] = type_of(c, t->out[k]);
		r = ir_type_func(m, t->nin, in, t->nout, out);
		break;
	}
	default:
		r = ir_type_elem(m, elem_of_tag(t->tag));
	}
	c->types[i] = r;
	return r;
}

static int64_t sext(uint64_t v, unsigned bits)
{
	if (bits == 0 || bits >= 64)
		return (int64_t)v;
	uint64_t sign = 1ull << (bits - 1);
	v &= (sign << 1) - 1;
	return (int64_t)((v ^ sign) - sign);
}

/* ---- dense constants (§4.3) --------------------------------------------- */

/* The elements of a constant read with a tile type. */
struct dense_buf {
	unsigned tag;   /* element type tag */
	uint64_t n;     /* element count */
	bool splat;     /* one stored element, or all elements equal */
	bool packed_i1; /* legacy bit-packed booleans */
	const uint8_t *p;
	size_t len;
};

/* Raw bits of element i. */
static uint64_t dense_bits(const struct dense_buf *d, uint64_t i)
{
	if (d->packed_i1)
		return (d->p[i / 8] >> (i % 8)) & 1;
	unsigned eb = bc_elem_bytes(d->tag);
	if ((uint64_t)d->len == eb)
		i = 0;
	const uint8_t *p = d->p + i * eb;
	if (d->tag == BC_TY_I1)
		return p[0] != 0;
	uint64_t v = 0;
	for (unsigned k = 0; k < eb; k++)
		v |= (uint64_t)p[k] << (8 * k);
	unsigned bits = bc_tag_bits(d->tag);
	if (bits < 64)
		v &= (1ull << bits) - 1;
	return v;
}

/* False when the buffer does not fit the type (the reader has checked
 * constants used by ops and globals, so only odd tables get here). */
static bool dense_open(const struct bc_module *m, uint32_t type, uint32_t c, struct dense_buf *d)
{
	if (type >= m->ntypes || c >= m->nconsts)
		return false;
	const struct bc_type *t = &m->types[type];
	if (t->tag != BC_TY_TILE || t->elem >= m->ntypes)
		return false;
	d->tag = m->types[t->elem].tag;
	unsigned eb = bc_elem_bytes(d->tag);
	if (!eb)
		return false;
	d->n = bc_tile_elems(t);
	d->p = m->consts[c].p;
	d->len = m->consts[c].len;
	d->packed_i1 = false;
	if (d->n == 0 || d->n == UINT64_MAX)
		return false;
	if (d->len == eb) {
		d->splat = true;
		return true;
	}
	if (d->n <= SIZE_MAX / eb && d->len == d->n * eb) {
		d->splat = true;
		for (uint64_t i = 1; i < d->n && d->splat; i++)
			d->splat = memcmp(d->p, d->p + i * eb, eb) == 0;
		return true;
	}
	if (d->tag == BC_TY_I1 && d->n > 1 && d->len == (d->n + 7) / 8) {
		d->packed_i1 = true;
		uint64_t first = d->p[0] & 1;
		d->splat = true;
		for (uint64_t i = 1; i < d->n && d->splat; i++)
			d->splat = dense_bits(d, i) == first;
		return true;
	}
	return false;
}

/* The element type of a typed attribute (Integer/Float carry a scalar type). */
static const struct ir_type *scalar_of(struct conv *c, uint32_t type)
{
	const struct ir_type *t = type_of(c, type);
	return t->kind == IR_TY_TILE ? t->inner : t;
}

static const struct ir_attr *dense(struct conv *c, uint32_t type, uint32_t constant)
{
	struct dense_buf d;
	const struct ir_type *t = type_of(c, type);
	if (!dense_open(c->bm, type, constant, &d))
		return ir_attr_dense(c->m, t, 0, NULL);
	uint64_t n = d.splat ? 1 : d.n;
	uint64_t *v = xmalloc(n * sizeof(*v));
	unsigned bits = bc_tag_bits(d.tag);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t b = dense_bits(&d, i);
		v[i] = bc_tag_is_int(d.tag) && d.tag != BC_TY_I1 ? (uint64_t)sext(b, bits) : b;
	}
	const struct ir_attr *a = ir_attr_dense(c->m, t, (uint32_t)n, v);
	free(v);
	return a;
}

static const struct ir_attr *attr(struct conv *c, const struct bc_attr *a)
{
	struct ir_module *m = c->m;
	switch (a->kind) {
	case BC_AT_INT: {
		const struct ir_type *t = scalar_of(c, a->type);
		/* an i1 integer is MLIR's BoolAttr */
		if (t->kind == IR_TY_ELEM && t->elem == IR_I1)
			return ir_attr_bool(m, a->bits != 0);
		return ir_attr_int(m, sext(a->bits, (unsigned)ir_elem_bits(t->elem)), t);
	}
	case BC_AT_FLOAT:
		return ir_attr_float(m, a->bits, scalar_of(c, a->type));
	case BC_AT_BOOL:
		return ir_attr_bool(m, a->bits != 0);
	case BC_AT_TYPE:
		return ir_attr_type(m, type_of(c, a->type));
	case BC_AT_STRING: {
		const struct bc_slice *s = &c->bm->strings[a->index];
		return ir_attr_string(m, (const char *)s->p, s->len);
	}
	case BC_AT_DENSE:
		return dense(c, a->type, a->index);
	case BC_AT_DIVBY:
		return ir_attr_div_by(m, (int64_t)a->bits, (a->flags & 3) != 0, a->a, a->b);
	case BC_AT_SAME:
		return ir_attr_same_elements(m, a->n, a->values);
	case BC_AT_BOUNDED:
		return ir_attr_bounded(m, a->flags & 1, a->a, (a->flags & 2) != 0, a->b);
	case BC_AT_ARRAY:
	case BC_AT_DICT:
	case BC_AT_HINTS: {
		const struct ir_attr **el = xmalloc((a->n + 1) * sizeof(*el));
		const char **keys = xmalloc((a->n + 1) * sizeof(*keys));
		for (uint32_t i = 0; i < a->n; i++) {
			el[i] = attr(c, &a->elems[i]);
			keys[i] = a->keys ? bc_str(c->bm, a->keys[i]) : NULL;
		}
		const struct ir_attr *r =
			a->kind == BC_AT_ARRAY ? ir_attr_array(m, a->n, el)
			: a->kind == BC_AT_DICT ? ir_attr_dict(m, a->n, keys, el)
						: ir_attr_hints(m, a->n, keys, el);
		free(el);
		free(keys);
		return r;
	}
	default:
		return ir_attr_opaque(m, "<<unknown attribute>>", 21);
	}
}

/* ---- debug locations ------------------------------------------------- */

static void loc_text(const struct bc_module *bm, uint64_t ref, struct sbuf *out, int depth)
{
	const struct bc_diattr *d = ref && ref <= bm->ndi ? &bm->di[ref - 1] : NULL;
	if (!d || depth > 16) {
		sb_adds(out, "loc(unknown)");
		return;
	}
	if (d->tag == 4) { /* DILoc */
		const struct bc_slice *s = &bm->strings[d->f[1]];
		sb_adds(out, "loc(");
		ir_print_string(out, (const char *)s->p, s->len);
		sb_printf(out, ":%llu:%llu)", (unsigned long long)d->f[2], (unsigned long long)d->f[3]);
	} else if (d->tag == 6) { /* CallSite */
		sb_adds(out, "loc(callsite(");
		loc_text(bm, d->f[0], out, depth + 1);
		sb_adds(out, " at ");
		loc_text(bm, d->f[1], out, depth + 1);
		sb_adds(out, "))");
	} else {
		sb_adds(out, "loc(unknown)");
	}
}

/* ---- ops --------------------------------------------------------------- */

static void convert_block(struct conv *c, const struct bc_block *bb, struct ir_block *b);

static void set_attr(struct conv *c, struct ir_op *op, const struct bc_op *bo,
		     const struct bc_field *f, const struct bc_fval *v, int index)
{
	struct ir_module *m = c->m;
	if (index < 0 || !v->present)
		return;
	const struct ir_attr_def *ad = &op->def->attrs[index];
	const struct ir_attr *a = NULL;
	switch (f->kind) {
	case BC_F_ENUM:
		a = ir_attr_enum(m, ad->ekind, (int)v->v);
		break;
	case BC_F_UNIT:
		a = ir_attr_unit(m);
		break;
	case BC_F_INT:
		a = ir_attr_int(m, (int64_t)v->v, NULL);
		break;
	case BC_F_BOOL:
		a = ir_attr_bool(m, v->v != 0);
		break;
	case BC_F_STR: {
		const struct bc_slice *s = &c->bm->strings[v->v];
		a = ad->spec == IR_AK_SYMBOL ? ir_attr_symbol(m, bc_str(c->bm, (uint32_t)v->v))
					     : ir_attr_string(m, (const char *)s->p, s->len);
		break;
	}
	case BC_F_I32ARR:
		a = ir_attr_int_array(m, v->n, widen(m, v->i32, v->n));
		break;
	case BC_F_CONST:
		a = dense(c, bo->res_types[0], (uint32_t)v->v);
		break;
	case BC_F_ATTRARR: {
		const struct ir_attr **el = xmalloc((v->n + 1) * sizeof(*el));
		for (uint32_t i = 0; i < v->n; i++)
			el[i] = attr(c, &v->attr[i]);
		a = ir_attr_array(m, v->n, el);
		free(el);
		break;
	}
	case BC_F_HINTS:
	case BC_F_PRED:
		a = attr(c, v->attr);
		break;
	default:
		return;
	}
	ir_op_set_attr(m, op, ad->name, a);
}

static struct ir_op *convert_op(struct conv *c, const struct bc_op *bo)
{
	struct ir_module *m = c->m;
	const struct bc_opinfo *in = bo->info;
	if (!c->mapped[bo->opcode])
		map_opcode(c, in, bo->opcode);
	const struct ir_opdef *def = c->defs[bo->opcode];
	struct ir_op *op = def ? ir_op_new_code(m, def->code)
			       : ir_op_new(m, in->name, strlen(in->name));
	for (unsigned i = 0; i < in->nfields; i++) {
		const struct bc_field *f = &in->f[i];
		const struct bc_fval *v = &bo->fv[i];
		int g = def ? c->fmap[bo->opcode][i] : -1;
		if (f->kind < BC_F_ONE) {
			set_attr(c, op, bo, f, v, g);
			continue;
		}
		if (g < 0)
			continue;
		for (uint32_t k = 0; v->present && k < v->n; k++)
			ir_op_add_operand(m, op, (uint32_t)g, c->vals[bo->opnd[v->start + k]]);
	}
	for (uint32_t r = 0; r < bo->nregions; r++) {
		struct ir_region *rg = ir_op_add_region(m, op);
		for (uint32_t k = 0; k < bo->regions[r].nblocks; k++)
			convert_block(c, &bo->regions[r].blocks[k], ir_region_add_block(m, rg));
	}
	for (uint32_t r = 0; r < bo->nres; r++)
		c->vals[bo->first_result + r] = ir_op_add_result(m, op, type_of(c, bo->res_types[r]));
	ir_op_extra(m, op)->offset = bo->offset;
	op->x->end_offset = bo->end;
	if (bo->loc) {
		struct sbuf s = SBUF_INIT;
		loc_text(c->bm, bo->loc, &s, 0);
		op->x->dbg = ir_strdup(m, s.buf, s.len);
		sb_free(&s);
	}
	ir_op_finish(m, op);
	return op;
}

static void convert_block(struct conv *c, const struct bc_block *bb, struct ir_block *b)
{
	for (uint32_t i = 0; i < bb->nargs; i++)
		c->vals[bb->first_arg + i] = ir_block_add_arg(c->m, b, type_of(c, bb->arg_types[i]));
	for (uint32_t i = 0; i < bb->nops; i++)
		ir_block_append(c->m, b, convert_op(c, &bb->ops[i]));
}

struct ir_module *ir_from_bytecode(const struct bc_module *bm, const char *path)
{
	struct ir_module *m = ir_module_new(path ? path : "", IR_SRC_BYTECODE);
	struct conv *c = xcalloc(1, sizeof(*c)); /* the opcode tables make it large */
	c->bm = bm;
	c->m = m;
	c->types = xcalloc(bm->ntypes + 1, sizeof(*c->types));
	m->bc_major = bm->major;
	m->bc_minor = bm->minor;
	m->bc_tag = bm->tag;
	struct ir_op *unit = ir_module_add_unit(m, "kernels",
						bm->producer >= 0 ? bc_str(bm, (uint32_t)bm->producer)
								  : NULL);
	for (uint32_t i = 0; i < bm->nglobals; i++) {
		const struct bc_global *g = &bm->globals[i];
		ir_unit_add_global(m, unit, bc_str(bm, g->name), dense(c, g->type, g->constant),
				   g->alignment, g->visibility == 1, g->is_constant);
	}
	for (uint32_t i = 0; i < bm->nfuncs; i++) {
		const struct bc_func *f = &bm->funcs[i];
		const struct ir_attr *hints = f->hints && f->hints->n ? attr(c, f->hints) : NULL;
		struct ir_op *e = ir_unit_add_entry(m, unit, bc_str(bm, f->name), type_of(c, f->sig),
						    hints);
		struct ir_block *body = ir_entry_body(e);
		c->f = f;
		c->vals = xcalloc(f->nvalues + 1, sizeof(*c->vals));
		for (uint32_t k = 0; k < body->nargs && k < f->nvalues; k++)
			c->vals[k] = body->args[k];
		for (uint32_t k = 0; k < f->body.nops; k++)
			ir_block_append(m, body, convert_op(c, &f->body.ops[k]));
		ir_op_extra(c->m, e)->offset = f->offset;
		free(c->vals);
	}
	free(c->types);
	free(c);
	return m;
}

struct ir_module *ir_bytecode_parse(const char *path, const unsigned char *buf, size_t len,
				    struct tp_err *err)
{
	struct bc_module *bm = bc_decode(buf, len, path, err);
	if (!bm)
		return NULL;
	struct ir_module *m = ir_from_bytecode(bm, path);
	bc_module_free(bm);
	return m;
}
