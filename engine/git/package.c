/* tileport package: an accepted run as the six-file commit on its own
 * branch, with the run evidence as a note (docs/changeset.md).
 *
 * Every check runs before anything is written, and every reason to refuse
 * is collected so the user sees them all at once. The commit is built from
 * an index of its own (HEAD's tree plus the six paths' work-tree content),
 * never the repository's, so the user's staged and unstaged work stays as
 * it is. Objects are written to an in-memory pack (libgit2's mempack)
 * first; the commit is then read back exactly as review reads one, and its
 * shape checked. Only then are the refs locked in one transaction, the
 * pack written into the object database and both refs set. A dry run, a
 * refusal or a failure before that point discards the in-memory pack and
 * the repository is as it was. */
#include <cJSON.h>
#include <git2/sys/mempack.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/base/files.h"
#include "engine/core/events.h"
#include "engine/base/operator.h"
#include "engine/core/session.h"
#include "engine/git/cs_int.h"

struct pkg {
	const struct cs_package_opts *o;
	struct cs_package_result *res;
	const struct run_state *st;
	struct cs_acceptance acc;
	git_repository *repo;
	char *prefix;
	char *branch, *branch_ref;
	git_signature *sig;
	git_commit *head;      /* NULL when HEAD is unborn */
	git_odb *odb;
	git_odb_backend *mempack;
	git_oid commit, notes_commit;
	git_oid notes_old;     /* the notes ref before, when it exists */
	bool notes_existed;
	cJSON *note;
	size_t nproblems;
	char *test_rel; /* the op's test, in its subfolder when it has one */
};

/* The path of role r for the run's op; the test where the workspace has it. */
static char *role_path(const struct pkg *p, enum cs_role r)
{
	return r == CS_ROLE_TEST && p->test_rel ? xstrdup(p->test_rel) : cs_role_path(r, p->st->op);
}

/* Refusals weigh: environment over input over a failed check. */
static int weight(int code)
{
	return code == TP_EXIT_ENV ? 3 : code == TP_EXIT_USAGE ? 2 : 1;
}

static void problem(struct pkg *p, int code, const char *fmt, ...) TP_PRINTF(3, 4);
static void problem(struct pkg *p, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	struct cs_package_result *r = p->res;
	r->problems = xrealloc(r->problems, (p->nproblems + 2) * sizeof(char *));
	r->problems[p->nproblems++] = msg;
	r->problems[p->nproblems] = NULL;
	if (weight(code) > (r->code ? weight(r->code) : 0))
		r->code = code;
}

static void problem_err(struct pkg *p, const struct tp_err *e)
{
	problem(p, e->code ? e->code : TP_EXIT_FAILED, "%s", e->msg);
}

static void problem_git(struct pkg *p, const char *what)
{
	struct tp_err e;
	cs_git_fail(&e, TP_EXIT_ENV, what);
	problem_err(p, &e);
}

/* ---- the repository ---- */

static void check_head(struct pkg *p)
{
	if (git_repository_head_unborn(p->repo) == 1) {
		problem(p, TP_EXIT_USAGE, "HEAD is unborn: the repository has no commit to base the "
			"changeset on; commit the workspace first");
		return;
	}
	git_reference *head;
	if (git_repository_head(&head, p->repo) < 0) {
		problem_git(p, "HEAD");
		return;
	}
	if (git_repository_head_detached(p->repo) == 1)
		problem(p, TP_EXIT_USAGE, "HEAD is detached: check out the branch the changeset should "
			"start from");
	git_object *obj;
	if (git_reference_peel(&obj, head, GIT_OBJECT_COMMIT) == 0)
		p->head = (git_commit *)obj;
	else
		problem_git(p, "HEAD's commit");
	git_reference_free(head);
}

