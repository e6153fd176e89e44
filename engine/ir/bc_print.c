/* Tile IR bytecode: canonical text as `cuda-tile-translate` prints it
 * (§10): module, globals, entries, regions, types, attributes, dense values
 * and strings. The per-op templates are in bc_print_ops.c. */
#include "engine/ir/bc_priv.h"

#include <string.h>

int64_t bc_sext(uint64_t v, unsigned bits)
{
	if (bits == 0 || bits >= 64)
		return (int64_t)v;
	uint64_t sign = 1ull << (bits - 1);
	v &= (sign << 1) - 1;
	return (int64_t)((v ^ sign) - sign);
}

/* ---- dense values ------------------------------------------------------ */

bool bc_dense_open(const struct bc_module *m, uint32_t type, uint32_t c, struct bc_dense *d)
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
			d->splat = bc_dense_bits(d, i) == first;
		return true;
	}
	return false;
}

uint64_t bc_dense_bits(const struct bc_dense *d, uint64_t i)
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

static void print_scalar(unsigned tag, uint64_t bits, struct sbuf *out)
{
	if (tag == BC_TY_I1)
		sb_adds(out, bits & 1 ? "true" : "false");
	else if (bc_tag_is_int(tag))
		sb_printf(out, "%lld", (long long)bc_sext(bits, bc_tag_bits(tag)));
	else
		bc_print_float(tag, bits, out);
}

static void print_nested(const struct bc_dense *d, const struct bc_type *t, uint32_t dim,
			 uint64_t *next, struct sbuf *out)
{
	if (dim == t->rank) {
		print_scalar(d->tag, bc_dense_bits(d, (*next)++), out);
		return;
	}
	sb_addc(out, '[');
	for (int64_t i = 0; i < t->shape[dim]; i++) {
		if (i)
			sb_adds(out, ", ");
		print_nested(d, t, dim + 1, next, out);
	}
	sb_addc(out, ']');
}

/* DATA of `<ELEM: DATA>`. */
static void print_dense_data(const struct bc_module *m, uint32_t type, uint32_t c,
			     struct sbuf *out)
{
	struct bc_dense d;
	if (!bc_dense_open(m, type, c, &d)) {
		sb_adds(out, "<<INVALID DENSE VALUE>>");
		return;
	}
	if (d.splat) {
		print_scalar(d.tag, bc_dense_bits(&d, 0), out);
	} else if (d.n > 100) {
		/* MLIR's raw buffer: packed booleans are one byte each there */
		sb_adds(out, "\"0x");
		if (d.packed_i1)
			for (uint64_t i = 0; i < d.n; i++)
				sb_printf(out, "%02X", (unsigned)bc_dense_bits(&d, i));
		else
			for (size_t i = 0; i < d.len; i++)
				sb_printf(out, "%02X", d.p[i]);
		sb_addc(out, '"');
	} else {
		uint64_t next = 0;
		print_nested(&d, &m->types[type], 0, &next, out);
	}
}

void bc_print_dense(const struct bc_module *m, uint32_t type, uint32_t c, struct sbuf *out)
{
	sb_addc(out, '<');
	if (type < m->ntypes && m->types[type].elem < m->ntypes)
		bc_print_type(m, m->types[type].elem, out);
	sb_adds(out, ": ");
	print_dense_data(m, type, c, out);
	sb_addc(out, '>');
}

/* ---- strings and types -------------------------------------------------- */

void bc_print_string(const uint8_t *s, size_t n, struct sbuf *out)
{
	sb_addc(out, '"');
	for (size_t i = 0; i < n; i++) {
		uint8_t c = s[i];
		if (c == '\\')
			sb_adds(out, "\\\\");
		else if (c >= 0x20 && c < 0x7f && c != '"')
			sb_addc(out, (char)c);
		else
			sb_printf(out, "\\%02X", c);
	}
	sb_addc(out, '"');
}

#define IS_ALPHA(c) (((c) | 0x20) >= 'a' && ((c) | 0x20) <= 'z')

