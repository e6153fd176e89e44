/* The Python side of the host boundary: the cutile-rs wrapper (the
 * registration edits of a workspace are host_register.c).
 *
 * The wrapper repeats the reference's own host code — its checks, shapes,
 * tile sizes and grid — so that both backends run the same workload: the
 * host function and the module helpers and constants it uses are copied,
 * its launch (`ct.launch(...)` or `kernel[grid](...)`) becomes a call of a
 * `_launch_<kernel>` that packs TensorDescs and calls the cdylib export
 * through cffi, and the few host-side calls of the kernel languages
 * (`ct.cdiv`, `triton.cdiv`, `triton.next_power_of_2`) become local
 * helpers, so the wrapper needs neither cuda.tile nor Triton. */
#include "engine/port/host_int.h"
#include "engine/port/port_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct edit {
	size_t from, to; /* source offsets */
	char *text;
};

struct edits {
	struct edit *v;
	size_t n, cap;
};

static size_t off_of(const struct py_module *m, size_t tok)
{
	if (tok >= m->toks.n)
		return m->len;
	return (size_t)(m->toks.v[tok].s - m->src);
}

static size_t node_from(const struct py_module *m, const struct py_node *n)
{
	return off_of(m, n->tb);
}

static size_t node_to(const struct py_module *m, const struct py_node *n)
{
	return py_node_end(m, n);
}

static void add_edit(struct edits *e, size_t from, size_t to, char *text)
{
	e->v = xgrow(e->v, &e->cap, e->n + 1, sizeof(*e->v));
	e->v[e->n++] = (struct edit){from, to, text};
}

/* The source text of [from, to) with the edits inside it applied. */
static char *apply(const struct py_module *m, size_t from, size_t to, const struct edits *e)
{
	struct sbuf sb = SBUF_INIT;
	size_t at = from;
	for (;;) {
		const struct edit *next = NULL;
		for (size_t i = 0; i < e->n; i++)
			if (e->v[i].from >= at && e->v[i].to <= to && (!next || e->v[i].from < next->from))
				next = &e->v[i];
		if (!next)
			break;
		sb_add(&sb, m->src + at, next->from - at);
		sb_adds(&sb, next->text);
		at = next->to;
	}
	sb_add(&sb, m->src + at, to - at);
	return sb_detach(&sb);
}

static void free_edits(struct edits *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->v[i].text);
	free(e->v);
}

struct wctx {
	const struct port_op *op;
	struct edits ed;
	bool *use_func;  /* per module function (and method): copied */
	bool *use_const; /* per module constant: copied */
	bool *use_class; /* per module-level class: copied whole */
	struct tp_err *err;
	bool failed;
	bool need_cdiv, need_np2;
	bool need_partial; /* a kernel with other hints: functools.partial of its launch */
	bool need_search;  /* cuda.tile.tune.exhaustive_search: _exhaustive_search */
	bool need_timeout; /* ct.compiler_timeout: _compiler_timeout */
	char **used; /* the names the copied code reads, for its imports */
};

static void refuse(struct wctx *w, const struct py_node *at, const char *fmt, ...) TP_PRINTF(3, 4);
static void refuse(struct wctx *w, const struct py_node *at, const char *fmt, ...)
{
	if (w->failed)
		return;
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tp_err_set(w->err, TP_EXIT_FAILED, "%s:%d:%d: unsupported: %s", w->op->path, at->line, at->col,
		   msg);
	w->failed = true;
}

static int kernel_index(const struct port_op *op, const char *name)
{
	for (size_t i = 0; i < op->nk; i++)
		if (strcmp(op->k[i]->name, name) == 0)
			return (int)i;
	return -1;
}

static void scan(struct wctx *w, const struct py_node *n, int depth);

static void use_class(struct wctx *w, size_t c)
{
	if (w->use_class[c])
		return;
	w->use_class[c] = true;
	scan(w, w->op->m.classes[c].def, 0);
}

