/* Tile IR (cuda_tile dialect) in memory: one model filled by the text parser
 * and the bytecode reader, printed by one canonical printer, diffed by
 * irdiff.h.
 *
 * Shape of the model (MLIR-like, so that every op is handled uniformly):
 *   module (a file)      -> units: one `cuda_tile.module` op per `// -----` chunk
 *   unit  op "module"    -> 1 region, 1 block of `global` and `entry` ops
 *   entry op "entry"     -> 1 region, 1 block whose arguments are the kernel args
 *   any op               -> operands (grouped as the registry says), results,
 *                           named attributes, regions -> blocks -> args + ops
 * Everything a module owns lives in its arena and is freed by ir_module_free.
 * Types are interned per module (pointer equality within one module;
 * ir_type_equal across modules).
 *
 * Builders never fail (allocation failure aborts); they do no verification.
 * A decoder builds ops with ir_op_new*, adds operands / results / attributes /
 * regions, appends the op to its block, and calls ir_op_finish when done. */
#ifndef TILEPORT_IR_IR_H
#define TILEPORT_IR_IR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/base/util.h"

struct ir_module;
struct ir_op;
struct ir_block;
struct ir_region;

/* ------------------------------------------------------------------ */
/* Element types                                                       */

/* X(ID, printed name, storage bits, is_float) */
#define IR_ELEM_LIST(X)                                                                        \
	X(I1, "i1", 1, 0) X(I4, "i4", 4, 0) X(I8, "i8", 8, 0) X(I16, "i16", 16, 0)                 \
	X(I32, "i32", 32, 0) X(I64, "i64", 64, 0) X(F16, "f16", 16, 1) X(BF16, "bf16", 16, 1)      \
	X(F32, "f32", 32, 1) X(TF32, "tf32", 19, 1) X(F64, "f64", 64, 1)                           \
	X(F8E4M3FN, "f8E4M3FN", 8, 1) X(F8E5M2, "f8E5M2", 8, 1) X(F8E8M0FNU, "f8E8M0FNU", 8, 1)    \
	X(F4E2M1FN, "f4E2M1FN", 4, 1) X(F8E5M3FNU, "f8E5M3FNU", 8, 1)

enum ir_elem {
	IR_ELEM_NONE = 0,
#define IR_X(id, name, bits, fl) IR_##id,
	IR_ELEM_LIST(IR_X)
#undef IR_X
	IR_ELEM_COUNT
};

const char *ir_elem_name(enum ir_elem e);     /* "f32"; "?" for NONE */
enum ir_elem ir_elem_lookup(const char *s, size_t len); /* IR_ELEM_NONE if unknown */
int ir_elem_bits(enum ir_elem e);             /* value bits: i1 1, tf32 19, f4E2M1FN 4 */
bool ir_elem_is_float(enum ir_elem e);
bool ir_elem_is_int(enum ir_elem e);

/* ------------------------------------------------------------------ */
/* Enumerations carried by attributes (value = bytecode wire value)     */

/* X(ID, default-less list of keywords in wire order) -- see ir_enum_keyword */
enum ir_enum_kind {
	IR_EN_SIGNEDNESS,   /* unsigned signed */
	IR_EN_OVERFLOW,     /* none no_signed_wrap no_unsigned_wrap no_wrap */
	IR_EN_ROUNDING,     /* nearest_even zero negative_inf positive_inf approx full
			       nearest_int_to_zero nearest_away(13.4) */
	IR_EN_CMP_ORDERING, /* unordered ordered */
	IR_EN_CMP_PREDICATE, /* equal not_equal less_than less_than_or_equal greater_than
				greater_than_or_equal */
	IR_EN_RMW_MODE,     /* and or xor add addf max min umax umin xchg */
	IR_EN_MEM_SCOPE,    /* tl_blk device sys */
	IR_EN_MEM_ORDERING, /* weak relaxed acquire release acq_rel */
	IR_EN_PADDING,      /* zero neg_zero nan pos_inf neg_inf */
	IR_EN_VISIBILITY,   /* public private */
	IR_EN_COUNT
};