/* MLIR's printKeywordOrString: a bare identifier as is, else quoted. */
void bc_print_keyword(const struct bc_module *m, uint32_t str, struct sbuf *out)
{
	const struct bc_slice *s = &m->strings[str < m->nstrings ? str : 0];
	bool bare = s->len && (IS_ALPHA(s->p[0]) || s->p[0] == '_');
	for (size_t i = 1; bare && i < s->len; i++) {
		uint8_t c = s->p[i];
		bare = IS_ALPHA(c) || (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '.';
	}
	if (bare)
		sb_add(out, s->p, s->len);
	else
		bc_print_string(s->p, s->len, out);
}

static void print_i64_dims(const int64_t *v, uint32_t n, const char *sep, struct sbuf *out)
{
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			sb_adds(out, sep);
		if (v[i] == BC_DYNAMIC)
			sb_addc(out, '?');
		else
			sb_printf(out, "%lld", (long long)v[i]);
	}
}

static void print_i32s(const int32_t *v, uint32_t n, const char *sep, struct sbuf *out)
{
	for (uint32_t i = 0; i < n; i++)
		sb_printf(out, "%s%d", i ? sep : "", (int)v[i]);
}

static void print_view_tail(const struct bc_module *m, const struct bc_type *t, struct sbuf *out)
{
	if (t->has_padding)
		sb_printf(out, "padding_value = %s, ",
			  bc_enum_name(BC_EN_PADDING, t->padding) ? bc_enum_name(BC_EN_PADDING, t->padding) : "?");
	bc_print_type(m, t->view, out);
}

static void print_dim_map(const struct bc_type *t, struct sbuf *out)
{
	bool identity = true;
	for (uint32_t i = 0; i < t->ndim_map; i++)
		identity &= t->dim_map[i] == (int32_t)i;
	if (identity)
		return;
	sb_adds(out, ", dim_map=[");
	print_i32s(t->dim_map, t->ndim_map, ", ", out);
	sb_addc(out, ']');
}

void bc_print_type(const struct bc_module *m, uint32_t type, struct sbuf *out)
{
	if (type == BC_TYPE_DEFAULT_TOKEN) {
		sb_adds(out, "token");
		return;
	}
	if (type >= m->ntypes) {
		sb_adds(out, "<<INVALID TYPE>>");
		return;
	}
	const struct bc_type *t = &m->types[type];
	const char *scalar = bc_scalar_name(t->tag);
	if (scalar) {
		sb_adds(out, scalar);
		return;
	}
	switch (t->tag) {
	case BC_TY_PTR:
		sb_adds(out, "ptr<");
		bc_print_type(m, t->elem, out);
		sb_addc(out, '>');
		break;
	case BC_TY_TILE:
	case BC_TY_TENSOR_VIEW:
		sb_adds(out, t->tag == BC_TY_TILE ? "tile<" : "tensor_view<");
		print_i64_dims(t->shape, t->rank, "x", out);
		if (t->rank)
			sb_addc(out, 'x');
		bc_print_type(m, t->elem, out);
		if (t->tag == BC_TY_TENSOR_VIEW && t->rank) {
			sb_adds(out, ", strides=[");
			print_i64_dims(t->strides, t->nstrides, ",", out);
			sb_addc(out, ']');
		}
		sb_addc(out, '>');
		break;
	case BC_TY_PARTITION_VIEW:
		sb_adds(out, "partition_view<tile=(");
		print_i32s(t->tile, t->ntile, "x", out);
		sb_adds(out, "), ");
		print_view_tail(m, t, out);
		print_dim_map(t, out);
		sb_addc(out, '>');
		break;
	case BC_TY_STRIDED_VIEW:
		sb_adds(out, "strided_view<tile=(");
		print_i32s(t->tile, t->ntile, "x", out);
		sb_adds(out, "), traversal_strides=[");
		print_i32s(t->trav, t->ntrav, ",", out);
		sb_adds(out, "], ");
		print_view_tail(m, t, out);
		print_dim_map(t, out);
		sb_addc(out, '>');
		break;
	case BC_TY_GATHER_SCATTER_VIEW:
		sb_adds(out, "gather_scatter_view<tile=(");
		print_i32s(t->tile, t->ntile, "x", out);
		sb_adds(out, "), ");
		print_view_tail(m, t, out);
		sb_printf(out, ", sparse_dim=%u>", t->sparse_dim);
		break;
	case BC_TY_FUNC:
		sb_addc(out, '(');
		for (uint32_t i = 0; i < t->nin; i++) {
			if (i)
				sb_adds(out, ", ");
			bc_print_type(m, t->in[i], out);
		}
		sb_adds(out, ") -> (");
		for (uint32_t i = 0; i < t->nout; i++) {
			if (i)
				sb_adds(out, ", ");
			bc_print_type(m, t->out[i], out);
		}
		sb_addc(out, ')');
		break;
	default:
		sb_adds(out, "<<INVALID TYPE>>");
	}
}

