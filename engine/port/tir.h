/* Internal to engine/port: the tile-level representation a kernel is
 * lowered into before Rust is written. A kernel is a list of entries (one
 * per structural variant); an entry is a tree of blocks holding tile-level
 * ops (load with padding, convert, reduce on an axis, mma, store, ...),
 * loops and branches, each op with the source line it came from.
 *
 * Values are typed: runtime scalars and compile-time constants (kept as
 * Rust expressions, so that const generics stay symbolic), tiles with an
 * element type and a shape, kernel arrays, dtypes, tuples. Every tile
 * value lives in a named Rust variable (struct tvar), which is what makes
 * the written kernel follow the rules that ask for one typed `let` per
 * rank- or type-changing call (coding rules 1, 4, 47). */
#ifndef TILEPORT_PORT_TIR_H
#define TILEPORT_PORT_TIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/base/util.h"

#define TIR_MAX_RANK 5

/* Element types. DT_E is the entry's generic element type (rule 16). */
enum tdt {
	DT_NONE,
	DT_E,
	DT_BOOL,
	DT_I8, DT_I16, DT_I32, DT_I64,
	DT_U8, DT_U16, DT_U32, DT_U64,
	DT_F16, DT_BF16, DT_F32, DT_F64, DT_TF32,
	DT_F8E4M3FN, DT_F8E5M2,
	DT__COUNT
};

const char *tdt_rust(enum tdt d);  /* "f32", "E", "bool" */
const char *tdt_name(enum tdt d);  /* "float32" (cuTile spelling), "E" */
bool tdt_is_float(enum tdt d);     /* E counts as float */
bool tdt_is_int(enum tdt d);
/* cuTile (`float32`, `int32`, `tfloat32`...) and Triton (`float32`,
 * `fp32`, `int32`...) dtype names; DT_NONE when unknown. */
enum tdt tdt_from_name(const char *name);
/* The FFI dtype code (pipeline.md §4.6) of a concrete type, -1 if none. */
int tdt_ffi_code(enum tdt d);
const char *tdt_ffi_str(enum tdt d); /* "f16" */

/* A dimension: a literal size or a const generic name. */
struct tdim {
	int64_t lit;
	const char *sym; /* NULL for a literal */
};

struct tshape {
	int rank;
	struct tdim d[TIR_MAX_RANK];
};

bool tshape_eq(const struct tshape *a, const struct tshape *b);
/* "1, TILE_SIZE" */
void tshape_list(const struct tshape *s, struct sbuf *out);
/* "{[1, TILE_SIZE]}" */
void tshape_type(const struct tshape *s, struct sbuf *out);

/* A Rust variable of the entry. */
struct tvar {
	const char *name;
	bool mut;       /* assigned after its let (a loop carries it) */
	bool temp;      /* an op result no Python name holds yet */
};

enum tval_kind {
	TV_NONE,
	TV_INT,      /* runtime i32 scalar: rs */
	TV_FLOAT,    /* runtime float scalar: rs, dt */
	TV_BOOL,     /* runtime scalar bool: rs */
	TV_CINT,     /* compile-time int: known (ival) or symbolic (rs) */
	TV_CFLOAT,   /* compile-time float literal: fval */
	TV_CBOOL,    /* compile-time bool: known (ival) or symbolic (rs, ffi, py) */
	TV_TILE,     /* tile: dt, shape, var */
	TV_ARRAY,    /* kernel array: param */
	TV_DTYPE,    /* a dtype: dt */
	TV_TUPLE,    /* elems */
	TV_ENUM,     /* an API enum member: "NEG_INF", "APPROX" */
	TV_STR,      /* a string literal: rs holds the value */
	TV_BLOCKPTR, /* Triton block pointer: param, index (elems), block shape, padding */
	TV_PTRS,     /* Triton pointer tile: param plus an offset tile (elems[0]) */
	TV_SLICE,    /* `:` in a subscript */
};

struct tval {
	enum tval_kind kind;
	enum tdt dt;
	bool known;          /* CINT / CBOOL with a known value */
	int64_t ival;
	double fval;
	const char *rs;      /* Rust expression (scalars, symbolic constants) */
	const char *ffi;     /* CBOOL: the same over the FFI's i32 parameters */
	const char *py;      /* CBOOL: the same in Python, for analysis.json */
	bool pred_dtype;     /* CBOOL: a test of the element type (not a Constant) */
	struct tshape shape; /* TILE, BLOCKPTR (block shape) */
	struct tvar *var;    /* TILE */
	bool ptr_tile;       /* TILE of pointers (PointerTile) */
	int param;           /* ARRAY, BLOCKPTR, PTRS */
	struct tval **elems; /* TUPLE; BLOCKPTR indices; PTRS offsets */
	size_t nelems;
	int padding;         /* BLOCKPTR: enum tpad */
	struct top *def;     /* the op that produced it (TILE and scalar lets) */
	int cparam;          /* CBOOL: the Constant param it tests (-1: none) */
	int cop;             /* CBOOL: PYOP_EQ ... against cval; 0 a bare bool param */
	int64_t cval;
	bool cneg;           /* CBOOL: the negation of that test */
	/* FLOAT: a compile-time float of the source (a Constant[float], and
	 * arithmetic of those and literals) the Rust has at run time. cuTile
	 * types it as a literal, taking a tile's element type, where a `float`
	 * parameter is an f32 that f16 and bf16 tiles promote to */
	bool weak;
};

