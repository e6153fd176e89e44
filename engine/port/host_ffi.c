/* ffi.rs: the C-ABI launcher of an op (pipeline.md §4.5-§4.6), written from
 * the Rust entries and the host code's launch. One export per kernel
 * (`cutile_{op}` for the first, `cutile_{op}_{kernel}` for more): a
 * *const TensorDesc per array, the scalars and Constants as i32/f32, the
 * grid, num_cta_in_cga and occupancy (applied when > 0), device_id and
 * the raw stream. Descriptors are checked for null (NULL_PTR), the element
 * type is dispatched through a table of the dtypes the host accepts
 * (UNSUPPORTED_DTYPE otherwise), tensors are borrowed (borrow_tensor, a
 * ManuallyDrop: PyTorch keeps the memory, rule 10) or passed as device
 * pointers, structural variants are chosen by their dispatch condition,
 * and a failed launch is LAUNCH_FAILED. */
#include "engine/port/port_impl.h"
#include "engine/port/rsfmt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the host's launch ---- */

int port_launch_of(const struct port_op *op, const struct tkernel *k, struct port_launch *out,
		   struct tp_err *err)
{
	memset(out, 0, sizeof(*out));
	out->call = lw_launch_call(&op->m, k->name, &out->host);
	if (!out->host) {
		tp_err_set(err, TP_EXIT_FAILED,
			   "%s:%d:1: unsupported: no host function launches `%s` (ct.launch or "
			   "kernel[grid](...))",
			   op->path, k->line, k->name);
		return -1;
	}
	const struct py_node *c = out->call;
	if (c->kids[0]->kind == PY_SUBSCRIPT) {
		out->triton = true;
		out->grid = c->kids[0]->kids[1];
	} else {
		out->stream = py_call_arg(c, 0);
		out->grid = py_call_arg(c, 1);
		out->args_expr = py_call_arg(c, 3);
		if (!out->args_expr) {
			tp_err_set(err, TP_EXIT_FAILED, "%s:%d:%d: unsupported: a ct.launch without arguments",
				   op->path, c->line, c->col);
			return -1;
		}
		if (port_launch_args(op, k, out, err) < 0)
			return -1;
	}
	if (!out->grid) {
		tp_err_set(err, TP_EXIT_FAILED, "%s:%d:%d: unsupported: a launch without a grid",
			   op->path, c->line, c->col);
		return -1;
	}
	return 0;
}

/* The dtypes the host accepts: `x.dtype in (torch.float16, ...)` or `not
 * in`, else the three float types. */
size_t port_host_dtypes(const struct port_op *op, const struct pm_func *h, enum tdt *out,
			size_t max)
{
	size_t n = 0;
	const struct py_node *stack[512];
	size_t sp = 0;
	if (h)
		stack[sp++] = h->def->kids[3];
	while (sp && !n) {
		const struct py_node *x = stack[--sp];
		if (!x)
			continue;
		if (x->kind == PY_COMPARE && x->nkids == 3 &&
		    (x->kids[1]->op == PYOP_IN || x->kids[1]->op == PYOP_NOT_IN) &&
		    x->kids[0]->kind == PY_ATTR && x->kids[0]->n == 5 &&
		    memcmp(x->kids[0]->s, "dtype", 5) == 0 &&
		    (x->kids[2]->kind == PY_TUPLE || x->kids[2]->kind == PY_LIST)) {
			for (size_t i = 0; i < x->kids[2]->nkids && n < max; i++) {
				char *c = pymod_canon(&op->m, x->kids[2]->kids[i]);
				enum tdt d = c && str_starts(c, "torch.") ? tdt_from_name(c + 6) : DT_NONE;
				free(c);
				if (d != DT_NONE && tdt_ffi_str(d))
					out[n++] = d;
			}
		}
		for (size_t c = 0; c < x->nkids && sp < 512; c++)
			stack[sp++] = x->kids[c];
	}
	if (!n) {
		static const enum tdt dflt[] = {DT_F16, DT_BF16, DT_F32};
		for (size_t i = 0; i < TP_ARRAY_LEN(dflt) && n < max; i++)
			out[n++] = dflt[i];
	}
	return n;
}

