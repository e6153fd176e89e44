/* Reading a changeset out of a repository with libgit2: the commit, the
 * files it changes against its first parent with their diffs, the note
 * under refs/notes/tileport, the op's Python reference from the parent
 * tree. Packaging reads the commit it is about to make the same way, so a
 * dry run and a review show the same thing. */
#include <cJSON.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/git/cs_int.h"

int cs_git_fail(struct tp_err *err, int code, const char *what)
{
	const git_error *e = git_error_last();
	tp_err_set(err, code, "%s: %s", what, e && e->message ? e->message : "libgit2 failed");
	return -1;
}

void cs_git_begin(void)
{
	git_libgit2_init();
}

void cs_git_end(void)
{
	git_libgit2_shutdown();
}

int cs_repo_open(git_repository **out, const char *dir, char **prefix, struct tp_err *err)
{
	*out = NULL;
	*prefix = NULL;
	git_repository *repo;
	int rc = git_repository_open_ext(&repo, dir, 0, NULL);
	if (rc == GIT_ENOTFOUND) {
		tp_err_set(err, TP_EXIT_USAGE, "%s is not in a git repository", dir);
		return -1;
	}
	if (rc < 0)
		return cs_git_fail(err, TP_EXIT_ENV, dir);
	if (git_repository_is_bare(repo)) {
		tp_err_set(err, TP_EXIT_USAGE, "%s is a bare repository: a changeset needs a work tree", dir);
		git_repository_free(repo);
		return -1;
	}
	char here[PATH_MAX], top[PATH_MAX];
	if (!realpath(dir, here) || !realpath(git_repository_workdir(repo), top)) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: cannot resolve its path", dir);
		git_repository_free(repo);
		return -1;
	}
	size_t tl = strlen(top);
	const char *rel = here + tl;
	if (strncmp(here, top, tl) != 0 || (*rel && *rel != '/'))
		rel = "";
	while (*rel == '/')
		rel++;
	*prefix = *rel ? xasprintf("%s/", rel) : xstrdup("");
	*out = repo;
	return 0;
}

/* ---- links out of .git ---- */

struct link_walk {
	char *dirs[3]; /* the git folders, real paths */
	char **found;
	size_t n, cap;
};

static struct link_walk *link_walk_now; /* nftw passes no user data */

static bool inside(const char *path, char *const *dirs)
{
	for (size_t i = 0; dirs[i]; i++) {
		size_t n = strlen(dirs[i]);
		if (!strncmp(path, dirs[i], n) && (path[n] == '/' || !path[n]))
			return true;
	}
	return false;
}

static int link_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)ftw;
	struct link_walk *w = link_walk_now;
	if (type != FTW_SL && type != FTW_SLN)
		return FTW_CONTINUE;
	char real[PATH_MAX], to[PATH_MAX];
	ssize_t k = readlink(path, to, sizeof(to) - 1);
	to[k > 0 ? k : 0] = '\0';
	if (realpath(path, real) && inside(real, w->dirs))
		return FTW_CONTINUE;
	w->found = xgrow(w->found, &w->cap, w->n + 2, sizeof(*w->found));
	w->found[w->n++] = xasprintf("%s -> %s", path, to);
	w->found[w->n] = NULL;
	return FTW_CONTINUE;
}

char **cs_links_leaving(git_repository *repo)
{
	struct link_walk w = {{NULL}, NULL, 0, 0};
	const char *dirs[] = {git_repository_path(repo), git_repository_commondir(repo)};
	size_t nd = 0;
	for (size_t i = 0; i < TP_ARRAY_LEN(dirs); i++) {
		char *real = dirs[i] ? realpath(dirs[i], NULL) : NULL;
		if (real && (!nd || strcmp(real, w.dirs[0])))
			w.dirs[nd++] = real;
		else
			free(real);
	}
	link_walk_now = &w;
	for (size_t i = 0; i < nd; i++)
		nftw(w.dirs[i], link_one, 16, FTW_PHYS | FTW_ACTIONRETVAL);
	link_walk_now = NULL;
	for (size_t i = 0; i < nd; i++)
		free(w.dirs[i]);
	return w.found;
}

char *cs_tree_text(git_repository *repo, git_tree *tree, const char *path, size_t *len)
{
	git_tree_entry *te = NULL;
	git_blob *blob = NULL;
	char *text = NULL;
	if (tree && git_tree_entry_bypath(&te, tree, path) == 0 &&
	    git_tree_entry_type(te) == GIT_OBJECT_BLOB &&
	    git_blob_lookup(&blob, repo, git_tree_entry_id(te)) == 0) {
		size_t n = (size_t)git_blob_rawsize(blob);
		text = xstrndup(git_blob_rawcontent(blob), n);
		if (len)
			*len = n;
	}
	git_blob_free(blob);
	git_tree_entry_free(te);
	return text;
}

