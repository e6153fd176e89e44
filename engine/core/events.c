#include "engine/core/events.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/base/files.h"
#include "engine/core/run.h"

int events_append(const char *run_dir, const char *type, cJSON *fields, cJSON **written,
		  struct tp_err *err)
{
	cJSON *o = cJSON_CreateObject();
	int64_t now = wall_ms();
	char ts[32];
	iso8601_utc(now, ts);
	cJSON_AddStringToObject(o, "ts", ts);
	cJSON_AddNumberToObject(o, "t", (double)now);
	cJSON_AddStringToObject(o, "type", type);
	if (fields) {
		cJSON *it = fields->child;
		while (it) {
			cJSON *next = it->next;
			cJSON_AddItemToObject(o, it->string, cJSON_DetachItemViaPointer(fields, it));
			it = next;
		}
		cJSON_Delete(fields);
	}
	char *line = cJSON_PrintUnformatted(o);
	size_t n = strlen(line);
	char *path = run_path(run_dir, "events.jsonl");
	int rc = -1;
	int fd = file_open_write(path, O_APPEND, err);
	if (fd >= 0) {
		/* One write of the whole line keeps concurrent readers from seeing
		 * half of it in the common case; fdatasync makes it survive a crash. */
		char *buf = xmalloc(n + 1);
		memcpy(buf, line, n);
		buf[n] = '\n';
		ssize_t w = write(fd, buf, n + 1);
		free(buf);
		if (w == (ssize_t)(n + 1) && fdatasync(fd) == 0)
			rc = 0;
		else
			tp_err_set(err, TP_EXIT_ENV, "%s: write failed: %s", path,
				   w >= 0 && w < (ssize_t)(n + 1) ? "short write (disk full?)"
								  : strerror(errno));
		close(fd);
	}
	cJSON_free(line);
	free(path);
	if (written)
		*written = o;
	else
		cJSON_Delete(o);
	return rc;
}

/* A torn write leaves the start of an event, or zeros where the kernel had
 * extended the file but not written it. (A CR is refused before this.) */
static bool torn_fragment(const char *s, size_t n)
{
	return !n || s[0] == '{' || s[0] == '\0';
}

static bool whole_event(const char *s, size_t n)
{
	if (memchr(s, '\0', n))
		return false;
	char *copy = xstrndup(s, n);
	const char *end = NULL;
	cJSON *o = cJSON_ParseWithOpts(copy, &end, true);
	bool ok = cJSON_IsObject(o);
	cJSON_Delete(o);
	free(copy);
	return ok;
}

int events_repair(const char *run_dir, const char *keep_dir, struct tp_err *err)
{
	char *path = run_path(run_dir, "events.jsonl");
	int fd = file_open_write(path, O_APPEND, err);
	if (fd < 0) {
		free(path);
		return -1;
	}
	size_t len;
	char *text = read_file_flags(path, &len, FILE_NOFOLLOW, err);
	int rc = text ? 0 : -1;
	const char *nl = text && len ? memrchr(text, '\n', len) : NULL;
	size_t keep = nl ? (size_t)(nl - text) + 1 : 0;
	const char *tail = text ? text + keep : NULL;
	size_t tn = text ? len - keep : 0;
	/* tileport writes LF only (JSON escapes a CR inside a string): a CR
	 * means the file was converted, and appending LF lines to it would
	 * leave it with two conventions */
	const char *cr = text && len ? memchr(text, '\r', len) : NULL;
	if (cr && rc == 0) {
		tp_err_set(err, TP_EXIT_USAGE,
			   "%s: byte offset %zu: a carriage return (CRLF or CR line endings); events.jsonl "
			   "has LF line endings only, and tileport leaves the log as it is (convert it back, "
			   "or move it aside, to go on)",
			   path, (size_t)(cr - text));
		rc = -1;
	} else if (rc < 0 || tn == 0) {
		/* nothing torn */
	} else if (whole_event(tail, tn)) {
		/* a crash between the event and its newline: keep the event */
		if (write(fd, "\n", 1) != 1 || fdatasync(fd) < 0) {
			tp_err_set(err, TP_EXIT_ENV, "%s: write failed: %s", path, strerror(errno));
			rc = -1;
		}
	} else if (torn_fragment(tail, tn)) {
		char *kept = path_join(keep_dir, "events-torn.jsonl");
		rc = append_file(kept, tail, tn, err);
		if (rc == 0 && ftruncate(fd, (off_t)keep) < 0) {
			tp_err_set(err, TP_EXIT_ENV, "%s: cannot cut the torn last line: %s", path,
				   strerror(errno));
			rc = -1;
		}
		free(kept);
	} else {
		tp_err_set(err, TP_EXIT_USAGE,
			   "%s: byte offset %zu: the last line is neither a whole event nor one torn "
			   "by a crash; tileport leaves the log as it is (move it aside to go on)",
			   path, keep);
		rc = -1;
	}
	close(fd);
	free(text);
	free(path);
	return rc;
}

bool events_whole(const char *run_dir)
{
	char *path = run_path(run_dir, "events.jsonl");
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	int e = errno;
	free(path);
	if (fd < 0)
		return e == ENOENT;
	struct stat sb;
	char last = '\n';
	bool whole = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
		     (sb.st_size == 0 || (pread(fd, &last, 1, sb.st_size - 1) == 1 && last == '\n'));
	close(fd);
	return whole;
}

int events_read_more(const char *run_dir, long long *offset, cJSON *into, struct tp_err *err)
{
	char *path = run_path(run_dir, "events.jsonl");
	struct tp_err oerr;
	int fd = file_open_read(path, FILE_NOFOLLOW, &oerr);
	if (fd < 0) {
		int rc = errno == ENOENT ? 0 : -1;
		if (rc < 0)
			tp_err_set(err, TP_EXIT_ENV, "%s", oerr.msg);
		free(path);
		return rc;
	}
	struct sbuf sb = SBUF_INIT;
	char buf[65536];
	ssize_t got;
	off_t at = (off_t)*offset;
	while ((got = pread(fd, buf, sizeof(buf), at)) > 0) {
		sb_add(&sb, buf, (size_t)got);
		at += got;
	}
	int rc = 0;
	if (got < 0) {
		tp_err_set(err, TP_EXIT_ENV, "%s: cannot read: %s", path, strerror(errno));
		rc = -1;
	}
	close(fd);
	free(path);
	size_t used = 0;
	for (char *line = sb.buf; rc >= 0 && line && line < sb.buf + sb.len;) {
		char *nl = memchr(line, '\n', (size_t)(sb.buf + sb.len - line));
		if (!nl)
			break; /* still being written, or torn by a crash */
		*nl = '\0';
		cJSON *o = cJSON_Parse(line);
		if (cJSON_IsObject(o)) {
			cJSON_AddItemToArray(into, o);
			rc++;
		} else {
			cJSON_Delete(o);
		}
		line = nl + 1;
		used = (size_t)(line - sb.buf);
	}
	*offset += (long long)used;
	sb_free(&sb);
	return rc;
}
