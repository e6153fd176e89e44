/* Tile IR bytecode: one printing template per op (§10.6). Spacing follows
 * MLIR's generated printers, including the double spaces left by custom
 * elements that print nothing (a default rounding mode, for instance). */
#include "engine/ir/bc_pctx.h"

#include <string.h>

static void hints(struct pctx *c)
{
	const struct bc_fval *f = bc_op_field(c->op, "optimization_hints");
	if (f && f->present && f->attr) {
		S(c, " optimization_hints = ");
		bc_print_attr(c->p->m, f->attr, c->o);
	}
}

/* `%a, %b` as `name` and `: T(a), T(b)` suffix for terminators. */
static void terminator(struct pctx *c)
{
	uint32_t n;
	const uint32_t *v = group(c, "operands", &n);
	if (!n)
		return;
	S(c, " ");
	values(c, v, n);
	S(c, " : ");
	types(c, v, n);
}

/* `, T` once when all indices share a type, else per index. */
static void index_types(struct pctx *c, const uint32_t *v, uint32_t n)
{
	bool same = true;
	const struct bc_func *f = c->p->f;
	for (uint32_t i = 1; i < n && same; i++)
		same = v[i] < f->nvalues && v[0] < f->nvalues &&
		       f->values[v[i]].type == f->values[v[0]].type;
	for (uint32_t i = 0; i < (same && n ? 1 : n); i++) {
		S(c, ", ");
		T(c, v[i]);
	}
}

static void view_index(struct pctx *c, const char *view)
{
	uint32_t n;
	const uint32_t *idx = group(c, "index", &n);
	V(c, one(c, view));
	S(c, "[");
	values(c, idx, n);
	S(c, "]");
}

static void scope_opt(struct pctx *c)
{
	bool present;
	uint64_t v = attr(c, "memory_scope", &present);
	if (present)
		sb_printf(c->o, " %s", bc_enum_name(BC_EN_MEM_SCOPE, v));
}

/* Ops of the form `OP %a[, %b…] : T(result)` and friends. */
static bool print_simple(struct pctx *c)
{
	const char *nm = c->op->info->name;
	switch (c->op->opcode) {
	case 0x00: case 0x01: case 0x0D: case 0x12: case 0x13: case 0x27: case 0x3F:
	case 0x40: case 0x4F: case 0x62: case 0x63: case 0x69:
		sb_printf(c->o, "%s ", nm);
		V(c, one(c, "source"));
		break;
	case 0x18: case 0x5D:
		sb_printf(c->o, "%s ", nm);
		V(c, one(c, "source"));
		if (flag(c, "flush_to_zero"))
			S(c, " flush_to_zero");
		break;
	case 0x02: case 0x67: case 0x4C: case 0x14: case 0x28: case 0x64:
		sb_printf(c->o, "%s ", nm);
		if (c->op->opcode == 0x64) {
			V(c, one(c, "source"));
		} else {
			V(c, one(c, "lhs"));
			S(c, ", ");
			V(c, one(c, "rhs"));
			if (c->op->opcode == 0x28) {
				S(c, ", ");
				V(c, one(c, "acc"));
			}
		}
		S(c, " ");
		rnd(c, "rounding_mode", 0);
		if (flag(c, "flush_to_zero"))
			S(c, " flush_to_zero");
		break;
	case 0x17: case 0x6A:
		sb_printf(c->o, "%s ", nm);
		V(c, one(c, "source"));
		S(c, " ");
		rnd(c, "rounding_mode", 5);
		break;
	case 0x54: case 0x6E: case 0x4D: case 0x59: case 0x04: case 0x52: case 0x6C: {
		const char *a = c->op->opcode == 0x54 ? "source" : one(c, "x") != NONE ? "x" : "lhs";
		const char *b = c->op->opcode == 0x54 ? "exponent" : one(c, "y") != NONE ? "y" : "rhs";
		sb_printf(c->o, "%s ", nm);
		V(c, one(c, a));
		S(c, ", ");
		V(c, one(c, b));
		break;
	}
	case 0x03: case 0x68: case 0x4E: case 0x60:
		sb_printf(c->o, "%s ", nm);
		V(c, one(c, "lhs"));
		S(c, ", ");
		V(c, one(c, "rhs"));
		overflow(c);
		break;
	case 0x50:
		S(c, "negi ");
		V(c, one(c, "source"));
		overflow(c);
		break;
	case 0x15:
		S(c, "divi ");
		V(c, one(c, "lhs"));
		S(c, ", ");
		V(c, one(c, "rhs"));
		S(c, " ");
		en(c, BC_EN_SIGNEDNESS, "signedness");
		if (attr(c, "rounding", NULL) != 1)
			sb_printf(c->o, " rounding<%s>",
				  bc_enum_name(BC_EN_ROUNDING, attr(c, "rounding", NULL)));
		break;
	case 0x46: case 0x48: case 0x5A: case 0x61:
		sb_printf(c->o, "%s ", nm);
		V(c, one(c, "lhs"));
		S(c, ", ");
		V(c, one(c, "rhs"));
		S(c, " ");
		en(c, BC_EN_SIGNEDNESS, "signedness");
		break;
	case 0x45: case 0x47:
		sb_printf(c->o, "%s ", nm);
		V(c, one(c, "lhs"));
		S(c, ", ");
		V(c, one(c, "rhs"));
		if (flag(c, "flush_to_zero"))
			S(c, " flush_to_zero");
		if (flag(c, "propagate_nan"))
			S(c, " propagate_nan");
		break;
	case 0x3A: case 0x44: case 0x30: case 0x2E:
		S(c, nm);
		break;
	case 0x42: case 0x73: case 0x74:
		sb_printf(c->o, "%s ", nm);
		V(c, one(c, "tensor_view"));
		break;
	case 0x3C: {
		uint32_t n;
		const uint32_t *v = group(c, "tokens", &n);
		S(c, "join_tokens ");
		values(c, v, n);
		break;
	}
	case 0x10: {
		const struct bc_fval *f = bc_op_field(c->op, "value");
		S(c, "constant ");
		if (c->op->nres)
			bc_print_dense(c->p->m, c->op->res_types[0], (uint32_t)f->v, c->o);
		break;
	}
	case 0x2C:
		S(c, "get_global @");
		bc_print_keyword(c->p->m, (uint32_t)attr(c, "name", NULL), c->o);
		break;
	case 0x71: {
		sb_printf(c->o, "alloca num_elem = %llu, alignment = %llu",
			  (unsigned long long)attr(c, "num_elem", NULL),
			  (unsigned long long)attr(c, "alignment", NULL));
		if (flag(c, "global"))
			S(c, " global");
		break;
	}
	default:
		return false;
	}
	S(c, " : ");
	RT(c, 0);
	return true;
}

