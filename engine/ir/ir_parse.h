/* Private to the text parser (ir_parse*.c): the cursor, error escape and
 * value-name scopes. Errors longjmp to the top with "file:line:col: ...". */
#ifndef TILEPORT_IR_PARSE_H
#define TILEPORT_IR_PARSE_H

#include <setjmp.h>
#include <string.h>

#include "engine/ir/ir.h"
#include "engine/ir/ir_internal.h"

struct binding {
	const char *name; /* points into the source */
	uint32_t len;
	uint32_t n;            /* values in the group ("%x:2" binds 2) */
	struct ir_value **vals;
	int next;              /* next binding in the same bucket (-1) */
};

/* A type already read, by its exact text (a copy the parser owns). */
struct tspan {
	const char *text;
	uint32_t len;
	const struct ir_type *type;
};

struct tchunk {
	struct tchunk *next;
	size_t used, size;
	char data[];
};

struct pstate {
	struct ir_module *m;
	const char *path;
	const char *buf, *p, *end;
	struct tp_err *err;
	jmp_buf fail;
	/* value names: chained hash of bindings; a scope is a mark in `bindings` */
	struct binding *bindings;
	size_t nbind, capbind;
	int *buckets;
	size_t nbuckets;
	size_t scope_start; /* first binding of the innermost scope */
	size_t entry_from;  /* bindings before this one are outside the entry parsed */
	int depth; /* nesting, to refuse absurdly deep input */
	/* incremental offset -> line/column */
	const char *lc_pos;
	uint32_t lc_line;
	const char *lc_linestart;
	struct sbuf scratch;  /* freed with the parser state */
	int level;            /* 0 top level, 1 a module body, 2+ inside entries */
	uint32_t close_line;  /* line of the last closing brace of a block */
	const char *op_start; /* start of the op being parsed (its result list) */
	struct ir_op *implicit_unit; /* unit made for entries outside any module */
	/* types by their text: a kernel spells a few types thousands of times */
	struct tspan *types;
	size_t ntypes, captypes; /* open addressing, captypes a power of two */
	struct tspan recent[4];  /* the last ones read, tried first */
	unsigned nrecent;
	struct tchunk *tchunks;  /* the spellings' copies */
	/* input given back once read (only the loader's own buffer: consume) */
	bool consume;
	const char *released;    /* pages before this are gone (page-aligned) */
	const char *lc_floor;    /* line counting restarts here, not at buf */
	uint32_t lc_floor_line;
	const char *lc_floor_linestart;
	/* ops of the blocks being parsed, innermost last (ps_block_ops) */
	struct ir_op **opstk;
	size_t nopstk, capopstk;
};

struct pmark {
	size_t nbind, start;
};


/* ---- cursor (ir_parse.c) ---- */
_Noreturn void ps_fail(struct pstate *ps, const char *at, const char *fmt, ...)
	TP_PRINTF(3, 4);
/* "expected X" at the cursor, naming what is there instead. */
_Noreturn void ps_expected(struct pstate *ps, const char *what);
void ps_ws_skip(struct pstate *ps);
/* Skip blanks and // comments. Most calls are already at a token. */
static inline void ps_ws(struct pstate *ps)
{
	if (ps->p < ps->end && *ps->p > ' ' && *ps->p != '/')
		return;
	ps_ws_skip(ps);
}
bool ps_peek(struct pstate *ps, char c);   /* after ps_ws */
static inline bool ps_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static inline bool ps_ident_char(char c)
{
	return ps_ident_start(c) || (c >= '0' && c <= '9') || c == '$' || c == '.';
}

_Noreturn void ps_expected_lit(struct pstate *ps, const char *lit);

/* Length of lit when the input starts with it (as a whole word if it is
 * one), else 0. Inline, so that a literal's length is known when compiled;
 * most probes fail on the first byte. */