/* Wire values of the enums most code needs by name. */
enum { IR_SIGN_UNSIGNED = 0, IR_SIGN_SIGNED = 1 };
enum { IR_RND_NEAREST_EVEN = 0, IR_RND_ZERO, IR_RND_NEGATIVE_INF, IR_RND_POSITIVE_INF,
       IR_RND_APPROX, IR_RND_FULL, IR_RND_NEAREST_INT_TO_ZERO, IR_RND_NEAREST_AWAY };
enum { IR_OVF_NONE = 0, IR_OVF_NSW, IR_OVF_NUW, IR_OVF_NW };
/* IR_PAD_MASKED: the view is `masked` (out-of-bounds reads give a padding
 * value, writes are skipped) but the text did not say which value; some
 * printers write it for a bytecode padding_value (docs/ir.md). */
enum { IR_PAD_MASKED = -2, IR_PAD_ABSENT = -1, IR_PAD_ZERO = 0, IR_PAD_NEG_ZERO, IR_PAD_NAN,
       IR_PAD_POS_INF, IR_PAD_NEG_INF };

const char *ir_enum_name(enum ir_enum_kind k);          /* "rounding", "signedness", ... */
const char *ir_enum_keyword(enum ir_enum_kind k, int v); /* NULL if v is not a case */
int ir_enum_lookup(enum ir_enum_kind k, const char *kw, size_t len); /* -1 if unknown */
int ir_enum_count(enum ir_enum_kind k);

/* ------------------------------------------------------------------ */
/* Types                                                               */

enum ir_type_kind {
	IR_TY_ELEM,        /* i32, f16, ... (appears inside tiles, pointers, views) */
	IR_TY_PTR,         /* ptr<E>: inner = element type */
	IR_TY_TILE,        /* tile<shape x inner>: rank 0 = scalar */
	IR_TY_TENSOR_VIEW, /* tensor_view<shape x inner, strides=[..]> */
	IR_TY_PARTITION_VIEW,
	IR_TY_STRIDED_VIEW,
	IR_TY_GATHER_SCATTER_VIEW,
	IR_TY_TOKEN,
	IR_TY_FUNC,   /* entry signature */
	IR_TY_OPAQUE, /* a type we do not know, kept as its text */
};

#define IR_DYN INT64_MIN /* a dynamic ("?") dimension or stride */

struct ir_type {
	enum ir_type_kind kind;
	enum ir_elem elem;           /* ELEM */
	const struct ir_type *inner; /* PTR: pointee (ELEM); TILE: element (ELEM or PTR);
					TENSOR_VIEW: element (ELEM); *_VIEW: the tensor_view */
	uint32_t rank;               /* TILE dims / TENSOR_VIEW shape / *_VIEW tile=(..) */
	const int64_t *shape;        /* rank values; IR_DYN = "?" */
	uint32_t nstrides;           /* TENSOR_VIEW strides / STRIDED_VIEW traversal_strides */
	const int64_t *strides;
	uint32_t ndim_map;           /* PARTITION/STRIDED_VIEW: always explicit (identity is
					filled in when the source omits it) */
	const int32_t *dim_map;
	int padding;                 /* *_VIEW: IR_PAD_* (a value, MASKED or ABSENT) */
	int64_t sparse_dim;          /* GATHER_SCATTER_VIEW */
	uint32_t nin, nout;          /* FUNC */
	const struct ir_type *const *ins;
	const struct ir_type *const *outs;
	const char *text;            /* OPAQUE */
};

const struct ir_type *ir_type_elem(struct ir_module *m, enum ir_elem e);
const struct ir_type *ir_type_ptr(struct ir_module *m, const struct ir_type *pointee);
const struct ir_type *ir_type_tile(struct ir_module *m, const struct ir_type *elem,
				   uint32_t rank, const int64_t *dims);
const struct ir_type *ir_type_tensor_view(struct ir_module *m, const struct ir_type *elem,
					  uint32_t rank, const int64_t *shape,
					  uint32_t nstrides, const int64_t *strides);
/* ndim_map 0 / dim_map NULL = identity; padding IR_PAD_ABSENT = none,
 * IR_PAD_MASKED = masked with the value not given. */