/* ---- writing ---- */

struct w {
	struct sbuf sb;
	int indent;
};

static void wl(struct w *w, const char *fmt, ...) TP_PRINTF(2, 3);
static void wl(struct w *w, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	if (*s)
		rsfmt_line(&w->sb, w->indent, s);
	else
		sb_addc(&w->sb, '\n');
	free(s);
}

const char *port_ffi_symbol(const struct port_op *op, size_t kernel, char *buf, size_t n)
{
	if (kernel == 0)
		snprintf(buf, n, "cutile_%s", op->name);
	else
		snprintf(buf, n, "cutile_%s_%s", op->name, op->k[kernel]->name);
	return buf;
}

/* The element type code the descriptor of an array is dispatched on: the
 * first array of the generic type. */
static int dtype_array(const struct tkernel *k)
{
	for (size_t i = 0; i < k->nparams; i++)
		if (k->params[i].kind == TP_ARRAY && k->params[i].dt == DT_E &&
		    k->params[i].source_index >= 0)
			return (int)i;
	for (size_t i = 0; i < k->nparams; i++)
		if (k->params[i].kind == TP_ARRAY && k->params[i].source_index >= 0)
			return (int)i;
	return -1;
}

/* A parameter's name in ffi.rs: snake case, as rustc wants a function's
 * parameters (a Constant `TILE_SIZE` is the argument `tile_size`), unless
 * that collides with another parameter's. */
static const char *ffi_name(const struct tkernel *k, const struct tparam *p, char *buf, size_t n)
{
	size_t i = 0;
	for (; p->rs[i] && i + 1 < n; i++)
		buf[i] = (char)((p->rs[i] >= 'A' && p->rs[i] <= 'Z') ? p->rs[i] - 'A' + 'a' : p->rs[i]);
	buf[i] = '\0';
	for (size_t q = 0; q < k->nparams; q++)
		if (&k->params[q] != p && strcmp(k->params[q].rs, buf) == 0)
			return p->rs;
	return buf;
}

/* A Rust expression of the entries' parameters (a dispatch condition)
 * with each parameter under its ffi.rs name, and without the outer
 * parentheses rustc warns about. Caller frees. */
static char *ffi_expr(const struct tkernel *k, const char *text)
{
	struct sbuf sb = SBUF_INIT;
	size_t n = strlen(text);
	if (n > 1 && text[0] == '(' && text[n - 1] == ')') {
		int d = 0;
		size_t i = 0;
		for (; i < n; i++) {
			d += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
			if (d == 0)
				break;
		}
		if (i == n - 1) {
			text++;
			n -= 2;
		}
	}
	for (size_t i = 0; i < n;) {
		char c = text[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
			size_t j = i;
			while (j < n && ((text[j] >= 'a' && text[j] <= 'z') || (text[j] >= 'A' && text[j] <= 'Z') ||
					 (text[j] >= '0' && text[j] <= '9') || text[j] == '_'))
				j++;
			const struct tparam *p = NULL;
			for (size_t q = 0; q < k->nparams && !p; q++)
				if (strlen(k->params[q].rs) == j - i && !memcmp(k->params[q].rs, text + i, j - i))
					p = &k->params[q];
			char nm[128];
			if (p)
				sb_adds(&sb, ffi_name(k, p, nm, sizeof(nm)));
			else
				sb_add(&sb, text + i, j - i);
			i = j;
		} else {
			sb_addc(&sb, c);
			i++;
		}
	}
	return sb_detach(&sb);
}

static const char *scalar_rs(const struct tparam *p)
{
	return p->kind == TP_SCALAR && p->dt == DT_F32 ? "f32" : "i32";
}