/* Copy function i: a method brings its whole class. */
static void use_func(struct wctx *w, size_t i)
{
	const struct pm_func *f = &w->op->m.funcs[i];
	if (w->use_func[i])
		return;
	w->use_func[i] = true;
	if (f->cls >= 0)
		use_class(w, (size_t)f->cls);
	else
		scan(w, f->def, 0);
}

static void use_name(struct wctx *w, const struct py_node *n)
{
	const struct pymod *m = &w->op->m;
	char *name = py_str(n);
	bool seen = false;
	for (char **u = w->used; u && *u && !seen; u++)
		seen = strcmp(*u, name) == 0;
	if (!seen)
		w->used = strv_push(w->used, name);
	for (size_t i = 0; i < m->nfuncs; i++)
		if (m->funcs[i].cls < 0 && strcmp(m->funcs[i].name, name) == 0 &&
		    m->funcs[i].role != PM_KERNEL)
			use_func(w, i);
	for (size_t i = 0; i < m->nclasses; i++)
		if (strcmp(m->classes[i].name, name) == 0)
			use_class(w, i);
	for (size_t i = 0; i < m->nconsts; i++)
		if (strcmp(m->consts[i].name, name) == 0 && !w->use_const[i]) {
			w->use_const[i] = true;
			scan(w, m->consts[i].value, 0);
		}
	free(name);
}

static char *text_of(struct wctx *w, const struct py_node *n)
{
	const struct py_module *pm = &w->op->m.py;
	return apply(pm, node_from(pm, n), node_to(pm, n), &w->ed);
}

/* The kernel a launch's kernel argument stands for (its name, or a local
 * name bound to it: `fwd = _kernel_tma; ct.launch(..., fwd, ...)`), -1
 * when none of the translated ones. */
static int launched_kernel(const struct wctx *w, const struct py_node *arg)
{
	for (size_t i = 0; arg && i < w->op->nk; i++)
		if (lw_names_kernel(&w->op->m, arg, w->op->k[i]->name))
			return (int)i;
	return -1;
}

/* The launch of kernel ki at call n, as a call of its _launch function,
 * directly or through the local name the host gave the kernel (which now
 * holds the _launch function: see the assignment in scan). What the
 * call's arguments use is scanned, and rewritten, first. */
static void launch_edit(struct wctx *w, const struct py_node *n, const struct py_node *kernel_arg,
			int ki, bool triton)
{
	const struct py_module *pm = &w->op->m.py;
	struct sbuf sb = SBUF_INIT;
	if (kernel_arg->kind == PY_NAME && !py_is_name(kernel_arg, w->op->k[ki]->name))
		sb_add(&sb, kernel_arg->s, kernel_arg->n);
	else
		sb_printf(&sb, "_launch_%s", w->op->k[ki]->name);
	sb_addc(&sb, '(');
	if (triton) {
		scan(w, n->kids[0]->kids[1], 0);
		for (size_t k = 1; k < n->nkids; k++)
			scan(w, n->kids[k], 0);
		char *grid = text_of(w, n->kids[0]->kids[1]);
		sb_printf(&sb, "None, %s", grid);
		free(grid);
		if (n->nkids > 1) {
			size_t from = node_from(pm, n->kids[1]), to = node_to(pm, n->kids[n->nkids - 1]);
			char *args = apply(pm, from, to, &w->ed);
			sb_printf(&sb, ", %s", args);
			free(args);
		}
	} else {
		const struct py_node *stream = py_call_arg(n, 0), *grid = py_call_arg(n, 1);
		const struct py_node *args = py_call_arg(n, 3);
		bool literal = args && (args->kind == PY_TUPLE || args->kind == PY_LIST);
		scan(w, stream, 0);
		scan(w, grid, 0);
		scan(w, args, 0);
		char *st = text_of(w, stream), *gr = text_of(w, grid);
		sb_printf(&sb, "%s, %s", st, gr);
		free(st);
		free(gr);
		for (size_t k = 0; literal && k < args->nkids; k++) {
			char *a = text_of(w, args->kids[k]);
			sb_printf(&sb, ", %s", a);
			free(a);
		}
		/* a tuple the host builds (`common + (T,)`, chosen in branches):
		 * the same tuple, unpacked into the launch function, so that
		 * each kernel gets what the Python passes it */
		if (!literal && args) {
			char *a = text_of(w, args);
			sb_printf(&sb, args->kind == PY_NAME ? ", *%s" : ", *(%s)", a);
			free(a);
		}
	}
	sb_addc(&sb, ')');
	add_edit(&w->ed, node_from(pm, n), node_to(pm, n), sb_detach(&sb));
}