/* Padding modes of view loads (cuTile PaddingMode). */
enum tpad { PAD_UNDETERMINED, PAD_ZERO, PAD_NEG_ZERO, PAD_NAN, PAD_POS_INF, PAD_NEG_INF };
const char *tpad_rust(enum tpad p); /* "padding::NegInf" */
const char *tpad_name(enum tpad p); /* "NEG_INF" */

/* ---- ops ---- */

enum top_kind {
	TOP_LET,        /* res = a[0] (a copy into a carried or declared variable) */
	TOP_BID,        /* res(int) = block id on axis */
	TOP_NUM_BLOCKS, /* res(int) = grid size on axis */
	TOP_NUM_TILES,  /* res(int) = tiles of array param on axis for shape */
	TOP_SCALAR,     /* res = a scalar Rust expression (text), for an int/float/bool let */
	TOP_LOAD,       /* view load: param, index elems, shape, padding, order, latency, tma */
	TOP_STORE,      /* view store: param, index elems, a[0] tile */
	TOP_GATHER,     /* pointer load: a[0] pointer tile, a[1] mask or NULL; padding text, converted
	                 * into v1 where fn is convert_scalar */
	TOP_SCATTER,    /* pointer store: a[0] pointer tile, a[1] value, a[2] mask or NULL */
	TOP_PTR_BASE,   /* res(ptr tile rank 0) = pointer_to_tile(param) */
	TOP_PTR_OFFSET, /* res = a[0].offset_tile(a[1]) */
	TOP_TENSOR_VIEW, /* v1 = make_tensor_view(pointer_to_tile(param)) over shape.rank axes: idx the
	                  * extents, then the strides of every axis but the last (static 1); v2, lo, hi
	                  * name the pointer tile, the Shape and the Array */
	TOP_CONVERT,    /* res = convert_tile(a[0]) */
	TOP_BINARY,     /* res = a[0] OP a[1]: fn names the Rust call or operator */
	TOP_UNARY,      /* res = fn(a[0], modes) */
	TOP_SELECT,     /* res = select(a[0], a[1], a[2]) */
	TOP_REDUCE,     /* res = reduce_{fn}(a[0], axis) */
	TOP_MMA,        /* res = mmaf/mmai(a[0], a[1], a[2]) */
	TOP_IOTA,       /* res = iota(shape) */
	TOP_CONSTANT,   /* res = constant(literal text, shape) */
	TOP_SPLAT,      /* res = broadcast_scalar(scalar text, shape) */
	TOP_TO_TILE,    /* res(rank 0) = scalar_to_tile(scalar text) */
	TOP_RESHAPE,    /* res = a[0].reshape(shape) */
	TOP_BROADCAST,  /* res = a[0].broadcast(shape) */
	TOP_PERMUTE,    /* res = permute(a[0], perm) */
	TOP_ASSUME,     /* assume_div_by::<_, N>(pointer param), or res = of a[0] (a pointer tile) */
	TOP_FOR,        /* loop: iv, lo, hi, step (texts), body */
	TOP_IF,         /* branch: cond text, then, else */
	TOP_COMMENT,    /* a comment line in the generated code */
};

struct tblock;

struct top {
	enum top_kind kind;
	int line, col;         /* source position */
	struct tval *res;      /* NULL for stores, loops, branches */
	bool assign;           /* write an existing (mut or declared) variable */
	struct tval *a[4];
	int na;
	const char *fn;        /* Rust function/method/operator and op name */
	const char *v1, *v2;   /* auxiliary Rust names: a partition, a token */
	const char *text;      /* SCALAR expression, CONSTANT literal, FOR iv, IF cond, comment */
	const char *lo, *hi, *step; /* FOR bounds (Rust expressions) */
	int param;             /* LOAD/STORE/PTR_BASE/NUM_TILES/ASSUME array */
	int axis;              /* BID/NUM_BLOCKS/NUM_TILES/REDUCE axis; ASSUME divisor */
	struct tshape shape;   /* LOAD/IOTA/CONSTANT/SPLAT/RESHAPE/BROADCAST/NUM_TILES */
	struct tval **idx;     /* LOAD/STORE index scalars */
	size_t nidx;
	int padding;           /* LOAD: enum tpad */
	int order[TIR_MAX_RANK]; /* LOAD dim_map, PERMUTE; order[0] < 0 = identity */
	int latency;           /* view and pointer ops; -1 none */
	bool no_tma;           /* allow_tma=False */
	const char *modes;     /* extra trailing arguments: "rounding::NearestEven, ftz::Disabled" */
	bool has_pad_value;
	bool int_literal;      /* CONSTANT: the source wrote an integer (2, not 2.0) */
	struct tblock *body, *orelse; /* FOR body; IF then/else */
	struct tval **decls;   /* IF: variables declared before it (`let x: T;`) */
	size_t ndecls;
	/* the tile-level operation this op stands for in the inventory, with
	 * its attributes; NULL for plumbing (reshape, broadcast, splat...) */
	const char *inv;
	const char *inv_attr;
	bool implicit;         /* added by the translation (bounds masks, promotions) */
	const char *note;      /* why the op is there, for a comment in the Rust ("exp") */
	/* FLOAT: a compile-time float of the source (a Constant[float], and
	 * arithmetic of those and literals) the Rust has at run time. cuTile
	 * types it as a literal, taking a tile's element type, where a `float`
	 * parameter is an f32 that f16 and bf16 tiles promote to */
	bool weak;
	const char *view;      /* LOAD/STORE/NUM_TILES of a pointer array: its TENSOR_VIEW (v1) */
};

