/* Keeping tileport's own folders out of the user's `git status`: the
 * default output root is WORKSPACE/cutile_kernel_out, inside their
 * checkout, where the reference pipeline puts it. The repository's
 * info/exclude (never committed, never shared) takes the rule, so no
 * tracked file of theirs is edited. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"
#include "engine/git/cs_int.h"

/* path relative to the repository's work tree, or NULL when outside. */
static char *in_tree(git_repository *repo, const char *path)
{
	char parent[PATH_MAX], top[PATH_MAX];
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	const char *name = slash ? slash + 1 : dir;
	if (slash)
		*slash = '\0';
	bool ok = realpath(slash ? (*dir ? dir : "/") : ".", parent) && git_repository_workdir(repo) &&
		  realpath(git_repository_workdir(repo), top);
	char *rel = NULL;
	size_t tl = ok ? strlen(top) : 0;
	if (ok && !strncmp(parent, top, tl) && (parent[tl] == '/' || !parent[tl]) && *name)
		rel = parent[tl] ? xasprintf("%s/%s", parent + tl + 1, name) : xstrdup(name);
	free(dir);
	return rel;
}

int cs_ignore_locally(const char *path, char **exclude, struct tp_err *err)
{
	*exclude = NULL;
	cs_git_begin();
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir)
		*slash = '\0';
	git_repository *repo = NULL;
	int rc = 0;
	if (git_repository_open_ext(&repo, dir, 0, NULL) < 0 || git_repository_is_bare(repo)) {
		free(dir);
		git_repository_free(repo);
		cs_git_end();
		return 0; /* not in a work tree: nothing lists it */
	}
	char *rel = in_tree(repo, path);
	int ignored = 0;
	char *probe = rel ? xasprintf("%s/", rel) : NULL;
	if (rel && git_ignore_path_is_ignored(&ignored, repo, probe) == 0 && !ignored) {
		char *info = path_join(git_repository_commondir(repo), "info");
		char *file = path_join(info, "exclude");
		char *rule = xasprintf("# tileport's run directories (the default output root)\n/%s/\n", rel);
		if (mkdir_p(info, 0755, err) < 0 || append_file(file, rule, strlen(rule), err) < 0) {
			rc = -1;
			free(file);
		} else {
			*exclude = file;
			rc = 1;
		}
		free(rule);
		free(info);
	}
	free(probe);
	free(rel);
	free(dir);
	git_repository_free(repo);
	cs_git_end();
	return rc;
}