/* What a kernel value becomes in the wrapper: its launch function, or the
 * local name that holds it. */
static char *launch_value(struct wctx *w, const struct py_node *k, int ki)
{
	if (ki >= 0 && k->kind == PY_NAME && py_is_name(k, w->op->k[ki]->name))
		return xasprintf("_launch_%s", w->op->k[ki]->name);
	scan(w, k, 0);
	return text_of(w, k);
}

/* `K.replace_hints(**h)` or `cached_replace_hints(K, **h)` ->
 * `functools.partial(_launch_K, **h)`: the launch function passes the
 * hints to the export (occupancy, num_ctas as num_cta_in_cga). */
static void hinted_edit(struct wctx *w, const struct py_node *n, const struct py_node *k)
{
	const struct py_module *pm = &w->op->m.py;
	int ki = launched_kernel(w, k);
	char *fn = launch_value(w, k, ki);
	struct sbuf sb = SBUF_INIT;
	sb_printf(&sb, "functools.partial(%s", fn);
	free(fn);
	for (size_t i = 1; i < n->nkids; i++) {
		if (n->kids[i] == k)
			continue;
		scan(w, n->kids[i], 0);
		char *a = text_of(w, n->kids[i]);
		sb_printf(&sb, ", %s", a);
		free(a);
	}
	sb_addc(&sb, ')');
	add_edit(&w->ed, node_from(pm, n), node_to(pm, n), sb_detach(&sb));
	w->need_partial = true;
}

/* cuda.tile.tune.exhaustive_search(configs, stream, grid_fn, K, args_fn,
 * hints_fn) -> _exhaustive_search(..., LAUNCH, ...): the same search over
 * the cutile-rs launch, timed by autotune_launch. */
static void search_edit(struct wctx *w, const struct py_node *n)
{
	const struct py_module *pm = &w->op->m.py;
	const struct py_node *k = py_call_param(n, 3, "kernel");
	int ki = launched_kernel(w, k);
	if (!k) {
		refuse(w, n, "an exhaustive_search without a kernel");
		return;
	}
	add_edit(&w->ed, node_from(pm, n->kids[0]), node_to(pm, n->kids[0]), xstrdup("_exhaustive_search"));
	/* a kernel the host picks from its candidates (`candidate.kernel`)
	 * is a launch function in the wrapper already: every kernel value of
	 * the copied code is (see scan) */
	if (ki >= 0)
		add_edit(&w->ed, node_from(pm, k), node_to(pm, k), launch_value(w, k, ki));
	else
		scan(w, k, 0);
	for (size_t i = 1; i < n->nkids; i++)
		if (n->kids[i] != k && !(n->kids[i]->kind == PY_KEYWORD && n->kids[i]->kids[0] == k))
			scan(w, n->kids[i], 0);
	w->need_search = true;
	w->need_partial = true;
}

/* A type annotation: the kernel language's types (`ct.kernel`,
 * `ct.Constant[int]`) are `object` in the wrapper, which runs without it. */
