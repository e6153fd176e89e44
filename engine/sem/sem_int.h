/* Internal to engine/sem: the normalised dataflow graph both sides of a
 * conversion are read into, and what reads and compares them.
 *
 * A side (the Python kernel, or one Rust entry) is evaluated symbolically
 * into a graph of tile operations: every value is a node, hash-consed, so
 * that two spellings of one computation inside a side are one node. The
 * constructors normalise as they build (sem_canon.c): integer index
 * arithmetic becomes a polynomial over its atoms, `a - b` on floats is
 * `a + -b`, `exp(x)` is `exp2(x * log2(e))` (flagged), a load with an
 * order is a permute of a plain load, broadcasts inside element-wise
 * operations are dropped, a convert moves inside a reshape, `fma` is a
 * multiply and an add (flagged), both spellings of a sigmoid are one node.
 * What the two sides then still spell differently the comparator
 * (sem_cmp.c) settles: parameters named differently, operands of
 * commutative operations, converts that are no-ops for the element type. */
#ifndef TILEPORT_SEM_SEM_INT_H
#define TILEPORT_SEM_SEM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "engine/base/util.h"
#include "engine/sem/sem.h"

#define SEM_MAX_RANK 6
#define SEM_MAX_ARGS 64

typedef uint32_t sid; /* a node of one graph; 0 is none */

/* Element types. SDT_E is the kernel's generic element type. */
enum sdt {
	SDT_NONE,
	SDT_BOOL,
	SDT_I8, SDT_I16, SDT_I32, SDT_I64,
	SDT_U8, SDT_U16, SDT_U32, SDT_U64,
	SDT_F16, SDT_BF16, SDT_F32, SDT_F64, SDT_TF32,
	SDT_F8E4M3, SDT_F8E5M2,
	SDT_E,
	SDT_PTR,   /* a pointer (tile) */
	SDT__COUNT
};
const char *sdt_name(int d); /* "f32", "E" */
bool sdt_is_int(int d);
bool sdt_is_float(int d); /* E counts as float */
/* cuTile, Triton, torch, numpy and Rust spellings ("float32", "fp32",
 * "f32", "int32", "tfloat32"...); SDT_NONE when unknown. */
int sdt_from_name(const char *s, size_t n);

enum sop {
	S_NONE,
	/* leaves */
	S_INT,     /* ival */
	S_FLOAT,   /* fval */
	S_BOOL,    /* ival */
	S_UNDEF,   /* an undefined value (no padding) */
	S_PARAM,   /* ival: the side's parameter index */
	S_SHAPE,   /* a[0] array param; ival axis */
	S_STRIDE,  /* a[0] array param; ival axis */
	S_BID,     /* ival axis */
	S_NBLOCKS, /* ival axis */
	S_IV,      /* ival loop */
	S_CARRY,   /* ival loop, attr slot */
	S_IOTA,    /* dims[0] */
	/* integer arithmetic, scalars and tiles alike */
	S_POLY,    /* args: monomials */
	S_MONO,    /* ival coefficient; args: atoms, sorted */
	S_FLOORDIV,
	S_MOD,
	S_IMIN,    /* args sorted */
	S_IMAX,
	S_ICMP,    /* attr enum icmp_rel; a[0] a polynomial */
	S_IBIT,    /* attr: '&' '|' '^' '<' (shl) '>' (shr) '~' (not, one arg) */
	/* booleans */
	S_AND, S_OR, S_XOR, /* args sorted, flattened */
	S_NOT,
	/* floats */
	S_FADD,    /* args sorted */
	S_FMUL,    /* args sorted */
	S_FNEG,
	S_FDIV,
	S_FREM,
	S_FMAX,    /* args sorted */
	S_FMIN,
	S_FCMP,    /* attr enum fcmp_pred (lt, le, eq, ne); a[0] a[1] */
	S_MATH,    /* attr enum smath; a[0] */
	S_POW,
	S_ATAN2,
	S_SIGMOID,
	/* general */
	S_SELECT,  /* a[0] cond, a[1] then, a[2] else */
	S_CONVERT, /* dt the target */
	S_RESHAPE,
	S_BROADCAST, /* numpy broadcast_to: leading dims added, unit dims repeated */
	S_PERMUTE, /* ival: the permutation, 4 bits a dim */
	S_REDUCE,  /* attr enum sreduce; ival axis */
	S_MMA,     /* a[0] lhs, a[1] rhs, a[2] acc */
	S_LOAD,    /* a[0] array, a[1..] index; dims the tile; attr padding */
	S_GATHER,  /* a[0] array, a[1] offset, a[2] mask (0 none), a[3] padding (0 undefined) */
	S_LOOPRES, /* ival loop, attr slot */
	S_OPAQUE,  /* a call of something else: name, args */
	S__COUNT
};

