/* Internal to engine/port: lowering a kernel's syntax tree into the
 * tile-level representation (engine/port/tir.h). The core (lower.c
 * statements and variants, lower_expr.c expressions, lower_tile.c tile
 * ops) is shared; the API of each source language is a front end
 * (lower_ct.c cuTile Python, lower_tl.c Triton) reached through struct
 * lw_api.
 *
 * Anything outside the supported subset stops the lowering of the kernel
 * with lw_unsupported(), which jumps back to lower_kernel(): it reports
 * `FILE:LINE:COL: unsupported: <construct>`. Everything allocated while
 * lowering lives in the kernel's arena, so nothing leaks on the way out. */
#ifndef TILEPORT_PORT_LOWER_H
#define TILEPORT_PORT_LOWER_H

#include <setjmp.h>

#include "engine/port/pymod.h"
#include "engine/port/tir.h"

struct lw;

/* A front end. Each hook returns NULL when the name is not its own. */
struct lw_api {
	const char *lang; /* "cuTile Python", "Triton" */
	/* Which params are arrays, read off their uses before lowering. */
	void (*mark_arrays)(struct lw *lw, const struct py_node *def);
	/* A parameter annotation: 1 Constant int, 2 Constant bool, 0 not a
	 * constant; -1 refused (lw_unsupported). */
	int (*const_annotation)(struct lw *lw, const struct py_node *ann);
	/* A dotted API name that is a value: dtypes, enum members, math
	 * constants ("ct.float32", "ct.PaddingMode.ZERO"). */
	struct tval *(*name)(struct lw *lw, const char *api, const struct py_node *n);
	/* A call of an API function ("ct.load"). */
	struct tval *(*call)(struct lw *lw, const char *api, const struct py_node *call);
	/* A method call on a value (x.astype(...), x.to(...)). */
	struct tval *(*method)(struct lw *lw, struct tval *self, const char *meth,
			       const struct py_node *call);
	/* `target op= value` when the front end reads it specially
	 * (`acc += tl.dot(a, b)`); NULL otherwise. */
	struct tval *(*augassign)(struct lw *lw, struct tval *target, int op,
				  const struct py_node *value);
	/* The kernel decorator's hints (occupancy, num_ctas ...). */
	void (*hints)(struct lw *lw, const struct py_node *deco);
	/* A range-like iterable of a for loop (`tl.static_range`); returns
	 * the call's arguments as lo, hi, step or false. */
	bool (*range)(struct lw *lw, const char *api, const struct py_node *call,
		      const struct py_node **lo, const struct py_node **hi,
		      const struct py_node **step);
};

extern const struct lw_api lw_api_cutile;
extern const struct lw_api lw_api_triton;

struct lw_var {
	const char *name;
	struct tval *v;
	int carried; /* loop depth that carries it (its writes go to v->var); 0 none */
};

struct lw_env {
	struct lw_var *v;
	size_t n, cap;
};

struct lw_frame {
	struct py_node *const *stmts;
	size_t n, at;
	bool loop;    /* a loop body: everything in it is read again */
	bool barrier; /* a function body: names do not escape it */
	const struct lw_env *entry; /* a loop: the names defined when it starts */
};

/* A compile-time condition fixed for the entry being lowered. */
struct lw_bind {
	const char *py;
	bool value;
};

/* Why the lowering stopped: a Constant branch that needs two entries. */
struct lw_split {
	const char *py, *ffi;  /* the condition */
	const char *name_true, *name_false;
	int param;             /* the Constant param the condition tests, -1 */
	int cop;               /* 0: the param itself (bool); else the comparison with cval */
	int64_t cval;
	bool cneg;             /* the condition is the test negated */
};

enum lw_status { LW_OK, LW_UNSUPPORTED, LW_SPLIT };

#define LW_MAX_FRAMES 128
#define LW_MAX_INLINE 16