const struct ir_type *ir_type_partition_view(struct ir_module *m, uint32_t rank,
					     const int64_t *tile, const struct ir_type *tview,
					     uint32_t ndim_map, const int32_t *dim_map,
					     int padding);
const struct ir_type *ir_type_strided_view(struct ir_module *m, uint32_t rank,
					   const int64_t *tile, uint32_t nstrides,
					   const int64_t *traversal_strides,
					   const struct ir_type *tview, uint32_t ndim_map,
					   const int32_t *dim_map, int padding);
const struct ir_type *ir_type_gather_scatter_view(struct ir_module *m, uint32_t rank,
						  const int64_t *tile,
						  const struct ir_type *tview,
						  int64_t sparse_dim, int padding);
const struct ir_type *ir_type_token(struct ir_module *m);
const struct ir_type *ir_type_func(struct ir_module *m, uint32_t nin,
				   const struct ir_type *const *ins, uint32_t nout,
				   const struct ir_type *const *outs);
const struct ir_type *ir_type_opaque(struct ir_module *m, const char *text);

bool ir_type_equal(const struct ir_type *a, const struct ir_type *b); /* across modules */
bool ir_dim_map_is_identity(const struct ir_type *view);
/* Element type of a tile / tensor_view / pointer tile (through ptr<>: the
 * pointee); IR_ELEM_NONE for others. */
enum ir_elem ir_type_elem_of(const struct ir_type *t);
bool ir_type_is_ptr_tile(const struct ir_type *t); /* tile<...xptr<E>> */

/* ------------------------------------------------------------------ */
/* Attributes: interned per module (equal attributes of a module are one
 * pointer), immutable once built                                       */

enum ir_attr_kind {
	IR_ATTR_UNIT,          /* presence only (flush_to_zero, propagate_nan, ...) */
	IR_ATTR_BOOL,          /* b (and i, 0 or 1) */
	IR_ATTR_INT,           /* i (sign-extended), type = element type or NULL (untyped) */
	IR_ATTR_FLOAT,         /* bits in the format of `type` (f64 bits when type NULL) */
	IR_ATTR_STRING,        /* str, len (may hold NUL bytes) */
	IR_ATTR_SYMBOL,        /* str = name without '@' */
	IR_ATTR_TYPE,          /* type */
	IR_ATTR_ENUM,          /* ekind, i = wire value */
	IR_ATTR_ARRAY,         /* n elems (typed attributes, e.g. reduce identities) */
	IR_ATTR_INT_ARRAY,     /* n ints in vals (permute's permutation, ...) */
	IR_ATTR_DICT,          /* n keys + elems, sorted by key (byte-wise), keys unique */
	IR_ATTR_HINTS,         /* optimization_hints: like DICT, every value a DICT */
	IR_ATTR_DENSE,         /* type = tile type; n = 1 (splat) or element count;
				  vals = ints sign-extended / float raw bits */
	IR_ATTR_DIV_BY,        /* i = divisor; has_every: every, along */
	IR_ATTR_SAME_ELEMENTS, /* n ints in vals */
	IR_ATTR_BOUNDED,       /* has_lb lb, has_ub ub */
	IR_ATTR_OPAQUE,        /* text we could not interpret, kept verbatim in str */
};

/* Which members hold the value depends on the kind (the union): read only
 * those the kind's comment above names. */
struct ir_attr {
	enum ir_attr_kind kind : 8;
	enum ir_enum_kind ekind : 8;
	bool b : 1, has_every : 1, has_lb : 1, has_ub : 1;
	uint32_t n;
	const struct ir_type *type;
	union {
		struct {
			int64_t i;            /* INT, ENUM, BOOL, DIV_BY */
			int64_t every, along; /* DIV_BY */
		};
		uint64_t bits; /* FLOAT */
		struct {
			const char *str; /* STRING, SYMBOL, OPAQUE */
			size_t len;
		};
		struct {
			const char *const *keys;            /* DICT, HINTS */
			const struct ir_attr *const *elems; /* ARRAY, DICT, HINTS */
		};
		const uint64_t *vals; /* INT_ARRAY, DENSE, SAME_ELEMENTS */
		struct {
			int64_t lb, ub; /* BOUNDED */
		};
	};
};