static void annotation(struct wctx *w, const struct py_node *n)
{
	if (!n || w->failed)
		return;
	if (n->kind == PY_ATTR || n->kind == PY_NAME) {
		char *c = pymod_canon(&w->op->m, n);
		bool lang = c && (str_starts(c, "ct.") || str_starts(c, "tl.") || str_starts(c, "triton."));
		free(c);
		if (lang) {
			const struct py_module *pm = &w->op->m.py;
			add_edit(&w->ed, node_from(pm, n), node_to(pm, n), xstrdup("object"));
			return;
		}
	}
	if (n->kind == PY_SUBSCRIPT) {
		char *c = pymod_canon(&w->op->m, n->kids[0]);
		bool lang = c && (str_starts(c, "ct.") || str_starts(c, "tl.") || str_starts(c, "triton."));
		free(c);
		if (lang) {
			const struct py_module *pm = &w->op->m.py;
			add_edit(&w->ed, node_from(pm, n), node_to(pm, n), xstrdup("object"));
			return;
		}
	}
	if (n->kind == PY_NAME || n->kind == PY_ATTR) {
		scan(w, n, 0);
		return;
	}
	for (size_t k = 0; k < n->nkids; k++)
		annotation(w, n->kids[k]);
}

/* Walk copied code: the names it uses, its launches, and the kernel
 * language's host calls (rewritten or refused). */
static void scan(struct wctx *w, const struct py_node *n, int depth)
{
	if (!n || w->failed || depth > 200)
		return;
	const struct pymod *m = &w->op->m;
	const struct py_module *pm = &m->py;
	if (n->kind == PY_CALL && pymod_is(m, n->kids[0], "ct.launch")) {
		const struct py_node *k = py_call_arg(n, 2);
		int ki = launched_kernel(w, k);
		if (ki < 0)
			refuse(w, k ? k : n, "a ct.launch of a kernel that was not translated");
		else
			launch_edit(w, n, k, ki, false);
		return;
	}
	if (n->kind == PY_CALL && n->kids[0]->kind == PY_SUBSCRIPT &&
	    n->kids[0]->kids[0]->kind == PY_NAME) {
		int ki = launched_kernel(w, n->kids[0]->kids[0]);
		if (ki >= 0) {
			launch_edit(w, n, n->kids[0]->kids[0], ki, true);
			return;
		}
	}
	/* a kernel with other hints is its launch function with them bound */
	const struct py_node *hk = NULL;
	if (lw_is_replace_hints(n, &hk)) {
		hinted_edit(w, n, hk);
		return;
	}
	if (n->kind == PY_CALL) {
		char *c = pymod_canon(m, n->kids[0]);
		bool search = c && strcmp(c, "ct.tune.exhaustive_search") == 0;
		free(c);
		if (search) {
			search_edit(w, n);
			return;
		}
	}
	/* a type annotation of the kernel language (a dataclass field
	 * `kernel: ct.kernel`): the value is a launch function in the wrapper */
	if (n->kind == PY_ANNASSIGN || n->kind == PY_PARAM || n->kind == PY_DEF) {
		const struct py_node *ann = n->kind == PY_ANNASSIGN ? n->kids[1]
					    : n->kind == PY_PARAM   ? n->kids[0]
								    : n->kids[2];
		annotation(w, ann);
		for (size_t k = 0; k < n->nkids; k++)
			if (n->kids[k] != ann)
				scan(w, n->kids[k], depth + 1);
		return;
	}
	/* `K.attr`: the wrapper has no kernel object to read it from */
	if (n->kind == PY_ATTR && n->kids[0]->kind == PY_NAME) {
		char *kn = py_str(n->kids[0]);
		int ki = kernel_index(w->op, kn);
		free(kn);
		if (ki >= 0) {
			refuse(w, n->kids[0],
			       "the kernel `%s` used in host code other than by its launch (the "
			       "cutile-rs wrapper has a launch function in its place, no kernel "
			       "object)",
			       w->op->k[ki]->name);
			return;
		}
	}
	if (n->kind == PY_ATTR || n->kind == PY_NAME) {
		char *c = pymod_canon(m, n);
		bool lang = c && (str_starts(c, "ct.") || str_starts(c, "tl.") || str_starts(c, "triton."));
		if (lang) {
			if (strcmp(c, "ct.compiler_timeout") == 0) {
				/* a JIT-compile time limit of cuTile Python's; the
				 * cutile-rs launch has none to set */
				add_edit(&w->ed, node_from(pm, n), node_to(pm, n),
					 xstrdup("_compiler_timeout"));
				w->need_timeout = true;
			} else if (strcmp(c, "ct.cdiv") == 0 || strcmp(c, "triton.cdiv") == 0) {
				add_edit(&w->ed, node_from(pm, n), node_to(pm, n), xstrdup("_cdiv"));
				w->need_cdiv = true;
			} else if (strcmp(c, "triton.next_power_of_2") == 0) {
				add_edit(&w->ed, node_from(pm, n), node_to(pm, n), xstrdup("_next_power_of_2"));
				w->need_np2 = true;
			} else {
				refuse(w, n, "%s in host code (the cutile-rs wrapper runs without it)", c);
			}
			free(c);
			return;
		}
		free(c);
		if (n->kind == PY_NAME) {
			char *kn = py_str(n);
			int ki = kernel_index(w->op, kn);
			const struct pm_func *f = ki < 0 ? pymod_func(m, kn) : NULL;
			free(kn);
			/* a kernel as a value (`fwd = K`, `Candidate(kernel=K)`, a list
			 * of kernels): its launch function, which the launches and the
			 * tuner's search in the copied code call as they would the
			 * kernel, so the host's choice among kernels stays its own */
			if (ki >= 0)
				add_edit(&w->ed, node_from(pm, n), node_to(pm, n),
					 xasprintf("_launch_%s", w->op->k[ki]->name));
			else if (f && f->role == PM_KERNEL)
				refuse(w, n, "the kernel `%s`, which was not translated, in host code",
				       f->name);
			else
				use_name(w, n);
			return;
		}
	}
	for (size_t k = 0; k < n->nkids; k++)
		scan(w, n->kids[k], depth + 1);
}