struct lw {
	struct tarena *a;
	const struct pymod *m;
	const struct pm_func *f;
	struct tkernel *k;
	struct tentry *e;
	const struct lw_api *api;
	struct tblock *cur;
	struct lw_env env;
	const struct lw_env *outer[LW_MAX_INLINE]; /* callers' environments while inlining */
	struct lw_frame frames[LW_MAX_FRAMES];
	int nframes;
	int loop_depth;
	struct lw_bind *binds;
	size_t nbinds;
	size_t param_cap;     /* room for params, synthesized extents included */
	int64_t *fixed;       /* per param: fixed constant value when has_fixed */
	bool *has_fixed;
	struct lw_split split;
	const char **names;   /* Rust identifiers taken (arena strings) */
	size_t nnames, capnames;
	const char **reserved; /* every identifier of the source function */
	size_t nreserved, capreserved;
	int inline_depth;
	const char *target;   /* the Python name being assigned, for naming */
	const struct py_node *stmt; /* the statement being lowered, for messages */
	/* a `check_bounds=FLAG` the Constants decide: the statement is lowered
	 * twice, in an `if FLAG`, with the flag taken as each side says */
	const struct py_node *bounds_flag;
	bool bounds_flag_value;
	jmp_buf jb;
	enum lw_status status;
	struct tp_err *err;
};

/* Heap strings must not be held across anything that can jump out: the
 * source names a lowering needs live in the arena. */
const char *lw_name(struct lw *lw, const struct py_node *n); /* n->s */
const char *lw_canon(struct lw *lw, const struct py_node *n); /* pymod_canon, or NULL */

/* ---- errors (lower.c) ---- */
TP_NORETURN void lw_unsupported(struct lw *lw, const struct py_node *at, const char *fmt, ...)
	TP_PRINTF(3, 4);

/* ---- names (lower.c) ---- */
/* A fresh Rust identifier based on `base` (a Python name or a hint). */
const char *lw_fresh(struct lw *lw, const char *base);
/* A runtime parameter's Rust name: snake case, unless that is a name the
 * source uses for something else. */
const char *lw_param_ident(struct lw *lw, const char *name);
/* A Python name as a Rust identifier (keywords get a trailing `_`). */
const char *lw_rust_ident(struct lw *lw, const char *name);
struct tvar *lw_var_new(struct lw *lw, const char *base);

/* ---- the environment (lower.c) ---- */
struct tval *lw_lookup(struct lw *lw, const char *name);
void lw_assign(struct lw *lw, const char *name, struct tval *v, const struct py_node *at);

/* ---- emitting (lower.c) ---- */
struct top *lw_op(struct lw *lw, enum top_kind kind, const struct py_node *at);
/* An op's tile result of dt and shape in a fresh variable named after hint. */
struct tval *lw_tile_res(struct lw *lw, struct top *op, enum tdt dt, const struct tshape *s,
			 const char *hint);
/* A tile used where integers are needed (an index, a pointer offset, a
 * loop bound): when it was read from an array whose element type nobody
 * gave, that array holds int32 (lower_int.c). */
void lw_want_int(struct lw *lw, struct tval *v);
/* Mark a param as read by the entry. */
void lw_use_param(struct lw *lw, int param);
/* A param used as an array: view (load/store) or pointer (gather/scatter)
 * (lower_view.c). */
struct tparam *lw_array(struct lw *lw, struct tval *v, const struct py_node *at, bool ptr,
			int rank);

/* ---- arrays through views and pointers (lower_view.c) ---- */
/* The array a pointer tile points into (down its offsets, broadcasts
 * and reshapes to the pointer_to_tile); -1 none. With dt, every pointer
 * tile on the way now points to dt. */
int lw_pointer_param(struct tval *ptrs, enum tdt dt);
/* The tensor view the entry builds from pointer array `param` for its view
 * accesses (the Rust name); NULL when the array is a &Tensor. */
const char *lw_tensor_view(struct lw *lw, int param, int rank, const struct py_node *at);
/* After an entry is lowered: refused when it writes such an array through
 * a view and touches it through pointers (or the reverse) where both run. */
void lw_check_view_order(struct lw *lw);

/* The Rust text of a scalar value (its variable once it has one). */
static inline const char *tv_rs(const struct tval *v)
{
	return v->var ? v->var->name : v->rs;
}
/* The first launch of `kernel` in a host function (`ct.launch(stream,
 * grid, K, args)` or `K[grid](args)`) and that function; NULL when none. */
const struct py_node *lw_launch_call(const struct pymod *m, const char *kernel,
				     const struct pm_func **host);
/* Does `arg` (a launch's kernel argument) stand for `kernel`, by its name
 * or through local names bound to it in the function holding arg? */
bool lw_names_kernel(const struct pymod *m, const struct py_node *arg, const char *kernel);
/* A kernel with other hints: `K.replace_hints(...)` or a helper's
 * `cached_replace_hints(K, ...)`; *kernel gets K's expression. */
