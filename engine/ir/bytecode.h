/* Tile IR bytecode (.tileirbc), versions 13.1 to 13.3: a bounds-checked
 * reader that decodes a file into a plain table model (this header), its
 * mapping into the shared model (ir_from_bytecode; printing, diffing and
 * everything else happen there, engine/ir/ir.h), and a small writer used by
 * the tests, the fuzz seeds and the benchmark. The encoding is specified in
 * shared/reference/tile-ir-bytecode.md; section numbers below refer to it.
 *
 * Indices in the model are the file's own: string, type and constant
 * indices are 0-based table positions, debug references are 1-based. SSA
 * values are renumbered per function into unique ids (operands, first_result,
 * first_arg), so that operands stay meaningful after the reader's scoped
 * value list has been truncated. */
#ifndef TILEPORT_IR_BYTECODE_H
#define TILEPORT_IR_BYTECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/base/util.h"

#define BC_MAGIC "\x7fTileIR\0"
#define BC_MAGIC_LEN 8
#define BC_HEADER_LEN 12
#define BC_MAX_MINOR 3 /* newest version read: 13.3 */
#define BC_MIN_MINOR 1

/* True when the buffer starts with the bytecode magic. */
bool bc_is_bytecode(const void *buf, size_t len);

/* ---- types (§4.2) ----------------------------------------------------- */

enum bc_type_tag {
	BC_TY_I1 = 0, BC_TY_I8, BC_TY_I16, BC_TY_I32, BC_TY_I64,
	BC_TY_F16, BC_TY_BF16, BC_TY_F32, BC_TY_TF32, BC_TY_F64,
	BC_TY_F8E4M3FN, BC_TY_F8E5M2,
	BC_TY_PTR = 12, BC_TY_TILE, BC_TY_TENSOR_VIEW, BC_TY_PARTITION_VIEW,
	BC_TY_FUNC = 16, BC_TY_TOKEN, BC_TY_F8E8M0FNU, BC_TY_F4E2M1FN,
	BC_TY_GATHER_SCATTER_VIEW = 20, BC_TY_STRIDED_VIEW, BC_TY_I4,
	BC_TY_COUNT
};

struct bc_type {
	uint8_t tag;          /* enum bc_type_tag */
	uint32_t elem;        /* ptr pointee, tile/tensor_view element */
	uint32_t view;        /* views: index of their tensor_view type */
	uint32_t rank;        /* tile dims / tensor_view shape length */
	int64_t *shape;       /* INT64_MIN = dynamic (tensor_view) */
	uint32_t nstrides;
	int64_t *strides;
	uint32_t ntile;       /* views: tile shape */
	int32_t *tile;
	uint32_t ndim_map;
	int32_t *dim_map;
	uint32_t ntrav;       /* strided_view traversal strides */
	int32_t *trav;
	bool has_padding;
	uint8_t padding;      /* PaddingValue */
	uint32_t sparse_dim;  /* gather_scatter_view */
	uint32_t nin, nout;   /* function */
	uint32_t *in, *out;
};

#define BC_DYNAMIC INT64_MIN

bool bc_tag_is_int(unsigned tag);
bool bc_tag_is_float(unsigned tag);
/* Bit width of an integer or float element type (tf32 19, f4 4), else 0. */
unsigned bc_tag_bits(unsigned tag);
/* Version (minor, major being 13) that introduced a type tag; 0 if unknown. */
unsigned bc_tag_since(unsigned tag);
const char *bc_scalar_name(unsigned tag); /* "f32", NULL for compound tags */

/* ---- attributes (§5) ------------------------------------------------- */

enum bc_attr_kind {
	BC_AT_INT = 1, BC_AT_FLOAT, BC_AT_BOOL, BC_AT_TYPE, BC_AT_STRING,
	BC_AT_ARRAY, BC_AT_DENSE, BC_AT_DIVBY, BC_AT_SAME, BC_AT_DICT,
	BC_AT_HINTS, BC_AT_BOUNDED
};