/* The export's parameters: the source's in order, then the launch. */
static void export_params(struct w *w, const struct tkernel *k)
{
	char nm[128];
	for (size_t i = 0; i < k->nparams; i++) {
		const struct tparam *p = &k->params[i];
		if (p->source_index < 0)
			continue;
		if (p->kind == TP_ARRAY)
			wl(w, "%s: *const TensorDesc,", ffi_name(k, p, nm, sizeof(nm)));
		else
			wl(w, "%s: %s,", ffi_name(k, p, nm, sizeof(nm)), scalar_rs(p));
	}
	static const char *const tail[] = {"grid_x: i32", "grid_y: i32", "grid_z: i32",
					   "num_cta_in_cga: i32", "occupancy: i32", "device_id: i32",
					   "raw_stream: u64"};
	for (size_t i = 0; i < TP_ARRAY_LEN(tail); i++)
		wl(w, "%s,", tail[i]);
}

static bool any_ptr(const struct tkernel *k)
{
	for (size_t i = 0; i < k->nparams; i++)
		if (k->params[i].kind == TP_ARRAY && k->params[i].ptr)
			return true;
	return false;
}

/* The value an entry argument is given from the descriptors and scalars. */
static void entry_arg(const struct tkernel *k, const struct tparam *p, struct sbuf *out)
{
	char nm[128];
	switch (p->kind) {
	case TP_ARRAY:
		sb_printf(out, p->ptr ? "%s_ptr" : "&*%s_t", ffi_name(k, p, nm, sizeof(nm)));
		return;
	case TP_SHAPE:
	case TP_STRIDE:
		sb_printf(out, "%s.%s[%d] as i32", ffi_name(k, &k->params[p->of], nm, sizeof(nm)),
			  p->kind == TP_SHAPE ? "shape" : "strides", p->axis);
		return;
	default:
		sb_adds(out, ffi_name(k, p, nm, sizeof(nm)));
	}
}

/* A const generic no parameter is (N_TIMES_N): its value from the
 * Constants the launcher is given, `(n * n)`. */
static void derived_arg(const struct tkernel *k, const struct tentry *en, const char *name,
			struct sbuf *gen)
{
	for (size_t d = 0; d < en->nderived; d++)
		if (!strcmp(en->derived[d].name, name)) {
			char *x = ffi_expr(k, en->derived[d].expr);
			sb_printf(gen, ", (%s).to_string()", x);
			free(x);
			return;
		}
	sb_printf(gen, ", %s.to_string()", name);
}

/* Does some entry take parameter i, as an argument or a generic? */
static bool param_taken(const struct tkernel *k, size_t i)
{
	for (size_t e = 0; e < k->nentries; e++) {
		const struct tentry *en = &k->entries[e];
		if (en->param_used[i] && k->params[i].kind != TP_CONST)
			return true;
		for (size_t g = 0; g < en->ngenerics; g++)
			if (strcmp(en->generics[g], k->params[i].rs) == 0)
				return true;
		if (en->dispatch_ffi && strstr(en->dispatch_ffi, k->params[i].rs))
			return true;
	}
	/* an array's extents are taken through it */
	for (size_t q = 0; q < k->nparams; q++)
		if ((k->params[q].kind == TP_SHAPE || k->params[q].kind == TP_STRIDE) &&
		    k->params[q].of == (int)i && param_taken(k, q))
			return true;
	return false;
}

