/* Internal to engine/sem: comparing the graphs of the two sides node by
 * node (sem_cmp.c), the guards and paddings of memory accesses
 * (sem_guard.c), and the findings a comparison makes. */
#ifndef TILEPORT_SEM_SEM_CMP_H
#define TILEPORT_SEM_SEM_CMP_H

#include "engine/sem/sem_eval.h"

struct susers;

/* A finding before it has an entry: freed by its list. */
struct sfind {
	int sev;          /* enum sem_sev */
	const char *rule;
	char *msg;
	char *pv, *rv;    /* the two values, for a difference */
	int pl, rl;       /* lines */
};

struct sfinds {
	struct sfind *v;
	size_t n, cap;
};
void sf_add(struct sfinds *f, int sev, const char *rule, int pl, int rl, char *pv, char *rv,
	    const char *fmt, ...) TP_PRINTF(8, 9);
void sf_truncate(struct sfinds *f, size_t n);
void sf_free(struct sfinds *f);

/* What a source parameter the driver left open was found to be in the
 * Rust: a Rust parameter, or a shape or stride of one. Kept across the
 * cases of a pair. */
struct sunify {
	int op;       /* 0 none, S_PARAM, S_SHAPE, S_STRIDE */
	int param;    /* the Rust parameter (the array for a shape or stride) */
	int axis;
};

struct scmp {
	struct sgraph *p, *r;
	struct sbind *b;
	struct sunify *uni;      /* per source parameter */
	/* loops paired, and their carried slots */
	int *loop_r;             /* source loop -> Rust loop, -1 */
	int *loop_p;
	int **slot_r;            /* source loop, slot -> Rust slot */
	/* memo of pairs: key (p << 32 | r) -> 1 equal, 2 differs */
	uint64_t *mkey;
	uint8_t *mval;
	size_t mcap, mn;
	/* the trail: what to undo when a tried comparison fails */
	struct strail *tr;
	size_t ntr, captr;
	/* Rust parameters left open, found to be a shape or stride of a
	 * source array (op, param = the source array, axis) */
	struct sunify *uni_r;
	struct sfinds *out;
	/* the first place the two differ, for the message */
	sid dp, dr;
	const char *dwhat;
	int dlp, dlr;            /* the loops, for a "loop bounds" difference */
	int depth;
	/* users of each side's nodes, for the dead-lane analysis */
	const struct susers *up, *ur;
};

void scmp_init(struct scmp *c, struct sgraph *p, struct sgraph *r, struct sbind *b, struct sunify *uni,
	       struct sunify *uni_r, struct sfinds *out);
/* Record the place the two sides differ, unless one is recorded. */
void scmp_diff(struct scmp *c, sid p, sid r, const char *what);
/* Render a node of either side. */
char *scmp_render(const struct scmp *c, int side, sid x);
void scmp_free(struct scmp *c);
/* Do p (source) and r (Rust) compute the same? Bindings and findings a
 * failed comparison made are undone. */
bool scmp_eq(struct scmp *c, sid p, sid r);
/* Pair two loops (their bounds equal). */
bool scmp_loops(struct scmp *c, int lp, int lr);
/* The trail position and undoing to it (bindings, memo, findings). */
struct smark {
	size_t tr, fn;
};
struct smark scmp_mark(const struct scmp *c);
void scmp_undo(struct scmp *c, struct smark m);
/* Forget the recorded difference. */
void scmp_clear_diff(struct scmp *c);
/* The element types of a source and a Rust node are the same here. */
bool scmp_same_dt(const struct scmp *c, int p, int r);

/* ---- memory accesses (sem_guard.c) ---- */

/* users of each node (reverse edges); effects are users nn + index */
struct susers {
	uint32_t *start, *list;
	size_t n;
	uint8_t *flags; /* SU_LOOP: a loop carries it */
};
enum { SU_LOOP = 1 };

/* Compare the offsets, masks and paddings of two pointer accesses (a
 * gather or a scatter's): equal, with NOTEs for what differs only in
 * spelling or bounds the launch guarantees; false with a finding for a
 * real difference. what: "load of a" for messages. */
bool sg_cmp_offset(struct scmp *c, sid arr_p, sid po, sid ro, int rank, int pl, int rl, const char *what);
bool sg_cmp_mask(struct scmp *c, sid pm, sid rm, int pl, int rl, const char *what);
void susers_build(const struct sgraph *g, struct susers *u);
void susers_free(struct susers *u);
/* Do the lanes a mask turns off, in a gather's value, never reach memory?
 * (only lane-wise operations lead from it to stores whose masks check
 * the same indices) */
bool sg_pad_dead(const struct sgraph *g, const struct susers *u, sid gather);
/* the same for a view load's padded lanes (out of the array's bounds) */
bool sg_view_pad_dead(const struct sgraph *g, const struct susers *u, sid load);
/* Paddings of two loads or gathers: equal, refined, or not observable. */
bool sem_pad_eq(struct scmp *c, sid p, sid r);

#endif
