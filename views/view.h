/* The view framework shared by every view: typed lines made of typed
 * cells, the view record with its ops table, the generated action and view
 * ids, and the host interface through which a view asks the screen layer
 * for things (messages, prompts, other views, $EDITOR). Nothing here
 * touches curses: views build lines, the tui layer draws them. */
#ifndef TILEPORT_VIEWS_VIEW_H
#define TILEPORT_VIEWS_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine/base/util.h"

struct run_model;
struct session;

/* ---- line types (views/lines.def) ---- */
enum line_type {
#define LINE(id, name, rule, help) LINE_##id,
#include "views/lines.def"
#undef LINE
	LINE__COUNT
};

struct line_type_info {
	const char *name;
	const char *builtin; /* theme rule used when no theme sets it */
	const char *help;
};
extern const struct line_type_info line_types[LINE__COUNT];
/* -1 when unknown */
int line_type_by_name(const char *name);

/* ---- views (views/views.def) ---- */
enum view_id {
#define VIEW(id, name, keys, help) VIEW_##id,
#include "views/views.def"
#undef VIEW
	VIEW__COUNT
};

/* ---- actions (views/views.def + views/requests.def) ---- */
enum request {
	REQ_NONE = 0,
#define VIEW(id, name, keys, help) REQ_VIEW_##id,
#include "views/views.def"
#undef VIEW
#define REQ_GROUP(title)
#define REQ(id, name, maps, keys, help) REQ_##id,
#include "views/requests.def"
#undef REQ
#undef REQ_GROUP
	REQ__COUNT
};

/* view-NAME actions come first, in view order. */
static inline enum request view_request(enum view_id id)
{
	return (enum request)(1 + (int)id);
}
/* The view a view-NAME action shows, or -1. */
static inline int request_view(enum request r)
{
	return r >= 1 && (int)r <= VIEW__COUNT ? (int)r - 1 : -1;
}

struct request_info {
	const char *name;   /* "move-down" */
	const char *keymaps; /* where the default keys go: "generic", "stage pipeline" */
	const char *keys;   /* default keys in config syntax */
	const char *help;
};
extern const struct request_info requests[REQ__COUNT];
/* The help screen's order: a group title (req == REQ_NONE) then actions. */
struct request_layout {
	const char *group;
	enum request req;
};
extern const struct request_layout request_layout[];
extern const size_t request_layout_len;
/* REQ_NONE when unknown */
enum request request_by_name(const char *name);

/* Keymap ids for the host's key queries: a view's id, or the generic one. */
#define KEYMAP_GENERIC VIEW__COUNT

/* A prompt command, as the help view lists them. */
struct command_info {
	const char *name, *args, *help;
};

/* ---- typed lines ---- */
/* ALIGN_TAIL is left-aligned text whose end matters more than its start
 * (paths, file names): cut, it keeps the end behind a leading ~. */
enum cell_align { ALIGN_LEFT, ALIGN_RIGHT, ALIGN_TAIL };

/* A run of text of one type. width > 0 makes it a column: padded or cut
 * (with a ~ marker) to exactly that many screen columns. A line cut by the
 * right edge of the screen ends in a ~ as well. */
struct cell {
	uint32_t off, len; /* into line_out.text */
	uint16_t type;
	uint16_t width;
	uint8_t align;
};

/* What a view hands back for one line: the line's type (used for the
 * background of the whole row and for colour lookups) and its cells. */
struct line_out {
	enum line_type type;
	struct sbuf text; /* all cells' text, in order: what search reads */
	struct cell *cells;
	size_t ncells, capcells;
};

void lo_init(struct line_out *o);
void lo_reset(struct line_out *o, enum line_type type);
void lo_free(struct line_out *o);
void lo_add(struct line_out *o, enum line_type type, const char *s, size_t n);
void lo_adds(struct line_out *o, enum line_type type, const char *s);
void lo_addf(struct line_out *o, enum line_type type, const char *fmt, ...) TP_PRINTF(3, 4);
/* A fixed-width cell: padded or cut to `width` columns. */
void lo_cell(struct line_out *o, enum line_type type, int width, enum cell_align align,
	     const char *s);
/* A fixed-width column followed by one blank separator column. */
void lo_col(struct line_out *o, enum line_type type, int width, enum cell_align align,
	    const char *s);

/* ---- the view ---- */
struct view;
struct view_host;

/* What to open: each view reads the fields it needs. A view of one
 * attempt (attempt_view_open in views/attempt.h) gets run, index (the
 * attempt's sequence number) and path (the run directory). */
struct view_arg {
	const char *path;    /* file, attempt/run directory or output root */
	const char *path2;   /* a second file (the IR diff's generated side) */
	const char *name;    /* stage key ("03-D1"), run name, title override */
	struct run_model *run; /* the run (engine/core/session.h); the view takes a reference */
	void *model;         /* a view's own shared model (the IR diff's findings pane) */
	long line;           /* 1-based line to select first; 0 = none; -1 = the
	                      * last line, following what is appended */
	int index;           /* view-specific (attempt sequence number; the source
	                      * view: SRC_AT_RUST when line is a line of the Rust) */
};
#define SRC_AT_RUST 1

