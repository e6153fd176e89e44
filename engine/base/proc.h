/* The process layer (docs/architecture.md, "Modules and their doors"): spawn
 * a child in its own session and process group with piped stdout/stderr,
 * stdin from a file or /dev/null and an explicit environment; wall-clock and
 * inactivity timeouts; TERM then KILL of the whole group; exit status or
 * signal. Every command line is appended to a command log when one is given.
 *
 * Children run under the shared event loop. When the group leader exits,
 * whatever it left running in its group is killed: a stage never outlives
 * its attempt. */
#ifndef TILEPORT_CORE_PROC_H
#define TILEPORT_CORE_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine/base/loop.h"
#include "engine/base/redact.h"
#include "engine/base/util.h"

struct proc;

enum proc_end {
	PROC_EXITED,       /* normal exit; code is valid */
	PROC_SIGNALED,     /* killed by a signal not sent by us */
	PROC_TIMED_OUT,    /* we killed it: wall-clock limit */
	PROC_IDLE_TIMEOUT, /* we killed it: no output for too long */
	PROC_KILLED,       /* we killed it on request (proc_kill) */
	PROC_EXEC_FAILED,  /* could not start; code holds errno */
};

struct proc_status {
	enum proc_end end;
	int code;  /* exit code (PROC_EXITED) or errno (PROC_EXEC_FAILED) */
	int signo; /* terminating signal, when there was one */
	int64_t elapsed_ms;
};

typedef void (*proc_output_cb)(struct proc *p, const char *data, size_t n, void *ud);
typedef void (*proc_exit_cb)(struct proc *p, const struct proc_status *st, void *ud);

struct proc_opts {
	char *const *argv;       /* argv[0] is looked up on the child's PATH */
	char *const *env;        /* the child's whole environment */
	const char *cwd;         /* NULL: inherit */
	const char *stdin_path;  /* NULL: /dev/null */
	int64_t timeout_ms;      /* 0: none */
	int64_t idle_timeout_ms; /* 0: none */
	int64_t kill_grace_ms;   /* TERM -> KILL delay; 0: 2000 */
	const char *command_log; /* append "time pid cwd argv" here; NULL: none */
	char *const *redact;     /* NAME=VALUE secrets hidden in that line; NULL: env's */
	int parent_death_signal; /* sent to the child when this process dies, even by
	                          * SIGKILL (0: none): SIGKILL for a helper that must not
	                          * outlive us, SIGTERM for a tileport child that saves
	                          * its run and stops */
	char *const *write_only_beneath; /* non-NULL: the child (and all it starts) may
	                          * change files only beneath these folders
	                          * (engine/base/sandbox.h); proc_spawn fails where
	                          * that cannot be enforced */
	char *const *write_except; /* with write_only_beneath: not beneath these either
	                          * (the workspace's .git; sandbox_grants says how) */
	bool group_dies_with_us; /* the child's whole process group is killed when this
	                          * process dies, even by SIGKILL: its leader is a small
	                          * copy of this process that runs the command as its
	                          * child and ends as it ends (proc_guard.c);
	                          * parent_death_signal is not used then */
	const char *output_path; /* stdout and stderr appended to this file, not piped
	                          * (no output callbacks, no idle timeout) */
	bool held;               /* the child waits before exec until proc_release: the
	                          * caller can record its pid first; if the caller dies
	                          * meanwhile, the child exits without running */
	proc_output_cb on_stdout, on_stderr;
	proc_exit_cb on_exit;    /* called once, after both pipes hit EOF */
	void *ud;
};

struct proc *proc_spawn(struct loop *l, const struct proc_opts *o, struct tp_err *err);
pid_t proc_pid(const struct proc *p);
/* Let a held child exec. -1 (err set: the program could not run) when exec
 * failed; the caller frees the process then. */
int proc_release(struct proc *p, struct tp_err *err);
/* TERM the whole group now, KILL it after the grace period. */
void proc_kill(struct proc *p);
/* Free a finished process (or kill and reap a running one first). */
void proc_free(struct proc *p);

/* Run the loop until *done (the caller's exit callback sets it), killing
 * the process the first time stop(ud) says so (stop may be NULL). */
void proc_wait(struct loop *l, struct proc *p, const bool *done, bool (*stop)(void *ud), void *ud);

/* Convenience: run to completion on a private loop, collecting output. */
int proc_run_sync(const struct proc_opts *o, struct sbuf *out, struct sbuf *errout,
		  struct proc_status *st, struct tp_err *err);

/* The first line of a command's standard output (the current environment,
 * killed after timeout_ms), or NULL when it cannot run or does not exit 0.
 * Caller frees. */
char *proc_first_line(char *const *argv, int64_t timeout_ms);

/* Describe a status in words: "exit 0", "killed by signal 9", "timed out after 5s". */
void proc_status_str(const struct proc_status *st, char *buf, size_t n);

/* Environment arrays: a copy of the current environment with overrides.
 * env_set replaces or appends NAME=VALUE; env_unset removes NAME. */
char **env_current(void);
void env_set(char ***env, const char *name, const char *value);
void env_unset(char ***env, const char *name);
const char *env_get(char *const *env, const char *name);

/* Quote argv for logs and messages the way a shell would read it back. */
char *argv_quote(char *const *argv);

#endif
