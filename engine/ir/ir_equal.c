/* Structural equality of attributes, ops and modules (value names, source
 * locations and alias spellings are not part of a module's meaning). */
#include "engine/ir/ir.h"
#include "engine/ir/ir_internal.h"

#include <stdlib.h>
#include <string.h>

static uint64_t dense_at(const struct ir_attr *a, uint32_t i)
{
	return a->n == 1 ? a->vals[0] : a->vals[i];
}

bool ir_attr_equal(const struct ir_attr *a, const struct ir_attr *b)
{
	if (a == b)
		return true;
	if (!a || !b || a->kind != b->kind)
		return false;
	switch (a->kind) {
	case IR_ATTR_UNIT:
		return true;
	case IR_ATTR_BOOL:
		return a->b == b->b;
	case IR_ATTR_INT:
		/* untyped (hint values, dims) matches any type */
		return a->i == b->i && (!a->type || !b->type || ir_type_equal(a->type, b->type));
	case IR_ATTR_FLOAT:
		return a->bits == b->bits && (!a->type || !b->type || ir_type_equal(a->type, b->type));
	case IR_ATTR_STRING:
	case IR_ATTR_SYMBOL:
	case IR_ATTR_OPAQUE:
		return a->len == b->len && memcmp(a->str, b->str, a->len) == 0;
	case IR_ATTR_TYPE:
		return ir_type_equal(a->type, b->type);
	case IR_ATTR_ENUM:
		return a->ekind == b->ekind && a->i == b->i;
	case IR_ATTR_ARRAY:
		if (a->n != b->n)
			return false;
		for (uint32_t i = 0; i < a->n; i++)
			if (!ir_attr_equal(a->elems[i], b->elems[i]))
				return false;
		return true;
	case IR_ATTR_INT_ARRAY:
	case IR_ATTR_SAME_ELEMENTS:
		return a->n == b->n && (!a->n || memcmp(a->vals, b->vals, a->n * sizeof(uint64_t)) == 0);
	case IR_ATTR_DICT:
	case IR_ATTR_HINTS:
		if (a->n != b->n)
			return false;
		for (uint32_t i = 0; i < a->n; i++)
			if (strcmp(a->keys[i], b->keys[i]) || !ir_attr_equal(a->elems[i], b->elems[i]))
				return false;
		return true;
	case IR_ATTR_DENSE: {
		if (!ir_type_equal(a->type, b->type))
			return false;
		uint32_t n = a->n > b->n ? a->n : b->n;
		if ((a->n != 1 && a->n != n) || (b->n != 1 && b->n != n))
			return false;
		for (uint32_t i = 0; i < n; i++)
			if (dense_at(a, i) != dense_at(b, i))
				return false;
		return true;
	}
	case IR_ATTR_DIV_BY:
		return a->i == b->i && a->has_every == b->has_every && a->every == b->every &&
		       a->along == b->along;
	case IR_ATTR_BOUNDED:
		return a->has_lb == b->has_lb && a->has_ub == b->has_ub && a->lb == b->lb &&
		       a->ub == b->ub;
	}
	return false;
}

/* value in a -> value in b, keyed by pointer */
struct vmap {
	size_t cap, n;
	const struct ir_value **from;
	const struct ir_value **to;
};

static size_t slot(const struct vmap *m, const struct ir_value *v)
{
	uintptr_t h = (uintptr_t)v;
	h ^= h >> 17;
	h *= 0x9e3779b97f4a7c15ULL;
	return (size_t)(h >> 7) & (m->cap - 1);
}

static void vmap_put(struct vmap *m, const struct ir_value *a, const struct ir_value *b)
{
	if ((m->n + 1) * 2 > m->cap) {
		struct vmap big = {m->cap ? m->cap * 2 : 256, 0, NULL, NULL};
		big.from = xcalloc(big.cap, sizeof(*big.from));
		big.to = xcalloc(big.cap, sizeof(*big.to));
		for (size_t i = 0; i < m->cap; i++)
			if (m->from[i])
				vmap_put(&big, m->from[i], m->to[i]);
		free(m->from);
		free(m->to);
		*m = big;
	}
	size_t i = slot(m, a);
	while (m->from[i] && m->from[i] != a)
		i = (i + 1) & (m->cap - 1);
	if (!m->from[i])
		m->n++;
	m->from[i] = a;
	m->to[i] = b;
}

