/* Writing a pointer array's tensor view (lower_view.c) and the partitions
 * of it: the view as cutile's entry builds one for a contiguous &Tensor
 * (kernel_entry_generator.rs: dynamic extents and strides assumed
 * non-negative, the last stride a static 1, a fresh unordered token), in
 * rustfmt's layout. */
#include "engine/port/port_impl.h"
#include "engine/port/rsfmt.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static void put(struct sbuf *out, int indent, const char *fmt, ...) TP_PRINTF(3, 4);
static void put(struct sbuf *out, int indent, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	rsfmt_line(out, indent, s);
	free(s);
}

static const char *name_of(const struct tval *v)
{
	return v->var ? v->var->name : v->rs ? v->rs : "?";
}

/* `let NAME: T<{ [C] }> = T::<{ [C] }> { dims: &[ITEMS] };` as rustfmt lays
 * it out: a struct literal's fields stay on its line up to 18 columns, an
 * array too long for its line takes one item a line. */
static void struct_let(struct sbuf *out, int indent, const char *name, const char *type,
		       const char *consts, const char *items)
{
	struct sbuf head = SBUF_INIT;
	sb_printf(&head, "let %s: %s<{ [%s] }> = %s::<{ [%s] }> {", name, type, consts, type, consts);
	if (strlen(items) + 9 <= 18) {
		put(out, indent, "%s dims: &[%s] };", head.buf, items);
		sb_free(&head);
		return;
	}
	put(out, indent, "%s", head.buf);
	if ((size_t)(indent + 1) * 4 + strlen(items) + 10 <= RSFMT_WIDTH) {
		put(out, indent + 1, "dims: &[%s],", items);
	} else {
		put(out, indent + 1, "dims: &[");
		for (const char *p = items; *p;) {
			size_t n = strcspn(p, ",");
			put(out, indent + 2, "%.*s,", (int)n, p);
			p += n;
			p += strspn(p, ", ");
		}
		put(out, indent + 1, "],");
	}
	put(out, indent, "};");
	sb_free(&head);
}

void emit_tensor_view(struct sbuf *out, int indent, const struct tkernel *k, const struct top *op)
{
	const char *ptr = k->params[op->param].rs, *et = tdt_rust(k->params[op->param].dt);
	int rank = op->shape.rank;
	struct sbuf ext = SBUF_INIT, str = SBUF_INIT, dims = SBUF_INIT, strides = SBUF_INIT;
	for (int i = 0; i < rank; i++) {
		sb_adds(&ext, i ? ", -1" : "-1");
		sb_adds(&str, i + 1 < rank ? "-1, " : "1");
		sb_printf(&dims, "%s%s", i ? ", " : "", name_of(op->idx[i]));
		if (i + 1 < rank)
			sb_printf(&strides, "%s%s", i ? ", " : "", name_of(op->idx[rank + i]));
	}
	put(out, indent,
	    "// `%s` is addressed through pointers and tile views: the views are of its pointer",
	    ptr);
	/* cutile's entry and cuTile Python both tell the compiler an extent
	 * or stride is never negative */
	for (size_t i = 0; i < op->nidx; i++)
		put(out, indent, "let %s: i32 = unsafe { assume_bounds_lower::<_, 0>(%s) };",
		    name_of(op->idx[i]), name_of(op->idx[i]));
	put(out, indent, "let %s: PointerTile<*mut %s, { [] }> = pointer_to_tile(%s);", op->v2, et, ptr);
	struct_let(out, indent, op->lo, "Shape", ext.buf, dims.buf);
	struct_let(out, indent, op->hi, "Array", str.buf, sb_str(&strides));
	put(out, indent,
	    "let %s: Tensor<%s, { [%s] }> = unsafe { make_tensor_view(%s, %s, %s, "
	    "new_token_unordered()) };",
	    op->v1, et, ext.buf, op->v2, op->lo, op->hi);
	sb_free(&ext);
	sb_free(&str);
	sb_free(&dims);
	sb_free(&strides);
}

bool emit_view_partition(struct sbuf *out, int indent, const struct top *op)
{
	struct sbuf sh = SBUF_INIT;
	tshape_list(&op->shape, &sh);
	bool identity = op->order[0] < 0;
	if (!identity) {
		identity = true;
		for (int i = 0; i < op->shape.rank; i++)
			identity &= op->order[i] == i;
	}
	bool mut = false;
	if (op->padding == PAD_ZERO && identity) {
		put(out, indent, "let %s = %s.partition(const_shape![%s]);", op->v1, op->view, sh.buf);
	} else if (op->padding == PAD_ZERO) {
		struct sbuf dm = SBUF_INIT;
		for (int i = 0; i < op->shape.rank; i++)
			sb_printf(&dm, "%s%d", i ? ", " : "", op->order[i]);
		put(out, indent, "let %s = %s.partition_permuted(const_shape![%s], const_array![%s]);",
		    op->v1, op->view, sh.buf, dm.buf);
		sb_free(&dm);
	} else {
		put(out, indent, "let %s = unsafe { %s.partition_full_mut(const_shape![%s]) };", op->v1,
		    op->view, sh.buf);
		mut = true;
	}
	sb_free(&sh);
	return mut;
}
