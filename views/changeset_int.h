/* The changeset view's shared parts: the document (a changeset read from
 * a commit, or the plan of a dry-run packaging), the upper pane's items,
 * and the lower pane's modes (views/changeset_pane.c). */
#ifndef TILEPORT_VIEWS_CHANGESET_INT_H
#define TILEPORT_VIEWS_CHANGESET_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/git/changeset.h"
#include "views/view.h"

struct csv_doc {
	int refs; /* the upper pane and the lower pane hold it */
	/* review: the repository and revision; a plan: the run */
	char *dir, *rev;
	struct run_model *run; /* a reference of its own */
	bool plan;      /* nothing committed yet: p commits */
	struct cs_package_result res; /* res.cs is the changeset either way */
	/* Tables made from the note for benchmark views (b), which borrow
	 * them: kept until the document goes, since a view opened before a
	 * refresh still shows its own. */
	struct perf_table **bench;
	size_t nbench, capbench;
};

/* What the lower pane shows. */
enum csv_mode {
	CM_DIFF,   /* one file's diff */
	CM_IR,     /* the IR findings from the note */
};

enum csv_item_kind {
	CI_PROBLEM, /* a plan's reason to refuse */
	CI_SECTION,
	CI_FILE,
	CI_CHECK,
	CI_INFO,  /* accepted, geomean, IR verdict, note problem */
	CI_TRAIL, /* one attempt of the verdict trail */
};

struct csv_item {
	uint8_t kind;
	uint32_t index;
};

struct csv_text {
	uint32_t off, len;
};

struct csv {
	struct csv_doc *doc;
	bool pane;             /* this is the lower pane */
	bool pane_pending;     /* open the lower pane on the first pump */
	/* upper pane */
	struct csv_item *items;
	size_t nitems;
	char **info;           /* CI_INFO texts */
	size_t ninfo;
	/* lower pane */
	enum csv_mode mode;
	size_t file;           /* CM_DIFF: the file shown */
	const char *text;      /* CM_DIFF: its patch */
	struct csv_text *lines; /* CM_DIFF: the patch's lines */
	size_t n;              /* the pane's line count */
};

static inline struct changeset *csv_cs(const struct csv_doc *d)
{
	return (struct changeset *)&d->res.cs;
}

/* views/changeset_pane.c */
/* Fill a lower pane of the given mode; -1 with err when there is nothing
 * to show in it (no reference, no bench rows in the note, ...). */
int csv_pane_fill(struct view *v, enum csv_mode mode, size_t file, struct tp_err *err);
void csv_pane_line(struct view *v, size_t idx, struct line_out *out);
bool csv_pane_header(struct view *v, struct line_out *out);
void csv_pane_free(struct csv *x);

#endif
