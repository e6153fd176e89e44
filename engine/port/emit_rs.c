/* Writing the lowered kernel as cuTile Rust (kernel.rs): one
 * #[cutile::module] with an entry per structural variant, the API forms of
 * ../shared/reference/tile-ir.md §4 and pipeline.md §10, every tile in its
 * own typed `let` (coding rule 1). The safe API is used where it
 * reproduces the reference IR (a zero-padded view load is `partition` +
 * `load`); the low-level view ops where only they carry the padding, the
 * dim_map, a latency or a TMA hint. */
#include "engine/port/port_impl.h"
#include "engine/port/rsfmt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct out {
	struct sbuf sb;
	int indent;
	const struct tkernel *k;
	const struct tblock *entry_body; /* the entry being written */
	bool told_outputs, told_tf32;
};

static void line(struct out *o, const char *fmt, ...) TP_PRINTF(2, 3);
static void line(struct out *o, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	rsfmt_line(&o->sb, o->indent, s);
	free(s);
}

static const char *shape_list(const struct tshape *s, struct sbuf *tmp)
{
	sb_reset(tmp);
	tshape_list(s, tmp);
	return sb_str(tmp);
}

/* The Rust type of a value: Tile<E, {[1, N]}>, PointerTile<*mut E, ..>, i32. */
static void type_of(const struct tval *v, struct sbuf *out)
{
	switch (v->kind) {
	case TV_TILE:
		if (v->ptr_tile)
			sb_printf(out, "PointerTile<*mut %s, ", tdt_rust(v->dt));
		else
			sb_printf(out, "Tile<%s, ", tdt_rust(v->dt));
		tshape_type(&v->shape, out);
		sb_addc(out, '>');
		return;
	case TV_FLOAT:
	case TV_CFLOAT:
		sb_adds(out, "f32");
		return;
	case TV_BOOL:
	case TV_CBOOL:
		sb_adds(out, "bool");
		return;
	default:
		sb_adds(out, "i32");
		return;
	}
}

static const char *val(const struct tval *v)
{
	return v->var ? v->var->name : v->rs ? v->rs : "?";
}

/* `let x: T = ` or `x = ` for an op's result. */
static void lhs(const struct top *op, struct sbuf *out)
{
	const struct tval *r = op->res;
	if (op->assign) {
		sb_printf(out, "%s = ", r->var ? r->var->name : r->rs);
		return;
	}
	sb_printf(out, "let %s%s: ", r->var && r->var->mut ? "mut " : "", val(r));
	type_of(r, out);
	sb_adds(out, " = ");
}

/* An index: a literal gets its type (cuTile cannot infer a bare `0`). */
static const char *index_list(const struct top *op, struct sbuf *tmp)
{
	sb_reset(tmp);
	sb_addc(tmp, '[');
	for (size_t i = 0; i < op->nidx; i++) {
		const char *v = val(op->idx[i]);
		bool lit = *v && strspn(v, "0123456789") == strlen(v);
		sb_printf(tmp, "%s%s%s", i ? ", " : "", v, lit ? "i32" : "");
	}
	sb_addc(tmp, ']');
	return sb_str(tmp);
}

static const char *latency_rs(int latency, struct sbuf *tmp)
{
	sb_reset(tmp);
	if (latency < 0)
		sb_adds(tmp, "None");
	else
		sb_printf(tmp, "Some(%d)", latency);
	return sb_str(tmp);
}

static bool is_operator(const char *fn)
{
	return strcmp(fn, "+") == 0 || strcmp(fn, "-") == 0 || strcmp(fn, "*") == 0 ||
	       strcmp(fn, "/") == 0 || strcmp(fn, "%") == 0;
}

static bool identity_order(const int *order, int rank)
{
	if (order[0] < 0)
		return true;
	for (int i = 0; i < rank; i++)
		if (order[i] != i)
			return false;
	return true;
}

