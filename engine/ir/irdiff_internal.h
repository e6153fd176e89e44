/* Private to the IR diff (irdiff*.c). */
#ifndef TILEPORT_IR_IRDIFF_INTERNAL_H
#define TILEPORT_IR_IRDIFF_INTERNAL_H

#include "engine/ir/ir.h"
#include "engine/ir/irdiff.h"

/* One normalised line of an entry: an op, or a closing-brace row. Its
 * normal form is not kept as text: lines compare by a 128-bit hash of it
 * (irdiff_norm.c). */
enum nline_kind { NLINE_OP, NLINE_CLOSE, NLINE_ELSE };
/* Why a line computes nothing the kernel uses: a pure op whose results
 * nothing live reads; a line in the branch of an `if` its constant
 * condition does not take. */
enum { NLINE_DEAD = 1, NLINE_UNTAKEN = 2 };

/* 32 bytes: a 100k-line entry has 100k of them a side. What an op's line
 * would repeat (its source lines, its name) is read from the op. */
struct nline {
	const struct ir_op *op; /* NULL for "}" and "} else {" */
	uint64_t body[2];       /* hash of the normalised op, depth left out */
	uint32_t line;          /* a brace's source line, 0 unknown (ops: op->loc) */
	uint16_t depth;         /* region nesting below the entry body */
	uint8_t kind;           /* enum nline_kind */
	uint8_t dead;           /* NLINE_DEAD | NLINE_UNTAKEN, or 0: a live op */
	uint8_t split_copy;     /* in the first of two loops a compiler split one into */
};

/* The op a line counts as: none for braces, and none in the first of two
 * loops cuTile Python's compiler split one loop into (irdiff_norm.c):
 * counted once, the iterations are the same ops. */
static inline const struct ir_op *nline_counted(const struct nline *l)
{
	return l->split_copy ? NULL : l->op;
}

/* Same normalised op at the same depth. */
static inline bool nline_same(const struct nline *a, const struct nline *b)
{
	return a->depth == b->depth && a->body[0] == b->body[0] && a->body[1] == b->body[1];
}

/* Source lines, 0 unknown. */
static inline uint32_t nline_first(const struct nline *l)
{
	return l->op ? l->op->loc.line : l->line;
}

static inline uint32_t nline_last(const struct nline *l)
{
	return l->op ? (l->op->loc.end_line ? l->op->loc.end_line : l->op->loc.line) : l->line;
}

/* Canonical op name ("pow" for fpowf), "}" for braces. */
static inline const char *nline_name(const struct nline *l)
{
	return l->op ? irdiff_op_name(l->op) : "}";
}

struct nside {
	struct nline *lines;
	size_t n, cap;
	char **texts; /* canonical text per op line (NULL for braces), when asked for */
	/* per line: the op whose region holds it (the entry at the top), and the
	 * for/loop ops around it (ops do not point to their block) */
	const struct ir_op **owner;
	uint16_t *loops;
};

static inline size_t nline_index(const struct nside *s, const struct nline *l)
{
	return (size_t)(l - s->lines);
}

/* A line's canonical text: a brace's own, an op's when texts were asked for. */
static inline const char *nline_text(const struct nside *s, const struct nline *l)
{
	if (l->kind != NLINE_OP)
		return l->kind == NLINE_ELSE ? "} else {" : "}";
	return s->texts ? s->texts[nline_index(s, l)] : NULL;
}

/* Printed types and attributes of one module, by pointer: types are
 * interned and the common attributes shared (ir_attr_enum ...), so a
 * kernel prints a few of them thousands of times. */
struct pcache {
	struct pcache_slot {
		uintptr_t key;     /* the pointer, its low bits saying how it was printed */
		uint32_t off, len; /* the text, in `text` */
		uint64_t word[2];  /* its hash, for the normal form (irdiff_norm.c) */
	} *v;
	size_t n, cap;
	struct sbuf text;
};
/* irdiff_type(t) through the cache. */
void irdiff_cached_type(struct sbuf *sb, struct pcache *c, const struct ir_type *t);
void irdiff_pcache_free(struct pcache *c);

/* The normaliser: an entry's ops in print order as normalised lines.
 * Values are alpha-renamed by what defines them (results by their op,
 * constants by their value, block arguments by position), assume chains
 * are looked through, identity dim_map is explicit, pow/fpowf are one op,
 * and unused constants are dropped unless keep_dead. With texts, each op
 * line also gets its canonical text (malloc'd, freed with the side). */
void irdiff_flatten(const struct ir_op *entry, bool keep_dead, bool texts, struct pcache *printed,
		    struct nside *out);
void irdiff_nside_free(struct nside *s);
/* Normalised spelling of a type (explicit dim_map). */
void irdiff_type(struct sbuf *sb, const struct ir_type *t);

/* The lines behind each row of an entry (NULL on an absent side). */
struct rowlines {
	const struct nline **ref, **gen;
};

/* Align two sides (libgit2, initialised on first use: *libgit2_up says it
 * was; whole: common ends too); fills e->rows and rl. Returns -1 with err
 * set. */
int irdiff_align(const struct nside *ref, const struct nside *gen, struct irdiff_entry *e,
		 struct rowlines *rl, bool whole, bool *libgit2_up, struct tp_err *err);

/* Findings under construction. */
struct fbuf {
	struct irdiff_finding *v;
	size_t n, cap;
};
struct irdiff_finding *irdiff_add(struct fbuf *fb, const char *rule, enum irdiff_severity sev,
				  int entry, const char *fmt, ...) TP_PRINTF(5, 6);

/* Every rule for one entry pair. */
void irdiff_rules(struct irdiff_entry *e, int index, const struct nside *ref,
		  const struct nside *gen, const struct rowlines *rl, struct pcache *types,
		  struct fbuf *fb);

/* A count of ops on one side with the line range they cover. */
struct range {
	int n;
	uint32_t first, last;
};
void irdiff_range_add(struct range *r, const struct nline *l);
struct range irdiff_count_if(const struct nside *s,
			     bool (*pred)(const struct ir_op *, const void *), const void *ctx);
/* First row about op `name` (unpaired_only: skip equal rows), or -1. */
int irdiff_find_row(const struct irdiff_entry *e, const char *name, bool unpaired_only);
/* Add a finding with both ranges; takes ownership of msg. */
struct irdiff_finding *irdiff_add_ranges(struct fbuf *fb, const char *rule,
					 enum irdiff_severity sev, int entry, struct range a,
					 struct range b, int row, char *msg);
/* The rule groups (irdiff_checks.c). */
void irdiff_attr_rules(struct irdiff_entry *e, int ei, const struct nside *ref,
		       const struct nside *gen, struct fbuf *fb);
void irdiff_layout_rules(struct irdiff_entry *e, int ei, const struct nside *ref,
			 const struct nside *gen, struct fbuf *fb);
void irdiff_row_checks(struct irdiff_entry *e, int ei, const struct nside *ref,
		       const struct nside *gen, const struct rowlines *rl, struct fbuf *fb);

/* Source lines of an op (0, 0 when unknown). */
void irdiff_op_lines(const struct ir_op *op, uint32_t *first, uint32_t *last);

#endif