static void launch_fn(struct w *w, const struct port_op *op, const struct tkernel *k)
{
	char nm[128];
	wl(w, "unsafe fn launch_%s<E: DType>(", k->name);
	w->indent++;
	wl(w, "dtype: &str,");
	for (size_t i = 0; i < k->nparams; i++) {
		const struct tparam *p = &k->params[i];
		if (p->source_index < 0)
			continue;
		/* a parameter no entry takes (a block pointer's shape, gone into
		 * the view) is named `_x`, as rustc wants an unused one */
		const char *u = param_taken(k, i) ? "" : "_";
		if (p->kind == TP_ARRAY)
			wl(w, "%s%s: &TensorDesc,", u, ffi_name(k, p, nm, sizeof(nm)));
		else
			wl(w, "%s%s: %s,", u, ffi_name(k, p, nm, sizeof(nm)), scalar_rs(p));
	}
	wl(w, "grid: (u32, u32, u32),");
	wl(w, "opts: CompileOptions,");
	wl(w, "stream: &Arc<Stream>,");
	w->indent--;
	wl(w, ") -> i32 {");
	w->indent++;
	for (size_t i = 0; i < k->nparams; i++) {
		const struct tparam *p = &k->params[i];
		if (p->kind != TP_ARRAY || p->source_index < 0)
			continue;
		const char *et = p->dt == DT_E ? "E" : tdt_rust(p->dt);
		const char *n = ffi_name(k, p, nm, sizeof(nm));
		if (p->ptr)
			wl(w, "let %s_ptr: DevicePointer<%s> = unsafe { DevicePointer::from_cu_deviceptr(%s.ptr) };",
			   n, et, n);
		else
			wl(w, "let %s_t = unsafe { borrow_tensor::<%s>(%s) };", n, et, n);
	}
	struct sbuf args = SBUF_INIT, gen = SBUF_INIT;
	size_t order[256];
	size_t np = port_params_in_order(k, order, TP_ARRAY_LEN(order));
	for (size_t e = 0; e < k->nentries; e++) {
		const struct tentry *en = &k->entries[e];
		sb_reset(&args);
		sb_reset(&gen);
		for (size_t j = 0; j < np; j++) {
			const struct tparam *p = &k->params[order[j]];
			if (!en->param_used[order[j]] || p->kind == TP_CONST)
				continue;
			if (args.len)
				sb_adds(&args, ", ");
			entry_arg(k, p, &args);
		}
		sb_adds(&gen, "dtype.to_string()");
		for (size_t g = 0; g < en->ngenerics; g++) {
			const struct tparam *p = NULL;
			for (size_t q = 0; q < k->nparams; q++)
				if (strcmp(k->params[q].rs, en->generics[g]) == 0)
					p = &k->params[q];
			const char *n = p ? ffi_name(k, p, nm, sizeof(nm)) : en->generics[g];
			if (p && p->dt == DT_BOOL)
				sb_printf(&gen, ", (%s != 0).to_string()", n);
			else if (p)
				sb_printf(&gen, ", %s.to_string()", n);
			else
				derived_arg(k, en, n, &gen);
		}
		for (size_t g = 0; g < en->npreds; g++)
			sb_printf(&gen, ", (dtype == \"%s\").to_string()",
				  tdt_ffi_str(en->pred_dt[g]) ? tdt_ffi_str(en->pred_dt[g])
							      : tdt_rust(en->pred_dt[g]));
		bool one = k->nentries == 1;
		if (!one) {
			char *cond = ffi_expr(k, en->dispatch_ffi);
			wl(w, "%s %s {", e == 0 ? "let launched = if" : "} else if", cond);
			free(cond);
			w->indent++;
		}
		char *head = xasprintf("unsafe { %s_module::%s(%s) }", op->name, en->name, sb_str(&args));
		int at = w->indent;
		w->indent = rsfmt_chain_head(&w->sb, at, one ? "let launched = " : "", head);
		free(head);
		wl(w, ".generics(vec![%s])", sb_str(&gen));
		wl(w, ".grid(grid)");
		wl(w, ".compile_options(opts)");
		wl(w, ".sync_on(stream)");
		wl(w, ".is_ok()%s", one ? ";" : "");
		w->indent = at - (one ? 0 : 1);
	}
	if (k->nentries > 1) {
		wl(w, "} else {");
		wl(w, "    false");
		wl(w, "};");
	}
	wl(w, "if launched { rc::OK } else { rc::LAUNCH_FAILED }");
	w->indent--;
	wl(w, "}");
	sb_free(&args);
	sb_free(&gen);
}

