/* The run directory's own files: is there a run, are its files what
 * tileport wrote (never links), and the one-orchestrator lock, whose
 * taker also removes what a killed atomic write left (docs/reliability.md,
 * "Locking"). */
#include "engine/core/run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/base/files.h"
#include "engine/base/lock.h"

static const char *const run_files[] = {"state.json", "events.jsonl", "commands.log", "lock",
					"contract.txt"};

bool run_exists(const char *run_dir)
{
	/* Anything named state.json is a run here: reading it then says what
	 * is wrong with it, rather than calling it missing. */
	char *p = run_path(run_dir, "state.json");
	struct stat st;
	bool ok = lstat(p, &st) == 0;
	free(p);
	return ok;
}

int run_check_files(const char *run_dir, struct tp_err *err)
{
	char *dir = path_join(run_dir, ".tileport");
	struct stat st;
	int rc = 0;
	if (lstat(dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: is %s; a run's .tileport must be a directory", dir,
			   file_kind_name(st.st_mode));
		rc = -1;
	}
	for (size_t i = 0; rc == 0 && i < TP_ARRAY_LEN(run_files); i++) {
		char *p = path_join(dir, run_files[i]);
		if (lstat(p, &st) == 0 && !S_ISREG(st.st_mode)) {
			tp_err_set(err, TP_EXIT_USAGE,
				   "%s: is %s; a run's own files must be regular files (move it aside)",
				   p, file_kind_name(st.st_mode));
			rc = -1;
		}
		free(p);
	}
	free(dir);
	return rc;
}

static int open_lock_dir(const char *run_dir, struct tp_err *err)
{
	char *dir = path_join(run_dir, ".tileport");
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		tp_err_set(err, TP_EXIT_ENV, "%s: cannot open: %s", dir, strerror(errno));
	free(dir);
	return fd;
}

/* "state.json.tmp.123": the temporary file of an atomic write
 * (write_file_atomic) of one of the run's own files. */
static bool leftover_temp(const char *name)
{
	for (size_t i = 0; i < TP_ARRAY_LEN(run_files); i++) {
		size_t n = strlen(run_files[i]);
		if (strncmp(name, run_files[i], n) || strncmp(name + n, ".tmp.", 5) || !name[n + 5])
			continue;
		return strspn(name + n + 5, "0123456789") == strlen(name + n + 5);
	}
	return false;
}

/* A kill during an atomic write leaves its temporary file; the next
 * tileport to take the lock removes it (no other can be writing then). */
static void remove_leftover_temps(int dirfd)
{
	int fd = dup(dirfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d)))
		if (leftover_temp(e->d_name))
			unlinkat(dirfd, e->d_name, 0);
	closedir(d);
}

int run_lock(const char *run_dir, struct tp_err *err)
{
	if (run_check_files(run_dir, err) < 0)
		return -1;
	int fd = open_lock_dir(run_dir, err);
	if (fd < 0)
		return -1;
	char *path = run_path(run_dir, "lock");
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		char buf[64] = "";
		char *text = read_file_flags(path, NULL, FILE_NOFOLLOW, NULL);
		if (text)
			snprintf(buf, sizeof(buf), "%s", str_trim(text));
		free(text);
		tp_err_set(err, TP_EXIT_ENV,
			   "run %s is in use by another tileport (pid %s); wait for it to finish or "
			   "stop it first", run_dir, buf[0] ? buf : "unknown");
		close(fd);
		free(path);
		return -1;
	}
	remove_leftover_temps(fd);
	char pid[32];
	int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (write_file(path, pid, (size_t)n, err) < 0) {
		close(fd);
		fd = -1;
	}
	free(path);
	return fd;
}

void run_unlock(int fd)
{
	lock_release(fd);
}

bool run_locked(const char *run_dir)
{
	int fd = open_lock_dir(run_dir, NULL);
	if (fd < 0)
		return false;
	bool held = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return held;
}

int run_lock_check(const char *run_dir, int fd, struct tp_err *err)
{
	char *dir = path_join(run_dir, ".tileport");
	struct stat held, now;
	int rc = 0;
	if (fstat(fd, &held) < 0 || lstat(dir, &now) < 0 || held.st_dev != now.st_dev ||
	    held.st_ino != now.st_ino) {
		tp_err_set(err, TP_EXIT_ENV,
			   "%s was removed or replaced while this tileport held its lock; stopping "
			   "so that two orchestrators never share a run", dir);
		rc = -1;
	}
	free(dir);
	return rc;
}