bool lw_is_replace_hints(const struct py_node *call, const struct py_node **kernel);
/* The host's argument for kernel parameter `index` at its launch site, and
 * the host function holding it; NULL when no launch is found. */
const struct py_node *lw_host_arg(const struct pymod *m, const struct pm_func *k, size_t index,
				  const struct pm_func **host);
/* The last assignment `name = VALUE` in a function body before name's
 * line: VALUE, or NULL. */
const struct py_node *lw_host_assignment(const struct py_node *body, const struct py_node *name);
/* The element type the host gives an array argument, DT_E when it is the
 * operator's data type or unknown. */
enum tdt lw_host_array_dtype(const struct pymod *m, const struct pm_func *k, size_t index);
/* A tile stored without astype into an array whose element type
 * neither the host nor an earlier access gave: cuTile Python casts a
 * store only where it widens (float32 into E would not compile), so the
 * array holds the stored type (an f32 statistic beside E-typed data, int32
 * counts).
 * True when the array's type became dt. */
bool lw_adopt_stored_dtype(struct lw *lw, const struct tval *arr, enum tdt dt);
/* Does the host pass a float for kernel parameter `index` (a float
 * literal, float(...), a host parameter typed or defaulted float)? */
bool lw_host_float_arg(const struct pymod *m, const struct pm_func *k, size_t index);
/* Every array parameter's element type from the host (else the generic E). */
void lw_array_dtypes(struct lw *lw);

/* ---- expressions (lower_expr.c) ---- */
struct tval *lw_expr(struct lw *lw, const struct py_node *n);
/* Argument i (or keyword `name`) of a call, lowered; refused when absent. */
struct tval *lw_required(struct lw *lw, const struct py_node *call, size_t i, const char *name);
/* ct.static_assert / tl.static_assert: a condition known false is refused. */
struct tval *lw_static_assert(struct lw *lw, const struct tval *c, const char *front,
			      const struct py_node *call);
/* The kernel parameter a bare name is, or -1. */
int lw_param_named(struct lw *lw, const struct py_node *n);
/* Is n an integer known at translation time? Its value in *v. */
bool lw_known_int(struct lw *lw, const struct py_node *n, int64_t *v);
/* A tile shape from a tuple (or one int): literals and const generic
 * names only (rule 6). */
void lw_shape(struct lw *lw, const struct py_node *n, struct tshape *out);
void lw_shape_of(struct lw *lw, struct tval *v, const struct py_node *at, struct tshape *out);
enum tdt lw_dtype(struct lw *lw, const struct py_node *n);
int lw_axis(struct lw *lw, const struct py_node *n, int rank);
bool lw_truthy(struct lw *lw, const struct py_node *n, bool dflt);
/* The enum member a node names ("NEG_INF"), or NULL. */
const char *lw_enum(struct lw *lw, const struct py_node *n);
/* The extent (or, for raw pointer arrays, the stride) of an array on an
 * axis: the tensor's shape, or a parameter the FFI fills in. */
struct tval *lw_array_dim(struct lw *lw, int param, int axis, bool stride,
			  const struct py_node *at);
/* An integer scalar value as Rust (runtime or compile-time). */
const char *lw_int_rs(struct lw *lw, struct tval *v, const struct py_node *at);
/* A symbolic compile-time bool after the entry's bindings. */
struct tval *lw_cbool_sym(struct lw *lw, const char *rs, const char *ffi, const char *py,
			  bool pred_dtype);
/* The const generic testing the element type, E_IS_F32. */
struct tval *lw_dtype_pred(struct lw *lw, enum tdt d, bool equal);
/* Inline device function f (of module mod; NULL: the kernel's own). */
struct tval *lw_call_function(struct lw *lw, const struct pm_func *f, const struct pymod *mod,
				const struct py_node *call);

/* A compile-time float. */
struct tval *lw_cfloat(struct lw *lw, double d);

/* ---- operators (lower_ops.c) ---- */
struct tval *lw_binop(struct lw *lw, int op, struct tval *a, struct tval *b,
		      const struct py_node *at);
struct tval *lw_compare(struct lw *lw, int op, struct tval *a, struct tval *b,
			const struct py_node *at);