/* The source view (VIEW_SOURCE) on texts in memory rather than files, as
 * view_arg.model: a changeset's reference and kernel. The view copies them. */
struct src_texts {
	const char *py_name, *py; /* what the header shows, the Python text */
	const char *rs_name, *rs; /* rs NULL: the view translates py */
	const char *ffi;          /* the launcher (ffi.rs), or NULL */
};

/* Search state kept per view. Case-insensitive unless the pattern has an
 * upper-case letter (smart case). */
struct view_search {
	char *pattern;
	bool ignore_case;
};

/* Find the next occurrence of the search in [s, s+n); returns a pointer to
 * it or NULL. Used by views with their own fast search and the renderer. */
const char *view_search_in(const struct view_search *s, const char *text, size_t n);

/* ops->open flags */
enum view_open_flags {
	OPEN_SPLIT = 1 << 0,   /* into the lower pane of the current view */
	OPEN_NOFOCUS = 1 << 1, /* keep the focus where it is */
	OPEN_REUSE = 1 << 2,   /* refill an open view of that kind in the slot */
};

struct view_ops {
	const char *type;  /* shown in the title bar */
	size_t private_size;
	/* A view of one attempt's artifacts, opened by its view-NAME key from
	 * the pipeline or stage view with a stage selected: the stages it is
	 * for ("BC"), and what it is called in messages ("IR diff"). */
	const char *stages;
	const char *noun;
	/* Fill the view; may start loading (set v->loading and use pump). */
	int (*open)(struct view *v, const struct view_arg *arg, struct tp_err *err);
	/* Format line idx (< v->nlines) into out. */
	void (*line)(struct view *v, size_t idx, struct line_out *out);
	/* First shot at an action; return REQ_NONE when handled, else the
	 * request (possibly another one) for the framework to handle. */
	enum request (*request)(struct view *v, enum request req);
	/* The cursor moved to v->lineno (update a lower pane, for instance). */
	void (*select)(struct view *v);
	/* Optional: fixed header row above the lines (column titles). */
	bool (*header)(struct view *v, struct line_out *out);
	/* Optional: fixed footer row below the lines (a summary: totals, the
	 * verdict). Redrawn with the whole body (view_redraw). */
	bool (*footer)(struct view *v, struct line_out *out);
	/* Optional: the body's size changed (v->width, v->height are new);
	 * views whose lines depend on the width lay them out again here. */
	void (*resize)(struct view *v);
	/* Optional: title bar text after the type (what is shown, position). */
	void (*title)(struct view *v, struct sbuf *out);
	/* Optional: a word or two after the title in a colour of its own (a
	 * run's outcome); returns its line type, LINE_DEFAULT for none. */
	enum line_type (*badge)(struct view *v, struct sbuf *out);
	/* Optional: a mode word ("paused") for the right of the title bar,
	 * beside the position where [follow] goes: the title text before it
	 * changes as a run moves on, the right end does not. NULL for none. */
	const char *(*mode)(struct view *v);
	/* Optional: do up to budget_ms of pending loading; return true while
	 * more remains. Called each loop pass while v->loading. */
	bool (*pump)(struct view *v, int64_t budget_ms);
	/* Optional: a faster search than formatting every line. Returns the
	 * matching line index or -1. */
	ssize_t (*find)(struct view *v, size_t from, bool backward, const struct view_search *s);
	/* Optional: called every ~100 ms while v->ticking (spinners, ages). */
	void (*tick)(struct view *v);
	/* Optional: still producing (a live run): keeps the wait short and
	 * holds back script input. */
	bool (*busy)(struct view *v);
	/* Optional: the program is being stopped (a signal): stop what the
	 * view drives (abort a live run; its state is saved). Return true
	 * while that is still finishing; the loop keeps running meanwhile. */
	bool (*stop)(struct view *v);
	/* Optional: the body rows its lines need as a lower pane (its header
	 * included); the layout gives it no more, up to the split size. */
	int (*want_rows)(struct view *v);
	/* Optional: the columns it should have as a side pane (a vertical
	 * split) of a screen `cols` wide; the layout gives it no more than
	 * its split size. 0: the split size. */
	int (*want_cols)(struct view *v, int cols);
	/* Optional: whether a bound request applies now (the status line's key
	 * hints leave out what would only be refused). NULL: all do. */
	bool (*offers)(struct view *v, enum request req);
	/* Optional: the file behind the selected line, for edit/pager. Returns
	 * a path (owned by the view) or NULL; *line gets a line number or 0. */
	const char *(*file)(struct view *v, long *line);
	/* Free private state. */
	void (*done)(struct view *v);
};