const struct ir_attr *ir_attr_unit(struct ir_module *m);
const struct ir_attr *ir_attr_bool(struct ir_module *m, bool v);
const struct ir_attr *ir_attr_int(struct ir_module *m, int64_t v, const struct ir_type *elem);
const struct ir_attr *ir_attr_float(struct ir_module *m, uint64_t bits,
				    const struct ir_type *elem);
const struct ir_attr *ir_attr_string(struct ir_module *m, const char *s, size_t len);
const struct ir_attr *ir_attr_symbol(struct ir_module *m, const char *name);
const struct ir_attr *ir_attr_type(struct ir_module *m, const struct ir_type *t);
const struct ir_attr *ir_attr_enum(struct ir_module *m, enum ir_enum_kind k, int v);
const struct ir_attr *ir_attr_array(struct ir_module *m, uint32_t n,
				    const struct ir_attr *const *elems);
const struct ir_attr *ir_attr_int_array(struct ir_module *m, uint32_t n, const int64_t *v);
/* Keys are copied and sorted; a repeated key keeps its last value. */
const struct ir_attr *ir_attr_dict(struct ir_module *m, uint32_t n, const char *const *keys,
				   const struct ir_attr *const *vals);
const struct ir_attr *ir_attr_hints(struct ir_module *m, uint32_t n, const char *const *keys,
				    const struct ir_attr *const *dicts);
/* vals: n == 1 splat or one per element (row-major); ints sign-extended to
 * 64 bits, floats as raw bits of the element type, i1 as 0/1. */
const struct ir_attr *ir_attr_dense(struct ir_module *m, const struct ir_type *tile,
				    uint32_t n, const uint64_t *vals);
const struct ir_attr *ir_attr_div_by(struct ir_module *m, int64_t divisor, bool has_every,
				     int64_t every, int64_t along);
const struct ir_attr *ir_attr_same_elements(struct ir_module *m, uint32_t n, const int64_t *v);
const struct ir_attr *ir_attr_bounded(struct ir_module *m, bool has_lb, int64_t lb,
				      bool has_ub, int64_t ub);
const struct ir_attr *ir_attr_opaque(struct ir_module *m, const char *text, size_t len);

bool ir_attr_equal(const struct ir_attr *a, const struct ir_attr *b); /* across modules */
const struct ir_attr *ir_dict_get(const struct ir_attr *dict, const char *key);

/* Floats (formats of every float element type, see tile-ir-bytecode.md §10.5). */
double ir_float_to_double(enum ir_elem e, uint64_t bits);
uint64_t ir_float_from_double(enum ir_elem e, double v); /* round to nearest even */
/* A float value as MLIR prints it: APFloat's exact decimal form when it reads
 * back to the same bits ("1.000000e+00", "3.14159274", "9.765625E-4"), else
 * the bit pattern ("0xFF800000": inf, NaN). IR_ELEM_NONE means f64 bits. */
void ir_print_float(struct sbuf *sb, enum ir_elem e, uint64_t bits);

/* ------------------------------------------------------------------ */
/* Values, ops, blocks, regions                                        */

/* Where an op's text is: the 1-based lines of its first and last character
 * (for region ops the header up to the opening brace); 0 for an op read
 * from bytecode (its byte offsets are in ir_op_x(op)). */
struct ir_loc {
	uint32_t line, end_line;
};

/* 24 bytes: the op that defines a result or the block of an argument, as
 * one pointer (ir_value_def, ir_value_block). */
struct ir_value {
	const struct ir_type *type;
	void *owner_;           /* through ir_value_def / ir_value_block */
	uint32_t index : 31;    /* result index in its op / argument index in its block */
	uint32_t is_arg : 1;
	uint32_t id;            /* creation number within the module */
};

/* The defining op, NULL for a block argument. */
static inline struct ir_op *ir_value_def(const struct ir_value *v)
{
	return v->is_arg ? NULL : (struct ir_op *)v->owner_;
}

