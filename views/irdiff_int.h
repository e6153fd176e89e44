/* The IR diff view's shared parts: the document (the pairs of IR files,
 * their engine/ir diffs, the logical items the diff pane shows and the
 * findings), shared by the diff pane and its findings pane; and the
 * layout and drawing of the diff pane (views/irdiff_draw.c). */
#ifndef TILEPORT_VIEWS_IRDIFF_INT_H
#define TILEPORT_VIEWS_IRDIFF_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/ir/irdiff.h"
#include "views/view.h"

/* One reference file against one generated file. */
struct irv_pair {
	char *variant;              /* "" for a single-variant run or two files */
	char *ref_shown, *gen_shown; /* relative to the run, or as given */
	struct ir_module *ref, *gen;
	struct irdiff_result *r;    /* NULL when a side is missing or did not load */
	char *problem;              /* why there is no diff */
	uint32_t first_item;        /* its IV_PAIR item */
	uint32_t *entry_head;       /* per entry: header item, or its first row's */
	uint32_t *entry_row0;       /* per entry: item of row 0 (UINT32_MAX: no rows) */
	struct ir_names **names;    /* per entry and side: printed value names, made
				       when a changed row is first drawn */
};

enum irv_item_kind {
	IV_SUMMARY, /* several pairs: the pair's variant and verdict */
	IV_PAIR,    /* the two file names */
	IV_ENTRY,   /* an entry header (several entries, or one side only) */
	IV_ROW,     /* an aligned op */
	IV_EMPTY,   /* nothing to show for a pair, and why */
};

/* A changed row's differing bytes on one side. */
struct irv_span {
	uint32_t off, len;
};

struct irv_item {
	uint8_t kind;
	int8_t mark;      /* severity of the worst finding on it (enum irdiff_severity), -1: none */
	uint16_t pair;
	uint32_t entry, row;
	/* changed rows: what differs, side 0 reference, 1 generated; worked out
	 * when the row is first drawn or searched */
	struct irv_span *spans[2];
	uint16_t nspans[2];
	bool diffed;
};

/* A finding and the item it points at. */
struct irv_find {
	uint16_t pair;
	uint32_t index; /* in that pair's r->findings */
	uint32_t item;
};

struct irv_doc {
	int refs; /* the diff pane and the findings pane hold it */
	char *run_dir;            /* a run's pairs, or NULL: */
	char *ref_path, *gen_path; /* two files */
	bool keep_dead;           /* irdiff --keep-dead-constants */
	bool syncing;             /* one pane is moving the other */
	struct irv_pair *pairs;
	size_t npairs;
	struct irv_item *items;
	size_t nitems, capitems;
	struct irv_find *finds; /* in item order, worst first on one item */
	size_t nfinds;
	enum irdiff_verdict verdict; /* the worst over the pairs */
	int ncritical, nwarn, ninfo, nnote;
	int lnw;            /* line number column width */
	size_t cur_find;    /* the finding last jumped to; SIZE_MAX: none */
};

/* A display line: part 1 is a unified changed row's generated line (and a
 * unified file header's +++ line); sub counts wrapped lines. */
struct irv_dline {
	uint32_t item;
	uint16_t part;
	uint16_t sub;
};

enum irv_fl_kind { FL_PAIR, FL_ENTRY, FL_FIND, FL_NONE };

struct irv_fline {
	uint8_t kind;
	uint16_t pair;
	uint32_t entry; /* FL_ENTRY */
	uint32_t find;  /* FL_FIND: index in doc->finds */
};

struct irv {
	struct irv_doc *doc;
	bool findings_pane; /* this view is the lower findings pane */
	bool pane_pending;  /* open the findings pane on the first pump */

	/* the diff pane */
	bool unified, wrap;
	bool narrow;        /* side by side would not fit: unified anyway */
	size_t hcol;        /* sideways scroll of the ops' text, in columns */
	int laid_width;
	struct irv_dline *dl;
	size_t ndl, capdl;
	uint32_t *first;    /* first display line of each item */

	/* the findings pane */
	struct irv_fline *fl;
	size_t nfl;
	int sev_w, rule_w, range_w;
};

/* views/irdiff_doc.c */
/* Fill the document from its sources (d->run_dir, else d->ref_path and
 * d->gen_path). Two files: -1 when either does not load. A run: -1 when
 * nothing at all can be diffed; what is missing for other pairs goes to
 * *problems (caller frees). */
int irv_doc_load(struct irv_doc *d, char **problems, struct tp_err *err);
void irv_doc_clear(struct irv_doc *d);
void irv_doc_unref(struct irv_doc *d);

/* views/irdiff_words.c: work out a changed row's spans. */
void irv_diff_words(struct irv_doc *d, struct irv_item *it, const struct irdiff_row *r);

/* views/irdiff_draw.c */
/* Lay the display lines out again for v->width, keeping the selected item
 * on screen. */
void irv_layout(struct view *v);
void irv_line(struct view *v, size_t idx, struct line_out *out);
bool irv_header(struct view *v, struct line_out *out);
ssize_t irv_find_item(struct view *v, size_t from, bool backward, const struct view_search *s);
/* The item shown on display line idx. */
uint32_t irv_item_of(const struct irv *x, size_t idx);
const struct irdiff_row *irv_row(const struct irv_doc *d, const struct irv_item *it);
/* Text of a finding's line range ("22-23", "22", "-"). */
void irv_range(char *buf, size_t n, uint32_t first, uint32_t last);
enum line_type irv_severity_type(enum irdiff_severity s);
/* "@ref <-> @gen", or the one name an entry has. */
void irv_entry_names(const struct irdiff_entry *e, struct sbuf *out);
enum line_type irv_verdict_type(enum irdiff_verdict v);

#endif