struct bc_attr {
	uint8_t kind;          /* enum bc_attr_kind (the wire tag) */
	uint8_t flags;         /* DIVBY: bit0 every, bit1 along; BOUNDED: bit0 lb, bit1 ub */
	uint32_t type;         /* INT, FLOAT, TYPE, DENSE */
	uint32_t index;        /* STRING: string index; DENSE: constant index */
	uint64_t bits;         /* INT: zero-extended value; FLOAT: raw bits; BOOL; DIVBY divisor */
	int64_t a, b;          /* DIVBY every/along; BOUNDED lb/ub */
	uint32_t n;            /* ARRAY, SAME, DICT, HINTS */
	struct bc_attr *elems; /* ARRAY elements, DICT/HINTS values (sorted by key) */
	uint32_t *keys;        /* DICT/HINTS keys (string indices) */
	int64_t *values;       /* SAME */
};

/* ---- enums (§5.3) ---------------------------------------------------- */

enum bc_enum {
	BC_EN_NONE = 0, BC_EN_SIGNEDNESS, BC_EN_OVERFLOW, BC_EN_ROUNDING,
	BC_EN_CMP_ORDERING, BC_EN_CMP_PREDICATE, BC_EN_RMW_MODE,
	BC_EN_MEM_SCOPE, BC_EN_MEM_ORDERING, BC_EN_PADDING, BC_EN_VISIBILITY, BC_EN_COUNT
};
/* Keyword of an enum case, or NULL when the value is not a case. */
const char *bc_enum_name(enum bc_enum e, uint64_t value);

/* ---- operations (§6) ------------------------------------------------- */

/* Kinds of the fields of an op record, in the order they are declared. */
enum bc_field_kind {
	BC_F_ENUM = 1, /* inline enum */
	BC_F_INT,      /* inline varint integer */
	BC_F_BOOL,     /* one byte */
	BC_F_STR,      /* string index */
	BC_F_I32ARR,   /* varint n + i32[n] */
	BC_F_CONST,    /* constant index, typed by result 0 */
	BC_F_ATTRARR,  /* varint n + n tagged attributes */
	BC_F_HINTS,    /* untagged dictionary of dictionaries */
	BC_F_PRED,     /* tagged attribute (div_by, same_elements, bounded) */
	BC_F_UNIT,     /* no bytes: the flag bit is the value */
	BC_F_ONE,      /* operand group: one value */
	BC_F_VAR,      /* operand group: variadic */
	BC_F_OPT,      /* operand group: optional (flag bit) */
};

#define BC_NO_BIT 0xff

struct bc_field {
	const char *name;
	uint8_t kind;   /* enum bc_field_kind */
	uint8_t en;     /* enum bc_enum for BC_F_ENUM */
	uint8_t bit;    /* flag bit, BC_NO_BIT when not optional */
	uint8_t since;  /* minor version that introduced the field */
	uint8_t dflt;   /* value used when the file predates the field */
};

#define BC_MAX_FIELDS 8
#define BC_VARIADIC 0xff

struct bc_opinfo {
	const char *name;     /* printed name (13.2+ spelling) */
	uint8_t since;        /* minor version that introduced the opcode */
	bool v, s;            /* variadic op, segmented operands (§6.2) */
	uint8_t nres;         /* result count, BC_VARIADIC when variadic */
	uint8_t res_since;    /* first version with the results (print_tko: 2) */
	uint8_t flags_since;  /* 0: no flags varint; else first version with it */
	uint8_t nregions;
	uint8_t nfields;
	struct bc_field f[BC_MAX_FIELDS];
};

#define BC_MAX_OPCODE 0x75
/* The descriptor of an opcode, NULL when it is not a public body opcode. */
const struct bc_opinfo *bc_opinfo(unsigned opcode);
/* Highest opcode accepted in a file of version 13.minor. */
unsigned bc_max_opcode(unsigned minor);

