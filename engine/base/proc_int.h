/* The process layer's inside (engine/base/proc.c and proc_guard.c). */
#ifndef TILEPORT_CORE_PROC_INT_H
#define TILEPORT_CORE_PROC_INT_H

#include "engine/base/util.h"

/* The signal a guarded group's leader is sent when tileport dies. */
#define PROC_GUARD_SIGNAL SIGUSR1

/* In the child between fork and exec (after setsid, its descriptors and
 * its folder set): arrange that the whole group dies with this process's
 * parent. Call before the parent's death is checked for the last time. */
void proc_guard_arm(void);
/* ... and then, instead of exec: run the command as a child of this one
 * (same group), tell the parent through errfd whether it started (as an
 * exec would: its errno, or end of file), and end as the command ends,
 * with its exit status or its signal. rules: a Landlock ruleset for the
 * command, or -1. Never returns. */
TP_NORETURN void proc_guard_run(const char *prog, char *const *argv, char *const *env, int rules, int errfd);

#endif