/* `OP %from … : T(from) -> T(to)` and other two-type forms. */
static bool print_converting(struct pctx *c)
{
	const char *nm = c->op->info->name;
	uint32_t src;
	switch (c->op->opcode) {
	case 0x09: case 0x33: case 0x56: case 0x57: case 0x0B: case 0x5B: case 0x6F: case 0x70:
		sb_printf(c->o, "%s ", nm);
		V(c, src = one(c, "source"));
		break;
	case 0x6B:
		S(c, "trunci ");
		V(c, src = one(c, "from"));
		overflow(c);
		break;
	case 0x25:
		S(c, "exti ");
		V(c, src = one(c, "from"));
		S(c, " ");
		en(c, BC_EN_SIGNEDNESS, "signedness");
		break;
	case 0x2B: case 0x3B:
		sb_printf(c->o, "%s ", nm);
		V(c, src = one(c, "from"));
		S(c, " ");
		en(c, BC_EN_SIGNEDNESS, "signedness");
		S(c, " ");
		rnd(c, "rounding_mode", c->op->opcode == 0x2B ? 6 : 0);
		break;
	case 0x2A:
		S(c, "ftof ");
		V(c, src = one(c, "from"));
		S(c, " ");
		rnd(c, "rounding_mode", 0);
		break;
	case 0x0F:
		S(c, "cmpi ");
		en(c, BC_EN_CMP_PREDICATE, "comparison_predicate");
		S(c, " ");
		V(c, src = one(c, "lhs"));
		S(c, ", ");
		V(c, one(c, "rhs"));
		S(c, ", ");
		en(c, BC_EN_SIGNEDNESS, "signedness");
		break;
	case 0x0E:
		S(c, "cmpf ");
		en(c, BC_EN_CMP_PREDICATE, "comparison_predicate");
		S(c, " ");
		en(c, BC_EN_CMP_ORDERING, "comparison_ordering");
		S(c, " ");
		V(c, src = one(c, "lhs"));
		S(c, ", ");
		V(c, one(c, "rhs"));
		break;
	case 0x2F: case 0x2D:
		sb_printf(c->o, "%s ", nm);
		V(c, src = one(c, "src"));
		break;
	case 0x53: {
		const struct bc_fval *f = bc_op_field(c->op, "permutation");
		S(c, "permute ");
		V(c, src = one(c, "source"));
		S(c, " [");
		for (uint32_t i = 0; f && i < f->n; i++)
			sb_printf(c->o, "%s%d", i ? ", " : "", (int)f->i32[i]);
		S(c, "]");
		break;
	}
	case 0x26: {
		uint32_t n;
		const uint32_t *idx = group(c, "indices", &n);
		S(c, "extract ");
		V(c, src = one(c, "source"));
		S(c, "[");
		values(c, idx, n);
		S(c, "]");
		break;
	}
	case 0x51:
		S(c, "offset ");
		V(c, src = one(c, "ptr"));
		S(c, ", ");
		V(c, one(c, "offset"));
		S(c, " : ");
		T(c, src);
		S(c, ", ");
		T(c, one(c, "offset"));
		S(c, " -> ");
		RT(c, 0);
		return true;
	case 0x0C:
		S(c, "cat ");
		V(c, src = one(c, "lhs"));
		S(c, ", ");
		V(c, one(c, "rhs"));
		sb_printf(c->o, " dim = %llu : ", (unsigned long long)attr(c, "dim", NULL));
		T(c, src);
		S(c, ", ");
		T(c, one(c, "rhs"));
		S(c, " -> ");
		RT(c, 0);
		return true;
	default:
		return false;
	}
	S(c, " : ");
	T(c, src);
	S(c, " -> ");
	RT(c, 0);
	return true;
}