static void dim_map(const int *order, int rank, struct sbuf *out)
{
	if (identity_order(order, rank)) {
		sb_adds(out, "dim_map::Identity");
		return;
	}
	sb_adds(out, "const_array![");
	for (int i = 0; i < rank; i++)
		sb_printf(out, "%s%d", i ? ", " : "", order[i]);
	sb_addc(out, ']');
}

static void block(struct out *o, const struct tblock *b);
static void op_line(struct out *o, const struct top *op);

/* "(a + b)" -> "a + b": a let needs no outer parentheses (rustc warns). */
static const char *strip_parens(const char *s, struct sbuf *tmp)
{
	size_t n = strlen(s);
	if (n < 2 || s[0] != '(' || s[n - 1] != ')')
		return s;
	int d = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		d += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
		if (d == 0)
			return s; /* the first group closes before the end */
	}
	sb_reset(tmp);
	sb_add(tmp, s + 1, n - 2);
	return sb_str(tmp);
}

/* The last op of a branch when it gives the declared variable d its value
 * (`d = v;`), else NULL. */
static const struct top *tail_assign(const struct tblock *b, const struct tval *d)
{
	if (!b || !b->n)
		return NULL;
	const struct top *last = b->ops[b->n - 1];
	return last->kind == TOP_LET && last->assign && strcmp(val(last->res), val(d)) == 0 ? last
													   : NULL;
}

static void block_upto(struct out *o, const struct tblock *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		op_line(o, b->ops[i]);
}

/* Does an op of b (or of a block inside it) combine v with another tile,
 * where cuTile compares the two types? */
static bool combined(const struct tblock *b, const struct tval *v)
{
	for (size_t i = 0; b && i < b->n; i++) {
		const struct top *op = b->ops[i];
		if (op->kind == TOP_BINARY || op->kind == TOP_SELECT || op->kind == TOP_MMA)
			for (int k = 0; k < op->na; k++)
				if (op->a[k] == v)
					return true;
		if (combined(op->body, v) || combined(op->orelse, v))
			return true;
	}
	return false;
}

/* A reduction whose result has a const-generic dimension and meets
 * another tile in a binary op, a select or an mma. */
static bool reduce_needs_reshape(const struct out *o, const struct top *op)
{
	bool sym = false;
	for (int i = 0; i < op->res->shape.rank; i++)
		sym |= op->res->shape.d[i].sym != NULL;
	return sym && combined(o->entry_body, op->res);
}

/* `let mut d: T = <zero>;` for a variable both arms of an `if` set: cuTile
 * wants every let initialised (its compiler rejects `let d: T;`), and the
 * if then carries d as a mutated variable. */
static void zero_decl(struct out *o, const struct tval *d)
{
	struct sbuf t = SBUF_INIT, sh = SBUF_INIT;
	type_of(d, &t);
	if (d->kind != TV_TILE || d->ptr_tile) {
		const char *z = d->kind == TV_FLOAT || d->kind == TV_CFLOAT  ? "0.0f32"
				: d->kind == TV_BOOL || d->kind == TV_CBOOL ? "false"
									   : "0i32";
		line(o, "let mut %s: %s = %s;", val(d), sb_str(&t), z);
	} else {
		tshape_list(&d->shape, &sh);
		if (d->dt == DT_F32 || d->dt == DT_I32) {
			line(o, "let mut %s: %s = constant(%s, const_shape![%s]);", val(d), sb_str(&t),
			     d->dt == DT_F32 ? "0.0f32" : "0i32", sb_str(&sh));
		} else {
			struct sbuf zt = SBUF_INIT;
			sb_adds(&zt, "Tile<f32, ");
			tshape_type(&d->shape, &zt);
			sb_addc(&zt, '>');
			line(o, "let %s_zero: %s = constant(0.0f32, const_shape![%s]);", val(d), sb_str(&zt),
			     sb_str(&sh));
			line(o, "let mut %s: %s = convert_tile(%s_zero);", val(d), sb_str(&t), val(d));
			sb_free(&zt);
		}
	}
	sb_free(&t);
	sb_free(&sh);
}

