/* Confining what a child process may write, with Landlock: the commands an
 * agent runs may create, change and delete files only beneath the folders
 * they are given (the run directory and the workspace), minus the paths
 * excepted (the workspace's .git: engine/agents/guard.h), and write to the
 * character devices under /dev (/dev/null, a terminal). Reading is not
 * restricted. The rules are made before fork and entered in the child, so
 * tileport itself is never confined (docs/agents.md, "Confinement").
 *
 *   int fd = sandbox_ruleset(dirs, except, &err);   // before fork; -1: see err
 *   ... in the child: if (sandbox_enter(fd) < 0) _exit(127);
 *   close(fd);                                // in the parent
 */
#ifndef TILEPORT_CORE_SANDBOX_H
#define TILEPORT_CORE_SANDBOX_H

#include "engine/base/util.h"

/* The Landlock ABI version of this kernel, 0 when it has none. */
int sandbox_abi(void);
/* What "beneath dirs, except beneath except" grants, since a Landlock rule
 * can only allow: a folder that neither holds nor lies beneath an excepted
 * path is granted whole; one that holds one is not granted itself (nothing
 * can be made, renamed or removed in it), and each of its other entries
 * is, a folder by the same rule and a regular file as a file (written,
 * never replaced). Links are neither followed nor granted. Both lists are
 * NULL-terminated real paths (an excepted path need not exist). The
 * folders are returned; *files (may be NULL) receives the files. Caller
 * frees with strv_free. */
char **sandbox_grants(char *const *dirs, char *const *except, char ***files);
/* A ruleset (an O_CLOEXEC descriptor) allowing writes as sandbox_grants
 * says (except may be NULL); -1 with err (exit 3) when the kernel has no
 * Landlock or a folder cannot be opened. */
int sandbox_ruleset(char *const *dirs, char *const *except, struct tp_err *err);
/* In the child between fork and exec (async-signal-safe): no new
 * privileges, then the ruleset for this process and what it starts. -1 with
 * errno on failure. */
int sandbox_enter(int ruleset_fd);

#endif
