/* Confining what a child process may write, with Landlock: the commands an
 * agent runs may create, change and delete files only beneath the folders
 * they are given (the run directory and the workspace), and write to the
 * character devices under /dev (/dev/null, a terminal). Reading is not
 * restricted. The rules are made before fork and entered in the child, so
 * tileport itself is never confined (docs/agents.md, "Confinement").
 *
 *   int fd = sandbox_ruleset(dirs, &err);   // before fork; -1: see err
 *   ... in the child: if (sandbox_enter(fd) < 0) _exit(127);
 *   close(fd);                                // in the parent
 */
#ifndef TILEPORT_CORE_SANDBOX_H
#define TILEPORT_CORE_SANDBOX_H

#include "engine/core/util.h"

/* The Landlock ABI version of this kernel, 0 when it has none. */
int sandbox_abi(void);
/* A ruleset (an O_CLOEXEC descriptor) allowing writes beneath each folder of
 * the NULL-terminated dirs; -1 with err (exit 3) when the kernel has no
 * Landlock or a folder cannot be opened. */
int sandbox_ruleset(char *const *dirs, struct tp_err *err);
/* In the child between fork and exec (async-signal-safe): no new
 * privileges, then the ruleset for this process and what it starts. -1 with
 * errno on failure. */
int sandbox_enter(int ruleset_fd);

#endif