/* An `if`. One value set by both arms as their last step is the if's own
 * value (`let d: T = if c { ..; v } else { ..; w };`, the form cuTile
 * lowers to an if op with one result); other merges carry mutable
 * variables. */
static void if_op(struct out *o, const struct top *op)
{
	struct sbuf c = SBUF_INIT, t = SBUF_INIT;
	const char *cond = strip_parens(op->text, &c);
	const struct top *ta = op->ndecls == 1 ? tail_assign(op->body, op->decls[0]) : NULL;
	const struct top *ea = op->ndecls == 1 ? tail_assign(op->orelse, op->decls[0]) : NULL;
	if (ta && ea) {
		type_of(op->decls[0], &t);
		/* a loop after the if may carry it */
		bool mut = op->decls[0]->var && op->decls[0]->var->mut;
		line(o, "let %s%s: %s = if %s {", mut ? "mut " : "", val(op->decls[0]), sb_str(&t),
		     cond);
		o->indent++;
		block_upto(o, op->body, op->body->n - 1);
		line(o, "%s", val(ta->a[0]));
		o->indent--;
		line(o, "} else {");
		o->indent++;
		block_upto(o, op->orelse, op->orelse->n - 1);
		line(o, "%s", val(ea->a[0]));
		o->indent--;
		line(o, "};");
	} else {
		for (size_t i = 0; i < op->ndecls; i++)
			zero_decl(o, op->decls[i]);
		line(o, "if %s {", cond);
		o->indent++;
		block(o, op->body);
		o->indent--;
		if (op->orelse && op->orelse->n) {
			line(o, "} else {");
			o->indent++;
			block(o, op->orelse);
			o->indent--;
		}
		line(o, "}");
	}
	sb_free(&c);
	sb_free(&t);
}

/* The partition a view load with a padding, order, latency or TMA hint
 * reads; true when it is a PartitionMut (a pointer array's tensor view:
 * emit_view.c). */
static bool load_partition(struct out *o, const struct top *op, const char *arr)
{
	if (op->view)
		return emit_view_partition(&o->sb, o->indent, op);
	struct sbuf sh = SBUF_INIT, dm = SBUF_INIT;
	shape_list(&op->shape, &sh);
	dim_map(op->order, op->shape.rank, &dm);
	line(o, "let %s = make_partition_view(%s, const_shape![%s], %s, %s, get_tensor_token(%s));",
	     op->v1, arr, sh.buf, tpad_rust(op->padding), dm.buf, arr);
	sb_free(&sh);
	sb_free(&dm);
	return false;
}