static bool lang_import(const struct py_node *s)
{
	char *t = py_str(s);
	bool lang = false;
	if (s->kind == PY_FROM) {
		lang = str_starts(t, "cuda") || str_starts(t, "triton");
	} else {
		for (size_t k = 0; k < s->nkids && !lang; k++) {
			char *a = py_str(s->kids[k]);
			lang = str_starts(a, "cuda") || str_starts(a, "triton");
			free(a);
		}
	}
	free(t);
	return lang;
}

static const char *c_type(const struct tparam *p)
{
	if (p->kind == TP_ARRAY)
		return "const TensorDesc *";
	return p->kind == TP_SCALAR && p->dt == DT_F32 ? "float " : "int ";
}

static void cdef(struct sbuf *sb, const struct port_op *op)
{
	for (size_t ki = 0; ki < op->nk; ki++) {
		const struct tkernel *k = op->k[ki];
		char sym[128];
		sb_printf(sb, "int %s(", port_ffi_symbol(op, ki, sym, sizeof(sym)));
		for (size_t i = 0; i < k->nparams; i++)
			if (k->params[i].source_index >= 0)
				sb_printf(sb, "%s%s, ", c_type(&k->params[i]), k->params[i].rs);
		sb_adds(sb, "int grid_x, int grid_y, int grid_z, int num_cta_in_cga, int occupancy, "
			    "int device_id, uint64_t raw_stream);\n");
	}
}

