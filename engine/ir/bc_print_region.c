/* Tile IR bytecode: printing templates of the region ops — for, loop, if,
 * reduce, scan — with the official printer's terminator elision and block
 * headers (§10.6), and make_tensor_view's shape/stride lists. */
#include "engine/ir/bc_pctx.h"

static void block_open(struct pctx *c, const struct bc_region *r, unsigned elide)
{
	S(c, "{\n");
	if (r->nblocks)
		bc_pr_block(c->p, &r->blocks[0], elide);
	bc_pr_indent(c->p);
	S(c, "}");
}

static const struct bc_block *region_block(const struct bc_op *op, uint32_t k)
{
	return k < op->nregions && op->regions[k].nblocks ? &op->regions[k].blocks[0] : NULL;
}

static void block_arg(struct pctx *c, const struct bc_block *b, uint32_t i)
{
	if (b && i < b->nargs)
		V(c, b->first_arg + i);
	else
		S(c, "%<<UNKNOWN SSA VALUE>>");
}

/* reduce and scan: the signature line, then the block header on its own line. */
static void print_reduction(struct pctx *c, bool scan)
{
	const struct bc_op *op = c->op;
	uint32_t n;
	const uint32_t *v = group(c, "operands", &n);
	S(c, scan ? "scan " : "reduce ");
	values(c, v, n);
	sb_printf(c->o, " dim=%llu", (unsigned long long)attr(c, "dim", NULL));
	if (scan)
		S(c, attr(c, "reverse", NULL) ? " reverse=true" : " reverse=false");
	S(c, " identities=[");
	const struct bc_fval *ids = bc_op_field(op, "identities");
	for (uint32_t i = 0; ids && i < ids->n; i++) {
		if (i)
			S(c, ", ");
		const struct bc_attr *a = &ids->attr[i];
		bool boolean = a->kind == BC_AT_INT && a->type < c->p->m->ntypes &&
			       c->p->m->types[a->type].tag == BC_TY_I1;
		if ((a->kind == BC_AT_INT || a->kind == BC_AT_FLOAT) && !boolean)
			bc_print_typed_value(c->p->m, a, true, c->o);
		else
			bc_print_attr(c->p->m, a, c->o);
	}
	S(c, "] : ");
	types(c, v, n);
	S(c, " -> ");
	result_types(c);
	S(c, " \n");
	bc_pr_indent(c->p);
	const struct bc_block *b = region_block(op, 0);
	S(c, "(");
	for (uint32_t i = 0; b && i < b->nargs; i++) {
		if (i)
			S(c, ", ");
		V(c, b->first_arg + i);
		S(c, ": ");
		bc_print_type(c->p->m, b->arg_types[i], c->o);
	}
	S(c, ") ");
	block_open(c, &op->regions[0], 0);
}

static void print_for(struct pctx *c)
{
	const struct bc_op *op = c->op;
	const struct bc_block *b = region_block(op, 0);
	uint32_t n;
	const uint32_t *init = group(c, "initValues", &n);
	S(c, "for ");
	if (flag(c, "unsignedCmp"))
		S(c, "unsigned ");
	block_arg(c, b, 0);
	S(c, " in (");
	V(c, one(c, "lowerBound"));
	S(c, " to ");
	V(c, one(c, "upperBound"));
	S(c, ", step ");
	V(c, one(c, "step"));
	S(c, ") : ");
	T(c, one(c, "lowerBound"));
	S(c, " ");
	if (n) {
		S(c, "iter_values(");
		for (uint32_t i = 0; i < n; i++) {
			if (i)
				S(c, ", ");
			block_arg(c, b, i + 1);
			S(c, " = ");
			V(c, init[i]);
		}
		S(c, ") -> (");
		result_types(c);
		S(c, ") ");
	}
	block_open(c, &op->regions[0], 0x11);
}

static void print_loop(struct pctx *c)
{
	const struct bc_op *op = c->op;
	const struct bc_block *b = region_block(op, 0);
	uint32_t n;
	const uint32_t *init = group(c, "initValues", &n);
	S(c, "loop ");
	if (n) {
		S(c, "iter_values(");
		for (uint32_t i = 0; i < n; i++) {
			if (i)
				S(c, ", ");
			block_arg(c, b, i);
			S(c, " = ");
			V(c, init[i]);
		}
		S(c, ") ");
	}
	if (n || op->nres)
		S(c, ": ");
	if (n) {
		types(c, init, n);
		S(c, " ");
		if (op->nres)
			S(c, "-> ");
	}
	if (op->nres) {
		result_types(c);
		S(c, " ");
	}
	block_open(c, &op->regions[0], 0x11);
}

static void print_if(struct pctx *c)
{
	const struct bc_op *op = c->op;
	S(c, "if ");
	V(c, one(c, "condition"));
	if (op->nres) {
		S(c, " -> (");
		result_types(c);
		S(c, ")");
	}
	S(c, " ");
	block_open(c, &op->regions[0], 0x6D);
	if (op->nregions > 1 && op->regions[1].nblocks) {
		S(c, " else ");
		block_open(c, &op->regions[1], 0x6D);
	}
}

static void print_make_tensor_view(struct pctx *c)
{
	const struct bc_module *m = c->p->m;
	uint32_t ns, nd;
	const uint32_t *ds = group(c, "dynamicShape", &ns);
	const uint32_t *dd = group(c, "dynamicStrides", &nd);
	const struct bc_type *t = c->op->nres && c->op->res_types[0] < m->ntypes
					  ? &m->types[c->op->res_types[0]] : NULL;
	S(c, "make_tensor_view ");
	V(c, one(c, "base"));
	for (int pass = 0; pass < 2; pass++) {
		const int64_t *dims = t ? (pass ? t->strides : t->shape) : NULL;
		uint32_t rank = t ? (pass ? t->nstrides : t->rank) : 0;
		const uint32_t *dyn = pass ? dd : ds;
		uint32_t ndyn = pass ? nd : ns, k = 0;
		S(c, pass ? ", strides = [" : ", shape = [");
		for (uint32_t i = 0; i < rank; i++) {
			if (i)
				S(c, ", ");
			if (dims[i] != BC_DYNAMIC)
				sb_printf(c->o, "%lld", (long long)dims[i]);
			else if (k < ndyn)
				V(c, dyn[k++]);
			else
				S(c, "?");
		}
		S(c, "]");
	}
	S(c, " : ");
	if (ns || nd) {
		T(c, ns ? ds[0] : dd[0]);
		S(c, " -> ");
	}
	RT(c, 0);
}

bool bc_print_region_op(struct pctx *c)
{
	switch (c->op->opcode) {
	case 0x43:
		print_make_tensor_view(c);
		return true;
	case 0x29:
		print_for(c);
		return true;
	case 0x41:
		print_loop(c);
		return true;
	case 0x32:
		print_if(c);
		return true;
	case 0x58: case 0x5E:
		print_reduction(c, c->op->opcode == 0x5E);
		return true;
	default:
		return false;
	}
}
