/* Nodes as short expressions in their side's names, for messages:
 * "A[bid_m, k]", "exp2(x * 1.4427)", "cols < hidden_size". A value a
 * variable held is shown by that name below the top. */
#include "engine/sem/sem_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sem_op_name(int op)
{
	static const char *const names[S__COUNT] = {
		[S_NONE] = "none",       [S_INT] = "int",         [S_FLOAT] = "float",
		[S_BOOL] = "bool",       [S_UNDEF] = "undefined", [S_PARAM] = "parameter",
		[S_SHAPE] = "shape",     [S_STRIDE] = "stride",   [S_BID] = "block id",
		[S_NBLOCKS] = "grid size", [S_IV] = "loop index", [S_CARRY] = "loop-carried value",
		[S_IOTA] = "arange",     [S_POLY] = "integer arithmetic", [S_MONO] = "product",
		[S_FLOORDIV] = "floor division", [S_MOD] = "modulo", [S_IMIN] = "min",
		[S_IMAX] = "max",        [S_ICMP] = "comparison", [S_IBIT] = "bit operation",
		[S_AND] = "and",         [S_OR] = "or",           [S_XOR] = "xor",
		[S_NOT] = "not",         [S_FADD] = "add",        [S_FMUL] = "mul",
		[S_FNEG] = "negation",   [S_FDIV] = "division",   [S_FREM] = "remainder",
		[S_FMAX] = "maximum",    [S_FMIN] = "minimum",    [S_FCMP] = "comparison",
		[S_MATH] = "math",       [S_POW] = "pow",         [S_ATAN2] = "atan2",
		[S_SIGMOID] = "sigmoid", [S_SELECT] = "select",   [S_CONVERT] = "convert",
		[S_RESHAPE] = "reshape", [S_BROADCAST] = "broadcast", [S_PERMUTE] = "permute",
		[S_REDUCE] = "reduction", [S_MMA] = "mma",        [S_LOAD] = "load",
		[S_GATHER] = "gather",   [S_LOOPRES] = "loop result", [S_OPAQUE] = "call",
	};
	return op >= 0 && op < S__COUNT && names[op] ? names[op] : "?";
}

static const char *math_name(int fn)
{
	static const char *const names[] = {"exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos",
					    "tan",  "sinh", "cosh", "tanh", "floor", "ceil", "abs", "exp"};
	return fn >= 0 && fn < (int)TP_ARRAY_LEN(names) ? names[fn] : "?";
}

static const char *reduce_name(int k)
{
	static const char *const names[] = {"sum", "max", "min", "prod"};
	return k >= 0 && k < (int)TP_ARRAY_LEN(names) ? names[k] : "?";
}

static void render(const struct sgraph *g, sid x, int depth, bool top, struct sbuf *o);

static void dims(const struct sgraph *g, const sid *d, int r, struct sbuf *o)
{
	sb_addc(o, '(');
	for (int i = 0; i < r; i++) {
		if (i)
			sb_adds(o, ", ");
		render(g, d[i], 2, false, o);
	}
	if (r == 1)
		sb_addc(o, ',');
	sb_addc(o, ')');
}

static void args(const struct sgraph *g, const struct snode *n, int from, int depth, const char *sep,
		 struct sbuf *o)
{
	for (int i = from; i < n->nargs; i++) {
		if (i > from)
			sb_adds(o, sep);
		render(g, n->args[i], depth - 1, false, o);
	}
}

static void mono(const struct sgraph *g, const struct snode *m, bool first, int depth, struct sbuf *o)
{
	int64_t c = m->ival;
	if (!first)
		sb_adds(o, c < 0 ? " - " : " + ");
	else if (c < 0)
		sb_addc(o, '-');
	int64_t a = c < 0 ? -c : c;
	if (m->nargs == 0) {
		sb_add_int(o, a);
		return;
	}
	if (a != 1) {
		sb_add_int(o, a);
		sb_adds(o, "*");
	}
	args(g, m, 0, depth, "*", o);
}

static void poly_side(const struct sgraph *g, const struct snode *p, int sign, int depth,
		      struct sbuf *o)
{
	bool first = true;
	for (int i = 0; i < p->nargs; i++) {
		const struct snode *m = &g->n[p->args[i]];
		if ((m->ival > 0) != (sign > 0))
			continue;
		struct snode t = *m;
		t.ival = sign > 0 ? m->ival : -m->ival;
		mono(g, &t, first, depth, o);
		first = false;
	}
	if (first)
		sb_addc(o, '0');
}