static bool print_misc(struct pctx *c)
{
	const struct bc_op *op = c->op;
	uint32_t n;
	switch (op->opcode) {
	case 0x5F:
		S(c, "select ");
		V(c, one(c, "cond"));
		S(c, ", ");
		V(c, one(c, "val_if_true"));
		S(c, ", ");
		V(c, one(c, "val_if_false"));
		S(c, " : ");
		T(c, one(c, "cond"));
		S(c, ", ");
		RT(c, 0);
		return true;
	case 0x49: case 0x4A: case 0x72: {
		static const char *const names[5] = {"lhs", "rhs", "acc", "lhs_scale", "rhs_scale"};
		unsigned k = op->opcode == 0x72 ? 5 : 3;
		sb_printf(c->o, "%s ", op->info->name);
		for (unsigned i = 0; i < k; i++) {
			if (i)
				S(c, ", ");
			V(c, one(c, names[i]));
		}
		if (op->opcode == 0x49 && flag(c, "fast_acc"))
			S(c, " fast_acc");
		if (op->opcode == 0x4A) {
			S(c, " ");
			en(c, BC_EN_SIGNEDNESS, "signedness_lhs");
			S(c, " ");
			en(c, BC_EN_SIGNEDNESS, "signedness_rhs");
		}
		S(c, " : ");
		for (unsigned i = 0; i < k; i++) {
			if (i)
				S(c, ", ");
			T(c, one(c, names[i]));
		}
		return true;
	}
	case 0x06: {
		const struct bc_fval *f = bc_op_field(op, "predicate");
		S(c, "assume ");
		if (f && f->attr)
			bc_print_attr(c->p->m, f->attr, c->o);
		S(c, ", ");
		V(c, one(c, "value"));
		S(c, " : ");
		T(c, one(c, "value"));
		return true;
	}
	case 0x05: {
		const struct bc_slice *s = &c->p->m->strings[attr(c, "message", NULL)];
		S(c, "assert ");
		V(c, one(c, "condition"));
		S(c, ", ");
		bc_print_string(s->p, s->len, c->o);
		S(c, " : ");
		T(c, one(c, "condition"));
		return true;
	}
	case 0x55: {
		const struct bc_slice *s = &c->p->m->strings[attr(c, "str", NULL)];
		const uint32_t *args = group(c, "args", &n);
		S(c, "print_tko ");
		bc_print_string(s->p, s->len, c->o);
		if (n) {
			S(c, ", ");
			values(c, args, n);
		}
		if (one(c, "token") != NONE) {
			S(c, " token=");
			V(c, one(c, "token"));
		}
		if (n) {
			S(c, " : ");
			types(c, args, n);
		}
		S(c, " -> ");
		RT(c, 0);
		return true;
	}
	case 0x0A: case 0x11: case 0x5C: case 0x6D:
		S(c, op->info->name);
		terminator(c);
		return true;
	default:
		return bc_print_region_op(c);
	}
}