char *cs_branch_at(git_repository *repo, const git_oid *id)
{
	git_reference_iterator *it;
	if (git_reference_iterator_glob_new(&it, repo, "refs/heads/" CS_BRANCH_PREFIX "*") < 0)
		return NULL;
	git_reference *ref;
	char *found = NULL;
	while (!found && git_reference_next(&ref, it) == 0) {
		const git_oid *t = git_reference_target(ref);
		if (t && git_oid_equal(t, id))
			found = xstrdup(git_reference_shorthand(ref));
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	return found;
}

char *cs_trailer(const char *message, const char *key)
{
	git_message_trailer_array arr;
	if (!message || git_message_trailers(&arr, message) < 0)
		return NULL;
	char *v = NULL;
	for (size_t i = 0; i < arr.count; i++)
		if (!strcasecmp(arr.trailers[i].key, key)) {
			free(v);
			v = xstrdup(arr.trailers[i].value);
		}
	git_message_trailer_array_free(&arr);
	return v;
}

/* ---- one file's diff ---- */

static int patch_fill(struct cs_file *f, git_patch *patch, struct tp_err *err)
{
	git_buf buf = {0};
	if (git_patch_to_buf(&buf, patch) < 0)
		return cs_git_fail(err, TP_EXIT_ENV, f->path);
	f->patch = xstrndup(buf.ptr ? buf.ptr : "", buf.size);
	git_buf_dispose(&buf);
	size_t ctx;
	git_patch_line_stats(&ctx, &f->added, &f->deleted, patch);
	size_t cap = 0;
	for (size_t h = 0; h < git_patch_num_hunks(patch); h++) {
		int nl = git_patch_num_lines_in_hunk(patch, h);
		for (int i = 0; i < nl; i++) {
			const git_diff_line *l;
			if (git_patch_get_line_in_hunk(&l, patch, h, (size_t)i) < 0)
				continue;
			if (l->origin != GIT_DIFF_LINE_ADDITION && l->origin != GIT_DIFF_LINE_DELETION)
				continue;
			size_t n = l->content_len;
			while (n && (l->content[n - 1] == '\n' || l->content[n - 1] == '\r'))
				n--;
			f->lines = xgrow(f->lines, &cap, f->nlines + 1, sizeof(*f->lines));
			struct cs_line *cl = &f->lines[f->nlines++];
			cl->origin = l->origin == GIT_DIFF_LINE_ADDITION ? '+' : '-';
			cl->lineno = l->origin == GIT_DIFF_LINE_ADDITION ? l->new_lineno : l->old_lineno;
			cl->text = xstrndup(l->content, n);
		}
	}
	return 0;
}

int cs_file_diff(struct cs_file *f, struct tp_err *err)
{
	git_patch *patch;
	cs_git_begin();
	f->status = !f->old_text ? 'A' : !f->new_text ? 'D' : 'M';
	int rc = git_patch_from_buffers(&patch, f->old_text, f->old_len, f->path, f->new_text,
					 f->new_len, f->path, NULL);
	if (rc < 0)
		rc = cs_git_fail(err, TP_EXIT_ENV, f->path);
	else
		rc = patch_fill(f, patch, err);
	git_patch_free(patch);
	cs_git_end();
	return rc;
}

static char *blob_text(git_repository *repo, const git_diff_file *df, size_t *len, bool *binary)
{
	git_blob *b;
	if (!(df->flags & GIT_DIFF_FLAG_EXISTS) || git_blob_lookup(&b, repo, &df->id) < 0)
		return NULL;
	char *t = NULL;
	if (git_blob_is_binary(b)) {
		*binary = true;
	} else {
		*len = (size_t)git_blob_rawsize(b);
		t = xstrndup(git_blob_rawcontent(b), *len);
	}
	git_blob_free(b);
	return t;
}

static int read_files(git_repository *repo, git_tree *ptree, git_tree *tree, struct changeset *cs,
		      struct tp_err *err)
{
	git_diff *diff;
	git_diff_options o = GIT_DIFF_OPTIONS_INIT;
	if (git_diff_tree_to_tree(&diff, repo, ptree, tree, &o) < 0)
		return cs_git_fail(err, TP_EXIT_ENV, "diff against the parent");
	int rc = 0;
	size_t n = git_diff_num_deltas(diff);
	cs->files = xcalloc(n ? n : 1, sizeof(*cs->files));
	for (size_t i = 0; i < n && rc == 0; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		struct cs_file *f = &cs->files[cs->nfiles++];
		f->status = d->status == GIT_DELTA_ADDED ? 'A' : d->status == GIT_DELTA_DELETED ? 'D' : 'M';
		f->path = xstrdup(d->status == GIT_DELTA_DELETED ? d->old_file.path : d->new_file.path);
		f->old_text = blob_text(repo, &d->old_file, &f->old_len, &f->binary);
		f->new_text = blob_text(repo, &d->new_file, &f->new_len, &f->binary);
		git_patch *patch;
		if (git_patch_from_diff(&patch, diff, i) < 0) {
			rc = cs_git_fail(err, TP_EXIT_ENV, f->path);
			break;
		}
		rc = patch_fill(f, patch, err);
		git_patch_free(patch);
	}
	git_diff_free(diff);
	return rc;
}

static void read_note(git_repository *repo, const git_oid *id, struct changeset *cs)
{
	git_note *note;
	int rc = git_note_read(&note, repo, CS_NOTES_REF, id);
	if (rc == GIT_ENOTFOUND) {
		cs->note_problem = xstrdup("no note under " CS_NOTES_REF " for this commit");
		return;
	}
	if (rc < 0) {
		const git_error *e = git_error_last();
		cs->note_problem = xasprintf("the note cannot be read: %s", e ? e->message : "?");
		return;
	}
	cs->note = cJSON_Parse(git_note_message(note));
	if (!cs->note || !cJSON_IsObject(cs->note)) {
		cJSON_Delete(cs->note);
		cs->note = NULL;
		cs->note_problem = xstrdup("the note under " CS_NOTES_REF " is not a JSON object");
	}
	git_note_free(note);
}

/* Files in the order of their roles (kernel first), then by path. */
static int by_role(const void *a, const void *b)
{
	const struct cs_file *x = a, *y = b;
	if (x->role != y->role)
		return (int)x->role - (int)y->role;
	return strcmp(x->path, y->path);
}

/* The op: the note's, else the one a kernel.rs path names, else the
 * subject's "cutile-rs: add OP". */
static void find_op(struct changeset *cs)
{
	const cJSON *op = cJSON_GetObjectItemCaseSensitive(cs_note_run(cs->note), "op");
	for (size_t i = 0; i < cs->nfiles && !cs->prefix; i++) {
		char *kop;
		if (cs_kernel_path_op(cs->files[i].path, &cs->prefix, &kop)) {
			if (!cs->op)
				cs->op = kop;
			else
				free(kop);
		}
	}
	if (cJSON_IsString(op) && cs_op_name_ok(op->valuestring)) {
		free(cs->op);
		cs->op = xstrdup(op->valuestring);
	}
	static const char subject[] = "cutile-rs: add ";
	if (!cs->op && cs->subject && str_starts(cs->subject, subject) &&
	    cs_op_name_ok(cs->subject + strlen(subject)))
		cs->op = xstrdup(cs->subject + strlen(subject));
	if (!cs->prefix)
		cs->prefix = xstrdup("");
}

int cs_read_commit(git_repository *repo, git_commit *c, struct changeset *cs, struct tp_err *err)
{
	const git_oid *id = git_commit_id(c);
	git_oid_tostr(cs->commit, sizeof(cs->commit), id);
	git_commit *parent = NULL;
	git_tree *tree = NULL, *ptree = NULL;
	int rc = 0;
	if (git_commit_parentcount(c) > 0) {
		if (git_commit_parent(&parent, c, 0) < 0 || git_commit_tree(&ptree, parent) < 0)
			rc = cs_git_fail(err, TP_EXIT_ENV, "the parent commit");
		else
			git_oid_tostr(cs->parent, sizeof(cs->parent), git_commit_id(parent));
	}
	if (rc == 0 && git_commit_tree(&tree, c) < 0)
		rc = cs_git_fail(err, TP_EXIT_ENV, "the commit's tree");
	if (rc == 0) {
		const char *summary = git_commit_summary(c);
		cs->subject = xstrdup(summary ? summary : "");
		cs->message = xstrdup(git_commit_message(c));
		const git_signature *a = git_commit_author(c);
		cs->author = xasprintf("%s <%s>", a->name, a->email);
		cs->time = (int64_t)git_commit_time(c);
		if (!cs->branch)
			cs->branch = cs_branch_at(repo, id);
		if (!cs->note && !cs->note_problem)
			read_note(repo, id, cs);
		rc = read_files(repo, ptree, tree, cs, err);
	}
	if (rc == 0) {
		if (!cs->op)
			find_op(cs);
		for (size_t i = 0; i < cs->nfiles; i++)
			cs->files[i].role = cs_path_role(cs->files[i].path, cs->prefix, cs->op);
		if (cs->nfiles)
			qsort(cs->files, cs->nfiles, sizeof(*cs->files), by_role);
		/* an operator in a subfolder has its test in the same one */
		const struct cs_file *t = cs_file_of(cs, CS_ROLE_TEST);
		char *sub = NULL;
		const char *tdir = t ? t->path + strlen(cs->prefix) + strlen("tests/ops/") : NULL;
		const char *tslash = tdir ? strrchr(tdir, '/') : NULL;
		if (tslash)
			sub = xstrndup(tdir, (size_t)(tslash - tdir));
		for (int w = 0; cs->op && !cs->reference; w++) {
			char *p = cs_reference_path(cs->prefix, sub, cs->op, w);
			if (!p)
				break;
			cs->reference = cs_tree_text(repo, ptree, p, NULL);
			if (cs->reference)
				cs->reference_path = p;
			else
				free(p);
		}
		free(sub);
		cs_check_shape(cs);
	}
	git_tree_free(tree);
	git_tree_free(ptree);
	git_commit_free(parent);
	return rc;
}

/* The tip of the tileport branch committed last. */
static int newest_changeset(git_repository *repo, git_oid *out, struct tp_err *err)
{
	struct cs_log_entry *v;
	size_t n;
	if (cs_log_repo(repo, &v, &n, err) < 0)
		return -1;
	int rc = 0;
	if (!n) {
		tp_err_set(err, TP_EXIT_USAGE, "no changesets on " CS_BRANCH_PREFIX "* branches: name a "
			   "commit (tileport review REV), or package a run first");
		rc = -1;
	} else {
		git_oid_fromstr(out, v[0].commit);
	}
	cs_log_free(v, n);
	return rc;
}

static int resolve(git_repository *repo, const char *rev, git_commit **out, struct tp_err *err)
{
	git_oid id;
	if (!rev) {
		if (newest_changeset(repo, &id, err) < 0)
			return -1;
		if (git_commit_lookup(out, repo, &id) < 0)
			return cs_git_fail(err, TP_EXIT_ENV, "the newest changeset");
		return 0;
	}
	git_object *obj = NULL;
	int rc = git_revparse_single(&obj, repo, rev);
	if (rc < 0 && cs_op_name_ok(rev)) {
		char *b = xasprintf("refs/heads/" CS_BRANCH_PREFIX "%s", rev);
		rc = git_revparse_single(&obj, repo, b);
		free(b);
	}
	if (rc < 0) {
		tp_err_set(err, TP_EXIT_USAGE, "'%s' is not a commit here (tileport log lists the "
			   "changesets)", rev);
		return -1;
	}
	git_object *peeled = NULL;
	rc = git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT);
	git_object_free(obj);
	if (rc < 0) {
		tp_err_set(err, TP_EXIT_USAGE, "'%s' does not name a commit", rev);
		return -1;
	}
	*out = (git_commit *)peeled;
	return 0;
}

