/* What no agent may change, because git (or another version control
 * system) runs code from it later, with the user's full rights and outside
 * any confinement: a hook written into .git/hooks, or core.fsmonitor added
 * to .git/config, runs at the user's next plain `git status`
 * (docs/agents.md, "Confinement"). Protected, wherever they lie under the
 * folders an agent may write:
 *   - version-control metadata: every .git (folder or file), .hg, .svn,
 *     .bzr, _darcs, .jj, .pijul, .fslckout and _FOSSIL_ found there, and
 *     the git folders of the roots' repositories (the common one of a
 *     linked worktree, each submodule's .git);
 *   - the hooks folder core.hooksPath names, and the program core.fsmonitor
 *     names, when they are paths;
 *   - every file include.path or includeIf.*.path names (any file the
 *     git config reads), and the user's and the system's config files.
 * The file tools refuse these and any new file or folder with a
 * version-control name; run_command and the CLIs get Landlock rules (or
 * Codex its --add-dir list) that grant the writable roots minus them
 * (engine/base/sandbox.h, sandbox_grants). */
#ifndef TILEPORT_AGENTS_GUARD_H
#define TILEPORT_AGENTS_GUARD_H

#include <stdbool.h>
#include <stddef.h>

/* Is this one path component the name of version-control metadata? */
bool guard_vcs_name(const char *name, size_t n);
/* The protected paths at or beneath any of roots (NULL-terminated real
 * paths), as real paths (one that does not exist yet resolved through its
 * nearest existing folder). Never NULL; caller frees with strv_free. */
char **guard_paths(char *const *roots);
/* Version-control folders (or .git files) made beneath roots since
 * before (guard_paths of the same roots) was taken: commands can make one
 * in a folder they may write (git init, cargo new), and git run in that
 * folder later would take it for a repository and run its hooks. Each is
 * moved aside to NAME.refused-by-tileport[-N] in its folder, where git does
 * not look, and fn is told (may be NULL). Returns how many. */
typedef void (*guard_moved_fn)(const char *path, const char *to, void *ud);
int guard_refuse_new(char *const *roots, char *const *before, guard_moved_fn fn, void *ud);
/* Why an agent may not write real (a real path beneath root): it is or
 * lies beneath one of guarded, or one of its components below root has a
 * version-control name. NULL when it may. */
const char *guard_why(char *const *guarded, const char *root, const char *real);

#endif