static void check_branch(struct pkg *p)
{
	const char *given = p->o->branch;
	/* a branch may be given as its full ref; any other ref is none */
	if (given && str_starts(given, "refs/heads/"))
		given += strlen("refs/heads/");
	else if (given && str_starts(given, "refs/")) {
		problem(p, TP_EXIT_USAGE, "'%s' is not a branch (a branch is NAME or refs/heads/NAME)", given);
		p->branch = xstrdup(given);
		p->branch_ref = xstrdup(given);
		return;
	}
	p->branch = given ? xstrdup(given) : xasprintf(CS_BRANCH_PREFIX "%s", p->st->op);
	p->branch_ref = xasprintf("refs/heads/%s", p->branch);
	int valid = 0;
	if (git_branch_name_is_valid(&valid, p->branch) < 0 || !valid) {
		problem(p, TP_EXIT_USAGE, "'%s' is not a valid branch name", p->branch);
		return;
	}
	git_reference *ref;
	if (git_reference_lookup(&ref, p->repo, p->branch_ref) == 0) {
		char id[GIT_OID_HEXSZ + 1] = "?";
		if (git_reference_target(ref))
			git_oid_tostr(id, sizeof(id), git_reference_target(ref));
		problem(p, TP_EXIT_USAGE, "branch %s exists (at %.7s): delete it (git branch -D %s) or "
			"name another with --branch", p->branch, id, p->branch);
		git_reference_free(ref);
	}
}

/* Packaging writes objects, refs and reflogs into the git folder; a link
 * there that leads out of it (an agent could plant one) would carry those
 * writes anywhere. Refused before anything is written. */
static void check_links(struct pkg *p)
{
	char **out = cs_links_leaving(p->repo);
	for (size_t i = 0; out && out[i]; i++)
		problem(p, TP_EXIT_USAGE, "%s: a link inside the repository's git folder that leads out of it; "
			"packaging would write through it (remove it)", out[i]);
	strv_free(out);
}

static void check_identity(struct pkg *p)
{
	if (git_signature_default(&p->sig, p->repo) == 0) {
		/* TILEPORT_NOW (the tests' frozen clock) makes the commit id stable. */
		const char *now = getenv("TILEPORT_NOW");
		git_signature *at;
		if (now && *now &&
		    git_signature_new(&at, p->sig->name, p->sig->email, (git_time_t)(atoll(now) / 1000), 0) == 0) {
			git_signature_free(p->sig);
			p->sig = at;
		}
		return;
	}
	problem(p, TP_EXIT_ENV, "no git identity for the commit: set user.name and user.email (git "
		"config user.name \"Your Name\"; git config user.email you@example.com)");
	/* The plan is still built and shown, under a placeholder. */
	git_signature_now(&p->sig, "unknown", "unknown");
}

/* ---- the workspace ---- */

static const char *status_path(const git_status_entry *e)
{
	const git_diff_delta *d = e->index_to_workdir ? e->index_to_workdir : e->head_to_index;
	return d->new_file.path ? d->new_file.path : d->old_file.path;
}

/* The op's changes in the workspace must be exactly its six files; other
 * work is left alone (cs_in_op_area draws the line). */
