/* The source view's document (views/source_doc.c): the reference Python
 * file and its Rust kernel as lines, the semantic check of the pair
 * (engine/sem), the line links it implies (a source line and the Rust
 * line that computes the same value) and the marks of the lines where the
 * two sides differ. Drawing and keys are in views/source.c. */
#ifndef TILEPORT_VIEWS_SOURCE_INT_H
#define TILEPORT_VIEWS_SOURCE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/port/port.h"
#include "engine/sem/sem.h"
#include "views/view.h"

enum { SIDE_PY, SIDE_RS };

/* Marks, worst first; MARK_NONE on most lines. */
enum src_mark { MARK_CRITICAL, MARK_WARN, MARK_INFO, MARK_NONE };

struct src_file {
	char *path;     /* NULL: the Rust was translated in memory */
	char *shown;    /* the name the header shows */
	char *text;
	size_t len;
	size_t *start;  /* byte offset of each line */
	size_t n;
	uint8_t *mark;  /* enum src_mark per line */
};

/* An op of one side paired with an op of the other (1-based lines). */
struct src_link {
	uint32_t line[2];
	uint32_t entry;
	bool differs;
};

/* Where a finding points, for the status line. */
struct src_note {
	int side;
	uint32_t line;
	uint8_t mark;
	const char *text; /* owned by the document */
};

struct src_doc {
	struct src_file f[2];
	struct sem_report sem;
	bool have_sem;
	char *problem;  /* why there is no translation or check */
	char *untranslated; /* a partial translation: its refused kernels */
	int start_line; /* where the reader starts: the first kernel, the refusal */
	struct src_link *links;
	size_t nlinks;
	struct src_note *notes;
	size_t nnotes;
	char **strings;
	size_t nstrings;
	/* the Rust lines of each entry, for the entry under the Rust cursor */
	uint32_t *entry_first, *entry_last;
	size_t nentries;
};

/* Read `py` and `rs` (NULL: translate py in memory) and compare them.
 * Only unreadable files fail; a refusal or a pair that does not match
 * leaves a document that says so (problem, marks). */
int src_doc_load(struct src_doc *d, const char *py, const char *rs, struct tp_err *err);
/* The same on texts in memory (view_arg.model of the source view: a
 * changeset's reference and kernel); the names are what the headers show. */
int src_doc_load_texts(struct src_doc *d, const struct src_texts *t);
void src_doc_free(struct src_doc *d);

/* Line i (0-based) of a side, without its newline. */
const char *src_line(const struct src_file *f, size_t i, size_t *len);

#endif
