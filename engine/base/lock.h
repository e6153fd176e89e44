/* Lock files: one holder at a time, by flock on a regular file that never
 * is a link, with the holder's pid in it for the message another process
 * gives. A batch's record and a run's pid file use them
 * (docs/reliability.md). */
#ifndef TILEPORT_CORE_LOCK_H
#define TILEPORT_CORE_LOCK_H

#include <stdbool.h>

#include "engine/base/util.h"

/* One holder at a time: flock(LOCK_EX|LOCK_NB) on path (created), our pid
 * written in it. Returns the fd, or -1: when another process holds it,
 * *holder gets its pid (0 when unreadable) and err is left alone for the
 * caller to word; on other failures *holder is -1 and err says why. A link
 * or anything but a regular file at path is refused (exit 2), never
 * followed or truncated. */
int lock_take(const char *path, long *holder, struct tp_err *err);
/* Is the lock file at path still the one fd holds (not removed or replaced
 * since it was taken)? -1 with err set when not. */
int lock_check(const char *path, int fd, struct tp_err *err);
void lock_release(int fd);
/* Is path locked by a live process right now (without taking it)? */
bool lock_held(const char *path);

#endif