static void check_status(struct pkg *p)
{
	git_status_options so = GIT_STATUS_OPTIONS_INIT;
	so.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	so.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
		   GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
	git_status_list *sl;
	if (git_status_list_new(&sl, p->repo, &so) < 0) {
		problem_git(p, "workspace status");
		return;
	}
	bool seen[CS_NROLES] = {false};
	const unsigned staged = GIT_STATUS_INDEX_NEW | GIT_STATUS_INDEX_MODIFIED |
				GIT_STATUS_INDEX_TYPECHANGE;
	const unsigned unstaged = GIT_STATUS_WT_MODIFIED | GIT_STATUS_WT_TYPECHANGE;
	for (size_t i = 0; i < git_status_list_entrycount(sl); i++) {
		const git_status_entry *e = git_status_byindex(sl, i);
		const char *path = status_path(e);
		enum cs_role r = cs_path_role(path, p->prefix, p->st->op);
		if (r == CS_ROLE_OTHER) {
			if (cs_in_op_area(path, p->prefix, p->st->op))
				problem(p, TP_EXIT_FAILED, "a seventh file changed: %s (the op's changes must be "
					"exactly its six files; commit, stash or remove it first)", path);
			continue;
		}
		seen[r] = true;
		if (e->status & (GIT_STATUS_INDEX_DELETED | GIT_STATUS_WT_DELETED))
			problem(p, TP_EXIT_FAILED, "%s (%s) is deleted in the workspace", path,
				cs_role_name(r));
		else if ((e->status & staged) && (e->status & unstaged))
			problem(p, TP_EXIT_FAILED, "%s has staged and unstaged changes: stage all of it "
				"(git add) or none (git restore --staged) first", path);
	}
	git_status_list_free(sl);
	for (int r = 0; r < CS_NROLES; r++) {
		if (seen[r])
			continue;
		char *rel = role_path(p, (enum cs_role)r);
		char *full = xasprintf("%s%s%s", git_repository_workdir(p->repo), p->prefix, rel);
		problem(p, TP_EXIT_FAILED, "%s%s (%s, %s) %s", p->prefix, rel, cs_role_name((enum cs_role)r),
			cs_role_help((enum cs_role)r),
			path_is_file(full) ? "has no changes in the workspace" : "is missing");
		free(full);
		free(rel);
	}
}

/* The in-tree kernel.rs and ffi.rs must be the ones the run validated. */
static void check_same_as_run(struct pkg *p, enum cs_role r, const char *run_name)
{
	char *rel = role_path(p, r);
	char *tree = xasprintf("%s%s%s", git_repository_workdir(p->repo), p->prefix, rel);
	char *run = path_join(p->st->run_dir, run_name);
	size_t tl = 0, rl = 0;
	char *t = read_file(tree, &tl, NULL), *u = read_file(run, &rl, NULL);
	if (!u)
		problem(p, TP_EXIT_FAILED, "the run has no %s (%s)", run_name, run);
	else if (t && (tl != rl || memcmp(t, u, tl) != 0))
		problem(p, TP_EXIT_FAILED, "%s%s differs from the run's %s (%s): the workspace must hold "
			"what the run validated", p->prefix, rel, run_name, run);
	free(t);
	free(u);
	free(run);
	free(tree);
	free(rel);
}

/* ---- building the commit in memory ---- */

static int add_worktree_file(struct pkg *p, git_index *idx, const char *path)
{
	char *full = path_join(git_repository_workdir(p->repo), path);
	struct stat sb;
	int rc = 0;
	if (lstat(full, &sb) == 0 && S_ISREG(sb.st_mode)) {
		git_index_entry e;
		memset(&e, 0, sizeof(e));
		e.path = path;
		e.mode = (sb.st_mode & 0111) ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
		if (git_blob_create_from_workdir(&e.id, p->repo, path) < 0 || git_index_add(idx, &e) < 0)
			rc = -1;
	}
	free(full);
	return rc;
}