/* The block of a block argument, NULL for an op's result. */
static inline struct ir_block *ir_value_block(const struct ir_value *v)
{
	return v->is_arg ? (struct ir_block *)v->owner_ : NULL;
}

struct ir_named_attr {
	const char *name;
	const struct ir_attr *attr;
};

struct ir_block {
	struct ir_region *parent;
	uint32_t nargs, args_cap;
	struct ir_value **args;
	uint32_t nops, ops_cap;
	struct ir_op **ops;
};

struct ir_region {
	struct ir_op *parent;
	uint32_t nblocks, blocks_cap;
	struct ir_block **blocks;
};

struct ir_opdef; /* the registry entry, below */

/* What few ops have, kept out of the op record (a module holds ~100k ops
 * for a 100k-line file): read it through ir_op_x(op), which is never NULL. */
struct ir_op_extra {
	struct ir_region **regions; /* nregions of them */
	const char *name;  /* as spelled when not the registry's name ("print" for
			      print_tko, "fpowf"); unknown ops keep their full name */
	const char *text;  /* unknown op in custom syntax: the text after the op name, each
			      operand use replaced by "\x01<n>\x02" (n = operand index) */
	const char *dbg;   /* debug location as text ("loc(#loc3)", "loc(\"k.py\":17:0)") */
	uint64_t offset, end_offset; /* bytecode: byte offsets of the op record */
	uint32_t close_line; /* region ops (text): line of the final closing brace, 0 unknown */
	uint32_t else_line;  /* if with else (text): line of "} else {", 0 unknown */
};

/* 64 bytes: a 100k-line file is about 90k of them. It has no pointer to its
 * block: what needs the enclosing op gets it from the walk it is in. */
struct ir_op {
	const struct ir_opdef *def; /* never NULL (IR_OP_UNKNOWN for unknown ops) */
	struct ir_value **operands; /* all groups concatenated in declaration order; the
				       size of each group: ir_op_group_size */
	struct ir_value **results;
	struct ir_named_attr *attrs;
	struct ir_op_extra *x;      /* NULL when the op has none of it */
	struct ir_loc loc;
	uint32_t noperands, nresults;
	uint16_t nattrs, nregions;
	uint16_t code;              /* enum ir_opcode */
	uint8_t ngroups;            /* def->ngroups, at least 1 (unknown ops: 1 variadic) */
};

/* Limits of the op record's counts; the text parser and the bytecode reader
 * refuse an op beyond them. */
#define IR_MAX_ATTRS 65535u
#define IR_MAX_REGIONS 65535u

extern const struct ir_op_extra ir_op_extra_none;

static inline const struct ir_op_extra *ir_op_x(const struct ir_op *op)
{
	return op->x ? op->x : &ir_op_extra_none;
}

static inline struct ir_region *ir_op_region(const struct ir_op *op, uint32_t r)
{
	return op->x->regions[r];
}

/* An op with several operand groups keeps their sizes (uint32_t each) just
 * before its operand pointers, in the same arena block: this many bytes. */
static inline size_t ir_op_group_prefix(const struct ir_op *op)
{
	return op->ngroups > 1 ? ((size_t)op->ngroups * sizeof(uint32_t) + 7) & ~(size_t)7 : 0;
}

static inline uint32_t ir_op_group_size(const struct ir_op *op, uint32_t g)
{
	if (op->ngroups <= 1)
		return g == 0 ? op->noperands : 0;
	if (!op->operands || g >= op->ngroups)
		return 0;
	return ((const uint32_t *)(const void *)((const char *)op->operands -
						 ir_op_group_prefix(op)))[g];
}

/* ------------------------------------------------------------------ */
/* The op registry (engine/ir/ir_ops.def)                              */

enum ir_opcode {
#define IR_OP(id, name, bc, since, groups, attrs, results, nregions, format, bcflags) IR_OP_##id,
#include "engine/ir/ir_ops.def"
#undef IR_OP
	IR_OP_COUNT,
	IR_OP_UNKNOWN = IR_OP_COUNT,
};

enum ir_card { IR_CARD_ONE, IR_CARD_OPTIONAL, IR_CARD_VARIADIC };

