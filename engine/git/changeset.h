/* Changesets: an accepted run packaged as the six-file commit, and a
 * commit read back for review (docs/changeset.md). Every git object, ref,
 * index, diff and note goes through libgit2; nothing here runs git.
 *
 *   tileport package RUN   cs_package: checks the run and the workspace,
 *                          builds the commit and its note in memory, and
 *                          only then writes them (one pack, one ref
 *                          transaction), so a refusal or a failure leaves
 *                          the repository as it was
 *   tileport review REV    cs_review: files with roles, shape checks,
 *                          per-file diffs, the run evidence from the note
 *   tileport log           cs_log: the changesets on tileport/ branches
 *
 * The run evidence is a git note under refs/notes/tileport holding one
 * JSON object (cs_note_* keys below). */
#ifndef TILEPORT_GIT_CHANGESET_H
#define TILEPORT_GIT_CHANGESET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/base/util.h"

struct cJSON;
struct run_model;
struct run_state;

#define CS_NOTES_REF "refs/notes/tileport"
#define CS_BRANCH_PREFIX "tileport/"
#define CS_NOTE_SCHEMA 1

/* ---- the six files ---- */

enum cs_role {
	CS_ROLE_KERNEL,   /* src/tilegym/ops/cutile_rs/{op}_kernel/kernel.rs */
	CS_ROLE_FFI,      /* src/tilegym/ops/cutile_rs/{op}_kernel/ffi.rs */
	CS_ROLE_WRAPPER,  /* src/tilegym/ops/cutile_rs/{op}.py */
	CS_ROLE_LIB,      /* src/tilegym/ops/cutile_rs/cutile_kernels/src/lib.rs */
	CS_ROLE_IMPORT,   /* src/tilegym/ops/cutile_rs/__init__.py */
	CS_ROLE_TEST,     /* tests/ops/test_{op}.py */
	CS_ROLE_OTHER,    /* anything else: never part of a well-formed changeset */
};
#define CS_NROLES CS_ROLE_OTHER

/* "kernel", "ffi", "wrapper", "lib.rs", "import", "test", "other" */
const char *cs_role_name(enum cs_role r);
/* What the file is for, in words ("device kernel module (stage B)"). */
const char *cs_role_help(enum cs_role r);
/* The path of role r for op, relative to the workspace. Caller frees. */
char *cs_role_path(enum cs_role r, const char *op);
/* A valid op name: what a Rust module and a Python module can both be. */
bool cs_op_name_ok(const char *op);

/* ---- shape checks (engine/git/shape.def) ---- */

enum cs_shape {
#define SHAPE(id, name, help) CS_SHAPE_##id,
#include "engine/git/shape.def"
#undef SHAPE
	CS_SHAPE__COUNT
};
const char *cs_shape_name(enum cs_shape s);
const char *cs_shape_help(enum cs_shape s);

/* ---- a changeset ---- */

/* A line a file's diff adds ('+') or removes ('-'). */
struct cs_line {
	char origin;
	int lineno; /* in the new text for '+', in the old one for '-' */
	char *text; /* without its newline */
};

struct cs_file {
	char *path;       /* relative to the repository */
	enum cs_role role;
	char status;      /* 'A' added, 'M' modified, 'D' deleted */
	bool binary;
	char *old_text, *new_text; /* NULL when the side is absent (or binary) */
	size_t old_len, new_len;
	size_t added, deleted;
	char *patch;      /* unified diff from libgit2 ("Binary files differ" when binary) */
	struct cs_line *lines;
	size_t nlines;
};

struct cs_check {
	bool ok;
	char *detail; /* what was found, or what is wrong */
};

struct changeset {
	char *op;           /* the op it is for (note, kernel path, or subject) */
	char *prefix;       /* where the workspace sits in the repository ("" at its root) */
	char commit[41];    /* hex id */
	char parent[41];    /* "" for a root commit */
	char *branch;       /* the tileport branch at it, or the one a dry run would make */
	char *subject, *message;
	char *author;       /* "Name <email>" */
	int64_t time;       /* seconds since the epoch */
	struct cs_file *files;
	size_t nfiles;
	struct cs_check checks[CS_SHAPE__COUNT];
	int nfailed;        /* shape checks that fail */
	struct cJSON *note; /* the run evidence, or NULL */
	char *note_problem; /* why there is none (no note, not JSON) */
	char *reference_path; /* the op's Python reference in the parent tree, or NULL */
	char *reference;      /* its text */
};

void cs_free(struct changeset *cs);
/* The file of role r, or NULL. */
const struct cs_file *cs_file_of(const struct changeset *cs, enum cs_role r);

/* Read commit REV of the repository that contains dir (NULL: the newest
 * changeset on a tileport/ branch; a bare op name also finds tileport/OP).
 * -1 with err: 2 for an unknown REV or no repository, 3 for a libgit2
 * failure. */
int cs_review(const char *dir, const char *rev, struct changeset *out, struct tp_err *err);

/* Fill a file's diff, lines and counts from its two texts (either may be
 * NULL), and run the shape checks over a changeset: so a changeset made
 * from texts (the unit tests) is judged as a commit is. */