static void render(const struct sgraph *g, sid x, int depth, bool top, struct sbuf *o)
{
	if (!x) {
		sb_adds(o, "none");
		return;
	}
	const struct snode *n = &g->n[x];
	if ((!top || !n->nargs) && n->var && n->op != S_INT && n->op != S_FLOAT) {
		sb_adds(o, n->var);
		return;
	}
	if (depth <= 0) {
		sb_adds(o, "...");
		return;
	}
	const char *const *pn = NULL;
	(void)pn;
	switch (n->op) {
	case S_INT:
		sb_add_int(o, n->ival);
		break;
	case S_FLOAT:
		if (isinf(n->fval))
			sb_adds(o, n->fval < 0 ? "-inf" : "inf");
		else
			sb_printf(o, "%.9g", n->fval);
		break;
	case S_BOOL:
		sb_adds(o, n->ival ? "true" : "false");
		break;
	case S_UNDEF:
		sb_adds(o, "undefined");
		break;
	case S_PARAM:
		sb_adds(o, n->name ? n->name : "?");
		break;
	case S_SHAPE:
	case S_STRIDE:
		render(g, n->args[0], depth, false, o);
		sb_printf(o, ".%s[%" PRId64 "]", n->op == S_SHAPE ? "shape" : "stride", n->ival);
		break;
	case S_BID:
		sb_printf(o, "bid(%" PRId64 ")", n->ival);
		break;
	case S_NBLOCKS:
		sb_printf(o, "num_blocks(%" PRId64 ")", n->ival);
		break;
	case S_IV: {
		const struct sloop *l = n->ival >= 0 && (size_t)n->ival < g->nloops ? &g->loops[n->ival] : NULL;
		sb_adds(o, l && l->iv_name ? l->iv_name : "i");
		break;
	}
	case S_CARRY:
	case S_LOOPRES: {
		const struct sloop *l = n->ival >= 0 && (size_t)n->ival < g->nloops ? &g->loops[n->ival] : NULL;
		const char *s = l && n->attr >= 0 && (size_t)n->attr < l->nslots ? l->slot_name[n->attr] : NULL;
		sb_adds(o, s ? s : "carried");
		break;
	}
	case S_IOTA:
		sb_adds(o, "arange(");
		render(g, n->dims[0], 2, false, o);
		sb_addc(o, ')');
		break;
	case S_POLY:
		for (int i = 0; i < n->nargs; i++)
			mono(g, &g->n[n->args[i]], i == 0, depth, o);
		break;
	case S_MONO:
		mono(g, n, true, depth, o);
		break;
	case S_FLOORDIV:
	case S_MOD:
		sb_addc(o, '(');
		render(g, n->args[0], depth - 1, false, o);
		sb_adds(o, n->op == S_FLOORDIV ? ") // " : ") % ");
		render(g, n->args[1], depth - 1, false, o);
		break;
	case S_IMIN:
	case S_IMAX:
	case S_FMIN:
	case S_FMAX:
		sb_adds(o, n->op == S_IMIN || n->op == S_FMIN ? "min(" : "max(");
		args(g, n, 0, depth, ", ", o);
		sb_addc(o, ')');
		break;
	case S_ICMP: {
		const struct snode *p = &g->n[n->args[0]];
		if (p->op == S_POLY) {
			poly_side(g, p, 1, depth, o);
			sb_adds(o, n->attr == IC_LT0 ? " < " : n->attr == IC_EQ0 ? " == " : " != ");
			poly_side(g, p, -1, depth, o);
		} else {
			render(g, n->args[0], depth - 1, false, o);
			sb_adds(o, n->attr == IC_LT0 ? " < 0" : n->attr == IC_EQ0 ? " == 0" : " != 0");
		}
		break;
	}
	case S_IBIT:
		if (n->nargs == 1) {
			sb_addc(o, '~');
			render(g, n->args[0], depth - 1, false, o);
		} else {
			const char *op = n->attr == '<' ? " << " : n->attr == '>' ? " >> "
				       : n->attr == '&' ? " & " : n->attr == '|' ? " | " : " ^ ";
			args(g, n, 0, depth, op, o);
		}
		break;
	case S_AND:
	case S_OR:
	case S_XOR:
		sb_addc(o, '(');
		args(g, n, 0, depth, n->op == S_AND ? ") & (" : n->op == S_OR ? ") | (" : ") ^ (", o);
		sb_addc(o, ')');
		break;
	case S_NOT:
		sb_adds(o, "!");
		render(g, n->args[0], depth - 1, false, o);
		break;
	case S_FADD:
		args(g, n, 0, depth, " + ", o);
		break;
	case S_FMUL:
		sb_addc(o, '(');
		args(g, n, 0, depth, ") * (", o);
		sb_addc(o, ')');
		break;
	case S_FNEG:
		sb_adds(o, "-(");
		render(g, n->args[0], depth - 1, false, o);
		sb_addc(o, ')');
		break;
	case S_FDIV:
		sb_addc(o, '(');
		args(g, n, 0, depth, ") / (", o);
		sb_addc(o, ')');
		break;
	case S_FCMP: {
		static const char *const ops[] = {" < ", " <= ", " == ", " != ", " ord ", " uno "};
		render(g, n->args[0], depth - 1, false, o);
		sb_adds(o, ops[n->attr >= 0 && n->attr < 6 ? n->attr : 0]);
		render(g, n->args[1], depth - 1, false, o);
		break;
	}
	case S_MATH:
		sb_printf(o, "%s(", math_name(n->attr));
		render(g, n->args[0], depth - 1, false, o);
		sb_addc(o, ')');
		break;
	case S_SIGMOID:
		sb_adds(o, "sigmoid(");
		render(g, n->args[0], depth - 1, false, o);
		sb_addc(o, ')');
		break;
	case S_SELECT:
		sb_adds(o, "where(");
		args(g, n, 0, depth, ", ", o);
		sb_addc(o, ')');
		break;
	case S_CONVERT:
		sb_printf(o, "%s(", sdt_name(n->dt));
		render(g, n->args[0], depth - 1, false, o);
		sb_addc(o, ')');
		break;
	case S_RESHAPE:
	case S_BROADCAST:
		sb_adds(o, n->op == S_RESHAPE ? "reshape(" : "broadcast(");
		render(g, n->args[0], depth - 1, false, o);
		sb_adds(o, ", ");
		dims(g, n->dims, n->rank, o);
		sb_addc(o, ')');
		break;
	case S_PERMUTE:
		sb_adds(o, "permute(");
		render(g, n->args[0], depth - 1, false, o);
		sb_adds(o, ", (");
		for (int i = 0; i < n->rank; i++)
			sb_printf(o, "%s%d", i ? ", " : "", (int)((n->ival >> (4 * i)) & 15));
		sb_adds(o, "))");
		break;
	case S_REDUCE:
		sb_printf(o, "%s(", reduce_name(n->attr));
		render(g, n->args[0], depth - 1, false, o);
		sb_printf(o, ", axis=%" PRId64 ")", n->ival);
		break;
	case S_MMA:
		sb_adds(o, "mma(");
		args(g, n, 0, depth, ", ", o);
		sb_addc(o, ')');
		break;
	case S_LOAD:
		render(g, n->args[0], depth, false, o);
		sb_addc(o, '[');
		args(g, n, 1, depth, ", ", o);
		sb_addc(o, ']');
		break;
	case S_GATHER:
		render(g, n->args[0], depth, false, o);
		sb_addc(o, '[');
		render(g, n->args[1], depth - 1, false, o);
		sb_addc(o, ']');
		break;
	case S_OPAQUE:
		sb_printf(o, "%s(", n->name ? n->name : "?");
		args(g, n, 0, depth, ", ", o);
		sb_addc(o, ')');
		break;
	default:
		sb_adds(o, sem_op_name(n->op));
	}
}

