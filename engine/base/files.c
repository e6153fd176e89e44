#include "engine/base/files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

const char *file_kind_name(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFDIR:
		return "a directory";
	case S_IFIFO:
		return "a FIFO";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFSOCK:
		return "a socket";
	case S_IFLNK:
		return "a symbolic link";
	default:
		return "not a regular file";
	}
}

/* ELOOP from O_NOFOLLOW means the last component is a link. */
static void open_failed(const char *path, int code, const char *what, struct tp_err *err)
{
	int e = errno; /* callers tell a missing file (ENOENT) from the rest */
	if (errno == ELOOP)
		tp_err_set(err, code, "%s: is a symbolic link; tileport does not follow links here",
			   path);
	else
		tp_err_set(err, code, "%s: cannot open%s: %s", path, what, strerror(errno));
	errno = e;
}

/* fd must be a regular file; otherwise it is closed and err says what it is. */
static int keep_regular(int fd, const char *path, int code, struct tp_err *err)
{
	struct stat st;
	if (fstat(fd, &st) < 0) {
		tp_err_set(err, code, "%s: cannot stat: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		tp_err_set(err, code, "%s: is %s, not a regular file", path, file_kind_name(st.st_mode));
		close(fd);
		errno = EINVAL;
		return -1;
	}
	/* Back to blocking: O_NONBLOCK was only for the open itself. */
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

int file_open_read(const char *path, int flags, struct tp_err *err)
{
	int of = O_RDONLY | O_NONBLOCK | O_CLOEXEC | (flags & FILE_NOFOLLOW ? O_NOFOLLOW : 0);
	int fd = open(path, of);
	if (fd < 0) {
		open_failed(path, TP_EXIT_USAGE, "", err);
		return -1;
	}
	return keep_regular(fd, path, TP_EXIT_USAGE, err);
}

int file_open_write(const char *path, int how, struct tp_err *err)
{
	/* O_NONBLOCK: a FIFO without a reader fails (ENXIO) instead of waiting */
	int of = O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | how;
	int fd = open(path, of, 0644);
	if (fd < 0) {
		open_failed(path, TP_EXIT_ENV, " for writing", err);
		return -1;
	}
	return keep_regular(fd, path, TP_EXIT_ENV, err);
}

long text_nul_at(const char *data, size_t len)
{
	const char *z = memchr(data, '\0', len);
	return z ? (long)(z - data) : -1;
}

char *read_text_file(const char *path, size_t *len, struct tp_err *err)
{
	size_t n;
	char *text = read_file(path, &n, err);
	if (!text)
		return NULL;
	long at = text_nul_at(text, n);
	if (at >= 0) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: byte offset %ld: a NUL byte (expected text)", path,
			   at);
		free(text);
		return NULL;
	}
	if (len)
		*len = n;
	return text;
}

static int write_through(const char *path, const void *data, size_t len, int how,
			 struct tp_err *err)
{
	/* No O_NONBLOCK: writing to a FIFO waits for its reader, as a shell's
	 * redirection does; O_NOFOLLOW: the path was a device a moment ago. */
	int fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | how);
	if (fd < 0) {
		open_failed(path, TP_EXIT_ENV, " for writing", err);
		return -1;
	}
	const char *p = data;
	size_t left = len;
	while (left) {
		ssize_t w = write(fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			tp_err_set(err, TP_EXIT_ENV, "%s: write failed: %s", path,
				   w < 0 ? strerror(errno) : "no progress");
			close(fd);
			return -1;
		}
		p += w;
		left -= (size_t)w;
	}
	if (close(fd) < 0) {
		tp_err_set(err, TP_EXIT_ENV, "%s: write failed: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int write_output(const char *path, const void *data, size_t len, struct tp_err *err)
{
	struct stat st;
	if (lstat(path, &st) < 0) {
		if (errno != ENOENT) {
			tp_err_set(err, TP_EXIT_ENV, "%s: cannot stat: %s", path, strerror(errno));
			return -1;
		}
		return write_file_atomic(path, data, len, err);
	}
	/* A rename would give someone else's file (root writing a user's
	 * report) a new owner, and cut a hard link off from its other names:
	 * such a file is rewritten in place. */
	if (S_ISREG(st.st_mode) && st.st_uid == geteuid() && st.st_nlink == 1)
		return write_file_atomic(path, data, len, err);
	if (S_ISREG(st.st_mode))
		return write_through(path, data, len, O_TRUNC, err);
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISFIFO(st.st_mode))
		return write_through(path, data, len, 0, err);
	tp_err_set(err, TP_EXIT_USAGE, "%s: is %s; name a regular file, a new file or a device",
		   path, file_kind_name(st.st_mode));
	return -1;
}

int stdout_flush_check(struct tp_err *err)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	tp_err_set(err, TP_EXIT_ENV, "cannot write to standard output: %s",
		   errno ? strerror(errno) : "write error");
	return -1;
}