struct view {
	const struct view_ops *ops;
	enum view_id id;
	struct view_host *host;
	void *priv;
	char *ref;           /* what it shows, for the title */

	size_t nlines;       /* number of lines: set through view_set_lines */
	size_t offset;       /* first line on screen */
	size_t lineno;       /* selected line */
	size_t col;          /* horizontal scroll, in columns */
	int height, width;   /* body rows/columns given by the layout */

	bool loading;        /* has pending work for ops->pump */
	bool ticking;        /* wants ops->tick */
	bool follow;         /* keep the last line in sight as lines arrive */
	bool line_numbers;
	struct view_search search;

	/* redraw bookkeeping read by the tui layer */
	bool redraw;         /* whole body */
	bool title_dirty;
	uint8_t *dirty;      /* one byte per body row */
	int dirty_cap;

	struct view *parent; /* where view-close returns to */
	struct view *lower;  /* its lower pane, if any */
	struct view *upper;  /* set on a lower pane: the view above it */
};

/* Every view's ops, named after its views.def entry, and by id. */
#define VIEW(id, name, keys, help) extern const struct view_ops name##_view_ops;
#include "views/views.def"
#undef VIEW
extern const struct view_ops *const view_ops_table[VIEW__COUNT];

/* ---- services the screen layer gives to views ---- */
typedef void (*view_answer_cb)(struct view *v, const char *answer, void *ctx);

enum external_kind { EXTERNAL_EDITOR, EXTERNAL_PAGER };

struct view_host {
	/* A message on the status line (error: styled as one). */
	void (*report)(struct view_host *h, bool error, const char *msg);
	/* What a message said has been overtaken (the run moved on): the status
	 * line goes back to the keys. An error stays until the next key. */
	void (*overtaken)(struct view_host *h);
	/* Open a view; returns it, or NULL with a message reported. */
	struct view *(*open)(struct view_host *h, struct view *from, enum view_id id,
			     const struct view_arg *arg, unsigned flags);
	/* Ask for a line of text; cb gets it, or NULL when cancelled. */
	void (*prompt)(struct view_host *h, struct view *v, const char *label,
		       view_answer_cb cb, void *ctx);
	/* Ask yes/no; cb gets "y" or NULL. */
	void (*confirm)(struct view_host *h, struct view *v, const char *question,
			view_answer_cb cb, void *ctx);
	/* Run $EDITOR or $PAGER on a file with the screen suspended. */
	int (*external)(struct view_host *h, enum external_kind kind, const char *path, long line);
	/* Close a view (for instance the lower pane when nothing is selected). */
	void (*close)(struct view_host *h, struct view *v);
	/* Quit the program. */
	void (*quit)(struct view_host *h);
	/* The keys bound to req in a keymap, in config syntax, space separated. */
	void (*keys_for)(struct view_host *h, int keymap, enum request req, struct sbuf *out);
	/* The prompt commands. */
	const struct command_info *(*commands)(struct view_host *h, size_t *n);
	/* Where runs come from (engine/core/session.h): views open and attach
	 * run models through it. */
	struct session *session;
};

void view_report(struct view *v, const char *fmt, ...) TP_PRINTF(2, 3);
/* Ask the question; on yes, do req (REQ_VIEW_CLOSE closes v, REQ_QUIT
 * quits). For views that stop what they drive when left. */
void view_confirm_leave(struct view *v, const char *question, enum request req);
void view_error(struct view *v, const char *fmt, ...) TP_PRINTF(2, 3);

/* ---- generic behaviour (views/view.c) ---- */
/* Set the number of lines after the model changed: rows of lines that
 * appeared are marked dirty; following views jump to the end. */
void view_set_lines(struct view *v, size_t n);
/* Line idx changed: repaint its row if it is on screen. */
void view_line_dirty(struct view *v, size_t idx);
/* Repaint the whole body and title. */
void view_redraw(struct view *v);
/* Select line idx, scroll it into sight, tell the view (ops->select). */
void view_select(struct view *v, size_t idx);
/* Navigation and scrolling actions; returns false if req is not one. */
bool view_navigate(struct view *v, enum request req);
/* Keep offset/lineno valid after a resize or a change in nlines. */
void view_clamp(struct view *v);
/* Run the view's search from the cursor; reports when nothing matched. */
bool view_find(struct view *v, bool backward, bool skip_current);
void view_set_search(struct view *v, const char *pattern);

/* Wall-clock now in ms; TILEPORT_NOW (ms since the epoch) freezes it so
 * screen tests can show ages and elapsed times. */
int64_t view_now_ms(void);
/* Frame n of the spinner a running row shows (frames repeat). */
const char *view_spinner(uint64_t n);

/* Format line idx through the ops (with a reusable buffer). */
void view_format(struct view *v, size_t idx, struct line_out *out);

#endif