void sg_render(const struct sgraph *g, sid x, int depth, struct sbuf *out)
{
	render(g, x, depth, true, out);
}

char *sg_render_str(const struct sgraph *g, sid x, int depth)
{
	struct sbuf sb = SBUF_INIT;
	render(g, x, depth, true, &sb);
	return sb_detach(&sb);
}

/* The whole graph, a node a line, for debugging the readers
 * (TILEPORT_SEM_DUMP=1). */
void sg_dump(const struct sgraph *g, FILE *out)
{
	fprintf(out, "--- graph of the %s\n", g->side ? "Rust" : "source");
	for (sid i = 1; i < g->nn; i++) {
		const struct snode *n = &g->n[i];
		fprintf(out, "%4u %-10s dt=%-4s r=%d a=%d iv=%lld fl=%d L%d", i, sem_op_name(n->op), sdt_name(n->dt),
			n->rank, n->attr, (long long)n->ival, n->flags, n->line);
		for (int k = 0; k < n->nargs; k++)
			fprintf(out, " %u", n->args[k]);
		if (n->rank) {
			fprintf(out, " [");
			for (int k = 0; k < n->rank; k++)
				fprintf(out, "%s%u", k ? " " : "", n->dims[k]);
			fprintf(out, "]");
		}
		if (n->name)
			fprintf(out, " %s", n->name);
		if (n->var)
			fprintf(out, " (%s)", n->var);
		fprintf(out, "\n");
	}
	for (size_t l = 0; l < g->nloops; l++) {
		const struct sloop *lp = &g->loops[l];
		fprintf(out, "loop %zu: lo %u hi %u step %u parent %d L%d:", l, lp->lo, lp->hi, lp->step, lp->parent,
			lp->line);
		for (size_t k = 0; k < lp->nslots; k++)
			fprintf(out, " [%s %u -> %u]", lp->slot_name[k], lp->init[k], lp->update ? lp->update[k] : 0);
		fprintf(out, "\n");
	}
	for (size_t e = 0; e < g->neff; e++) {
		const struct seffect *f = &g->eff[e];
		fprintf(out, "effect %zu: %s arr %u value %u mask %u offset %u loop %d L%d idx", e,
			f->kind == SE_STORE ? "store" : "scatter", f->array, f->value, f->mask, f->offset, f->loop, f->line);
		for (size_t k = 0; k < f->nidx; k++)
			fprintf(out, " %u", f->idx[k]);
		fprintf(out, "\n");
	}
}