struct ir_group_def {
	const char *name;
	enum ir_card card;
	uint16_t since; /* bytecode version as 131/132/133 */
};

/* How an attribute is spelled and stored (IR_AK_ROUNDING / IR_AK_OVERFLOW
 * print as `rounding<x>` / `overflow<x>`; other enums print bare). */
enum ir_attr_spec {
	IR_AK_ENUM,      /* bare keyword */
	IR_AK_ROUNDING,  /* rounding<kw>, elided when equal to the default */
	IR_AK_OVERFLOW,  /* overflow<kw>, elided when equal to the default */
	IR_AK_UNIT,
	IR_AK_INT,
	IR_AK_BOOL,
	IR_AK_STRING,
	IR_AK_SYMBOL,
	IR_AK_INT_ARRAY, /* [1, 0] */
	IR_AK_DENSE,     /* <f32: ...> (type from the op's result) */
	IR_AK_ATTR_ARRAY, /* [0.000000e+00 : f32, ...] */
	IR_AK_HINTS,     /* <sm_100 = {...}> */
	IR_AK_PREDICATE, /* div_by<..> / same_elements<..> / bounded<..> */
	IR_AK_TYPE,      /* a type (entry function_type) */
};

struct ir_attr_def {
	const char *name;        /* canonical (ODS) name: "rounding_mode", "flush_to_zero" */
	enum ir_attr_spec spec;
	enum ir_enum_kind ekind; /* ENUM / ROUNDING / OVERFLOW */
	int deflt;               /* default enum value, -1 = none */
	bool optional;           /* may be absent (flag bit in bytecode) */
	uint16_t since;
};

struct ir_result_def {
	const char *name;  /* ODS name ("result", "tile", "result_token") */
	const char *hint;  /* printer name hint ("tview", "blockId_x") or NULL: numbered.
			      "$cst" / "$assume": computed (tile-ir-bytecode.md §10.2) */
	bool variadic;     /* a variable number of results (count from the op) */
	int type_from;     /* >= 0: type equals operand group `type_from` (not printed);
			      -2: equals result 0's type; -1: printed */
	uint16_t since;
};

struct ir_opdef {
	int code;            /* enum ir_opcode */
	const char *name;    /* printed name, e.g. "load_view_tko" */
	int bc_opcode;       /* bytecode opcode, -1 for none */
	uint16_t since;      /* 131 / 132 / 133 / 134 */
	uint32_t ngroups;
	const struct ir_group_def *groups;
	uint32_t nattrs;
	const struct ir_attr_def *attrs; /* in bytecode (declaration) order */
	uint32_t nresults;
	const struct ir_result_def *results;
	uint32_t nregions;
	const char *format;  /* printing template (engine/ir/ir_ops.def explains it) */
	uint32_t nflags;     /* bytecode flag bits, in bit order */
	const char *const *flags; /* names of the attribute or operand group per bit */
	const uint16_t *flag_since;
	bool terminator;
};

/* The op's name as spelled, without "cuda_tile." (an alias keeps its own
 * spelling, an unknown op its full name). */
static inline const char *ir_op_name(const struct ir_op *op)
{
	return op->x && op->x->name ? op->x->name : op->def->name;
}

/* The op whose region holds a block argument's block; NULL for an op's
 * result and for a block outside any op. */
static inline struct ir_op *ir_arg_owner(const struct ir_value *v)
{
	struct ir_block *b = ir_value_block(v);
	return b && b->parent ? b->parent->parent : NULL;
}

const struct ir_opdef *ir_opdef(int code); /* IR_OP_UNKNOWN gives the unknown def */
/* By printed name, with or without "cuda_tile."; accepts aliases ("print",
 * "fpowf"). NULL if unknown. */
const struct ir_opdef *ir_opdef_by_name(const char *name, size_t len);
const struct ir_opdef *ir_opdef_by_bc(int bc_opcode); /* NULL if unassigned */
int ir_opdef_group(const struct ir_opdef *d, const char *group); /* index or -1 */
const struct ir_attr_def *ir_opdef_attr(const struct ir_opdef *d, const char *name);

/* ------------------------------------------------------------------ */
/* Module                                                              */

