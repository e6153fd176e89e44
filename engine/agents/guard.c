#include "engine/agents/guard.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <git2.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/base/util.h"

/* A walk of a writable root stops here: a workspace with more entries
 * than this is checked only so far (its own .git is found through git). */
#define WALK_MAX 200000

static const char *const vcs_names[] = {".git", ".hg", ".svn", ".bzr", "_darcs", ".jj", ".pijul", ".fslckout",
					"_FOSSIL_"};

bool guard_vcs_name(const char *name, size_t n)
{
	for (size_t i = 0; i < TP_ARRAY_LEN(vcs_names); i++)
		if (strlen(vcs_names[i]) == n && memcmp(name, vcs_names[i], n) == 0)
			return true;
	return false;
}

/* "a" is "b" or lies beneath it. */
static bool beneath(const char *a, const char *b)
{
	size_t n = strlen(b);
	while (n > 1 && b[n - 1] == '/')
		n--;
	if (n == 1 && b[0] == '/')
		return true;
	return strncmp(a, b, n) == 0 && (a[n] == '/' || a[n] == '\0');
}

/* The real path of an absolute path whose end may not exist yet: links
 * resolved as far as the path exists, the rest taken as written. */
static char *resolve(const char *path)
{
	char buf[PATH_MAX];
	if (realpath(path, buf))
		return xstrdup(buf);
	struct sbuf cur = SBUF_INIT;
	char **parts = str_split(path, '/', false, NULL);
	bool exists = true;
	for (size_t i = 0; parts[i]; i++) {
		if (!strcmp(parts[i], "."))
			continue;
		if (!strcmp(parts[i], "..")) {
			char *slash = cur.len ? strrchr(cur.buf, '/') : NULL;
			if (slash) {
				cur.len = (size_t)(slash - cur.buf);
				cur.buf[cur.len] = '\0';
			}
			continue;
		}
		sb_printf(&cur, "/%s", parts[i]);
		if (exists && realpath(cur.buf, buf)) {
			sb_reset(&cur);
			if (strcmp(buf, "/") != 0)
				sb_adds(&cur, buf);
		} else {
			exists = false;
		}
	}
	strv_free(parts);
	if (!cur.len)
		sb_addc(&cur, '/');
	return sb_detach(&cur);
}

struct found {
	char **v;
	size_t n, cap;
	char *const *roots;
};

/* Keep a path (absolute, or relative to base) when it lies beneath a root. */
static void add(struct found *f, const char *base, const char *path)
{
	if (!path || !*path)
		return;
	char *abs;
	const char *home = getenv("HOME");
	if (path[0] == '~' && (path[1] == '/' || !path[1]))
		abs = home && *home ? xasprintf("%s%s", home, path + 1) : NULL;
	else if (path[0] == '/')
		abs = xstrdup(path);
	else
		abs = base ? path_join(base, path) : NULL;
	if (!abs)
		return;
	char *real = resolve(abs);
	free(abs);
	bool keep = false;
	for (size_t i = 0; f->roots[i] && !keep; i++)
		keep = beneath(real, f->roots[i]);
	for (size_t i = 0; keep && i < f->n; i++)
		keep = strcmp(f->v[i], real) != 0;
	if (!keep) {
		free(real);
		return;
	}
	f->v = xgrow(f->v, &f->cap, f->n + 2, sizeof(*f->v));
	f->v[f->n++] = real;
	f->v[f->n] = NULL;
}

/* ---- version-control folders anywhere under a root ---- */

static struct found *walk_into; /* nftw passes no user data */
static long walked;

static int walk_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	const char *base = path + ftw->base;
	if (++walked > WALK_MAX)
		return FTW_STOP;
	if (ftw->level > 0 && guard_vcs_name(base, strlen(base))) {
		add(walk_into, NULL, path);
		return type == FTW_D ? FTW_SKIP_SUBTREE : FTW_CONTINUE;
	}
	/* build trees and tileport's own state hold no repository of the user's */
	if (type == FTW_D && ftw->level > 0 &&
	    (!strcmp(base, "target") || !strcmp(base, "node_modules") || !strcmp(base, ".tileport")))
		return FTW_SKIP_SUBTREE;
	return FTW_CONTINUE;
}

/* ---- what the git config of a root's repository points at ---- */

static bool config_bool(const char *v)
{
	int b;
	return v && git_config_parse_bool(&b, v) == 0;
}

static int add_submodule(git_submodule *sm, const char *name, void *payload)
{
	(void)name;
	struct found *f = payload;
	const char *wd = git_repository_workdir(git_submodule_owner(sm));
	char *dot = path_join(git_submodule_path(sm), ".git");
	add(f, wd, dot);
	free(dot);
	return 0;
}