static void export_fn(struct w *w, const struct port_op *op, size_t ki, const enum tdt *dts,
		      size_t ndts)
{
	const struct tkernel *k = op->k[ki];
	char sym[128];
	port_ffi_symbol(op, ki, sym, sizeof(sym));
	wl(w, "#[unsafe(no_mangle)]");
	wl(w, "pub unsafe extern \"C\" fn %s(", sym);
	w->indent++;
	export_params(w, k);
	w->indent--;
	wl(w, ") -> i32 {");
	w->indent++;
	char nm[128], nm2[128];
	struct sbuf s = SBUF_INIT;
	for (size_t i = 0; i < k->nparams; i++)
		if (k->params[i].kind == TP_ARRAY && k->params[i].source_index >= 0)
			sb_printf(&s, "%s%s.is_null()", s.len ? " || " : "",
				  ffi_name(k, &k->params[i], nm, sizeof(nm)));
	if (s.len) {
		wl(w, "if %s {", sb_str(&s));
		wl(w, "    return rc::NULL_PTR;");
		wl(w, "}");
	}
	for (size_t i = 0; i < k->nparams; i++)
		if (k->params[i].kind == TP_ARRAY && k->params[i].source_index >= 0) {
			const char *n = ffi_name(k, &k->params[i], nm, sizeof(nm));
			wl(w, "let %s = unsafe { &*%s };", n, n);
		}
	int da = dtype_array(k);
	const char *dan = da >= 0 ? ffi_name(k, &k->params[da], nm2, sizeof(nm2)) : NULL;
	if (da >= 0) {
		wl(w, "let Some(dtype) = dtype_str(%s.dtype) else {", dan);
		wl(w, "    return rc::UNSUPPORTED_DTYPE;");
		wl(w, "};");
	} else {
		wl(w, "let dtype = \"f32\";");
	}
	/* the generic arrays share the element type; concrete ones have theirs */
	for (size_t i = 0; i < k->nparams; i++) {
		const struct tparam *p = &k->params[i];
		if (p->kind != TP_ARRAY || p->source_index < 0 || (int)i == da)
			continue;
		const char *n = ffi_name(k, p, nm, sizeof(nm));
		if (p->dt == DT_E && da >= 0)
			wl(w, "if %s.dtype != %s.dtype {", n, dan);
		else if (tdt_ffi_code(p->dt) >= 0)
			wl(w, "if %s.dtype != %d {", n, tdt_ffi_code(p->dt));
		else
			continue;
		wl(w, "    return rc::UNSUPPORTED_DTYPE;");
		wl(w, "}");
	}
	wl(w, "if grid_x <= 0 || grid_y <= 0 || grid_z <= 0 {");
	wl(w, "    return rc::INVALID_ARGS;");
	wl(w, "}");
	/* a negative ordinal is refused, never taken as GPU 0 */
	wl(w, "if device_id < 0 {");
	wl(w, "    return rc::DEVICE_INIT_FAILED;");
	wl(w, "}");
	wl(w, "let Ok(device) = Device::new(device_id as usize) else {");
	wl(w, "    return rc::DEVICE_INIT_FAILED;");
	wl(w, "};");
	wl(w, "let stream = unsafe { Stream::borrow_raw(raw_stream as *mut c_void, &device) };");
	wl(w, "let mut opts = CompileOptions::default();");
	wl(w, "if num_cta_in_cga > 0 {");
	wl(w, "    opts = opts.num_cta_in_cga(num_cta_in_cga);");
	wl(w, "}");
	wl(w, "if occupancy > 0 {");
	wl(w, "    opts = opts.occupancy(occupancy);");
	wl(w, "}");
	wl(w, "let grid = (grid_x as u32, grid_y as u32, grid_z as u32);");
	sb_reset(&s);
	sb_adds(&s, "dtype");
	for (size_t i = 0; i < k->nparams; i++)
		if (k->params[i].source_index >= 0)
			sb_printf(&s, ", %s", ffi_name(k, &k->params[i], nm, sizeof(nm)));
	sb_adds(&s, ", grid, opts, &stream");
	wl(w, "match dtype {");
	w->indent++;
	for (size_t i = 0; i < ndts; i++)
		wl(w, "\"%s\" => unsafe { launch_%s::<%s>(%s) },", tdt_ffi_str(dts[i]), k->name,
		   tdt_rust(dts[i]), sb_str(&s));
	wl(w, "_ => rc::UNSUPPORTED_DTYPE,");
	w->indent--;
	wl(w, "}");
	w->indent--;
	wl(w, "}");
	sb_free(&s);
}