static inline size_t ps_lit_at(struct pstate *ps, const char *lit)
{
	ps_ws(ps);
	if (ps->p >= ps->end || *ps->p != lit[0])
		return 0;
	size_t n = strlen(lit);
	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, lit, n) != 0)
		return 0;
	if (ps_ident_start(lit[0]) && ps->p + n < ps->end && ps_ident_char(ps->p[n]))
		return 0;
	return n;
}

static inline bool ps_peek_lit(struct pstate *ps, const char *lit)
{
	return ps_lit_at(ps, lit) > 0;
}

static inline bool ps_peek_word(struct pstate *ps, const char *w)
{
	return ps_lit_at(ps, w) > 0;
}

/* Take lit (a word or punctuation) if it is next. */
static inline bool ps_accept(struct pstate *ps, const char *lit)
{
	size_t n = ps_lit_at(ps, lit);
	ps->p += n;
	return n > 0;
}

static inline void ps_expect(struct pstate *ps, const char *lit)
{
	if (!ps_accept(ps, lit))
		ps_expected_lit(ps, lit);
}
/* An identifier [A-Za-z_][A-Za-z0-9_$.]* ; returns its length (0 = none). */
size_t ps_ident(struct pstate *ps, const char **s);
bool ps_int(struct pstate *ps, int64_t *v);  /* decimal or 0x hex, optional '-' */
int64_t ps_expect_int(struct pstate *ps, const char *what);
/* A quoted string with LLVM escapes; the decoded bytes go into the arena. */
bool ps_string(struct pstate *ps, const char **s, size_t *len);
/* Capture balanced text starting at the cursor up to (not including) a
 * top-level character in `stops` or the end of the line. */
const char *ps_balanced(struct pstate *ps, const char *stops, size_t *len);
/* Consume "(...)" / "<...>" from its opening bracket to the matching one. */
void ps_skip_group(struct pstate *ps);
/* Line and column of a position in the source. */
void ps_linecol(struct pstate *ps, const char *at, uint32_t *line, uint32_t *col);

/* ---- values ---- */
struct pmark ps_scope_push(struct pstate *ps);
void ps_scope_pop(struct pstate *ps, struct pmark mark);
void ps_bind(struct pstate *ps, const char *name, uint32_t len, uint32_t n,
	     struct ir_value **vals);
/* An operand's type is its value's (as MLIR requires): the printer writes
 * the value's, so a text that says otherwise would not read back. Fails at
 * `at` when `written` is another type (operand i of op, 0-based). */
void ps_operand_type(struct pstate *ps, const char *at, const struct ir_value *v,
		     const struct ir_type *written, uint32_t i, const char *op, size_t oplen);
/* "%name" or "%name#i" at the cursor; fails on an undefined name. */
struct ir_value *ps_value_use(struct pstate *ps);
/* Parse "%name" (definition site); returns the name without '%'. */
uint32_t ps_value_def(struct pstate *ps, const char **name);

/* ---- types (ir_parse_type.c) and attribute values (ir_parse_attr.c) ---- */
#define PS_MAX_RANK 16 /* dims of a shape, values of a small integer list */
const struct ir_type *ps_type(struct pstate *ps);
bool ps_peek_type(struct pstate *ps);
const struct ir_type *ps_elem_type(struct pstate *ps); /* "f32", "i1", ... */
/* Step over prefix when the cursor is on it ("#cuda_tile."). */
void ps_skip_prefix(struct pstate *ps, const char *prefix);
/* "[1, ?, 3]" into v (allow_dyn: '?' as IR_DYN); at most cap values. */
uint32_t ps_int_list(struct pstate *ps, int64_t *v, uint32_t cap, bool allow_dyn);
/* A float/int literal for an element type, as raw bits / sign-extended value. */
uint64_t ps_scalar(struct pstate *ps, enum ir_elem e);
/* An array of typed scalars `[v : T, ...]`; whether the one at the cursor
 * is typed; an untyped one (`[-inf, 0]`) read with the element types given. */
bool ps_array_typed(struct pstate *ps);
const struct ir_attr *ps_untyped_array(struct pstate *ps, const struct ir_type *const *types,
				       uint32_t ntypes);