static int build_commit(struct pkg *p, struct tp_err *err)
{
	if (git_repository_odb(&p->odb, p->repo) < 0 || git_mempack_new(&p->mempack) < 0 ||
	    git_odb_add_backend(p->odb, p->mempack, 999) < 0)
		return cs_git_fail(err, TP_EXIT_ENV, "in-memory object store");
	git_index *idx = NULL;
	git_tree *base = NULL, *tree = NULL;
	git_oid tree_id;
	int rc = git_index_new(&idx);
	if (rc == 0 && p->head)
		rc = git_commit_tree(&base, p->head) < 0 || git_index_read_tree(idx, base) < 0 ? -1 : 0;
	for (int r = 0; rc == 0 && r < CS_NROLES; r++) {
		char *rel = role_path(p, (enum cs_role)r);
		char *path = xasprintf("%s%s", p->prefix, rel);
		rc = add_worktree_file(p, idx, path);
		free(path);
		free(rel);
	}
	if (rc == 0)
		rc = git_index_write_tree_to(&tree_id, idx, p->repo);
	if (rc == 0)
		rc = git_tree_lookup(&tree, p->repo, &tree_id);
	if (rc < 0) {
		cs_git_fail(err, TP_EXIT_ENV, "building the changeset's tree");
	} else {
		p->note = cs_note_build(p->o->run, &p->acc);
		char *msg = cs_message_build(p->st, &p->acc, p->note);
		const git_commit *parents[1] = {p->head};
		rc = git_commit_create(&p->commit, p->repo, NULL, p->sig, p->sig, NULL, msg, tree,
				       p->head ? 1 : 0, parents);
		free(msg);
		if (rc < 0)
			cs_git_fail(err, TP_EXIT_ENV, "creating the commit");
	}
	git_tree_free(tree);
	git_tree_free(base);
	git_index_free(idx);
	return rc < 0 ? -1 : 0;
}

/* Read the built commit back as review does; its files go into the note. */
static int read_back(struct pkg *p, struct tp_err *err)
{
	struct changeset *cs = &p->res->cs;
	git_commit *c;
	if (git_commit_lookup(&c, p->repo, &p->commit) < 0)
		return cs_git_fail(err, TP_EXIT_ENV, "reading the commit back");
	cs->op = xstrdup(p->st->op);
	cs->prefix = xstrdup(p->prefix);
	cs->branch = xstrdup(p->branch);
	int rc = cs_read_commit(p->repo, c, cs, err);
	git_commit_free(c);
	if (rc < 0)
		return -1;
	cJSON *files = cJSON_GetObjectItemCaseSensitive(p->note, "files");
	for (size_t i = 0; i < cs->nfiles; i++) {
		cJSON *f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "path", cs->files[i].path);
		cJSON_AddStringToObject(f, "role", cs_role_name(cs->files[i].role));
		cJSON_AddItemToArray(files, f);
	}
	for (int i = 0; i < CS_SHAPE__COUNT; i++)
		if (!cs->checks[i].ok)
			problem(p, TP_EXIT_FAILED, "shape check %s fails: %s", cs_shape_name((enum cs_shape)i),
				cs->checks[i].detail);
	return 0;
}

static int build_note(struct pkg *p, struct tp_err *err)
{
	git_reference *nref;
	git_commit *parent = NULL;
	if (git_reference_lookup(&nref, p->repo, CS_NOTES_REF) == 0) {
		const git_oid *t = git_reference_target(nref);
		if (t) {
			git_oid_cpy(&p->notes_old, t);
			p->notes_existed = true;
			git_commit_lookup(&parent, p->repo, t);
		}
		git_reference_free(nref);
	}
	char *text = cJSON_Print(p->note);
	git_oid blob;
	/* The same commit can come again (packaged twice within a second, on
	 * another branch): its note is then the same evidence, rewritten. */
	int rc = git_note_commit_create(&p->notes_commit, &blob, p->repo, parent, p->sig, p->sig,
					&p->commit, text, 1);
	cJSON_free(text);
	git_commit_free(parent);
	if (rc < 0)
		return cs_git_fail(err, TP_EXIT_ENV, "creating the note");
	/* The note is not under its ref yet: what review would read is this. */
	free(p->res->cs.note_problem);
	p->res->cs.note_problem = NULL;
	cJSON_Delete(p->res->cs.note);
	p->res->cs.note = cJSON_Duplicate(p->note, true);
	return 0;
}

/* ---- writing it ---- */