/* The PY_COMPARE, PY_UNARY, PY_BOOLOP and PY_IFEXP nodes. */
struct tval *lw_compare_expr(struct lw *lw, const struct py_node *n);
struct tval *lw_unary_expr(struct lw *lw, const struct py_node *n);
struct tval *lw_boolop_expr(struct lw *lw, const struct py_node *n);
struct tval *lw_ifexp(struct lw *lw, const struct py_node *n);
/* A scalar chosen at run time: `let x = if cond { a } else { b };`. */
struct tval *lw_scalar_if(struct lw *lw, const char *cond, const struct tval *a,
			  const struct tval *b, const struct py_node *at);
/* A float literal as Rust, without an exponent (coding rule 2). */
const char *lw_float_rs(struct lw *lw, double d, enum tdt dt);
/* Compile-time numbers with a known value, and that value. */
bool lw_known_num(const struct tval *v);
double lw_num(const struct tval *v);
bool lw_is_int_scalar(const struct tval *v);
bool lw_is_float_scalar(const struct tval *v);

/* ---- tile ops (lower_tile.c) ---- */
/* Tile ops name their results after the variable they are assigned to
 * (lw->target, while a statement is lowered): "x" then "x_sub"... */
const char *lw_hint(struct lw *lw, const char *suffix);
bool lw_is_tile(const struct tval *v);
bool lw_is_scalar(const struct tval *v); /* runtime or compile-time scalar */
/* A tile's shape; rank 0 for a scalar. */
void lw_shape_or_scalar(const struct tval *v, struct tshape *s);
struct tval *lw_to_tile(struct lw *lw, struct tval *v, enum tdt dt, const struct tshape *s,
			const struct py_node *at);
struct tval *lw_broadcast(struct lw *lw, struct tval *v, const struct tshape *s,
			  const struct py_node *at);
void lw_common_shape(struct lw *lw, const struct tshape *a, const struct tshape *b,
		     struct tshape *out, const struct py_node *at);
struct tval *lw_convert(struct lw *lw, struct tval *v, enum tdt dt, const struct py_node *at);
/* Element-wise binary op with broadcasting and promotion; fn is the Rust
 * operator ("+") or function ("true_div"), modes its trailing args. */
struct tval *lw_tile_binary(struct lw *lw, const char *fn, const char *modes, struct tval *a,
			    struct tval *b, bool result_bool, const struct py_node *at,
			    const char *inv);
struct tval *lw_tile_unary(struct lw *lw, const char *fn, const char *modes, struct tval *x,
			   const struct py_node *at, const char *inv);
struct tval *lw_exp(struct lw *lw, struct tval *x, bool ftz, const struct py_node *at);
struct tval *lw_select(struct lw *lw, struct tval *c, struct tval *a, struct tval *b,
		       const struct py_node *at);
/* kind: "sum" "max" "min" "prod"; axis < 0: all axes. */
struct tval *lw_reduce(struct lw *lw, const char *kind, struct tval *x, int axis, bool keepdims,
		       const struct py_node *at);
struct tval *lw_mma(struct lw *lw, struct tval *a, struct tval *b, struct tval *acc,
		    const struct py_node *at);
struct tval *lw_iota(struct lw *lw, const struct tdim *n, int64_t start, int64_t step,
		     enum tdt dt, const struct py_node *at);
struct tval *lw_full(struct lw *lw, const struct tshape *s, struct tval *value, enum tdt dt,
		     const struct py_node *at);
struct tval *lw_reshape(struct lw *lw, struct tval *x, const struct tshape *s,
			const struct py_node *at);
/* The shape calls both front ends have; `fn` names the call in refusals. */
struct tval *lw_reshape_to(struct lw *lw, struct tval *x, const struct py_node *shape,
			   const struct py_node *at);
struct tval *lw_broadcast_to(struct lw *lw, struct tval *x, const struct py_node *shape,
			     const char *fn, const struct py_node *at);
struct tval *lw_expand_dims(struct lw *lw, struct tval *x, const struct py_node *axis,
			    const char *fn, const struct py_node *at);
/* perm from a tuple of compile-time axes (`word`: "axes", "dims"). */
void lw_permutation(struct lw *lw, const struct tval *x, const struct py_node *axes,
		    const char *word, int *perm);
struct tval *lw_permute(struct lw *lw, struct tval *x, const int *perm,
			const struct py_node *at);