static void op_line(struct out *o, const struct top *op)
{
	const struct tkernel *k = o->k;
	struct sbuf l = SBUF_INIT, t1 = SBUF_INIT, t2 = SBUF_INIT;
	const char *arr = op->param >= 0 ? k->params[op->param].rs : NULL;
	/* a pointer array's view accesses go through the entry's tensor view */
	if (op->view)
		arr = op->view;
	switch (op->kind) {
	case TOP_LET:
		lhs(op, &l);
		sb_printf(&l, "%s;", val(op->a[0]));
		break;
	case TOP_BID:
	case TOP_NUM_BLOCKS:
		lhs(op, &l);
		sb_printf(&l, "%s().%d;", op->kind == TOP_BID ? "get_tile_block_id" : "get_num_tile_blocks",
			  op->axis);
		break;
	case TOP_NUM_TILES:
		if (op->view)
			line(o, "let %s = %s.partition(const_shape![%s]);", op->v1, arr,
			     shape_list(&op->shape, &t1));
		else
			line(o, "let %s = make_partition_view(%s, const_shape![%s], padding::None, "
				"dim_map::Identity, get_tensor_token(%s));",
			     op->v1, arr, shape_list(&op->shape, &t1), arr);
		lhs(op, &l);
		sb_printf(&l, "get_index_space_shape(&%s)[%d];", op->v1, op->axis);
		break;
	case TOP_SCALAR:
		lhs(op, &l);
		if (op->fn && strcmp(op->fn, "if") == 0) {
			/* rustfmt keeps an if-else on one line up to 50 columns */
			char *e = xasprintf("if %s { %s } else { %s }", op->text, op->lo, op->hi);
			if (strlen(e) <= 50 && (size_t)o->indent * 4 + l.len + strlen(e) + 1 <= 100) {
				sb_printf(&l, "%s;", e);
			} else {
				sb_printf(&l, "if %s {", op->text);
				line(o, "%s", sb_str(&l));
				line(o, "    %s", op->lo);
				line(o, "} else {");
				line(o, "    %s", op->hi);
				sb_reset(&l);
				sb_adds(&l, "};");
			}
			free(e);
			break;
		}
		sb_printf(&l, "%s;", strip_parens(op->text, &t1));
		break;
	case TOP_LOAD: {
		const struct tval *r = op->res;
		bool safe = op->padding == PAD_ZERO && identity_order(op->order, op->shape.rank) &&
			    op->latency < 0 && !op->no_tma;
		if (safe) {
			line(o, "let %s = %s.partition(const_shape![%s]);", op->v1, arr,
			     shape_list(&op->shape, &t1));
			sb_printf(&l, "let %s: ", val(r));
			type_of(r, &l);
			sb_printf(&l, " = %s.load(%s);", op->v1, index_list(op, &t2));
			break;
		}
		bool mut = load_partition(o, op, arr);
		/* in cutile 0.2.0 load_view_tko returns the tile alone */
		sb_printf(&l, "let %s: ", val(r));
		type_of(r, &l);
		sb_printf(&l, " = %sload_view_tko%s(&%s, %s, ordering::Weak, scope::TileBlock, ",
			  mut ? "unsafe { " : "", mut ? "_mut" : "", op->v1, index_list(op, &t2));
		sb_printf(&l, "%s, %s)%s;", latency_rs(op->latency, &t1),
			  op->no_tma ? "tma::Disabled" : "tma::Enabled", mut ? " }" : "");
		break;
	}
	case TOP_STORE:
		if (!o->told_outputs) {
			line(o, "// R43: outputs are read-only &Tensor params written through "
				"partition_full_mut");
			o->told_outputs = true;
		}
		line(o, "let mut %s = unsafe { %s.partition_full_mut(const_shape![%s]) };", op->v1, arr,
		     shape_list(&op->shape, &t1));
		sb_printf(&l,
			  "let _%s: Token = unsafe { store_view_tko_mut(&mut %s, %s, %s, ordering::Weak, "
			  "scope::TileBlock, %s, %s) };",
			  op->v2, op->v1, val(op->a[0]), index_list(op, &t2),
			  latency_rs(op->latency, &t1), op->no_tma ? "tma::Disabled" : "tma::Enabled");
		break;
	case TOP_TENSOR_VIEW:
		emit_tensor_view(&o->sb, o->indent, k, op);
		goto done;
	case TOP_PTR_BASE:
		lhs(op, &l);
		sb_printf(&l, "pointer_to_tile(%s);", arr);
		break;
	case TOP_PTR_OFFSET:
		lhs(op, &l);
		sb_printf(&l, "%s.offset_tile(%s);", val(op->a[0]), val(op->a[1]));
		break;
	case TOP_GATHER: {
		const struct tval *r = op->res;
		if (op->text && op->fn)
			line(o, "let %s: %s = %s(%s);", op->v1, tdt_rust(r->dt), op->fn, op->text);
		sb_printf(&l, "let (%s, _%s): (", val(r), op->v2);
		type_of(r, &l);
		sb_printf(&l, ", Token) = load_ptr_tko(%s, ordering::Weak, None::<scope::TileBlock>, ",
			  val(op->a[0]));
		if (op->a[1])
			sb_printf(&l, "Some(%s), ", val(op->a[1]));
		else /* cutile's macro cannot take a turbofish naming a const generic */
			sb_adds(&l, "None, ");
		if (op->text)
			sb_printf(&l, "Some(%s), ", op->fn ? op->v1 : op->text);
		else
			sb_printf(&l, "None::<%s>, ", tdt_rust(r->dt));
		sb_printf(&l, "None, Latency::<%d>);", op->latency < 0 ? 0 : op->latency);
		break;
	}
	case TOP_SCATTER:
		sb_printf(&l, "let _%s: Token = store_ptr_tko(%s, %s, ordering::Weak, None::<scope::TileBlock>, ",
			  op->v2, val(op->a[0]), val(op->a[1]));
		if (op->a[2])
			sb_printf(&l, "Some(%s), ", val(op->a[2]));
		else
			sb_adds(&l, "None, ");
		sb_printf(&l, "None, Latency::<%d>);", op->latency < 0 ? 0 : op->latency);
		break;
	case TOP_CONVERT:
		if (op->res->dt == DT_TF32 && !o->told_tf32) {
			line(o, "// R8: f32 GEMM inputs go through tf32 as the reference casts them");
			o->told_tf32 = true;
		}
		lhs(op, &l);
		sb_printf(&l, "convert_tile(%s);", val(op->a[0]));
		break;
	case TOP_BINARY:
		lhs(op, &l);
		if (is_operator(op->fn))
			sb_printf(&l, "%s %s %s;", val(op->a[0]), op->fn, val(op->a[1]));
		else
			sb_printf(&l, "%s(%s, %s%s%s);", op->fn, val(op->a[0]), val(op->a[1]),
				  op->modes ? ", " : "", op->modes ? op->modes : "");
		break;
	case TOP_UNARY:
		if (op->note && strcmp(op->note, "exp") == 0)
			line(o, "// exp(x) = exp2(x * log2(e)), as cuTile lowers it");
		lhs(op, &l);
		sb_printf(&l, "%s(%s%s%s);", op->fn, val(op->a[0]), op->modes ? ", " : "",
			  op->modes ? op->modes : "");
		break;
	case TOP_SELECT:
		lhs(op, &l);
		sb_printf(&l, "select(%s, %s, %s);", val(op->a[0]), val(op->a[1]), val(op->a[2]));
		break;
	case TOP_REDUCE:
		if (reduce_needs_reshape(o, op)) {
			/* cutile 0.2.0 types a reduction's result with the numbers of
			 * the specialisation ({[64]}) while the const generic's tiles
			 * keep its name ({[BLOCK_M]}), and a binary op refuses the
			 * pair; a reshape to the same shape gives the name back */
			struct sbuf ty = SBUF_INIT;
			type_of(op->res, &ty);
			line(o, "let %s_red: %s = %s(%s, %di32);", val(op->res), sb_str(&ty), op->fn,
			     val(op->a[0]), op->axis);
			sb_free(&ty);
			lhs(op, &l);
			sb_printf(&l, "%s_red.reshape(const_shape![%s]);", val(op->res),
				  shape_list(&op->res->shape, &t1));
			break;
		}
		lhs(op, &l);
		sb_printf(&l, "%s(%s, %di32);", op->fn, val(op->a[0]), op->axis);
		break;
	case TOP_MMA:
		lhs(op, &l);
		sb_printf(&l, "%s(%s, %s, %s);", op->fn, val(op->a[0]), val(op->a[1]), val(op->a[2]));
		break;
	case TOP_IOTA:
		lhs(op, &l);
		sb_printf(&l, "iota(const_shape![%s]);", shape_list(&op->shape, &t1));
		break;
	case TOP_CONSTANT:
		if (strstr(op->text, "340282346638528859811704183484516925440"))
			line(o, "// R2: an infinity is written as the largest finite f32");
		lhs(op, &l);
		sb_printf(&l, "constant(%s, const_shape![%s]);", op->text, shape_list(&op->shape, &t1));
		break;
	case TOP_SPLAT:
		lhs(op, &l);
		sb_printf(&l, "broadcast_scalar(%s, const_shape![%s]);", strip_parens(op->text, &t2),
			  shape_list(&op->shape, &t1));
		break;
	case TOP_TO_TILE:
		lhs(op, &l);
		sb_printf(&l, "scalar_to_tile(%s);", strip_parens(op->text, &t2));
		break;
	case TOP_RESHAPE:
	case TOP_BROADCAST:
		lhs(op, &l);
		sb_printf(&l, "%s.%s(const_shape![%s]);", val(op->a[0]),
			  op->kind == TOP_RESHAPE ? "reshape" : "broadcast", shape_list(&op->shape, &t1));
		break;
	case TOP_PERMUTE:
		lhs(op, &l);
		sb_printf(&l, "permute(%s, const_array![", val(op->a[0]));
		for (int i = 0; i < op->res->shape.rank; i++)
			sb_printf(&l, "%s%d", i ? ", " : "", op->order[i]);
		sb_adds(&l, "]);");
		break;
	case TOP_ASSUME:
		if (op->na) { /* an element pointer tile */
			lhs(op, &l);
			sb_printf(&l, "unsafe { assume_div_by::<_, %d>(%s) };", op->axis, val(op->a[0]));
			break;
		}
		sb_printf(&l, "let %s: *mut %s = unsafe { assume_div_by::<_, %d>(%s) };", arr,
			  tdt_rust(k->params[op->param].dt), op->axis, arr);
		break;
	case TOP_COMMENT:
		sb_printf(&l, "// %s", op->text);
		break;
	case TOP_FOR: {
		bool lit = op->lo[0] >= '0' && op->lo[0] <= '9';
		const char *lo = lit ? (sb_printf(&t1, "%si32", op->lo), sb_str(&t1)) : op->lo;
		if (op->step)
			line(o, "for %s in (%s..%s).step_by(%s as usize) {", op->text, lo, op->hi, op->step);
		else
			line(o, "for %s in %s..%s {", op->text, lo, op->hi);
		o->indent++;
		block(o, op->body);
		o->indent--;
		line(o, "}");
		goto done;
	}
	case TOP_IF:
		if_op(o, op);
		goto done;
	}
	line(o, "%s", sb_str(&l));
done:
	sb_free(&l);
	sb_free(&t1);
	sb_free(&t2);
}