static int write_pack(struct pkg *p, struct tp_err *err)
{
	git_buf pack = {0};
	git_odb_writepack *wp = NULL;
	git_indexer_progress stats;
	int rc = git_mempack_dump(&pack, p->repo, p->mempack);
	if (rc == 0)
		rc = git_odb_write_pack(&wp, p->odb, NULL, NULL);
	if (rc == 0)
		rc = wp->append(wp, pack.ptr, pack.size, &stats);
	if (rc == 0)
		rc = wp->commit(wp, &stats);
	if (wp)
		wp->free(wp);
	git_buf_dispose(&pack);
	return rc < 0 ? cs_git_fail(err, TP_EXIT_ENV, "writing the objects") : 0;
}

/* Lock both refs, make sure nobody moved them since the checks, write the
 * objects, then set both refs. */
static int commit_refs(struct pkg *p, struct tp_err *err)
{
	git_transaction *tx;
	if (git_transaction_new(&tx, p->repo) < 0)
		return cs_git_fail(err, TP_EXIT_ENV, "ref transaction");
	int rc = 0;
	if (git_transaction_lock_ref(tx, p->branch_ref) < 0 || git_transaction_lock_ref(tx, CS_NOTES_REF) < 0)
		rc = cs_git_fail(err, TP_EXIT_ENV, "locking the refs");
	git_reference *ref;
	if (rc == 0 && git_reference_lookup(&ref, p->repo, p->branch_ref) == 0) {
		git_reference_free(ref);
		tp_err_set(err, TP_EXIT_USAGE, "branch %s appeared meanwhile; nothing was written", p->branch);
		rc = -1;
	}
	if (rc == 0) {
		git_oid now;
		bool exists = git_reference_name_to_id(&now, p->repo, CS_NOTES_REF) == 0;
		if (exists != p->notes_existed || (exists && !git_oid_equal(&now, &p->notes_old))) {
			tp_err_set(err, TP_EXIT_ENV, CS_NOTES_REF " moved meanwhile; nothing was written (try "
				   "again)");
			rc = -1;
		}
	}
	if (rc == 0)
		rc = write_pack(p, err);
	if (rc == 0) {
		char *why = xasprintf("tileport package: %s", p->st->run_dir);
		if (git_transaction_set_target(tx, p->branch_ref, &p->commit, p->sig, why) < 0 ||
		    git_transaction_set_target(tx, CS_NOTES_REF, &p->notes_commit, p->sig, why) < 0 ||
		    git_transaction_commit(tx) < 0)
			rc = cs_git_fail(err, TP_EXIT_ENV, "updating the refs");
		free(why);
	}
	git_transaction_free(tx);
	return rc;
}

static void record_events(struct pkg *p)
{
	struct tp_err e;
	tp_err_clear(&e);
	char *keep = run_keep_dir(p->st);
	int rc = events_repair(p->st->run_dir, keep, &e);
	free(keep);
	char id[GIT_OID_HEXSZ + 1];
	git_oid_tostr(id, sizeof(id), &p->commit);
	if (rc == 0 && p->acc.by_hand) {
		cJSON *f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "reason", p->o->accept);
		cJSON_AddStringToObject(f, "final", p->st->final ? p->st->final : "aborted");
		char *msg = xasprintf("accepted by hand for packaging: %s", p->acc.why);
		cJSON_AddStringToObject(f, "msg", msg);
		free(msg);
		rc = events_append(p->st->run_dir, "manual_accept", f, NULL, &e);
	}
	if (rc == 0) {
		cJSON *f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "branch", p->branch);
		cJSON_AddStringToObject(f, "commit", id);
		char *msg = xasprintf("packaged as %s %.7s (%zu files, note in " CS_NOTES_REF ")",
				      p->branch, id, p->res->cs.nfiles);
		cJSON_AddStringToObject(f, "msg", msg);
		free(msg);
		rc = events_append(p->st->run_dir, "packaged", f, NULL, &e);
	}
	if (rc < 0)
		p->res->warning = xasprintf("packaged, but the run's events.jsonl was not appended: %s",
					    e.msg);
}