/* For messages: "tile", "integer"...; "tile (TILE_M, 1) of f32"; "(1, T)". */
const char *lw_kind(const struct tval *v);
const char *lw_describe(struct lw *lw, const struct tval *v);
const char *lw_shape_text(struct lw *lw, const struct tshape *s);

/* ---- memory (lower_mem.c) ---- */
/* View load/store of an array tile at an index (block units). */
struct tval *lw_load_view(struct lw *lw, struct tval *arr, struct tval **idx, size_t nidx,
			  const struct tshape *s, enum tpad pad, const int *order, int latency,
			  bool no_tma, const struct py_node *at);
void lw_store_view(struct lw *lw, struct tval *arr, struct tval **idx, size_t nidx,
		   struct tval *tile, int latency, bool no_tma, const struct py_node *at);
/* Pointer tiles: base + element offsets (an int tile of the access shape). */
struct tval *lw_pointers(struct lw *lw, struct tval *arr, struct tval *offsets,
			 const struct py_node *at);
/* `pad`: what the masked-off lanes read (NULL: anything). */
struct tval *lw_gather(struct lw *lw, struct tval *ptrs, enum tdt dt, struct tval *mask,
		       struct tval *pad, int latency, const struct py_node *at);
void lw_scatter(struct lw *lw, struct tval *ptrs, struct tval *value, struct tval *mask,
		int latency, const struct py_node *at);

/* ---- helpers both front ends call (lower_tile.c) ---- */
/* Math by name ("exp2", "sqrt", "tanh"...): is it one, and the op with
 * the mode arguments that function takes (rounding: NULL nearest even). */
bool lw_math_fn(const char *name);
struct tval *lw_math1(struct lw *lw, const char *name, struct tval *x, const char *rounding,
		      bool ftz, const struct py_node *at);
struct tval *lw_minmax(struct lw *lw, bool is_min, struct tval *a, struct tval *b, bool nan,
		       bool ftz, const struct py_node *at);
/* A reduction with a Python axis argument (None: all) and keepdims flag. */
struct tval *lw_reduction(struct lw *lw, const char *kind, struct tval *x,
			  const struct py_node *axis, const struct py_node *keep,
			  const struct py_node *at);
struct tval *lw_cdiv(struct lw *lw, struct tval *a, struct tval *b, const struct py_node *at);
/* Block id (or grid size with num_blocks) on a compile-time axis 0..2. */
struct tval *lw_block_id(struct lw *lw, bool num_blocks, const struct py_node *axis,
			 const struct py_node *at);
/* Logical and of two masks (either may be NULL). */
struct tval *lw_and_mask(struct lw *lw, struct tval *a, struct tval *b, const struct py_node *at);

/* ---- const generics the host computes (lower_derived.c) ---- */
/* A tile dimension that is arithmetic of int Constants (rs: "(N * N)"):
 * the name of the entry's const generic holding it (N_TIMES_N), which the
 * launcher computes; NULL when rs is anything else. */
const char *lw_derived_generic(struct lw *lw, const char *rs, const struct py_node *at);

/* ---- moving elements within a tile (lower_slice.c) ---- */
/* Prefix sum along axis (NULL: 0), backwards with reverse. */
struct tval *lw_cumsum(struct lw *lw, struct tval *x, const struct py_node *axis_n, bool reverse,
		       const struct py_node *at);
/* The sub-tile of shape shape_n at index_n, in sub-tile units. */
struct tval *lw_extract(struct lw *lw, struct tval *x, const struct py_node *index_n,
			const struct py_node *shape_n, const struct py_node *at);

/* ---- cuTile Python's element-wise calls (lower_ct_elem.c) ---- */
/* ct.NAME for the math, arithmetic, min/max and comparison families;
 * NULL when name is none of them. */
struct tval *lw_ct_elementwise(struct lw *lw, const char *name, const struct py_node *call);

/* ---- between the lowering's files (lower.c, lower_stmt.c,
 * lower_branch.c, lower_host.c) ---- */
/* Arrays of the lowering grow inside the arena. */
void *lw_grow_arena(struct tarena *a, void *p, size_t *cap, size_t need, size_t size);
#define xgrow_arena(lw, p, cap, need) lw_grow_arena((lw)->a, (p), (cap), (need), sizeof(*(p)))
/* Rust names: mark one taken; is one held by a live value (but skip)? */
void lw_take_name(struct lw *lw, const char *name);
bool lw_name_held(struct lw *lw, const char *rust, const struct lw_var *skip);
/* Does n read `name` (not counting what it assigns first)? */
bool lw_reads(const struct py_node *n, const char *name, int depth);
/* The environment: a name's entry, set (carried: the loop depth that
 * carries it, 0 none), removed; a copy for one side of a branch. */