/* A decoded field value. Attributes: `present` and one of the payloads;
 * operand groups: `start`/`n` into the op's operand array. */
struct bc_fval {
	bool present;
	uint64_t v;            /* ENUM, INT, BOOL, STR (string index), CONST (constant index) */
	uint32_t start, n;     /* operand groups; I32ARR and ATTRARR lengths in n */
	int32_t *i32;          /* I32ARR */
	struct bc_attr *attr;  /* ATTRARR elements, HINTS (a BC_AT_HINTS), PRED */
};

struct bc_region;

struct bc_op {
	uint16_t opcode;
	const struct bc_opinfo *info;
	size_t offset;          /* file offset of the record */
	size_t end;             /* offset just past the record (regions included) */
	uint32_t nres;
	uint32_t *res_types;
	uint32_t first_result;  /* value id of result 0 */
	uint64_t flags;
	struct bc_fval *fv;     /* info->nfields entries */
	uint32_t nopnd;
	uint32_t *opnd;         /* value ids */
	uint32_t nregions;
	struct bc_region *regions;
	uint64_t loc;           /* debug reference, 0 = unknown */
};

struct bc_block {
	uint32_t nargs;
	uint32_t *arg_types;
	uint32_t first_arg;     /* value id of argument 0 */
	uint32_t nops;
	struct bc_op *ops;
};

struct bc_region {
	uint32_t nblocks;       /* 0 or 1 */
	struct bc_block *blocks;
};

struct bc_func {
	uint32_t name;          /* string index */
	uint32_t sig;           /* type index of a function type */
	uint8_t flags;
	uint32_t loc;           /* 1-based debug list, 0 = none */
	struct bc_attr *hints;  /* BC_AT_HINTS or NULL */
	struct bc_block body;   /* args = signature inputs */
	uint32_t nvalues;       /* value ids used: arguments first, then in file order */
	size_t offset;          /* file offset of the function record */
};

struct bc_global {
	uint32_t name, type, constant;
	uint64_t alignment;
	uint8_t visibility;     /* 0 public, 1 private */
	bool is_constant;
};

struct bc_slice {
	const uint8_t *p;
	size_t len;
	size_t offset;          /* file offset of p */
};

/* Debug attribute (§8): tag and up to 6 payload fields. */
struct bc_diattr {
	uint8_t tag;
	uint64_t f[6];
};

struct bc_arena;

struct bc_module {
	uint8_t major, minor;
	uint16_t tag;
	uint8_t *data;           /* private copy of the file */
	size_t len;
	uint32_t nstrings;
	struct bc_slice *strings;
	uint32_t ntypes;
	struct bc_type *types;
	uint32_t nconsts;
	struct bc_slice *consts; /* raw dense buffers (after the byte count) */
	uint32_t nglobals;
	struct bc_global *globals;
	uint32_t nfuncs;
	struct bc_func *funcs;
	int64_t producer;        /* string index, -1 when absent */
	uint32_t ndi;            /* debug attributes */
	struct bc_diattr *di;
	struct bc_arena *arena;
};

/* Decode a whole file. `name` is used in messages. On error returns NULL
 * and sets err (code TP_EXIT_USAGE) to "NAME: offset N (0xN): reason". */
struct bc_module *bc_decode(const void *buf, size_t len, const char *name,
			    struct tp_err *err);
struct bc_module *bc_load_file(const char *path, struct tp_err *err);
void bc_module_free(struct bc_module *m);

/* String i as a NUL-terminated copy owned by the module. */
const char *bc_str(const struct bc_module *m, uint32_t i);

/* The module in the shared model (engine/ir/ir.h); ir_module_load uses it
 * through ir_bytecode_parse. Never fails on a decoded module. */
struct ir_module;
struct ir_module *ir_from_bytecode(const struct bc_module *bm, const char *path);

/* ---- writer (tests, fuzz seeds, benchmark) ------------------------------
 * Builds a file from the encoding rules. Op records are appended by the
 * caller with the primitive encoders; the writer owns the tables, the
 * section framing and the padding. */