enum icmp_rel { IC_LT0, IC_EQ0, IC_NE0 };
enum fcmp_pred { FC_LT, FC_LE, FC_EQ, FC_NE, FC_ORD, FC_UNO };
enum sreduce { SR_SUM, SR_MAX, SR_MIN, SR_PROD };
enum smath {
	SM_EXP2, SM_LOG, SM_LOG2, SM_SQRT, SM_RSQRT, SM_SIN, SM_COS, SM_TAN, SM_SINH, SM_COSH,
	SM_TANH, SM_FLOOR, SM_CEIL, SM_ABS, SM_EXP /* only before canonicalisation */
};
/* View paddings (cuTile PaddingMode / Rust padding::). */
enum spad { SP_UNDETERMINED, SP_ZERO, SP_NEG_ZERO, SP_NAN, SP_POS_INF, SP_NEG_INF };
const char *spad_name(int p);

/* Node flags: how a side spelled what the canonical form hides. */
enum {
	SF_FROM_EXP = 1,      /* S_MATH exp2: written exp(x) */
	SF_FROM_FMA = 2,      /* S_FADD: written fma(a, b, c) */
	SF_SIG_POS = 4,       /* S_SIGMOID: written exp(x) / (1 + exp(x)) */
	SF_FROM_ORDER = 8,    /* S_PERMUTE: the order of a load */
	SF_FOLDED = 16,       /* a constant folded into its use */
};

/* Hints: compared apart from the computation (a difference is a WARN).
 * -1 is "not given" throughout. */
struct shint {
	int16_t latency;      /* cycles; -2 symbolic (lat_sym) */
	int8_t tma;           /* 1 allowed, 0 disabled */
	int8_t ftz;           /* 1 flush to zero */
	int8_t rnd;           /* enum srnd */
	int8_t nan;           /* 1 propagate */
	const char *lat_sym;  /* a Constant's name */
};
enum srnd { RND_NEAREST, RND_APPROX, RND_FULL, RND_ZERO, RND_NEG_INF, RND_POS_INF };
#define SHINT_NONE ((struct shint){-1, -1, -1, -1, -1, NULL})
bool shint_eq(const struct shint *a, const struct shint *b);

struct snode {
	uint8_t op;
	uint8_t dt;
	uint8_t rank;
	uint8_t flags;
	uint16_t nargs;
	int16_t attr;
	int32_t line;       /* where this side first computed it */
	uint32_t hash;
	int64_t ival;
	double fval;
	sid *args;
	sid dims[SEM_MAX_RANK]; /* each an S_INT or a constant parameter */
	struct shint h;
	const char *name;   /* parameters, opaque calls */
	const char *var;    /* the first variable that held it (for messages) */
};

/* A loop of one side. The body was evaluated once with S_IV and S_CARRY
 * leaves; a slot's update is what the body leaves in its variable. */
struct sloop {
	sid lo, hi, step;
	sid *init, *update;
	const char **slot_name;
	size_t nslots;
	int parent;         /* enclosing loop, -1 */
	int line;
	const char *iv_name;
	bool orphan;        /* a first reading, read again (induction variables) */
};

/* A write to memory. */
enum seff_kind { SE_STORE, SE_SCATTER };
struct seffect {
	enum seff_kind kind;
	sid array;          /* S_PARAM */
	sid *idx;           /* SE_STORE: the tile index */
	size_t nidx;
	sid offset;         /* SE_SCATTER: the element offset */
	sid dims[SEM_MAX_RANK];
	int rank;
	sid value, mask, cond; /* mask, cond 0: none */
	int loop;           /* innermost loop, -1 */
	struct shint h;
	int line;
};

