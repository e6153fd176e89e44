#include "engine/base/lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/base/files.h"

int lock_take(const char *path, long *holder, struct tp_err *err)
{
	*holder = -1;
	/* O_NOFOLLOW, and a regular file only: a lock is truncated and written,
	 * so a link planted in its place must not take that to its target */
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	if (fd < 0) {
		if (errno == ELOOP)
			tp_err_set(err, TP_EXIT_USAGE,
				   "%s: is a symbolic link; tileport does not follow links here", path);
		else
			tp_err_set(err, TP_EXIT_ENV, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		tp_err_set(err, TP_EXIT_ENV, "%s: cannot stat: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: is %s, not a regular file", path,
			   file_kind_name(st.st_mode));
		close(fd);
		return -1;
	}
	int fl = fcntl(fd, F_GETFL); /* O_NONBLOCK was for the open only (a FIFO) */
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		char buf[64] = "";
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		*holder = atol(buf);
		close(fd);
		return -1;
	}
	char pid[32];
	int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) == 0 && pwrite(fd, pid, (size_t)n, 0) < 0)
		(void)0; /* the pid is informational only */
	return fd;
}

int lock_check(const char *path, int fd, struct tp_err *err)
{
	struct stat held, now;
	if (fstat(fd, &held) < 0 || lstat(path, &now) < 0 || held.st_dev != now.st_dev ||
	    held.st_ino != now.st_ino) {
		tp_err_set(err, TP_EXIT_ENV,
			   "%s was removed or replaced while this tileport held it; stopping so that "
			   "two tileports never write the same record", path);
		return -1;
	}
	return 0;
}

void lock_release(int fd)
{
	if (fd >= 0) {
		flock(fd, LOCK_UN);
		close(fd);
	}
}

bool lock_held(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool held = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
	close(fd);
	return held;
}