static void block(struct out *o, const struct tblock *b)
{
	for (size_t i = 0; i < b->n; i++)
		op_line(o, b->ops[i]);
}

/* The architectures a hint without a target (`@ct.kernel(occupancy=4)`)
 * stands for: cutile 0.2.0 takes entry hints per target only ("sm_NN =
 * (...)"), so "every target" is written out. */
static const char *const hint_archs[] = {"sm_80", "sm_86", "sm_87", "sm_89", "sm_90",
					 "sm_100", "sm_103", "sm_110", "sm_120", "sm_121"};

static bool has_target(const struct tkernel *k, const char *t)
{
	for (size_t j = 0; j < k->nhints; j++)
		if (strcmp(k->hints[j].target, t) == 0)
			return true;
	return false;
}

/* One target's hints: its own, else the untargeted ones. */
static void target_hints(struct sbuf *s, const struct tkernel *k, const char *t)
{
	const char *from = has_target(k, t) ? t : "default";
	sb_printf(s, "%s = (", t);
	for (size_t j = 0; j < k->nhints; j++)
		if (strcmp(k->hints[j].target, from) == 0)
			sb_printf(s, "%s = %lld, ", k->hints[j].key, k->hints[j].value);
	s->len -= 1; /* the trailing space: `x = 1,)` */
	s->buf[s->len] = '\0';
	sb_adds(s, "), ");
}