/* Parameters of a side. */
enum sparam_kind {
	SPK_ARRAY,     /* a tensor or pointer */
	SPK_SCALAR,    /* a runtime scalar */
	SPK_CONST,     /* a compile-time constant */
	SPK_UNKNOWN,   /* Python: not annotated; its use decides */
};
struct sparam {
	const char *name;
	enum sparam_kind kind;
	int dt;             /* arrays: element type; scalars, constants: their type */
	bool ptr;           /* Rust: *mut E; Python: used through pointers */
	int rank;           /* arrays: -1 unknown */
	int line;
	/* Rust scalars the launcher fills with an array's shape or stride
	 * (ffi.rs, or the `a_shape0` naming): what to read instead */
	int derived;        /* 0 none, S_SHAPE, S_STRIDE */
	int derived_of, derived_axis;
	/* a source Constant the paired variant fixes (`{kernel}_{c}_eq_{N}`) */
	bool fixed;
	long long fixed_value;
	/* a Rust const generic the launcher computes from the others
	 * (`N * N`, a tile dimension: no const arithmetic in a type) */
	const char *derived_expr;
};

struct sarena;
struct sarena *sarena_new(void);
void sarena_free(struct sarena *a);
void *sa_alloc(struct sarena *a, size_t n);
const char *sa_strndup(struct sarena *a, const char *s, size_t n);
const char *sa_printf(struct sarena *a, const char *fmt, ...) TP_PRINTF(2, 3);

struct sgraph {
	struct sarena *arena;
	struct snode *n;
	size_t nn, cap;
	uint32_t *ht;
	size_t htcap;
	struct sloop *loops;
	size_t nloops, caploops;
	struct seffect *eff;
	size_t neff, capeff;
	struct sparam *params;
	size_t nparams;
	int side;            /* 0 source, 1 Rust */
	/* the truth of the constant conditions of the case being evaluated */
	struct scase *cs;
	/* kernel-level hints */
	struct skhint *khints;
	size_t nkhints;
	/* dead values the side computed: loads nothing uses (NOTE) */
	int *unused_loads;
	size_t nunused;
	int line;            /* the statement being read: new nodes get it */
	/* set when the reader met a construct it cannot follow */
	char *problem;
	int problem_line;
};

struct skhint {
	const char *target; /* "sm_100", "" for every target */
	const char *key;    /* occupancy, num_ctas */
	long long value;
};

void sg_init(struct sgraph *g, int side);
void sg_free(struct sgraph *g);
static inline const struct snode *SN(const struct sgraph *g, sid x)
{
	return &g->n[x];
}
/* The hash-consed node of this content (line and var of the first). */
sid sg_node(struct sgraph *g, const struct snode *proto, const sid *args, size_t nargs);
sid sg_int(struct sgraph *g, int64_t v);
sid sg_float(struct sgraph *g, double v, int dt);
sid sg_bool(struct sgraph *g, bool v);
sid sg_undef(struct sgraph *g, int dt);
sid sg_param(struct sgraph *g, int index);
sid sg_leaf(struct sgraph *g, int op, int64_t ival, int dt);
int sg_add_loop(struct sgraph *g, int parent, int line);
void sg_add_effect(struct sgraph *g, const struct seffect *e);
void sg_problem(struct sgraph *g, int line, const char *fmt, ...) TP_PRINTF(3, 4);

/* Shapes: a node's dims as an array; rank in *rank. */
bool sg_same_shape(const struct sgraph *g, sid a, sid b);
bool sg_dims_eq(const sid *a, int ra, const sid *b, int rb);
/* numpy broadcasting of two shapes; false when they do not broadcast */
bool sg_bcast_shape(const struct sgraph *g, const sid *a, int ra, const sid *b, int rb, sid *out,
		    int *rout);
bool sg_is_int_lit(const struct sgraph *g, sid x, int64_t *v);
bool sg_is_float_lit(const struct sgraph *g, sid x, double *v);

/* ---- canonical constructors (sem_canon.c) ---- */