int port_ffi_rs(const struct port_op *op, char **out, struct tp_err *err)
{
	*out = NULL;
	struct w w = {SBUF_INIT, 0};
	bool ptr = false, half = false;
	enum tdt dts[DT__COUNT];
	size_t ndts = 0;
	for (size_t i = 0; i < op->nk; i++) {
		struct port_launch l;
		if (port_launch_of(op, op->k[i], &l, err) < 0) {
			sb_free(&w.sb);
			return -1;
		}
		ptr |= any_ptr(op->k[i]);
		if (i == 0)
			ndts = port_host_dtypes(op, l.host, dts, TP_ARRAY_LEN(dts));
	}
	for (size_t i = 0; i < ndts; i++)
		half |= dts[i] == DT_F16 || dts[i] == DT_BF16;
	wl(&w, "// C-ABI launcher for %s, written by tileport mech from the entries of kernel.rs", op->name);
	wl(&w, "// and the host code of %s", op->path);
	wl(&w, "// (reports/agent_b.md: host_launch_contract).");
	/* only what ffi_util.rs of every TileGym checkout has: TensorDesc,
	 * borrow_tensor, dtype_str, rc; the rest from the crates themselves */
	wl(&w, "use core::ffi::c_void;");
	wl(&w, "use std::sync::Arc;");
	wl(&w, "%s", "");
	bool tensors = false;
	for (size_t i = 0; i < op->nk; i++)
		for (size_t q = 0; q < op->k[i]->nparams; q++)
			tensors |= op->k[i]->params[q].kind == TP_ARRAY && !op->k[i]->params[q].ptr &&
				   op->k[i]->params[q].source_index >= 0;
	wl(&w, "use crate::ffi_util::{TensorDesc, %sdtype_str, rc};", tensors ? "borrow_tensor, " : "");
	if (ptr)
		wl(&w, "use cuda_async::device_buffer::DevicePointer;");
	wl(&w, "use cuda_async::device_operation::DeviceOp;");
	wl(&w, "use cuda_core::{Device, Stream};");
	wl(&w, "use cutile::DType;");
	if (half)
		wl(&w, "use cutile::half::{bf16, f16};");
	wl(&w, "use cutile::tile_kernel::{CompileOptions, TileKernel};");
	for (size_t i = 0; i < op->nk; i++) {
		wl(&w, "%s", "");
		export_fn(&w, op, i, dts, ndts);
		wl(&w, "%s", "");
		launch_fn(&w, op, op->k[i]);
	}
	*out = sb_detach(&w.sb);
	return 0;
}

/* ---- the launch contract (B's handoff to D) ---- */

/* The arguments the host passes k where it builds the tuple (names,
 * `+`, a choice in branches): which of them the kernel gets is what the
 * contract's arguments are read against. */