/* The entry attribute. cuTile Python checks no view access (a tile past
 * the array reads its padding, writes nothing), and neither do NVIDIA's
 * ports: cutile's assert per partition access is left out
 * (unchecked_accesses), a cost on every load the reference does not pay. */
static void hints(struct out *o, const struct tkernel *k)
{
	if (!k->nhints) {
		line(o, "#[cutile::entry(unchecked_accesses = true)]");
		return;
	}
	struct sbuf s = SBUF_INIT;
	sb_adds(&s, "#[cutile::entry(unchecked_accesses = true, optimization_hints = (");
	for (size_t i = 0; i < k->nhints; i++) {
		bool first = true;
		for (size_t j = 0; j < i; j++)
			first &= strcmp(k->hints[j].target, k->hints[i].target) != 0;
		if (first && strcmp(k->hints[i].target, "default") != 0)
			target_hints(&s, k, k->hints[i].target);
	}
	if (has_target(k, "default"))
		for (size_t a = 0; a < TP_ARRAY_LEN(hint_archs); a++)
			if (!has_target(k, hint_archs[a]))
				target_hints(&s, k, hint_archs[a]);
	s.len -= 1;
	s.buf[s.len] = '\0';
	sb_adds(&s, "))]");
	line(o, "%s", sb_str(&s));
	sb_free(&s);
}