/* ---- attributes ------------------------------------------------------- */

static unsigned type_tag(const struct bc_module *m, uint32_t type)
{
	return type < m->ntypes ? m->types[type].tag : BC_TY_COUNT;
}

void bc_print_typed_value(const struct bc_module *m, const struct bc_attr *a, bool always,
			  struct sbuf *out)
{
	unsigned tag = type_tag(m, a->type);
	print_scalar(tag, a->bits, out);
	/* MLIR elides the type of i64 integers, f64 floats and booleans */
	if (always || (tag != BC_TY_I1 && tag != BC_TY_I64 && tag != BC_TY_F64)) {
		sb_adds(out, " : ");
		bc_print_type(m, a->type, out);
	}
}

/* Hints dictionaries print their integer values without a type (§10.4). */
static void print_dict(const struct bc_module *m, const struct bc_attr *a, struct sbuf *out)
{
	for (uint32_t i = 0; i < a->n; i++) {
		const struct bc_attr *v = &a->elems[i];
		if (i)
			sb_adds(out, ", ");
		bc_print_keyword(m, a->keys[i], out);
		sb_adds(out, " = ");
		if (v->kind == BC_AT_INT)
			print_scalar(type_tag(m, v->type), v->bits, out);
		else
			bc_print_attr(m, v, out);
	}
}

void bc_print_attr(const struct bc_module *m, const struct bc_attr *a, struct sbuf *out)
{
	switch (a->kind) {
	case BC_AT_INT:
	case BC_AT_FLOAT:
		bc_print_typed_value(m, a, false, out);
		break;
	case BC_AT_BOOL:
		sb_adds(out, a->bits ? "true" : "false");
		break;
	case BC_AT_TYPE:
		bc_print_type(m, a->type, out);
		break;
	case BC_AT_STRING:
		if (a->index < m->nstrings)
			bc_print_string(m->strings[a->index].p, m->strings[a->index].len, out);
		break;
	case BC_AT_ARRAY:
		sb_addc(out, '[');
		for (uint32_t i = 0; i < a->n; i++) {
			if (i)
				sb_adds(out, ", ");
			bc_print_attr(m, &a->elems[i], out);
		}
		sb_addc(out, ']');
		break;
	case BC_AT_DENSE:
		sb_adds(out, "dense<");
		print_dense_data(m, a->type, a->index, out);
		sb_adds(out, "> : ");
		bc_print_type(m, a->type, out);
		break;
	case BC_AT_DIVBY:
		sb_printf(out, "div_by<%llu", (unsigned long long)a->bits);
		if (a->flags & 1)
			sb_printf(out, ", every %lld", (long long)a->a);
		if (a->flags & 2)
			sb_printf(out, " along %lld", (long long)a->b);
		sb_addc(out, '>');
		break;
	case BC_AT_SAME:
		sb_adds(out, "same_elements<[");
		for (uint32_t i = 0; i < a->n; i++)
			sb_printf(out, "%s%lld", i ? ", " : "", (long long)a->values[i]);
		sb_adds(out, "]>");
		break;
	case BC_AT_DICT:
		sb_addc(out, '{');
		print_dict(m, a, out);
		sb_addc(out, '}');
		break;
	case BC_AT_HINTS:
		sb_addc(out, '<');
		print_dict(m, a, out);
		sb_addc(out, '>');
		break;
	case BC_AT_BOUNDED:
		sb_adds(out, "bounded<");
		if (a->flags & 1)
			sb_printf(out, "%lld", (long long)a->a);
		else
			sb_addc(out, '?');
		sb_adds(out, ", ");
		if (a->flags & 2)
			sb_printf(out, "%lld", (long long)a->b);
		else
			sb_addc(out, '?');
		sb_addc(out, '>');
		break;
	default:
		sb_adds(out, "<<UNKNOWN ATTRIBUTE>>");
	}
}