static void host_arguments(struct sbuf *sb, const struct port_op *op, const struct tkernel *k)
{
	struct port_launch l;
	struct tp_err e = {0};
	if (port_launch_of(op, k, &l, &e) < 0 || l.triton)
		return;
	bool literal = l.args_expr->kind == PY_TUPLE || l.args_expr->kind == PY_LIST;
	for (size_t i = 0; literal && i < l.args_expr->nkids; i++)
		literal = l.args_expr->kids[i]->kind != PY_STARRED;
	if (literal)
		return;
	char *what = py_node_text(&op->m.py, l.args_expr);
	sb_printf(sb, "  - host arguments, built as `%s`", what);
	free(what);
	if (l.args_from)
		sb_printf(sb, " (the tuple bound at line %d)", l.args_from->line);
	sb_adds(sb, ":");
	for (size_t i = 0; i < l.nargs; i++) {
		char *a = py_node_text(&op->m.py, l.args[i]);
		sb_printf(sb, "%s %s", i ? "," : "", a);
		free(a);
	}
	sb_addc(sb, '\n');
}

char *port_launch_contract(const struct port_op *op)
{
	struct sbuf sb = SBUF_INIT;
	for (size_t ki = 0; ki < op->nk; ki++) {
		const struct tkernel *k = op->k[ki];
		char sym[128];
		sb_printf(&sb, "- kernel `%s` (%s line %d), export `%s`\n", k->name, op->path, k->line,
			  port_ffi_symbol(op, ki, sym, sizeof(sym)));
		for (size_t e = 0; e < k->nentries; e++) {
			const struct tentry *en = &k->entries[e];
			sb_printf(&sb, "  - entry `pub unsafe fn %s_module::%s` (%s params), runs when %s\n",
				  op->name, en->name, port_entry_pattern(k, en), en->dispatch_py);
			sb_printf(&sb, "    - generics: E (the dtype string)");
			for (size_t g = 0; g < en->ngenerics; g++) {
				sb_printf(&sb, ", %s", en->generics[g]);
				for (size_t d = 0; d < en->nderived; d++)
					if (!strcmp(en->derived[d].name, en->generics[g]))
						sb_printf(&sb, " (%s, which the launcher computes)", en->derived[d].expr);
			}
			for (size_t g = 0; g < en->npreds; g++)
				sb_printf(&sb, ", %s (dtype == %s)", en->preds[g], tdt_rust(en->pred_dt[g]));
			sb_adds(&sb, "\n    - arguments:");
			size_t order[256];
			size_t np = port_params_in_order(k, order, TP_ARRAY_LEN(order));
			bool first = true;
			for (size_t j = 0; j < np; j++) {
				const struct tparam *p = &k->params[order[j]];
				if (!en->param_used[order[j]] || p->kind == TP_CONST)
					continue;
				sb_printf(&sb, "%s %s", first ? "" : ",", p->rs);
				if (p->kind == TP_ARRAY)
					sb_printf(&sb, " (%s %s, rank %d)", p->ptr ? "*mut" : "&Tensor",
						  tdt_rust(p->dt), en->param_rank[order[j]]);
				else if (p->kind == TP_SHAPE || p->kind == TP_STRIDE)
					sb_printf(&sb, " (%s.%s[%d])", k->params[p->of].name,
						  p->kind == TP_SHAPE ? "shape" : "strides", p->axis);
				first = false;
			}
			sb_addc(&sb, '\n');
		}
		host_arguments(&sb, op, k);
		sb_adds(&sb, "  - output form: read-only &Tensor written through partition_full_mut, or a "
			     "raw *mut E; never &mut Tensor (R43)\n");
		sb_adds(&sb, "  - grid: the host's grid expression, passed as grid_x, grid_y, grid_z\n");
		sb_adds(&sb, "  - CompileOptions: num_cta_in_cga and occupancy applied when > 0 (-1: the "
			     "entry's hints)\n");
	}
	return sb_detach(&sb);
}