struct lw_var *lw_env_find(struct lw_env *env, const char *name);
void lw_env_set(struct lw *lw, struct lw_env *env, const char *name, struct tval *v, int carried);
void lw_env_del(struct lw_env *env, const char *name);
struct lw_env lw_env_copy(struct lw *lw, const struct lw_env *env);
/* Values of one Rust type (kind, element type, shape), and values that
 * can be merged into a variable across a branch or a loop. */
bool lw_same_type(const struct tval *a, const struct tval *b);
bool lw_mergeable(const struct tval *v);
/* Is `name` read after the statement being lowered (in this block, the
 * enclosing ones, and the loops that repeat them)? */
bool lw_live_after(struct lw *lw, const char *name);
/* The names a statement list assigns, appended to *out. */
void lw_assigned(struct lw *lw, const struct py_node *n, const char ***out, size_t *nout,
		 size_t *cap, int depth);
/* A Rust name for `name` not held by another live value (skip: the one
 * being rebound). */
const char *lw_bind_name(struct lw *lw, const char *name, const struct lw_var *skip);
/* Write v into dst's variable in block b (a carried or merged value). */
void lw_write_into(struct lw *lw, struct tblock *b, struct tval *dst, struct tval *v,
		   const struct py_node *at);
/* A runtime scalar held in variable var. */
struct tval *lw_scalar_var(struct lw *lw, struct tval *v, struct tvar *var);
/* The name an assignment target binds, or NULL for other targets. */
const char *lw_target_name(const struct py_module *m, const struct py_node *t, struct lw *lw);
/* Statements: a block as a frame (loop: its names are carried), one
 * statement, an assignment to a target, an `if`. */
void lw_push_frame(struct lw *lw, const struct py_node *block, bool loop, bool barrier);
void lw_lower_frame(struct lw *lw);
void lw_lower_block(struct lw *lw, const struct py_node *block, bool loop);
void lw_lower_stmt(struct lw *lw, const struct py_node *s);
void lw_assign_target(struct lw *lw, const struct py_node *t, struct tval *v,
		      const struct py_node *at);
void lw_lower_if_stmt(struct lw *lw, const struct py_node *s);
/* An `if` on cond (lower_branch.c): statements then_b/else_b, or, for a
 * conditional expression assigned to target, the values value_t/value_f. */
/* cuTile Python's shared readers (lower_ct.c) and its gathers (lower_ct_ptr.c). */
int lw_ct_latency(struct lw *lw, const struct py_node *call);
size_t lw_ct_index_list(struct lw *lw, const struct py_node *n, struct tval ***out);
struct tval *lw_ct_gather(struct lw *lw, const struct py_node *call);
struct tval *lw_ct_scatter(struct lw *lw, const struct py_node *call);

bool lw_bounds_split(struct lw *lw, const struct py_node *s, const struct py_node *value,
		     const struct py_node *target);
void lw_lower_if(struct lw *lw, const struct py_node *s, struct tval *cond,
		 const struct py_node *then_b, const struct py_node *else_b,
		 const struct py_node *value_t, const struct py_node *value_f,
		 const struct py_node *target);
/* A flag argument (check_bounds=, allow_tma=): a compile-time True/False,
 * else, for a flag the Constants decide, `symbolic`; dflt when absent or
 * None. */
bool lw_flag(struct lw *lw, const struct py_node *n, bool dflt, bool symbolic);
/* The kernel's parameters from its signature and the host (lower_host.c),
 * then bound in the environment for one entry. */
void lw_make_params(struct lw *lw);
void lw_bind_params(struct lw *lw);

/* ---- driving (lower.c) ---- */
/* Lower kernel f of m with a front end into *out (one entry per
 * structural variant). Returns 0; -1 with err: TP_EXIT_FAILED for an
 * unsupported construct ("FILE:LINE:COL: unsupported: ..."). */
int lower_kernel(const struct pymod *m, const struct pm_func *f, const char *op,
		 struct tkernel **out, struct tp_err *err);
void tkernel_free(struct tkernel *k);

#endif
