/* tileport log: the changesets on the tileport/ branches. A changeset is
 * a commit with a Tileport-Run trailer; each branch is walked from its tip
 * down to its first commit without one (the base it was packaged on). */
#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "engine/git/cs_int.h"

static bool seen(const struct cs_log_entry *v, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].commit, id))
			return true;
	return false;
}

static void add_entry(struct cs_log_entry **v, size_t *n, size_t *cap, git_commit *c,
		      const char *branch, char *run)
{
	*v = xgrow(*v, cap, *n + 1, sizeof(**v));
	struct cs_log_entry *e = &(*v)[(*n)++];
	memset(e, 0, sizeof(*e));
	git_oid_tostr(e->commit, sizeof(e->commit), git_commit_id(c));
	const char *msg = git_commit_message(c);
	const char *sum = git_commit_summary(c);
	const git_signature *a = git_commit_author(c);
	e->branch = xstrdup(branch);
	e->subject = xstrdup(sum ? sum : "");
	e->author = xasprintf("%s <%s>", a->name, a->email);
	e->time = (int64_t)git_commit_time(c);
	e->run = run;
	e->geomean = cs_trailer(msg, "Geomean-Ratio");
	e->verdicts = cs_trailer(msg, "Verdicts");
	e->accepted = cs_trailer(msg, "Tileport-Accepted");
}

static int walk_branch(git_repository *repo, git_reference *ref, struct cs_log_entry **v,
		       size_t *n, size_t *cap)
{
	git_revwalk *w;
	const git_oid *tip = git_reference_target(ref);
	if (!tip)
		return 0;
	if (git_revwalk_new(&w, repo) < 0 || git_revwalk_push(w, tip) < 0)
		return -1;
	git_revwalk_simplify_first_parent(w);
	git_oid id;
	while (git_revwalk_next(&id, w) == 0) {
		git_commit *c;
		if (git_commit_lookup(&c, repo, &id) < 0)
			break;
		char *run = cs_trailer(git_commit_message(c), "Tileport-Run");
		char hex[GIT_OID_HEXSZ + 1];
		git_oid_tostr(hex, sizeof(hex), &id);
		bool stop = !run;
		if (run && !seen(*v, *n, hex))
			add_entry(v, n, cap, c, git_reference_shorthand(ref), run);
		else
			free(run);
		git_commit_free(c);
		if (stop)
			break;
	}
	git_revwalk_free(w);
	return 0;
}

static int newest_first(const void *a, const void *b)
{
	const struct cs_log_entry *x = a, *y = b;
	if (x->time != y->time)
		return x->time > y->time ? -1 : 1;
	return strcmp(x->branch, y->branch);
}

int cs_log_repo(git_repository *repo, struct cs_log_entry **out, size_t *n, struct tp_err *err)
{
	*out = NULL;
	*n = 0;
	size_t cap = 0;
	git_reference_iterator *it;
	if (git_reference_iterator_glob_new(&it, repo, "refs/heads/" CS_BRANCH_PREFIX "*") < 0)
		return cs_git_fail(err, TP_EXIT_ENV, "listing the tileport branches");
	git_reference *ref;
	int rc = 0;
	while (rc == 0 && git_reference_next(&ref, it) == 0) {
		if (walk_branch(repo, ref, out, n, &cap) < 0)
			rc = cs_git_fail(err, TP_EXIT_ENV, git_reference_name(ref));
		git_reference_free(ref);
	}
	git_reference_iterator_free(it);
	if (rc < 0) {
		cs_log_free(*out, *n);
		*out = NULL;
		*n = 0;
		return -1;
	}
	if (*n)
		qsort(*out, *n, sizeof(**out), newest_first);
	return 0;
}

int cs_log(const char *dir, struct cs_log_entry **out, size_t *n, struct tp_err *err)
{
	*out = NULL;
	*n = 0;
	cs_git_begin();
	git_repository *repo;
	char *prefix;
	int rc = cs_repo_open(&repo, dir, &prefix, err);
	if (rc == 0) {
		rc = cs_log_repo(repo, out, n, err);
		git_repository_free(repo);
		free(prefix);
	}
	cs_git_end();
	return rc;
}

void cs_log_free(struct cs_log_entry *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].branch);
		free(v[i].subject);
		free(v[i].author);
		free(v[i].run);
		free(v[i].geomean);
		free(v[i].verdicts);
		free(v[i].accepted);
	}
	free(v);
}

void cs_log_format_text(const struct cs_log_entry *v, size_t n, struct sbuf *out)
{
	size_t bw = 0, sw = 0;
	for (size_t i = 0; i < n; i++) {
		if (strlen(v[i].branch) > bw)
			bw = strlen(v[i].branch);
		if (strlen(v[i].subject) > sw)
			sw = strlen(v[i].subject);
	}
	for (size_t i = 0; i < n; i++)
		sb_printf(out, "%.7s %-*s %-*s  geomean %-6s  %s%s\n", v[i].commit, (int)bw, v[i].branch,
			  (int)sw, v[i].subject, v[i].geomean ? v[i].geomean : "-",
			  v[i].verdicts ? v[i].verdicts : "-", v[i].accepted ? "  (accepted by hand)" : "");
}

cJSON *cs_log_json(const struct cs_log_entry *v, size_t n)
{
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "commit", v[i].commit);
		cJSON_AddStringToObject(o, "branch", v[i].branch);
		cJSON_AddStringToObject(o, "subject", v[i].subject);
		cJSON_AddStringToObject(o, "author", v[i].author);
		cJSON_AddNumberToObject(o, "time", (double)v[i].time);
		cJSON_AddStringToObject(o, "run", v[i].run);
		if (v[i].geomean)
			cJSON_AddStringToObject(o, "geomean_ratio", v[i].geomean);
		if (v[i].verdicts)
			cJSON_AddStringToObject(o, "verdicts", v[i].verdicts);
		if (v[i].accepted)
			cJSON_AddStringToObject(o, "accepted_by_hand", v[i].accepted);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}
