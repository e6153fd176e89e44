#include "engine/core/events.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		tp_err_set(err, TP_EXIT_ENV, "%s: cannot append: %s", path, strerror(errno));
	} else {
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
			tp_err_set(err, TP_EXIT_ENV, "%s: write failed: %s", path, strerror(errno));
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

int events_repair(const char *run_dir)
{
	char *path = run_path(run_dir, "events.jsonl");
	size_t len;
	char *text = read_file(path, &len, NULL);
	int rc = 0;
	if (text && len && text[len - 1] != '\n') {
		char *last = strrchr(text, '\n');
		off_t keep = last ? (off_t)(last - text + 1) : 0;
		rc = truncate(path, keep);
	}
	free(text);
	free(path);
	return rc;
}

int events_read_more(const char *run_dir, long long *offset, cJSON *into, struct tp_err *err)
{
	char *path = run_path(run_dir, "events.jsonl");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int rc = errno == ENOENT ? 0 : -1;
		if (rc < 0)
			tp_err_set(err, TP_EXIT_ENV, "%s: cannot read: %s", path, strerror(errno));
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