static void add_git_buf(struct found *f, int (*find)(git_buf *))
{
	git_buf b = {0};
	if (find(&b) == 0)
		add(f, NULL, b.ptr);
	git_buf_dispose(&b);
}

static void config_paths(struct found *f, git_repository *repo)
{
	const char *gitdir = git_repository_path(repo), *common = git_repository_commondir(repo);
	const char *wd = git_repository_workdir(repo);
	add(f, NULL, gitdir);
	add(f, NULL, common);
	if (wd) {
		char *dot = path_join(wd, ".git");
		add(f, NULL, dot);
		free(dot);
	}
	add_git_buf(f, git_config_find_global);
	add_git_buf(f, git_config_find_xdg);
	add_git_buf(f, git_config_find_system);
	git_submodule_foreach(repo, add_submodule, f);
	git_config *cfg;
	if (git_repository_config_snapshot(&cfg, repo) < 0)
		return;
	git_config_iterator *it;
	/* every entry, filtered here: libgit2's regex iterator leaks pcre2's
	 * match data */
	if (git_config_iterator_new(&it, cfg) == 0) {
		git_config_entry *e;
		const char *home = getenv("HOME");
		char *xdg = home && *home ? path_join(home, ".config/git") : NULL;
		while (git_config_next(&e, it) == 0) {
			bool include = !strcmp(e->name, "include.path") ||
				       (str_starts(e->name, "includeif.") && str_ends(e->name, ".path"));
			if (!e->value || !*e->value)
				continue;
			if (!strcmp(e->name, "core.hookspath")) {
				/* relative: from where hooks run, the top of the work tree */
				add(f, wd ? wd : gitdir, e->value);
			} else if (!strcmp(e->name, "core.fsmonitor")) {
				/* true/false asks for git's own monitor; anything else is
				 * a program to run */
				if (!config_bool(e->value)) {
					char *prog = xstrndup(e->value, strcspn(e->value, " \t"));
					add(f, wd ? wd : gitdir, prog);
					free(prog);
				}
			} else if (include) {
				/* relative to the file that includes it, which libgit2
				 * does not say: every folder a config file is read from */
				const char *bases[] = {gitdir, common, home, xdg, "/etc"};
				for (size_t i = 0; i < TP_ARRAY_LEN(bases); i++)
					if (bases[i])
						add(f, bases[i], e->value);
			}
		}
		free(xdg);
		git_config_iterator_free(it);
	}
	git_config_free(cfg);
}

char **guard_paths(char *const *roots)
{
	struct found f = {.roots = roots};
	git_libgit2_init();
	for (size_t i = 0; roots && roots[i]; i++) {
		walk_into = &f;
		walked = 0;
		nftw(roots[i], walk_one, 16, FTW_PHYS | FTW_ACTIONRETVAL);
		walk_into = NULL;
		git_repository *repo;
		if (git_repository_open_ext(&repo, roots[i], 0, NULL) == 0) {
			config_paths(&f, repo);
			git_repository_free(repo);
		}
	}
	git_libgit2_shutdown();
	return f.v ? f.v : xcalloc(1, sizeof(char *));
}

int guard_refuse_new(char *const *roots, char *const *before, guard_moved_fn fn, void *ud)
{
	char **now = guard_paths(roots);
	int moved = 0;
	for (size_t i = 0; now[i]; i++) {
		const char *base = strrchr(now[i], '/');
		base = base ? base + 1 : now[i];
		bool known = !guard_vcs_name(base, strlen(base));
		for (size_t k = 0; !known && before && before[k]; k++)
			known = !strcmp(before[k], now[i]);
		struct stat sb;
		if (known || lstat(now[i], &sb) < 0)
			continue;
		char *to = xasprintf("%s.refused-by-tileport", now[i]);
		for (int n = 2; lstat(to, &sb) == 0 && n < 1000; n++) {
			free(to);
			to = xasprintf("%s.refused-by-tileport-%d", now[i], n);
		}
		if (rename(now[i], to) == 0) {
			moved++;
			if (fn)
				fn(now[i], to, ud);
		}
		free(to);
	}
	strv_free(now);
	return moved;
}

const char *guard_why(char *const *guarded, const char *root, const char *real)
{
	for (size_t i = 0; guarded && guarded[i]; i++)
		if (beneath(real, guarded[i]))
			return "git runs code from it (version-control metadata, a hooks folder or a git "
			       "config file), so it is read-only to agents";
	const char *p = beneath(real, root) ? real + strlen(root) : real;
	while (*p) {
		p += strspn(p, "/");
		size_t k = strcspn(p, "/");
		if (k && guard_vcs_name(p, k))
			return "a version-control folder is read-only to agents, and none may be made "
			       "(git would run the hooks and config of one)";
		p += k;
	}
	return NULL;
}
