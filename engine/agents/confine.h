/* Paths an agent names, confined to the directories it may touch: the run
 * directory (read-write; relative paths start here), the workspace
 * (read-write) and the skill (read-only). Every open goes through
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS) from the root's own
 * descriptor, so "..", absolute symlinks and symlinks that lead out, made
 * by anyone at any time, are refused by the kernel; where openat2 is
 * missing, the path is walked one component at a time without following
 * any symlink. The run's own .tileport/ folder is never writable, nor is
 * what git runs code from (engine/agents/guard.h): .git and its kind. */
#ifndef TILEPORT_AGENTS_CONFINE_H
#define TILEPORT_AGENTS_CONFINE_H

#include <stdbool.h>
#include <sys/types.h>

#include "engine/base/util.h"

enum { CONFINE_ROOTS_MAX = 4 };

struct confine_root {
	char *real; /* realpath of the root */
	char *given;
	int fd;
	bool writable;
	const char *label; /* "run directory", "workspace", "skill" */
};

struct confine {
	struct confine_root roots[CONFINE_ROOTS_MAX];
	int n;
	char *protected_dir; /* RUN/.tileport */
	char **guarded;      /* read-only within the writable roots (guard_paths) */
	bool no_openat2;     /* the component walk (kernels without openat2; tests) */
};

/* workspace and skill may be NULL. */
int confine_init(struct confine *c, const char *run_dir, const char *workspace, const char *skill,
		 struct tp_err *err);
void confine_free(struct confine *c);

/* Open an agent's path. flags are open(2)'s (O_CREAT allowed). For a write
 * (O_WRONLY/O_RDWR/O_CREAT) the root must be writable and the target
 * neither in .tileport/ nor guarded (nor named like version-control
 * metadata). *real (may be NULL) receives the resolved path. -1 with a
 * message naming the path and why otherwise. */
int confine_open(const struct confine *c, const char *path, int flags, mode_t mode, char **real,
		 struct tp_err *err);
/* Create the missing parent directories of path inside its root. */
int confine_mkparents(const struct confine *c, const char *path, struct tp_err *err);

#endif