int cs_review(const char *dir, const char *rev, struct changeset *out, struct tp_err *err)
{
	memset(out, 0, sizeof(*out));
	cs_git_begin();
	git_repository *repo;
	char *prefix;
	int rc = cs_repo_open(&repo, dir, &prefix, err);
	if (rc == 0) {
		git_commit *c = NULL;
		rc = resolve(repo, rev, &c, err);
		if (rc == 0)
			rc = cs_read_commit(repo, c, out, err);
		git_commit_free(c);
		git_repository_free(repo);
		free(prefix);
	}
	cs_git_end();
	if (rc < 0)
		cs_free(out);
	return rc;
}

static void file_free(struct cs_file *f)
{
	free(f->path);
	free(f->old_text);
	free(f->new_text);
	free(f->patch);
	for (size_t i = 0; i < f->nlines; i++)
		free(f->lines[i].text);
	free(f->lines);
}

void cs_free(struct changeset *cs)
{
	free(cs->op);
	free(cs->prefix);
	free(cs->branch);
	free(cs->subject);
	free(cs->message);
	free(cs->author);
	for (size_t i = 0; i < cs->nfiles; i++)
		file_free(&cs->files[i]);
	free(cs->files);
	for (int i = 0; i < CS_SHAPE__COUNT; i++)
		free(cs->checks[i].detail);
	cJSON_Delete(cs->note);
	free(cs->note_problem);
	free(cs->reference_path);
	free(cs->reference);
	memset(cs, 0, sizeof(*cs));
}