void text_line_col(const char *text, size_t at, int *line, int *col)
{
	int l = 1;
	size_t bol = 0;
	for (size_t i = 0; i < at && text[i]; i++)
		if (text[i] == '\n') {
			l++;
			bol = i + 1;
		}
	*line = l;
	*col = (int)(at - bol) + 1;
}

cJSON *json_parse_doc(const char *path, const char *text, size_t len, struct tp_err *err)
{
	const char *end = NULL;
	cJSON *j = cJSON_ParseWithLengthOpts(text, len, &end, false);
	int line, col;
	if (!j) {
		size_t at = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
		text_line_col(text, at, &line, &col);
		tp_err_set(err, TP_EXIT_USAGE, "%s:%d:%d: malformed JSON", path, line, col);
		return NULL;
	}
	size_t at = (size_t)(end - text);
	while (at < len && (text[at] == ' ' || text[at] == '\t' || text[at] == '\r' ||
			    text[at] == '\n'))
		at++;
	if (at < len) {
		text_line_col(text, at, &line, &col);
		tp_err_set(err, TP_EXIT_USAGE, "%s:%d:%d: unexpected data after the JSON value", path,
			   line, col);
		cJSON_Delete(j);
		return NULL;
	}
	return j;
}

char *read_file(const char *path, size_t *len, struct tp_err *err)
{
	return read_file_flags(path, len, 0, err);
}

char *read_file_flags(const char *path, size_t *len, int flags, struct tp_err *err)
{
	int fd = file_open_read(path, flags, err);
	if (fd < 0)
		return NULL;
	/* read into one buffer of the file's size (a big input is not copied
	 * through a doubling buffer); one that grows while read grows it */
	struct stat st;
	size_t cap = 65536, n = 0;
	if (fstat(fd, &st) == 0 && st.st_size > 0)
		cap = (size_t)st.st_size + 1;
	char *buf = xmalloc(cap + 1);
	for (;;) {
		if (n == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap + 1);
		}
		ssize_t got = read(fd, buf + n, cap - n);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			tp_err_set(err, TP_EXIT_USAGE, "%s: read error: %s", path, strerror(errno));
			close(fd);
			free(buf);
			return NULL;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void fsync_parent(const char *path)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

int write_file_atomic(const char *path, const void *data, size_t len, struct tp_err *err)
{
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	/* A leftover of a killed process with our pid goes; a link planted at
	 * the name is removed, never followed. */
	unlink(tmp);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		tp_err_set(err, TP_EXIT_ENV, "%s: cannot create: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	if (write_all(fd, data, len) < 0 || fsync(fd) < 0) {
		tp_err_set(err, TP_EXIT_ENV, "%s: write failed: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		free(tmp);
		return -1;
	}
	close(fd);
	tp_crashpoint();
	if (rename(tmp, path) < 0) {
		tp_err_set(err, TP_EXIT_ENV, "%s: rename failed: %s", path, strerror(errno));
		unlink(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	fsync_parent(path);
	return 0;
}

static int write_flags(const char *path, const void *data, size_t len, int flags,
		       struct tp_err *err)
{
	int fd = file_open_write(path, flags, err);
	if (fd < 0)
		return -1;
	int rc = write_all(fd, data, len);
	if (rc < 0)
		tp_err_set(err, TP_EXIT_ENV, "%s: write failed: %s", path, strerror(errno));
	if (close(fd) < 0 && rc == 0) {
		tp_err_set(err, TP_EXIT_ENV, "%s: write failed: %s", path, strerror(errno));
		rc = -1;
	}
	return rc;
}

int write_file(const char *path, const void *data, size_t len, struct tp_err *err)
{
	return write_flags(path, data, len, O_TRUNC, err);
}

int append_file(const char *path, const void *data, size_t len, struct tp_err *err)
{
	return write_flags(path, data, len, O_APPEND, err);
}

char *file_last_line(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	char buf[8192];
	off_t end = lseek(fd, 0, SEEK_END);
	off_t from = end > (off_t)sizeof(buf) - 1 ? end - (off_t)sizeof(buf) + 1 : 0;
	ssize_t n = end > 0 ? pread(fd, buf, sizeof(buf) - 1, from) : 0;
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	char *stop = strrchr(buf, '\n');
	if (!stop)
		return NULL;
	*stop = '\0';
	char *line = strrchr(buf, '\n');
	return xstrdup(line ? line + 1 : buf);
}