static void launch_fn(struct sbuf *sb, const struct port_op *op, size_t ki, bool hints)
{
	const struct tkernel *k = op->k[ki];
	char sym[128];
	port_ffi_symbol(op, ki, sym, sizeof(sym));
	sb_printf(sb, "\n\ndef _launch_%s(stream, grid", k->name);
	for (size_t i = 0; i < k->nparams; i++)
		if (k->params[i].source_index >= 0)
			sb_printf(sb, ", %s", k->params[i].name);
	sb_adds(sb, ", **_launch_hints):\n");
	sb_printf(sb, "    \"\"\"Launch %s through the cdylib export %s (the reference's "
		      "launch).\"\"\"\n",
		  k->name, sym);
	sb_adds(sb, "    ffi, lib = bind_kernel_function_cffi(_FFI_NAME, _FFI_CDEF)\n");
	if (k->fe == FE_TRITON) {
		sb_adds(sb, "    if callable(grid):\n        grid = grid({");
		bool first = true;
		for (size_t i = 0; i < k->nparams; i++)
			if (k->params[i].kind == TP_CONST) {
				sb_printf(sb, "%s\"%s\": %s", first ? "" : ", ", k->params[i].name,
					  k->params[i].name);
				first = false;
			}
		sb_adds(sb, "})\n");
	}
	sb_adds(sb, "    grid = tuple(grid) + (1,) * (3 - len(tuple(grid)))\n");
	const char *first_array = NULL;
	for (size_t i = 0; i < k->nparams && !first_array; i++)
		if (k->params[i].kind == TP_ARRAY && k->params[i].source_index >= 0)
			first_array = k->params[i].name;
	if (first_array) {
		sb_printf(sb, "    device = %s.device\n", first_array);
		sb_adds(sb, "    device_id = device.index if device.index is not None else "
			    "torch.cuda.current_device()\n");
	} else {
		sb_adds(sb, "    device_id = torch.cuda.current_device()\n");
		sb_adds(sb, "    device = torch.device(\"cuda\", device_id)\n");
	}
	sb_adds(sb, "    raw_stream = (stream if stream is not None else "
		    "torch.cuda.current_stream(device)).cuda_stream\n");
	sb_printf(sb, "    rc = lib.%s(\n", sym);
	for (size_t i = 0; i < k->nparams; i++) {
		const struct tparam *p = &k->params[i];
		if (p->source_index < 0)
			continue;
		if (p->kind == TP_ARRAY)
			sb_printf(sb, "        make_tensor_desc(ffi, %s),\n", p->name);
		else
			sb_printf(sb, "        %s(%s),\n", p->kind == TP_SCALAR && p->dt == DT_F32 ? "float" : "int",
				  p->name);
	}
	sb_adds(sb, "        grid[0], grid[1], grid[2],\n");
	if (hints)
		sb_adds(sb, "        # the hints the host gave the kernel (replace_hints); -1: the entry's own\n"
			    "        _launch_hints.get(\"num_ctas\", -1), _launch_hints.get(\"occupancy\", -1),\n");
	else
		sb_adds(sb, "        -1, -1,  # num_cta_in_cga, occupancy: the entry's own hints\n");
	sb_adds(sb, "        device_id, raw_stream,\n    )\n");
	sb_adds(sb, "    check_rc(rc, _FFI_NAME)\n");
}

/* cuda.tile.tune.exhaustive_search's contract (the best config of the
 * fastest launch, as result.best.config) over the cutile-rs launch:
 * autotune_launch (CUPTI timing, pipeline.md §4) times each config. The
 * reference keeps its own cache of the choice, so each search is its own
 * autotune_launch key. */
static const char exhaustive_search_def[] =
	"\n\ndef _exhaustive_search(configs, stream, grid_fn, launch, args_fn, hints_fn, **_options):\n"
	"    \"\"\"cuda.tile.tune.exhaustive_search over the cutile-rs launch: the best config\n"
	"    and its time (best.mean_us), which a host comparing kernels reads.\"\"\"\n"
	"    from types import SimpleNamespace\n"
	"\n"
	"    tuned = autotune_launch(\n"
	"        kernel_fn=lambda cfg: launch(stream, grid_fn(cfg), *args_fn(cfg), **hints_fn(cfg)),\n"
	"        configs=list(configs),\n"
	"        key=object(),\n"
	"        kernel_name=getattr(getattr(launch, \"func\", launch), \"__name__\", \"kernel\"),\n"
	"    )\n"
	"    best_ms = min((ms for _, ms in tuned.tuning_record), default=float(\"inf\"))\n"
	"    return SimpleNamespace(best=SimpleNamespace(config=tuned.best_config, mean_us=best_ms * 1000.0))\n";