/* Pointer and view memory ops. */
static bool print_memory(struct pctx *c)
{
	const struct bc_op *op = c->op;
	uint32_t mask = one(c, "mask"), tok = one(c, "token"), n;
	switch (op->opcode) {
	case 0x3D: case 0x65: {
		bool load = op->opcode == 0x3D;
		uint32_t a = one(c, load ? "source" : "destination");
		uint32_t pad = load ? one(c, "paddingValue") : NONE;
		sb_printf(c->o, "%s ", op->info->name);
		en(c, BC_EN_MEM_ORDERING, "memory_ordering_semantics");
		scope_opt(c);
		S(c, " ");
		V(c, a);
		if (!load) {
			S(c, ", ");
			V(c, one(c, "value"));
		}
		if (mask != NONE) {
			S(c, ", ");
			V(c, mask);
		}
		if (pad != NONE) {
			S(c, ", ");
			V(c, pad);
		}
		if (tok != NONE) {
			S(c, " token=");
			V(c, tok);
		}
		hints(c);
		S(c, " : ");
		T(c, a);
		if (!load) {
			S(c, ", ");
			T(c, one(c, "value"));
		}
		if (mask != NONE) {
			S(c, ", ");
			T(c, mask);
		}
		if (pad != NONE) {
			S(c, ", ");
			T(c, pad);
		}
		S(c, " -> ");
		result_types(c);
		return true;
	}
	case 0x08: case 0x07: {
		bool rmw = op->opcode == 0x08;
		uint32_t ptrs = one(c, "pointers"), val = one(c, rmw ? "arg" : "val");
		sb_printf(c->o, "%s ", op->info->name);
		en(c, BC_EN_MEM_ORDERING, "memory_ordering_semantics");
		S(c, " ");
		en(c, BC_EN_MEM_SCOPE, "memory_scope");
		S(c, " ");
		V(c, ptrs);
		S(c, ", ");
		if (rmw) {
			en(c, BC_EN_RMW_MODE, "mode");
		} else {
			V(c, one(c, "cmp"));
		}
		S(c, ", ");
		V(c, val);
		if (mask != NONE) {
			S(c, ", ");
			V(c, mask);
		}
		if (tok != NONE) {
			S(c, " token=");
			V(c, tok);
		}
		S(c, " : ");
		T(c, ptrs);
		S(c, ", ");
		T(c, val);
		if (mask != NONE) {
			S(c, ", ");
			T(c, mask);
		}
		S(c, " -> ");
		result_types(c);
		return true;
	}
	case 0x3E: case 0x66: case 0x75: {
		const uint32_t *idx = group(c, "index", &n);
		sb_printf(c->o, "%s ", op->info->name);
		en(c, BC_EN_MEM_ORDERING, "memory_ordering_semantics");
		if (op->opcode == 0x75) {
			S(c, " ");
			en(c, BC_EN_MEM_SCOPE, "memory_scope");
		} else {
			scope_opt(c);
		}
		S(c, " ");
		if (op->opcode == 0x66) {
			V(c, one(c, "tile"));
			S(c, ", ");
		}
		view_index(c, "view");
		if (op->opcode == 0x75) {
			S(c, ", ");
			en(c, BC_EN_RMW_MODE, "mode");
			S(c, ", ");
			V(c, one(c, "value"));
		}
		if (tok != NONE) {
			S(c, " token = ");
			V(c, tok);
		}
		if (op->opcode != 0x75)
			hints(c);
		S(c, " : ");
		if (op->opcode == 0x66) {
			T(c, one(c, "tile"));
			S(c, ", ");
		} else if (op->opcode == 0x75) {
			T(c, one(c, "value"));
			S(c, ", ");
		}
		T(c, one(c, "view"));
		index_types(c, idx, n);
		S(c, " -> ");
		result_types(c);
		return true;
	}
	default:
		return false;
	}
}

static void print_results(struct pctx *c)
{
	const struct bc_op *op = c->op;
	const struct bc_names *n = &c->p->names;
	bool first = true;
	for (uint32_t i = 0; i < op->nres; i++) {
		uint32_t id = op->first_result + i;
		if (id >= c->p->f->nvalues || n->head[id] != id)
			continue;
		if (!first)
			S(c, ", ");
		first = false;
		sb_printf(c->o, "%%%s", n->name[id]);
		if (n->gsize[id] > 1)
			sb_printf(c->o, ":%u", n->gsize[id]);
	}
	if (!first)
		S(c, " = ");
}

void bc_print_op(struct bc_printer *p, const struct bc_op *op)
{
	struct pctx c = {p, op, p->out};
	print_results(&c);
	if (print_simple(&c) || print_converting(&c) || print_misc(&c) || print_memory(&c))
		return;
	sb_printf(p->out, "\"cuda_tile.%s\"()", op->info->name); /* not reached: every opcode has a template */
}