struct tblock {
	struct top **ops;
	size_t n, cap;
};

enum tparam_kind {
	TP_ARRAY,   /* a tensor or raw pointer */
	TP_SCALAR,  /* a runtime scalar */
	TP_CONST,   /* a compile-time constant: a const generic */
	TP_SHAPE,   /* synthesized: a pointer array's extent on one axis */
	TP_STRIDE,  /* synthesized: a pointer array's stride on one axis */
};

struct tparam {
	char *name;          /* the source name */
	char *rs;            /* the Rust name */
	enum tparam_kind kind;
	enum tdt dt;         /* arrays: element type; scalars: i32/f32/bool; consts: i32/bool */
	int rank;            /* arrays: the rank of the entries (see tentry.param_rank) */
	bool ptr;            /* array addressed by pointers (gather/scatter, Triton pointers) */
	bool view;           /* array addressed by views (load/store, block pointers) */
	bool used;           /* the entry reads it */
	bool dt_default;     /* arrays: the host does not say the element type */
	bool weak;           /* a ct.Constant[float] passed at run time: typed as a literal */
	int of;              /* TP_SHAPE/TP_STRIDE: the array; and the axis */
	int axis;
	int line, col;
	int source_index;    /* position in the source signature; -1 synthesized */
};

/* A const generic the launcher computes from the Constants (a tile of
 * `N * N`: no const arithmetic in a Rust type, coding rule 6). */
struct tderived {
	const char *name; /* N_TIMES_N */
	const char *expr; /* Rust over the Constants' generics: "N * N" */
};

/* A structural variant: one Rust entry. */
struct tentry {
	char *name;          /* Rust entry name */
	char *variant;       /* "" for a single entry */
	char *dispatch_py;   /* when it runs, in Python over the Constant values ("always") */
	char *dispatch_ffi;  /* the same in Rust over the FFI parameters (NULL: always) */
	struct tblock body;
	bool *param_used;    /* per kernel param */
	int *param_rank;     /* per array param: the rank its accesses show, -1 none */
	char **generics;     /* const generic names in order, after E */
	size_t ngenerics;
	struct tderived *derived; /* the generics that are no parameter, last */
	size_t nderived;
	bool uses_e;
	/* const generics that test the element type: E_IS_F32 ... */
	char **preds;
	enum tdt *pred_dt;
	size_t npreds;
};

enum tfrontend { FE_CUTILE, FE_TRITON };

struct thint {
	char *target;  /* "sm_100", "default" */
	char *key;     /* "occupancy", "num_cta_in_cga", "num_worker_warps_per_cta" */
	long long value;
};

struct tkernel {
	struct tarena *arena;   /* owns the kernel and everything it points to */
	char *name;             /* the kernel function */
	char *module;           /* the Rust module: {op}_module */
	enum tfrontend fe;
	int line;               /* of the def */
	struct tparam *params;
	size_t nparams;
	struct tentry *entries;
	size_t nentries;
	struct thint *hints;
	size_t nhints;
	bool ptr_pattern;       /* some array is pointer-addressed */
	bool view_pattern;      /* some array is view-addressed */
};

/* ---- construction (tir.c); everything lives in the arena ---- */

struct tarena;
struct tarena *tarena_new(void);
void tarena_free(struct tarena *a);
void *ta_alloc(struct tarena *a, size_t n);
char *ta_strdup(struct tarena *a, const char *s);
char *ta_printf(struct tarena *a, const char *fmt, ...) TP_PRINTF(2, 3);

struct tval *tv_new(struct tarena *a, enum tval_kind kind);
struct tval *tv_int(struct tarena *a, const char *rs);
struct tval *tv_cint(struct tarena *a, int64_t v);
struct tval *tv_csym(struct tarena *a, const char *rs);
struct tval *tv_cbool(struct tarena *a, bool v);
struct tval *tv_tuple(struct tarena *a, size_t n);

struct top *top_new(struct tarena *a, enum top_kind kind, int line, int col);
void tblock_add(struct tarena *a, struct tblock *b, struct top *op);

#endif
