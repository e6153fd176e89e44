/* Element types inferred from use: a tile where integers are needed (an
 * index, a pointer offset, a loop bound) that was read from an array the
 * host does not type says that array holds int32, and the values on the
 * way (shape-only ops, integer arithmetic) become int32 with it. */
#include "engine/port/lower.h"

#include <stdlib.h>
#include <string.h>

/* An integer promoted to E: an integer tile, or a constant the source
 * wrote as an integer literal (its f32 text exact: within 2^24). */
static bool promoted_int(const struct tval *src)
{
	if (tdt_is_int(src->dt))
		return true;
	if (src->kind != TV_TILE || !src->def || src->def->kind != TOP_CONSTANT ||
	    !src->def->int_literal)
		return false;
	double d = strtod(src->def->text, NULL);
	return d >= -16777216.0 && d <= 16777216.0;
}

static void want_int(struct lw *lw, struct tval *v, int depth)
{
	/* depth: a value's definitions form a chain of bounded length */
	if (!v || v->kind != TV_TILE || v->dt != DT_E || !v->def || depth > 64)
		return;
	/* a loaded value seen through ops that only move its elements
	 * (`.item()`, reshape, expand_dims, permute): its type is theirs */
	if ((v->def->kind == TOP_RESHAPE || v->def->kind == TOP_BROADCAST ||
	     v->def->kind == TOP_PERMUTE) && v->def->na >= 1 && !v->ptr_tile) {
		struct tval *src = v->def->a[0];
		want_int(lw, src, depth + 1);
		if (src->kind == TV_TILE && src->dt == DT_I32)
			v->dt = DT_I32;
		return;
	}
	/* `base + idx` (an int32 tile promoted to E to meet the gathered
	 * idx): int32 arithmetic once idx is */
	if (v->def->kind == TOP_BINARY && v->def->na == 2 && v->def->fn &&
	    (!strcmp(v->def->fn, "+") || !strcmp(v->def->fn, "-") || !strcmp(v->def->fn, "*"))) {
		struct tval *x[2] = {v->def->a[0], v->def->a[1]};
		bool ints = true;
		for (int i = 0; i < 2 && ints; i++) {
			struct tval *o = x[i];
			bool promoted = o->kind == TV_TILE && o->dt == DT_E && o->def &&
					o->def->kind == TOP_CONVERT && promoted_int(o->def->a[0]);
			if (!promoted)
				want_int(lw, o, depth + 1);
			ints = promoted || (o->kind == TV_TILE && o->dt == DT_I32) || lw_is_int_scalar(o);
		}
		if (!ints)
			return;
		for (int i = 0; i < 2; i++)
			if (x[i]->kind == TV_TILE && x[i]->dt == DT_E) {
				/* the promotion is a copy now, of an int32 literal where
				 * the source wrote one (`ids[b] * 2`) */
				struct tval *src = x[i]->def->a[0];
				if (src->dt != DT_I32 && src->def->kind == TOP_CONSTANT) {
					src->def->text = ta_printf(lw->a, "%lldi32",
								   (long long)strtod(src->def->text, NULL));
					src->dt = DT_I32;
				}
				x[i]->dt = DT_I32;
				x[i]->def->kind = TOP_LET;
			}
		v->dt = DT_I32;
		return;
	}
	/* a gather with a padding value is the gather selected with the
	 * padding (lw_gather): look through the select */
	struct tval *g = v;
	struct top *sel = NULL;
	if (v->def->kind == TOP_SELECT && v->def->implicit && v->def->na == 3 && v->def->a[1]->def &&
	    v->def->a[1]->def->kind == TOP_GATHER) {
		sel = v->def;
		g = sel->a[1];
	}
	if (g->dt != DT_E || (g->def->kind != TOP_LOAD && g->def->kind != TOP_GATHER))
		return;
	int param = g->def->kind == TOP_LOAD ? g->def->param : lw_pointer_param(g->def->a[0], DT_NONE);
	if (param < 0)
		return;
	struct tparam *p = &lw->k->params[param];
	if (!p->dt_default)
		return;
	/* an array of unknown type whose elements index others holds int32 */
	p->dt = DT_I32;
	g->dt = DT_I32;
	if (g->def->kind == TOP_GATHER)
		lw_pointer_param(g->def->a[0], DT_I32);
	if (sel) {
		/* the padding: a constant converted to the element type */
		struct tval *pad = sel->a[2];
		if (pad->kind == TV_TILE && pad->dt == DT_E && pad->def && pad->def->kind == TOP_CONVERT)
			pad->dt = DT_I32;
		if (pad->dt != DT_I32)
			lw_unsupported(lw, lw->stmt, "a gathered index whose padding is not an integer");
		v->dt = DT_I32;
	}
}

void lw_want_int(struct lw *lw, struct tval *v)
{
	want_int(lw, v, 0);
}
