/* Private to the IR diff (irdiff*.c). */
#ifndef TILEPORT_IR_IRDIFF_INTERNAL_H
#define TILEPORT_IR_IRDIFF_INTERNAL_H

#include "engine/ir/ir.h"
#include "engine/ir/irdiff.h"

/* One normalised line of an entry: an op, or a closing-brace row. */
struct nline {
	const struct ir_op *op; /* NULL for "}" and "} else {" */
	int depth;              /* region nesting below the entry body */
	int loop_depth;         /* enclosing for/loop ops */
	uint32_t first, last;   /* source lines, 0 unknown */
	char *text;             /* canonical text */
	char *key;              /* "<depth>|<normalised op>" */
	const char *body;       /* key without the depth prefix */
	const char *name;       /* canonical op name ("pow" for fpowf), "}" for braces */
};

struct nside {
	struct nline *lines;
	size_t n, cap;
};

/* The normaliser: an entry's ops in print order as normalised lines.
 * Values are alpha-renamed by what defines them (results by their op,
 * constants by their value, block arguments by position), assume chains
 * are looked through, identity dim_map is explicit, pow/fpowf are one op,
 * and unused constants are dropped unless keep_dead. */
void irdiff_flatten(const struct ir_op *entry, bool keep_dead, struct nside *out);
void irdiff_nside_free(struct nside *s);
/* Normalised spelling of a type (explicit dim_map). */
void irdiff_type(struct sbuf *sb, const struct ir_type *t);

/* Align two sides (libgit2); fills e->rows. Returns -1 with err set. */
int irdiff_align(const struct nside *ref, const struct nside *gen, struct irdiff_entry *e,
		 struct tp_err *err);

/* Findings under construction. */
struct fbuf {
	struct irdiff_finding *v;
	size_t n, cap;
};
struct irdiff_finding *irdiff_add(struct fbuf *fb, const char *rule, enum irdiff_severity sev,
				  int entry, const char *fmt, ...) TP_PRINTF(5, 6);

/* Every rule for one entry pair (either side may be NULL: missing entry). */
void irdiff_rules(struct irdiff_entry *e, int index, const struct nside *ref,
		  const struct nside *gen, struct fbuf *fb);

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
void irdiff_row_checks(struct irdiff_entry *e, int ei, struct fbuf *fb);

/* Source lines of an op (0, 0 when unknown). */
void irdiff_op_lines(const struct ir_op *op, uint32_t *first, uint32_t *last);

#endif