/* "<ELEM: DATA>"; the tile type comes later, so the data is kept pending. */
struct dense_pending {
	const struct ir_type *elem;
	bool list, hex;
	uint32_t n, cap;
	uint64_t *vals;    /* arena */
	const char *hexs;  /* arena: decoded bytes */
	size_t hexlen;
	const char *at;
};
void ps_dense_begin(struct pstate *ps, struct dense_pending *d);
const struct ir_attr *ps_dense_finish(struct pstate *ps, struct dense_pending *d,
				      const struct ir_type *tile);
const struct ir_attr *ps_hints(struct pstate *ps);       /* "<sm_100 = {...}>" */
const struct ir_attr *ps_predicate(struct pstate *ps);   /* div_by<..> ... */
const struct ir_attr *ps_typed_array(struct pstate *ps); /* "[0 : i32, ...]" */
const struct ir_attr *ps_int_array(struct pstate *ps);   /* "[1, 0]" / array<i32: 1, 0> */
/* An attribute of the given registry spec in custom syntax; NULL when the
 * spec prints nothing here (default rounding/overflow, unit). */
const struct ir_attr *ps_attr_spec(struct pstate *ps, const struct ir_attr_def *def);
/* Does the cursor start an attribute of this spec? (optional-group lookahead) */
bool ps_attr_starts(struct pstate *ps, const struct ir_attr_def *def);
/* A generic MLIR attribute value (generic op form, dictionaries). */
const struct ir_attr *ps_generic_attr(struct pstate *ps, const struct ir_attr_def *def);
/* "{a = 1, b}" (the brace already checked by the caller). */
void ps_attr_dict(struct pstate *ps, struct ir_op *op);

/* ---- ops (ir_parse_op.c, ir_parse_generic.c) ---- */
/* Every recursive path of the parser (regions, modules, types, attributes,
 * dense data) counts one shared depth against this one limit, so that no
 * input overflows the stack and no kind of nesting runs out before another
 * (a bytecode module may nest regions 200 deep, docs/bytecode.md). */
#define PS_MAX_DEPTH 256
/* One level deeper; "WHAT nested too deeply" at `at` past the limit. The
 * caller decrements ps->depth when it leaves the level. */
void ps_nest(struct pstate *ps, const char *at, const char *what);
void ps_block_body(struct pstate *ps, struct ir_block *b); /* ops up to '}' */
/* The same in two steps: the ops up to '}' onto the op stack (returns where
 * they start), then into the block. */
size_t ps_block_ops(struct pstate *ps);
void ps_op_push(struct pstate *ps, struct ir_op *op);
void ps_block_commit(struct pstate *ps, struct ir_block *b, size_t base);
void ps_block_body_one(struct pstate *ps, struct ir_block *b); /* one op */
/* Is `text` ("%x" or "%x#1") a defined value? */
bool ps_value_lookup(struct pstate *ps, const char *text, size_t len, struct ir_value **v);
void ps_format(struct pstate *ps, struct ir_op *op);
void ps_region_op(struct pstate *ps, struct ir_op *op);  /* if/for/loop/reduce/scan */
struct ir_op *ps_generic_op(struct pstate *ps, uint32_t nres);
struct ir_op *ps_unknown_op(struct pstate *ps, const char *name, size_t len, uint32_t nres);
void ps_loc_suffix(struct pstate *ps, struct ir_op *op);
/* "{ ops }" into block b (created by the caller, its arguments bound); when
 * the block does not end in a terminator, appends op `implicit_term` (an
 * ir_opcode, or -1 for none): the printer elides empty yield/continue. */
void ps_block_braced(struct pstate *ps, struct ir_block *b, int implicit_term);
/* Range of results that result def `rdef` covers. */
void ps_result_range(const struct ir_op *op, uint32_t rdef, uint32_t *first, uint32_t *count);
void ps_check_structural(struct pstate *ps, struct ir_op *op, const char *at);
void ir_op_drop_attr(struct ir_op *op, const char *name);
void ps_set_loc(struct pstate *ps, struct ir_op *op, const char *start);

#endif
