/* Internals shared by the bytecode reader's files (bc_*.c); not a public
 * door: other modules use engine/ir/bytecode.h. */
#ifndef TILEPORT_IR_BC_PRIV_H
#define TILEPORT_IR_BC_PRIV_H

#include <setjmp.h>

#include "engine/ir/bytecode.h"

/* Bump allocator: the whole decoded module is freed at once. */
struct bc_arena;
struct bc_arena *bc_arena_new(void);
void bc_arena_free(struct bc_arena *a);
void *bc_alloc(struct bc_arena *a, size_t n); /* zeroed, 8-aligned */
void *bc_alloc_array(struct bc_arena *a, size_t n, size_t size);

/* Limits that keep hostile input from exhausting the stack. */
#define BC_MAX_DEPTH 200      /* nested regions */
#define BC_MAX_ATTR_DEPTH 32  /* nested dictionaries */
#define BC_COUNT_CAP 4294967294ull

/* A cursor over part of the file. Every read checks `end`; on failure it
 * records the offset and reason and longjmps to the decoder's handler, so
 * the decoding code reads straight through without error plumbing. */
struct bc_ctx;
struct bc_rd {
	struct bc_ctx *cx;
	const uint8_t *base; /* start of the file: offsets are relative to it */
	size_t pos, end;     /* absolute positions */
	size_t start;        /* start of the current payload (for padding) */
};

struct bc_ctx {
	jmp_buf fail;
	struct tp_err *err;
	const char *name;
	struct bc_module *m;
	struct bc_arena *ar;
	unsigned minor;
	/* section payloads, indexed by section id */
	bool have[8];
	struct bc_slice sec[8];
	/* debug index arrays (§8) */
	uint32_t nlists;
	const uint8_t *list_start; /* u32 LE each */
	uint64_t ndbg;
	const uint8_t *dbg;        /* u64 LE each */
	/* cursor into the current function's debug list */
	uint64_t dbg_pos, dbg_end;
	bool dbg_on;
	/* scoped value list of the function being read (§6.5) */
	uint32_t *scope;
	size_t nscope, cscope;
	size_t nvalues; /* value ids handed out so far */
	unsigned depth;
	/* scratch for per-op operands before they are copied to the arena */
	uint32_t *tmp;
	size_t ctmp;
};

TP_NORETURN void bc_fail(struct bc_ctx *cx, size_t offset, const char *fmt, ...)
	TP_PRINTF(3, 4);

void bc_rd_init(struct bc_rd *r, struct bc_ctx *cx, const struct bc_slice *s);
size_t bc_left(const struct bc_rd *r);
uint8_t bc_u8(struct bc_rd *r);
uint16_t bc_u16(struct bc_rd *r);
uint32_t bc_u32(struct bc_rd *r);
uint64_t bc_u64(struct bc_rd *r);
uint64_t bc_varint(struct bc_rd *r);
int64_t bc_svarint(struct bc_rd *r);
/* A varint that must be <= max (what = what it counts, for the message). */
uint64_t bc_varint_max(struct bc_rd *r, uint64_t max, const char *what);
/* A count of elements of at least `elem` bytes each that must fit the bytes left. */
uint32_t bc_count(struct bc_rd *r, size_t elem, const char *what);
void bc_pad(struct bc_rd *r, size_t align); /* relative to r->start */
const uint8_t *bc_bytes(struct bc_rd *r, size_t n);
int32_t *bc_i32_array(struct bc_rd *r, uint32_t *n, const char *what);
int64_t *bc_i64_array(struct bc_rd *r, uint32_t *n, const char *what);

/* Sections */
void bc_read_strings(struct bc_ctx *cx);
void bc_read_types(struct bc_ctx *cx);
void bc_read_constants(struct bc_ctx *cx);
void bc_read_globals(struct bc_ctx *cx);
void bc_read_producer(struct bc_ctx *cx);
void bc_read_debug(struct bc_ctx *cx);
void bc_read_functions(struct bc_ctx *cx);

/* Checks on indices read at `off` */
void bc_check_string(struct bc_ctx *cx, uint64_t i, size_t off);
void bc_check_type(struct bc_ctx *cx, uint64_t i, size_t off);
/* The type must be a tile of integer or float elements. */
const struct bc_type *bc_dense_type(struct bc_ctx *cx, uint64_t type, size_t off);
/* Validate constant `c` against tile type `type` (§4.3 size rule). */
void bc_check_dense(struct bc_ctx *cx, uint64_t type, uint64_t c, size_t off);
/* Elements of a tile type (product of dims). */
uint64_t bc_tile_elems(const struct bc_type *t);
unsigned bc_elem_bytes(unsigned tag);

/* Attributes */
void bc_read_tagged(struct bc_rd *r, struct bc_attr *a, unsigned depth);
void bc_read_dict_payload(struct bc_rd *r, struct bc_attr *a, uint8_t kind, unsigned depth);
uint64_t bc_read_enum(struct bc_rd *r, enum bc_enum e);

/* A result type the file predates (print_tko's token in 13.1 files). */
#define BC_TYPE_DEFAULT_TOKEN 0xfffffffeu

#endif