static const struct ir_value *vmap_get(const struct vmap *m, const struct ir_value *a)
{
	if (!m->cap)
		return NULL;
	for (size_t i = slot(m, a); m->from[i]; i = (i + 1) & (m->cap - 1))
		if (m->from[i] == a)
			return m->to[i];
	return NULL;
}

static bool op_eq(struct vmap *vm, const struct ir_op *a, const struct ir_op *b);

static bool block_eq(struct vmap *vm, const struct ir_block *a, const struct ir_block *b)
{
	if (a->nargs != b->nargs || a->nops != b->nops)
		return false;
	for (uint32_t i = 0; i < a->nargs; i++) {
		if (!ir_type_equal(a->args[i]->type, b->args[i]->type))
			return false;
		vmap_put(vm, a->args[i], b->args[i]);
	}
	for (uint32_t i = 0; i < a->nops; i++)
		if (!op_eq(vm, a->ops[i], b->ops[i]))
			return false;
	return true;
}

static bool attrs_eq(const struct ir_op *a, const struct ir_op *b)
{
	if (a->nattrs != b->nattrs)
		return false;
	for (uint32_t i = 0; i < a->nattrs; i++)
		if (!ir_attr_equal(a->attrs[i].attr, ir_op_attr(b, a->attrs[i].name)))
			return false;
	return true;
}

static bool op_eq(struct vmap *vm, const struct ir_op *a, const struct ir_op *b)
{
	if (a->code != b->code || a->noperands != b->noperands || a->nresults != b->nresults ||
	    a->nregions != b->nregions || a->ngroups != b->ngroups)
		return false;
	if (a->code == IR_OP_UNKNOWN && strcmp(ir_op_name(a), ir_op_name(b)) != 0)
		return false;
	const char *ta = ir_op_x(a)->text, *tb = ir_op_x(b)->text;
	if ((ta == NULL) != (tb == NULL) || (ta && strcmp(ta, tb) != 0))
		return false;
	for (uint32_t g = 0; g < a->ngroups; g++)
		if (ir_op_group_size(a, g) != ir_op_group_size(b, g))
			return false;
	for (uint32_t i = 0; i < a->noperands; i++) {
		const struct ir_value *m = vmap_get(vm, a->operands[i]);
		if (m ? m != b->operands[i] : a->operands[i] != b->operands[i])
			return false;
	}
	if (!attrs_eq(a, b))
		return false;
	for (uint32_t i = 0; i < a->nresults; i++) {
		if (!ir_type_equal(a->results[i]->type, b->results[i]->type))
			return false;
		vmap_put(vm, a->results[i], b->results[i]);
	}
	for (uint32_t r = 0; r < a->nregions; r++) {
		const struct ir_region *ra = ir_op_region(a, r), *rb = ir_op_region(b, r);
		if (ra->nblocks != rb->nblocks)
			return false;
		for (uint32_t k = 0; k < ra->nblocks; k++)
			if (!block_eq(vm, ra->blocks[k], rb->blocks[k]))
				return false;
	}
	return true;
}

bool ir_op_equal(const struct ir_op *a, const struct ir_op *b)
{
	struct vmap vm = {0, 0, NULL, NULL};
	bool eq = op_eq(&vm, a, b);
	free(vm.from);
	free(vm.to);
	return eq;
}

bool ir_module_equal(const struct ir_module *a, const struct ir_module *b)
{
	if (a->nunits != b->nunits)
		return false;
	for (uint32_t i = 0; i < a->nunits; i++)
		if (!ir_op_equal(a->units[i], b->units[i]))
			return false;
	return true;
}