/* ---- the whole ---- */

static int plan(struct pkg *p, struct tp_err *err)
{
	const struct cs_package_opts *o = p->o;
	p->st = run_model_state(o->run);
	if (!cs_op_name_ok(p->st->op)) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: the run's op '%s' is not an operator name",
			   p->st->run_dir, p->st->op ? p->st->op : "");
		return -1;
	}
	const char *ws = o->workspace ? o->workspace : p->st->workspace;
	if (!ws) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: the run names no workspace; give --workspace",
			   p->st->run_dir);
		return -1;
	}
	if (o->accept && !*o->accept) {
		tp_err_set(err, TP_EXIT_USAGE, "--accept needs a reason");
		return -1;
	}
	if (cs_repo_open(&p->repo, ws, &p->prefix, err) < 0)
		return -1;
	struct ws_operator wo;
	if (operator_find(ws, p->st->op, &wo, NULL) == 0) {
		p->test_rel = xstrdup(wo.test_rel);
		operator_free(&wo);
	}
	p->res->workdir = xstrdup(git_repository_workdir(p->repo));
	cs_run_acceptance(p->st, o->accept, &p->acc);
	if (!p->acc.accepted) {
		p->res->needs_reason = p->acc.ended && !p->res->problems;
		problem(p, TP_EXIT_FAILED, "%s", p->acc.why);
	}
	check_links(p);
	check_head(p);
	check_branch(p);
	check_identity(p);
	check_status(p);
	check_same_as_run(p, CS_ROLE_KERNEL, "kernel.rs");
	check_same_as_run(p, CS_ROLE_FFI, "ffi.rs");
	if (build_commit(p, err) < 0 || read_back(p, err) < 0 || build_note(p, err) < 0)
		return -1;
	p->res->by_hand = p->acc.by_hand;
	return 0;
}

int cs_package(const struct cs_package_opts *o, struct cs_package_result *res, struct tp_err *err)
{
	memset(res, 0, sizeof(*res));
	struct pkg p = {.o = o, .res = res};
	cs_git_begin();
	int lock = -1, rc = 0;
	/* A run this process drives is locked already; any other is locked
	 * here, and read again under the lock. */
	if (!o->dry_run && !run_model_pipeline(o->run)) {
		struct tp_err le;
		const char *dir = run_model_state(o->run)->run_dir;
		if ((lock = run_lock(dir, &le)) < 0)
			problem_err(&p, &le);
		else if (run_model_refresh(o->run, &le) < 0)
			problem_err(&p, &le);
	}
	rc = plan(&p, err);
	if (rc == 0 && res->problems) {
		struct sbuf sb = SBUF_INIT;
		for (size_t i = 0; res->problems[i]; i++)
			sb_printf(&sb, "%s%s", i ? "; " : "", res->problems[i]);
		tp_err_set(err, res->code, "packaging %s refused: %s", p.st->op, sb_str(&sb));
		sb_free(&sb);
		rc = -1;
	}
	if (rc == 0 && !o->dry_run) {
		rc = commit_refs(&p, err);
		if (rc == 0) {
			res->committed = true;
			record_events(&p);
		}
	}
	if (p.mempack)
		git_mempack_reset(p.mempack);
	if (lock >= 0)
		run_unlock(lock);
	cJSON_Delete(p.note);
	git_signature_free(p.sig);
	git_commit_free(p.head);
	git_odb_free(p.odb);
	git_repository_free(p.repo);
	free(p.prefix);
	free(p.test_rel);
	free(p.branch);
	free(p.branch_ref);
	cs_acceptance_free(&p.acc);
	cs_git_end();
	return rc;
}

void cs_package_result_free(struct cs_package_result *res)
{
	cs_free(&res->cs);
	strv_free(res->problems);
	free(res->warning);
	free(res->workdir);
	memset(res, 0, sizeof(*res));
}