enum ir_source_kind { IR_SRC_BUILT, IR_SRC_TEXT, IR_SRC_BYTECODE };

struct ir_arena;

struct ir_module {
	const char *path;            /* as given to the loader (or "") */
	enum ir_source_kind source;
	uint8_t bc_major, bc_minor;  /* bytecode version (0.0 for text) */
	uint16_t bc_tag;
	uint32_t nunits, units_cap;
	struct ir_op **units;        /* "module" ops in file order */
	uint32_t nentries, entries_cap;
	struct ir_op **entries;      /* every "entry" op, file order (kept by the builders) */
	uint32_t nglobals, globals_cap;
	struct ir_op **globals;      /* every "global" op */
	uint32_t naliases, aliases_cap;
	const char **aliases;        /* trailing "#loc1 = loc(...)" lines, verbatim */
	uint32_t nvalues;            /* values created so far (ids) */
	struct ir_arena *arena;
	void *types;                 /* private: the type intern table */
	void *attrs;                 /* private: the attribute intern table */
};

struct ir_module *ir_module_new(const char *path, enum ir_source_kind src);
void ir_module_free(struct ir_module *m);

/* Copy a string / bytes into the module's arena (NUL-terminated). */
const char *ir_strdup(struct ir_module *m, const char *s, size_t len);
void *ir_alloc(struct ir_module *m, size_t n); /* zeroed, aligned to 8 */

/* A `cuda_tile.module @name` unit (name "kernels" for bytecode); producer may be NULL. */
struct ir_op *ir_module_add_unit(struct ir_module *m, const char *name, const char *producer);
/* An entry appended to `unit`; its body block gets one argument per input of
 * fn_type (an IR_TY_FUNC). hints: IR_ATTR_HINTS or NULL. */
struct ir_op *ir_unit_add_entry(struct ir_module *m, struct ir_op *unit, const char *name,
				const struct ir_type *fn_type, const struct ir_attr *hints);
/* A global appended to `unit`: value is IR_ATTR_DENSE (its type is the
 * global's type), alignment 0 = default. */
struct ir_op *ir_unit_add_global(struct ir_module *m, struct ir_op *unit, const char *name,
				 const struct ir_attr *value, uint64_t alignment,
				 bool is_private, bool is_constant);
struct ir_block *ir_unit_body(const struct ir_op *unit);
struct ir_block *ir_entry_body(const struct ir_op *entry);
const char *ir_symbol_name(const struct ir_op *op); /* unit/entry/global name */
const struct ir_op *ir_module_find_entry(const struct ir_module *m, const char *name);

/* Ops. ir_op_new accepts "addf" and "cuda_tile.addf"; an unknown name makes an
 * IR_OP_UNKNOWN op that keeps the name. */
struct ir_op *ir_op_new(struct ir_module *m, const char *name, size_t len);
struct ir_op *ir_op_new_code(struct ir_module *m, int code);
/* Append v to operand group `group` (groups may be filled in any order). */
void ir_op_add_operand(struct ir_module *m, struct ir_op *op, uint32_t group,
		       struct ir_value *v);
struct ir_value *ir_op_add_result(struct ir_module *m, struct ir_op *op,
				  const struct ir_type *t);
/* Set (or replace) an attribute; name is copied. */
void ir_op_set_attr(struct ir_module *m, struct ir_op *op, const char *name,
		    const struct ir_attr *a);
struct ir_region *ir_op_add_region(struct ir_module *m, struct ir_op *op);
struct ir_block *ir_region_add_block(struct ir_module *m, struct ir_region *r);
struct ir_value *ir_block_add_arg(struct ir_module *m, struct ir_block *b,
				  const struct ir_type *t);
/* Append op to block b. Entry/global/unit bookkeeping happens here. */
void ir_block_append(struct ir_module *m, struct ir_block *b, struct ir_op *op);
/* Append n ops at once (the block's array grows to exactly its new count). */
void ir_block_append_ops(struct ir_module *m, struct ir_block *b, struct ir_op *const *ops,
			 uint32_t n);
/* Fill in attributes the registry gives a default (rounding, overflow, ...)
 * that the source left out. Call once an op is complete. */