int port_wrapper_py(const struct port_op *op, const char *source_rel, char **out,
		    struct tp_err *err)
{
	return port_wrapper_py_in(op, NULL, source_rel, out, err);
}

int port_wrapper_py_in(const struct port_op *op, const char *root, const char *source_rel,
		       char **out, struct tp_err *err)
{
	*out = NULL;
	const struct pymod *m = &op->m;
	const struct py_module *pm = &m->py;
	struct wctx w = {.op = op, .err = err};
	w.use_func = xcalloc(m->nfuncs + 1, sizeof(bool));
	w.use_const = xcalloc(m->nconsts + 1, sizeof(bool));
	w.use_class = xcalloc(m->nclasses + 1, sizeof(bool));
	/* the host code of every kernel (a function, or a method of an
	 * autograd.Function), and what it uses */
	const struct pm_func *first_host = NULL;
	for (size_t ki = 0; ki < op->nk && !w.failed; ki++) {
		struct port_launch l;
		if (port_launch_of(op, op->k[ki], &l, err) < 0) {
			w.failed = true;
			break;
		}
		if (!first_host)
			first_host = l.host;
		for (size_t i = 0; i < m->nfuncs; i++)
			if (&m->funcs[i] == l.host)
				use_func(&w, i);
	}
	/* the op's public interface: what the reference registers, on the
	 * cutile-rs backend, each under its own name */
	bool registered = false;
	for (size_t i = 0; i < m->nfuncs && !w.failed; i++)
		if (m->funcs[i].cls < 0 && m->funcs[i].register_impl)
			use_func(&w, i);
	for (size_t i = 0; i < m->nfuncs && !w.failed; i++) {
		const struct py_node *r = m->funcs[i].register_impl;
		if (!w.use_func[i] || !r)
			continue;
		const struct py_node *b = py_call_kw(r, "backend");
		if (b)
			add_edit(&w.ed, node_from(pm, b), node_to(pm, b), xstrdup("\"cutile-rs\""));
		else
			refuse(&w, r, "a register_impl without backend=");
		registered = true;
	}
	if (w.failed) {
		free(w.use_func);
		free(w.use_const);
		free(w.use_class);
		free_edits(&w.ed);
		strv_free(w.used);
		return -1;
	}
	struct sbuf sb = SBUF_INIT, helpers = SBUF_INIT;
	sb_printf(&sb, "\"\"\"cuTile Rust backend for %s, written by tileport mech from %s.\n\n", op->name,
		  source_rel);
	sb_adds(&sb, "The host code is the reference's own; its launch calls the cdylib export\n");
	char sym[128];
	sb_printf(&sb, "%s (ops/cutile_rs/%s_kernel/ffi.rs) through cffi.\n\"\"\"\n",
		  port_ffi_symbol(op, 0, sym, sizeof(sym)), op->name);
	/* imports, minus the kernel languages; relative ones made absolute */
	char *pkg = host_package_of(source_rel);
	/* the workspace's src/: given, or where a source path under src/ is */
	char *src_root = root ? path_join(root, "src") : pkg ? xstrdup("src") : NULL;
	struct host_imports hi = {.pm = pm, .pkg = pkg, .src_root = src_root, .used = w.used};
	const struct py_node *body = pm->body;
	int irc = 0;
	if (w.need_partial)
		sb_adds(&sb, "import functools\n");
	for (size_t k = 0; k < body->nkids && irc == 0; k++) {
		const struct py_node *s = body->kids[k];
		if ((s->kind != PY_IMPORT && s->kind != PY_FROM) || lang_import(s))
			continue;
		irc = host_import(&hi, s, &sb, &helpers, err);
	}
	free(src_root);
	if (irc < 0) {
		free(pkg);
		sb_free(&sb);
		sb_free(&helpers);
		free(w.use_func);
		free(w.use_const);
		free(w.use_class);
		free_edits(&w.ed);
		strv_free(w.used);
		return -1;
	}
	/* the top package (tilegym) holds backend/cutile_rs/utils.py */
	char *top = pkg ? xstrndup(pkg, strcspn(pkg, ".")) : NULL;
	sb_adds(&sb, "\n");
	if (w.need_search)
		sb_printf(&sb, "from %s.backend.cutile_rs import autotune_launch\n", top ? top : "..");
	sb_printf(&sb, "from %s.backend.cutile_rs.utils import bind_kernel_function_cffi, check_rc, "
		       "make_tensor_desc\n",
		  top ? top : "..");
	free(top);
	free(pkg);
	sb_printf(&sb, "\n_FFI_NAME = \"%s\"\n_FFI_CDEF = \"\"\"\n", sym);
	cdef(&sb, op);
	sb_adds(&sb, "\"\"\"\n");
	sb_adds(&sb, sb_str(&helpers));
	sb_free(&helpers);
	if (w.need_cdiv)
		sb_adds(&sb, "\n\ndef _cdiv(a, b):\n    return (a + b - 1) // b\n");
	if (w.need_search)
		sb_adds(&sb, exhaustive_search_def);
	if (w.need_timeout)
		sb_adds(&sb, "\n\ndef _compiler_timeout(seconds):\n"
			     "    \"\"\"ct.compiler_timeout: cuTile Python's limit on one JIT compile; the "
			     "cutile-rs\n    launch has no such limit to set.\"\"\"\n"
			     "    import contextlib\n\n    return contextlib.nullcontext()\n");
	if (w.need_np2)
		sb_adds(&sb, "\n\ndef _next_power_of_2(n):\n    return 1 << (n - 1).bit_length()\n");
	/* constants and helpers in source order, then the launchers, then the
	 * host code: functions and classes in source order */
	bool any_const = false;
	for (size_t k = 0; k < body->nkids; k++) {
		const struct py_node *s = body->kids[k];
		bool copy = false;
		for (size_t i = 0; i < m->nconsts; i++)
			copy |= w.use_const[i] && (s->kind == PY_ASSIGN || s->kind == PY_ANNASSIGN) &&
				(s->kind == PY_ASSIGN ? s->kids[1] : s->kids[2]) == m->consts[i].value;
		if (!copy)
			continue;
		char *t = apply(pm, node_from(pm, s), node_to(pm, s), &w.ed);
		sb_printf(&sb, "%s%s\n", any_const ? "" : "\n", t);
		any_const = true;
		free(t);
	}
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1)
			for (size_t ki = 0; ki < op->nk; ki++)
				launch_fn(&sb, op, ki, w.need_partial);
		for (size_t k = 0; k < body->nkids; k++) {
			const struct py_node *s = body->kids[k];
			const struct pm_func *f = NULL;
			bool copy = false;
			for (size_t i = 0; i < m->nfuncs && !f; i++)
				if (m->funcs[i].cls < 0 && m->funcs[i].def == s) {
					f = &m->funcs[i];
					copy = w.use_func[i] && (pass == 0) == (f->role != PM_HOST);
				}
			for (size_t c = 0; c < m->nclasses && !f; c++)
				if (m->classes[c].def == s)
					copy = w.use_class[c] && pass == 1;
			if (!copy)
				continue;
			char *t = apply(pm, node_from(pm, s), node_to(pm, s), &w.ed);
			sb_printf(&sb, "\n\n%s\n", t);
			free(t);
			if (f && f == first_host && !registered)
				sb_printf(&sb, "\n\nregister_impl(\"%s\", backend=\"cutile-rs\")(%s)\n",
					  op->name, f->name);
		}
	}
	free(w.use_func);
	free(w.use_const);
	free(w.use_class);
	free_edits(&w.ed);
	strv_free(w.used);
	*out = sb_detach(&sb);
	return 0;
}