static void param_type(const struct tparam *p, int rank, struct sbuf *out)
{
	switch (p->kind) {
	case TP_ARRAY:
		if (p->ptr) {
			sb_printf(out, "*mut %s", tdt_rust(p->dt));
		} else {
			sb_printf(out, "&Tensor<%s, { [", tdt_rust(p->dt));
			for (int i = 0; i < (rank > 0 ? rank : 1); i++)
				sb_adds(out, i ? ", -1" : "-1");
			sb_adds(out, "] }>");
		}
		return;
	case TP_SCALAR:
		sb_adds(out, tdt_rust(p->dt));
		return;
	default:
		sb_adds(out, "i32");
		return;
	}
}

static void entry(struct out *o, const struct tkernel *k, const struct tentry *e)
{
	o->k = k;
	for (size_t i = 0; i < e->nderived; i++)
		line(o, "// R6: %s is %s, which the launcher computes", e->derived[i].name,
		     e->derived[i].expr);
	hints(o, k);
	struct sbuf sig = SBUF_INIT;
	sb_printf(&sig, "pub unsafe fn %s<E: ElementType", e->name);
	for (size_t i = 0; i < e->ngenerics; i++) {
		const struct tparam *p = NULL;
		for (size_t j = 0; j < k->nparams; j++)
			if (strcmp(k->params[j].rs, e->generics[i]) == 0)
				p = &k->params[j];
		sb_printf(&sig, ", const %s: %s", e->generics[i],
			  p && p->dt == DT_BOOL ? "bool" : "i32");
	}
	for (size_t i = 0; i < e->npreds; i++)
		sb_printf(&sig, ", const %s: bool", e->preds[i]);
	sb_adds(&sig, ">(");
	/* rustfmt breaks the generics 3 columns early (measured: a
	 * 97-column line stays, a 98-column one breaks) */
	if ((size_t)o->indent * 4 + sig.len + 3 <= RSFMT_WIDTH) {
		rsfmt_put(&o->sb, o->indent, sig.buf, sig.len);
	} else {
		/* rustfmt's form: one generic parameter per line */
		rsfmt_put(&o->sb, o->indent, sig.buf, (size_t)(strchr(sig.buf, '<') - sig.buf) + 1);
		const char *g = strchr(sig.buf, '<') + 1;
		size_t gl = sig.len - (size_t)(g - sig.buf) - 2;
		size_t start = 0;
		for (size_t i = 0; i <= gl; i++)
			if (i == gl || g[i] == ',') {
				size_t b = start;
				while (b < i && g[b] == ' ')
					b++;
				struct sbuf p = SBUF_INIT;
				sb_add(&p, g + b, i - b);
				sb_addc(&p, ',');
				rsfmt_put(&o->sb, o->indent + 1, p.buf, p.len);
				sb_free(&p);
				start = i + 1;
			}
		rsfmt_put(&o->sb, o->indent, ">(", 2);
	}
	o->indent++;
	size_t order[256];
	size_t np = port_params_in_order(k, order, TP_ARRAY_LEN(order));
	for (size_t j = 0; j < np; j++) {
		size_t i = order[j];
		const struct tparam *p = &k->params[i];
		if (!e->param_used[i] || p->kind == TP_CONST)
			continue;
		sb_reset(&sig);
		param_type(p, e->param_rank[i], &sig);
		line(o, "%s: %s,", p->rs, sb_str(&sig));
	}
	o->indent--;
	line(o, ") {");
	o->indent++;
	o->told_outputs = o->told_tf32 = false;
	o->entry_body = &e->body;
	block(o, &e->body);
	o->indent--;
	line(o, "}");
	sb_free(&sig);
}

