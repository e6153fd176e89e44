/* engine/git's shared parts: libgit2 plumbing, where a path belongs, the
 * run evidence (note, message, trailers). Only engine/git includes this;
 * everyone else goes through engine/git/changeset.h. */
#ifndef TILEPORT_GIT_CS_INT_H
#define TILEPORT_GIT_CS_INT_H

#include <git2.h>

#include "engine/git/changeset.h"

struct cJSON;

/* err = "what: libgit2's last message", with code; returns -1. */
int cs_git_fail(struct tp_err *err, int code, const char *what);
/* git_libgit2_init/shutdown around each public call (they count). */
void cs_git_begin(void);
void cs_git_end(void);

/* The repository holding dir (a work tree, not bare). *prefix gets dir's
 * place in the work tree: "" at its root, else "sub/dir/". */
int cs_repo_open(git_repository **out, const char *dir, char **prefix, struct tp_err *err);
/* The links inside the repository's git folders (its own and the common
 * one of a linked worktree) that lead out of them, or nowhere: writing a
 * ref, a reflog or a pack would go through one to wherever it points.
 * "PATH -> TARGET" each; NULL when there are none. Caller frees. */
char **cs_links_leaving(git_repository *repo);
/* Text of the blob at path in tree; NULL when absent or not a blob. */
char *cs_tree_text(git_repository *repo, git_tree *tree, const char *path, size_t *len);
/* Read a commit into cs: the files it changes against its first parent,
 * the shape checks, the note, the op's Python reference from the parent. */
int cs_read_commit(git_repository *repo, git_commit *c, struct changeset *cs, struct tp_err *err);
/* The tileport branch whose tip is id, or NULL. Caller frees. */
char *cs_branch_at(git_repository *repo, const git_oid *id);
/* Value of the last trailer key in message, or NULL. Caller frees. */
char *cs_trailer(const char *message, const char *key);
/* cs_log on an open repository. */
int cs_log_repo(git_repository *repo, struct cs_log_entry **out, size_t *n, struct tp_err *err);

/* ---- paths (paths.c) ---- */
/* The role of a repository path for op, the workspace at prefix. */
enum cs_role cs_path_role(const char *path, const char *prefix, const char *op);
/* A path the op's conversion may write that is not one of its six files:
 * its own kernel folder, the backend's shared files, the backend wiring
 * (docs/changeset.md). Other ops' files and everything else are unrelated. */
bool cs_in_op_area(const char *path, const char *prefix, const char *op);
/* The op and the prefix a kernel.rs path names; false when it is not one. */
bool cs_kernel_path_op(const char *path, char **prefix, char **op);
/* The op's Python reference paths in the order they are looked for
 * (which: 0 cuTile, 1 Triton; NULL after), in subfolder sub when not NULL. */
char *cs_reference_path(const char *prefix, const char *sub, const char *op, int which);

/* ---- the run's reports (reports.c) ---- */
/* reports/performance.md as {file, verdict, geomean_ratio, severity, rows}, or NULL. */
struct cJSON *cs_report_bench(const char *run_dir);
/* generated/diff_report.md and generated/irdiff*.json as {file, verdict,
 * owner, checklist, findings}, or NULL when the run has neither. */
struct cJSON *cs_report_ir(const char *run_dir);

/* ---- evidence (evidence.c) ---- */
/* The note: the run summary as JSON (docs/changeset.md lists the keys). */
struct run_model;
struct cJSON *cs_note_build(const struct run_model *m, const struct cs_acceptance *acc);
/* The commit message: subject, verdict trail, geomean, trailers. */
char *cs_message_build(const struct run_state *st, const struct cs_acceptance *acc,
		       const struct cJSON *note);
/* The note's verdict trail, one attempt a line (and its note below it). */
void cs_trail_format(const struct cJSON *note, struct sbuf *out);

#endif
