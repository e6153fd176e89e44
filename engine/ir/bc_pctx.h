/* Internals shared by the bytecode printer's op templates (bc_print_ops.c,
 * bc_print_region.c): the per-op context and small emitters. */
#ifndef TILEPORT_IR_BC_PCTX_H
#define TILEPORT_IR_BC_PCTX_H

#include "engine/ir/bc_priv.h"

#define NONE UINT32_MAX

struct pctx {
	struct bc_printer *p;
	const struct bc_op *op;
	struct sbuf *o;
};

static inline void S(struct pctx *c, const char *s)
{
	sb_adds(c->o, s);
}

static inline void V(struct pctx *c, uint32_t id)
{
	bc_pr_value(c->p, id);
}

static inline void T(struct pctx *c, uint32_t id)
{
	bc_pr_vtype(c->p, id);
}

static inline void RT(struct pctx *c, uint32_t i)
{
	if (i < c->op->nres)
		bc_print_type(c->p->m, c->op->res_types[i], c->o);
}

/* The single value of a group, NONE when absent. */
static inline uint32_t one(struct pctx *c, const char *name)
{
	uint32_t n;
	const uint32_t *v = bc_op_group(c->op, name, &n);
	return n ? v[0] : NONE;
}

static inline const uint32_t *group(struct pctx *c, const char *name, uint32_t *n)
{
	return bc_op_group(c->op, name, n);
}

static inline uint64_t attr(struct pctx *c, const char *name, bool *present)
{
	const struct bc_fval *f = bc_op_field(c->op, name);
	if (present)
		*present = f && f->present;
	return f && f->present ? f->v : 0;
}

static inline bool flag(struct pctx *c, const char *name)
{
	bool present;
	return attr(c, name, &present) && present;
}

static inline void en(struct pctx *c, enum bc_enum e, const char *field)
{
	const char *s = bc_enum_name(e, attr(c, field, NULL));
	S(c, s ? s : "?");
}

/* `rounding<x>` when not the op's default, else nothing. */
static inline void rnd(struct pctx *c, const char *field, uint64_t dflt)
{
	bool present;
	uint64_t v = attr(c, field, &present);
	if (present && v != dflt)
		sb_printf(c->o, "rounding<%s>", bc_enum_name(BC_EN_ROUNDING, v));
}

static inline void overflow(struct pctx *c)
{
	uint64_t v = attr(c, "overflow", NULL);
	if (v)
		sb_printf(c->o, " overflow<%s>", bc_enum_name(BC_EN_OVERFLOW, v));
}

static inline void values(struct pctx *c, const uint32_t *v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			S(c, ", ");
		V(c, v[i]);
	}
}

static inline void types(struct pctx *c, const uint32_t *v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			S(c, ", ");
		T(c, v[i]);
	}
}

static inline void result_types(struct pctx *c)
{
	for (uint32_t i = 0; i < c->op->nres; i++) {
		if (i)
			S(c, ", ");
		RT(c, i);
	}
}

/* Region ops (for, loop, if, reduce, scan) and make_tensor_view;
 * false when the op is not one of them. */
bool bc_print_region_op(struct pctx *c);

#endif