/* integers */
sid ic_add(struct sgraph *g, sid a, sid b);
sid ic_sub(struct sgraph *g, sid a, sid b);
sid ic_mul(struct sgraph *g, sid a, sid b);
sid ic_neg(struct sgraph *g, sid a);
sid ic_floordiv(struct sgraph *g, sid a, sid b);
sid ic_mod(struct sgraph *g, sid a, sid b);
sid ic_cdiv(struct sgraph *g, sid a, sid b);
sid ic_minmax(struct sgraph *g, bool max, sid a, sid b);
/* a < b, a <= b ... on integers; op one of '<' 'l' (<=) '>' 'g' (>=) '=' '!' */
sid ic_cmp(struct sgraph *g, int op, sid a, sid b);
sid ic_bit(struct sgraph *g, int op, sid a, sid b);
/* booleans */
sid bc_and(struct sgraph *g, sid a, sid b);
sid bc_or(struct sgraph *g, sid a, sid b);
sid bc_xor(struct sgraph *g, sid a, sid b);
sid bc_not(struct sgraph *g, sid a);
/* floats; h the operation's hints */
sid fc_add(struct sgraph *g, sid a, sid b, struct shint h);
sid fc_sub(struct sgraph *g, sid a, sid b, struct shint h);
sid fc_mul(struct sgraph *g, sid a, sid b, struct shint h);
sid fc_div(struct sgraph *g, sid a, sid b, struct shint h);
sid fc_neg(struct sgraph *g, sid a);
sid fc_fma(struct sgraph *g, sid a, sid b, sid c, struct shint h);
sid fc_minmax(struct sgraph *g, bool max, sid a, sid b, struct shint h);
sid fc_cmp(struct sgraph *g, int op, sid a, sid b);
sid fc_math(struct sgraph *g, int fn, sid a, struct shint h);
sid fc_binary(struct sgraph *g, int op, sid a, sid b); /* S_FREM, S_POW, S_ATAN2 */
/* by element type: integer or float arithmetic; op '+' '-' '*' '/' (true
 * division) 'd' (floor division) '%' */
sid sc_arith(struct sgraph *g, int op, sid a, sid b, struct shint h);
sid sc_cmp(struct sgraph *g, int op, sid a, sid b);
sid sc_minmax(struct sgraph *g, bool max, sid a, sid b, struct shint h);
sid sc_select(struct sgraph *g, sid c, sid a, sid b);
/* shape and type */
sid sc_convert(struct sgraph *g, sid a, int dt);
sid sc_reshape(struct sgraph *g, sid a, const sid *dims, int rank);
sid sc_broadcast(struct sgraph *g, sid a, const sid *dims, int rank);
sid sc_permute(struct sgraph *g, sid a, const int *perm, int rank);
sid sc_reduce(struct sgraph *g, int kind, sid a, int axis);
sid sc_mma(struct sgraph *g, sid a, sid b, sid acc);
sid sc_iota(struct sgraph *g, sid n, int dt);
/* a constant or scalar as a tile of the given shape */
sid sc_full(struct sgraph *g, sid v, const sid *dims, int rank);
/* loads: a view load (order NULL: identity) and a pointer load */
sid sc_load(struct sgraph *g, sid array, const sid *idx, int nidx, const sid *dims, int rank,
	    int padding, const int *order, struct shint h, int dt);
sid sc_gather(struct sgraph *g, sid array, sid offset, sid mask, sid pad, struct shint h, int dt);
sid sc_opaque(struct sgraph *g, const char *name, const sid *args, size_t n, int dt);
/* a prefix sum along axis (backwards with reverse), and the sub-tile of
 * shape dims at idx (in sub-tiles) */
sid sc_scan_sum(struct sgraph *g, sid a, int axis, bool reverse);
sid sc_extract(struct sgraph *g, sid a, const sid *idx, int nidx, const sid *dims, int rank);
/* the element type and shape a value has */
int sg_dt(const struct sgraph *g, sid x);

/* ---- constant conditions of a case ---- */

/* A condition on compile-time constants (`BANDWIDTH > 0`, a bool
 * Constant, `E == f32`): the case assigns each a truth value. Atoms are
 * named by text in the source's terms, so both sides share them. */
#define SEM_MAX_ATOMS 12
struct scase {
	const char *atom[SEM_MAX_ATOMS];
	bool side_has[SEM_MAX_ATOMS][2];
	size_t natoms;
	unsigned value;       /* bit i: atom i holds */
	unsigned consulted;   /* bit i: a read asked for atom i (what its graph depends on) */
	bool e_is_f32;        /* the element type is f32 in this case */
};
/* The index of an atom, added when new (-1 when full). */
int scase_atom(struct scase *c, const char *text, int side);
bool scase_value(struct scase *c, int atom);

/* ---- rendering for messages ---- */

/* A node as a short expression in its side's names ("A[bid_m, k]",
 * "exp2(x * 1.4427)"); depth-limited. */
void sg_render(const struct sgraph *g, sid x, int depth, struct sbuf *out);
char *sg_render_str(const struct sgraph *g, sid x, int depth);
const char *sem_op_name(int op);
/* the graph, a node a line (TILEPORT_SEM_DUMP=1) */
void sg_dump(const struct sgraph *g, FILE *out);

#endif