char *port_emit_module(const struct port_op *op, const char *source_rel)
{
	struct out o = {.sb = SBUF_INIT};
	struct sbuf names = SBUF_INIT;
	for (size_t i = 0; i < op->nk; i++)
		sb_printf(&names, "%s`%s`", i ? (i + 1 == op->nk ? " and " : ", ") : "", op->k[i]->name);
	line(&o, "// cuTile Rust translation of %s (%s), written by tileport mech.", sb_str(&names),
	     source_rel);
	sb_free(&names);
	line(&o, "// Translate the source again rather than editing this file by hand.");
	line(&o, "#[cutile::module]");
	line(&o, "pub mod %s_module {", op->name);
	o.indent++;
	line(&o, "use cutile::core::*;");
	for (size_t k = 0; k < op->nk; k++) {
		const struct tkernel *kn = op->k[k];
		for (size_t i = 0; i < kn->nentries; i++) {
			line(&o, "%s", "");
			if (kn->nentries > 1)
				line(&o, "// variant %s of %s: %s", kn->entries[i].variant, kn->name,
				     kn->entries[i].dispatch_py);
			entry(&o, kn, &kn->entries[i]);
		}
	}
	o.indent--;
	line(&o, "}");
	/* blank lines carry no indentation */
	char *s = sb_detach(&o.sb);
	char *w = s;
	for (char *r = s; *r;) {
		char *eol = strchr(r, '\n');
		size_t n = eol ? (size_t)(eol - r) : strlen(r);
		bool blank = true;
		for (size_t i = 0; i < n; i++)
			blank &= r[i] == ' ';
		if (!blank) {
			memmove(w, r, n);
			w += n;
		}
		if (eol)
			*w++ = '\n';
		r += n + (eol ? 1 : 0);
	}
	*w = '\0';
	return s;
}

const char *port_entry_pattern(const struct tkernel *k, const struct tentry *e)
{
	bool tensor = false, ptr = false;
	for (size_t i = 0; i < k->nparams; i++) {
		if (!e->param_used[i] || k->params[i].kind != TP_ARRAY)
			continue;
		if (k->params[i].ptr)
			ptr = true;
		else
			tensor = true;
	}
	return tensor && ptr ? "mixed" : ptr ? "ptr" : "tensor";
}

size_t port_params_in_order(const struct tkernel *k, size_t *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < k->nparams && n < max; i++)
		if (k->params[i].source_index >= 0)
			out[n++] = i;
	/* then each pointer array's extents and strides, axis by axis */
	for (size_t a = 0; a < k->nparams; a++)
		for (int kind = TP_SHAPE; kind <= TP_STRIDE; kind++)
			for (int axis = 0; axis < TIR_MAX_RANK; axis++)
				for (size_t i = 0; i < k->nparams && n < max; i++)
					if ((int)k->params[i].kind == kind && k->params[i].of == (int)a &&
					    k->params[i].axis == axis)
						out[n++] = i;
	return n;
}