void bcw_varint(struct sbuf *b, uint64_t v);
void bcw_svarint(struct sbuf *b, int64_t v);
void bcw_uint(struct sbuf *b, uint64_t v, unsigned bytes); /* little-endian */
/* Append n varints; BCW_V(b, 0x50, 2, 0) appends a literal list. */
void bcw_va(struct sbuf *b, const uint64_t *v, size_t n);
#define BCW_LIST(...) (const uint64_t[]){__VA_ARGS__}
#define BCW_LEN(...) (sizeof(BCW_LIST(__VA_ARGS__)) / sizeof(uint64_t))
#define BCW_V(b, ...) bcw_va((b), BCW_LIST(__VA_ARGS__), BCW_LEN(__VA_ARGS__))
/* i32 / i64 arrays: varint n + fixed-width elements. */
void bcw_i32s(struct sbuf *b, unsigned n, const int32_t *v);
void bcw_i64s(struct sbuf *b, unsigned n, const int64_t *v);

enum bcw_style {
	BCW_CPP,    /* C++ writer: Global, Func, Constant, Debug, Type, Producer, String */
	BCW_PYTHON, /* cuTile Python: Func, Global, Constant, Debug, Type, String */
};

struct bc_writer;
struct bc_writer *bcw_new(unsigned minor, enum bcw_style style);
void bcw_free(struct bc_writer *w);
uint32_t bcw_string(struct bc_writer *w, const char *s);
/* A type entry given its bytes (tag + payload); entries are deduplicated. */
uint32_t bcw_type_raw(struct bc_writer *w, const struct sbuf *entry);
uint32_t bcw_scalar(struct bc_writer *w, unsigned tag);
uint32_t bcw_ptr(struct bc_writer *w, uint32_t pointee);
uint32_t bcw_tile(struct bc_writer *w, uint32_t elem, unsigned rank, const int64_t *shape);
uint32_t bcw_tensor_view(struct bc_writer *w, uint32_t elem, unsigned rank, const int64_t *shape,
			 const int64_t *strides);
/* padding < 0: none. dim_map NULL: identity of the tile rank. */
uint32_t bcw_partition_view(struct bc_writer *w, unsigned ntile, const int32_t *tile,
			    uint32_t tview, const int32_t *dim_map, int padding);
uint32_t bcw_strided_view(struct bc_writer *w, unsigned ntile, const int32_t *tile,
			  const int32_t *trav, uint32_t tview, const int32_t *dim_map, int padding);
uint32_t bcw_gather_scatter_view(struct bc_writer *w, unsigned ntile, const int32_t *tile,
				 uint32_t tview, uint32_t sparse_dim, int padding);
uint32_t bcw_func_type(struct bc_writer *w, unsigned nin, const uint32_t *in, unsigned nout,
		       const uint32_t *out);
uint32_t bcw_constant(struct bc_writer *w, const void *bytes, size_t len);
void bcw_global(struct bc_writer *w, const char *name, uint32_t type, uint32_t constant,
		uint64_t alignment, unsigned visibility, bool is_constant);
void bcw_producer(struct bc_writer *w, const char *producer);
/* 1-based debug attribute reference; fields per §8 (strings as indices). */
uint32_t bcw_debug_attr(struct bc_writer *w, unsigned tag, const uint64_t *f, size_t n);
/* A function's debug list (its own location, then one per op in
 * pre-order); returns the 1-based list index for bcw_func's `loc`. */
uint32_t bcw_debug_list(struct bc_writer *w, unsigned n, const uint64_t *refs);
/* An entry: hints = tagged attribute bytes (tag 11 …) or NULL. */
void bcw_func(struct bc_writer *w, const char *name, uint32_t sig, uint32_t loc,
	      const struct sbuf *hints, const struct sbuf *body);
/* The whole file. */
void bcw_finish(struct bc_writer *w, struct sbuf *out);

#endif