void ir_op_finish(struct ir_module *m, struct ir_op *op);

/* Accessors. */
const struct ir_attr *ir_op_attr(const struct ir_op *op, const char *name);
bool ir_op_has(const struct ir_op *op, const char *name); /* attribute present */
/* Enum / int attribute value, or `dflt` when absent or of another kind. */
int64_t ir_op_attr_int(const struct ir_op *op, const char *name, int64_t dflt);
/* Operands of group `group`: count in *n, pointer to the first (or NULL). */
struct ir_value *const *ir_op_group(const struct ir_op *op, uint32_t group, uint32_t *n);
struct ir_value *ir_op_group_value(const struct ir_op *op, const char *group); /* 1st or NULL */

/* Depth-first pre-order walk of every op nested in `op` (op itself included).
 * Return false from fn to skip the op's regions. */
typedef bool (*ir_walk_fn)(const struct ir_op *op, int depth, void *ctx);
void ir_walk(const struct ir_op *op, ir_walk_fn fn, void *ctx);

/* Structural equality: same units, entries, globals, ops, attributes, types and
 * value wiring; value names, locations and source spelling of aliases
 * ("print"/"print_tko") are ignored. */
bool ir_module_equal(const struct ir_module *a, const struct ir_module *b);
bool ir_op_equal(const struct ir_op *a, const struct ir_op *b); /* op trees, wiring local */

/* ------------------------------------------------------------------ */
/* Loading and printing                                                */

/* Magic of a Tile IR bytecode file. */
#define IR_BYTECODE_MAGIC "\x7fTileIR\0"
#define IR_BYTECODE_MAGIC_LEN 8

/* The single entry point for every command and view: reads `path`, detects
 * bytecode by its magic, else parses text. On failure returns NULL and sets
 * err (code TP_EXIT_USAGE; message "path:line:col: expected ..." or, for
 * bytecode, "path: offset 0x..: ..."). */
struct ir_module *ir_module_load(const char *path, struct tp_err *err);
/* Both files of a pair, parsed at the same time on two threads. False (and
 * neither module) when either fails; err is the first file's failure if it
 * has one, else the second's. */
bool ir_module_load_pair(const char *path_a, const char *path_b, struct ir_module **a,
			 struct ir_module **b, struct tp_err *err);
/* Same on a buffer (need not be NUL-terminated); `path` names it in messages. */
struct ir_module *ir_module_from_buffer(const char *path, const char *buf, size_t len,
					struct tp_err *err);
/* The text parser alone. */
struct ir_module *ir_text_parse(const char *path, const char *buf, size_t len,
				struct tp_err *err);
/* The bytecode reader (engine/ir: issue 5). */
struct ir_module *ir_bytecode_parse(const char *path, const unsigned char *buf, size_t len,
				    struct tp_err *err);

enum {
	IR_PRINT_DEBUGINFO = 1 << 0, /* ` loc(...)` suffixes and trailing aliases */
};

/* Canonical text, exactly as `cuda-tile-translate --cudatilebc-to-mlir` prints
 * (tile-ir-bytecode.md §10): deterministic, value names per §10.2. */
void ir_print_module(const struct ir_module *m, struct sbuf *out, unsigned flags);
char *ir_module_to_string(const struct ir_module *m, unsigned flags); /* caller frees */

/* The printed names of an entry's values (§10.2 algorithm), for views. */
struct ir_names;
struct ir_names *ir_names_compute(const struct ir_op *entry);
/* "%tview_3", "%0#1", "%arg0" (with the '%'); "%<?>" for values outside the entry. */
const char *ir_names_get(const struct ir_names *n, const struct ir_value *v);
void ir_names_free(struct ir_names *n);

/* One op as the canonical printer prints it, without its regions and with
 * names from `names`: e.g. "%3 = addf %1, %2  : tile<16xf32>". Region ops end at
 * their opening brace ("for %loopIdx in (...) : tile<i32> {"); a reduce/scan
 * header and its block-argument line are joined by one space. Caller frees. */
char *ir_op_line(const struct ir_op *op, const struct ir_names *names);

#endif