/* ---- module, entries, regions ------------------------------------------- */

void bc_pr_indent(struct bc_printer *p)
{
	for (unsigned i = 0; i < p->indent; i++)
		sb_adds(p->out, "  ");
}

void bc_pr_value(struct bc_printer *p, uint32_t id)
{
	const struct bc_names *n = &p->names;
	if (id >= p->f->nvalues) {
		sb_adds(p->out, "%<<UNKNOWN SSA VALUE>>");
		return;
	}
	sb_printf(p->out, "%%%s", n->name[id]);
	if (n->gsize[id] > 1)
		sb_printf(p->out, "#%u", n->gidx[id]);
}

void bc_pr_vtype(struct bc_printer *p, uint32_t id)
{
	if (id < p->f->nvalues)
		bc_print_type(p->m, p->f->values[id].type, p->out);
}

/* Print a block's ops; `elide` = opcode of a final operand-less terminator
 * the parent's syntax leaves out (0 for none). */
void bc_pr_block(struct bc_printer *p, const struct bc_block *b, unsigned elide)
{
	p->indent++;
	for (uint32_t i = 0; i < b->nops; i++) {
		const struct bc_op *op = &b->ops[i];
		if (i + 1 == b->nops && elide && op->opcode == elide && op->nopnd == 0)
			break;
		bc_pr_indent(p);
		bc_print_op(p, op);
		sb_addc(p->out, '\n');
	}
	p->indent--;
}

static void print_entry(const struct bc_module *m, const struct bc_func *f, struct sbuf *out)
{
	struct bc_printer p = {m, f, {0}, out, 1};
	bc_names_build(m, f, &p.names);
	sb_adds(out, "  entry @");
	bc_print_keyword(m, f->name, out);
	sb_addc(out, '(');
	for (uint32_t i = 0; i < f->body.nargs; i++) {
		if (i)
			sb_adds(out, ", ");
		bc_pr_value(&p, i);
		sb_adds(out, ": ");
		bc_print_type(m, f->body.arg_types[i], out);
	}
	sb_addc(out, ')');
	const struct bc_type *sig = &m->types[f->sig];
	if (sig->nout) {
		sb_adds(out, " -> ");
		if (sig->nout > 1)
			sb_addc(out, '(');
		for (uint32_t i = 0; i < sig->nout; i++) {
			if (i)
				sb_adds(out, ", ");
			bc_print_type(m, sig->out[i], out);
		}
		if (sig->nout > 1)
			sb_addc(out, ')');
	}
	if (f->hints && f->hints->n) {
		sb_adds(out, " optimization_hints=");
		bc_print_attr(m, f->hints, out);
	}
	sb_adds(out, " {\n");
	bc_pr_block(&p, &f->body, 0);
	sb_adds(out, "  }\n");
	bc_names_free(&p.names);
}

static void print_global(const struct bc_module *m, const struct bc_global *g, struct sbuf *out)
{
	/* The visibility slot prints `private ` with its own space, so a public
	 * global shows two spaces after `global` (§10.1). */
	sb_adds(out, "  global ");
	if (g->visibility == 1)
		sb_adds(out, "private ");
	if (g->is_constant)
		sb_adds(out, " constant");
	sb_adds(out, " @");
	bc_print_keyword(m, g->name, out);
	if (g->alignment)
		sb_printf(out, " alignment = %llu", (unsigned long long)g->alignment);
	sb_addc(out, ' ');
	bc_print_dense(m, g->type, g->constant, out);
	sb_adds(out, " : ");
	bc_print_type(m, g->type, out);
	sb_addc(out, '\n');
}

void bc_print_module(const struct bc_module *m, struct sbuf *out)
{
	sb_adds(out, "cuda_tile.module @kernels ");
	if (m->producer >= 0) {
		const struct bc_slice *s = &m->strings[m->producer];
		sb_adds(out, "attributes {producer = ");
		bc_print_string(s->p, s->len, out);
		sb_adds(out, "} ");
	}
	sb_adds(out, "{\n");
	for (uint32_t i = 0; i < m->nglobals; i++)
		print_global(m, &m->globals[i], out);
	for (uint32_t i = 0; i < m->nfuncs; i++)
		print_entry(m, &m->funcs[i], out);
	sb_adds(out, "}\n");
}