int cs_file_diff(struct cs_file *f, struct tp_err *err);
void cs_check_shape(struct changeset *cs);

/* The note's run, in its one JSON form (run_model_to_json), or NULL. */
const struct cJSON *cs_note_run(const struct cJSON *note);
/* The attempts of the note's run, or NULL. */
const struct cJSON *cs_note_attempts(const struct cJSON *note);
/* One of them as "D2" ("B1r" for a repair), and the verdict it was routed
 * on ("SKIPPED" for a skip, "-" for none). */
void cs_attempt_label(const struct cJSON *attempt, char *buf, size_t n);
const char *cs_attempt_verdict(const struct cJSON *attempt);
/* A string field of one of the note's objects; NULL (or dflt) when absent. */
const char *cs_note_str(const struct cJSON *o, const char *key);
const char *cs_note_or(const struct cJSON *o, const char *key, const char *dflt);

/* The note's benchmark record as a table for the benchmark view
 * (engine/perf/compare.h): its rows, with the geomean, verdict and severity
 * the report wrote. -1 with err (exit 2) when the note has no rows. */
struct perf_table;
int cs_note_bench_table(const struct cJSON *note, struct perf_table *t, struct tp_err *err);

/* Review output: text (--plain) and JSON (--json). */
void cs_format_text(const struct changeset *cs, struct sbuf *out);
struct cJSON *cs_to_json(const struct changeset *cs);

/* ---- whether a run may be packaged ---- */

struct cs_acceptance {
	bool accepted;
	bool ended;    /* the run reached an end state (a reason can accept it) */
	bool by_hand;  /* accepted by a person's reason, not by the run's outcome */
	char *why;     /* "PIPELINE_COMPLETE with E DONE", the hand reason, or the refusal */
};

/* The one place that decides whether a run counts as accepted for
 * packaging: the run's outcome (E DONE and the output contract passed;
 * engine/core/run.h), no rule of its own. Any other run that ended is
 * accepted when a person gives a reason (the refusal says the outcome's);
 * a run that has not ended never is. */
void cs_run_acceptance(const struct run_state *st, const char *reason, struct cs_acceptance *out);
void cs_acceptance_free(struct cs_acceptance *a);

/* ---- packaging ---- */

struct cs_package_opts {
	struct run_model *run; /* the run (engine/core/session.h), live or followed */
	const char *workspace; /* NULL: the run's workspace */
	const char *branch;    /* NULL: tileport/{op} */
	const char *accept;    /* a person's reason to accept the run, or NULL */
	bool dry_run;          /* check and show; write nothing */
};

struct cs_package_result {
	struct changeset cs; /* the commit made, or the one that would be made */
	char **problems;     /* why packaging is refused, NULL-terminated, or NULL */
	int code;            /* the exit code for the problems (TP_EXIT_*), 0 when none */
	bool committed;
	char *workdir;       /* the repository's work tree (where to review it) */
	bool by_hand;        /* accepted with a person's reason */
	bool needs_reason;   /* the run ended but is not accepted by its state: a
			      * reason would accept it (that refusal is problems[0]) */
	char *warning;       /* committed, but the run's events.jsonl was not appended */
};

/* Package the run. Returns 0 when it was packaged (or, with dry_run, would
 * be). Returns -1 with err set when it is refused (res->problems lists
 * every reason, res->code the exit code: 1 the run or the workspace fails
 * a check, 2 bad input or repository state, 3 environment) or cannot even
 * be planned (res->cs empty). */
int cs_package(const struct cs_package_opts *o, struct cs_package_result *res, struct tp_err *err);
void cs_package_result_free(struct cs_package_result *res);

/* ---- the tileport branches ---- */

struct cs_log_entry {
	char commit[41];
	char *branch;      /* the tileport branch it is on */
	char *subject;
	char *author;
	int64_t time;
	char *run;         /* Tileport-Run: */
	char *geomean;     /* Geomean-Ratio: */
	char *verdicts;    /* Verdicts: */
	char *accepted;    /* Tileport-Accepted: (accepted by hand), or NULL */
};

/* Changesets (commits with a Tileport-Run trailer) on the branches under
 * refs/heads/tileport/, newest first, each once. */
int cs_log(const char *dir, struct cs_log_entry **out, size_t *n, struct tp_err *err);
void cs_log_free(struct cs_log_entry *v, size_t n);
/* One line each, like git log --oneline with the trailers; and as JSON. */
void cs_log_format_text(const struct cs_log_entry *v, size_t n, struct sbuf *out);
struct cJSON *cs_log_json(const struct cs_log_entry *v, size_t n);

/* Make git leave path (a folder in a work tree, such as the default output
 * root WORKSPACE/cutile_kernel_out) out of `git status`, through the
 * repository's info/exclude: never committed, no tracked file touched.
 * 1 when the rule was added (*exclude: the file; caller frees), 0 when
 * nothing was needed (not in a work tree, already ignored), -1 with err. */
int cs_ignore_locally(const char *path, char **exclude, struct tp_err *err);

#endif
