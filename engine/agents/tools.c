#include "engine/agents/tools.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/base/sandbox.h"

#define READ_LINES 500                /* one page of read_file */
#define READ_BYTES ((size_t)64 << 10) /* and its byte cap */
#define WRITE_MAX ((size_t)8 << 20)
#define LIST_MAX 500
#define CMD_TIMEOUT_S 120
#define CMD_TIMEOUT_MAX_S 1800
#define OUT_HEAD 8000
#define OUT_TAIL 8000

struct tool_def {
	const char *name, *description, *schema;
	void (*fn)(struct tools *t, const cJSON *args, struct tool_result *r);
};

static void t_read(struct tools *t, const cJSON *a, struct tool_result *r);
static void t_write(struct tools *t, const cJSON *a, struct tool_result *r);
static void t_edit(struct tools *t, const cJSON *a, struct tool_result *r);
static void t_list(struct tools *t, const cJSON *a, struct tool_result *r);
static void t_run(struct tools *t, const cJSON *a, struct tool_result *r);

static const struct tool_def defs[] = {
	{"read_file", "Read a text file: numbered lines, 500 at a time. Paths are relative to the run "
		      "directory or absolute under the run directory, the workspace or the skill.",
	 "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},"
	 "\"start_line\":{\"type\":\"integer\",\"description\":\"first line, from 1\"},"
	 "\"end_line\":{\"type\":\"integer\",\"description\":\"last line (inclusive)\"}},\"required\":[\"path\"]}",
	 t_read},
	{"write_file", "Create or replace a file (parent folders are created) in the run directory or the "
		       "workspace.",
	 "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"content\":{\"type\":\"string\"}},"
	 "\"required\":[\"path\",\"content\"]}",
	 t_write},
	{"edit_file", "Replace old_text by new_text in a file. old_text must occur exactly once; include "
		      "enough context to make it unique.",
	 "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"old_text\":{\"type\":\"string\"},"
	 "\"new_text\":{\"type\":\"string\"}},\"required\":[\"path\",\"old_text\",\"new_text\"]}",
	 t_edit},
	{"list_dir", "List a folder (default: the run directory); folders end in '/'.",
	 "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}}}", t_list},
	{"run_command", "Run a shell command (/bin/sh -c) in the run directory, stdin closed. Output "
			"(stdout and stderr) is cut to its head and tail; the exit code is the first line. "
			"Default timeout 120 s, at most 1800 s.",
	 "{\"type\":\"object\",\"properties\":{\"cmd\":{\"type\":\"string\"},"
	 "\"timeout_s\":{\"type\":\"integer\"}},\"required\":[\"cmd\"]}",
	 t_run},
};

int tools_init(struct tools *t, const char *run_dir, const char *workspace, const char *skill,
	       struct loop *l, struct tp_err *err)
{
	memset(t, 0, sizeof(*t));
	if (confine_init(&t->conf, run_dir, workspace, skill, err) < 0)
		return -1;
	t->loop = l;
	t->kill_grace_ms = 2000;
	char **env = env_current();
	char **secret = env_secrets(env, NULL);
	for (size_t i = 0; secret[i]; i++) {
		char *name = xstrndup(secret[i], strcspn(secret[i], "="));
		env_unset(&env, name);
		free(name);
	}
	strv_free(secret);
	/* commands must never wait for a person */
	env_set(&env, "PAGER", "cat");
	env_set(&env, "GIT_PAGER", "cat");
	env_set(&env, "MANPAGER", "cat");
	env_set(&env, "TERM", "dumb");
	env_set(&env, "CI", "1");
	/* Commands may write only beneath the run directory and the workspace;
	 * their temporary files go with the run rather than to /tmp. */
	t->write_roots = xcalloc((size_t)t->conf.n + 1, sizeof(*t->write_roots));
	for (int i = 0, k = 0; i < t->conf.n; i++)
		if (t->conf.roots[i].writable)
			t->write_roots[k++] = xstrdup(t->conf.roots[i].real);
	char *tmp = path_join(t->conf.protected_dir, "tmp");
	if (mkdir_p(tmp, 0700, err) < 0) {
		free(tmp);
		strv_free(env);
		tools_free(t);
		return -1;
	}
	env_set(&env, "TMPDIR", tmp);
	free(tmp);
	t->env = env;
	return 0;
}

void tools_free(struct tools *t)
{
	confine_free(&t->conf);
	strv_free(t->env);
	strv_free(t->write_roots);
	memset(t, 0, sizeof(*t));
}

static cJSON *schema(const struct tool_def *d)
{
	return cJSON_Parse(d->schema);
}

cJSON *tools_openai(void)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < TP_ARRAY_LEN(defs); i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "type", "function");
		cJSON *fn = cJSON_AddObjectToObject(o, "function");
		cJSON_AddStringToObject(fn, "name", defs[i].name);
		cJSON_AddStringToObject(fn, "description", defs[i].description);
		cJSON_AddItemToObject(fn, "parameters", schema(&defs[i]));
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

cJSON *tools_anthropic(void)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < TP_ARRAY_LEN(defs); i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", defs[i].name);
		cJSON_AddStringToObject(o, "description", defs[i].description);
		cJSON_AddItemToObject(o, "input_schema", schema(&defs[i]));
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

bool json_has_nul(const char *s)
{
	for (; *s; s++) {
		if (*s != '\\')
			continue;
		if (s[1] == 'u' && s[2] == '0' && s[3] == '0' && s[4] == '0' && s[5] == '0')
			return true;
		if (s[1])
			s++; /* skip the escaped character, a backslash included */
	}
	return false;
}

static void fail(struct tool_result *r, const char *fmt, ...) TP_PRINTF(2, 3);
static void fail(struct tool_result *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(r->output);
	r->output = xvasprintf(fmt, ap);
	va_end(ap);
	r->is_error = true;
}

static const char *arg_str(const cJSON *a, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(a, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* An integer argument; models send 10, 10.0 or "10". */
static bool arg_int(const cJSON *a, const char *k, long *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(a, k);
	double d;
	if (cJSON_IsNumber(v))
		d = v->valuedouble;
	else if (cJSON_IsString(v) && *v->valuestring)
		d = strtod(v->valuestring, NULL);
	else
		return false;
	if (!isfinite(d))
		return false;
	*out = d > 1e9 ? 1000000000L : d < -1e9 ? -1000000000L : (long)d;
	return true;
}

static char *read_fd(int fd, size_t cap, bool *too_big, size_t *len)
{
	struct sbuf sb = SBUF_INIT;
	char buf[65536];
	ssize_t n;
	*too_big = false;
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (sb.len + (size_t)n > cap) {
			*too_big = true;
			break;
		}
		sb_add(&sb, buf, (size_t)n);
	}
	*len = sb.len;
	return sb_detach(&sb);
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void t_read(struct tools *t, const cJSON *a, struct tool_result *r)
{
	const char *path = arg_str(a, "path");
	if (!path)
		return fail(r, "read_file needs a string 'path'");
	struct tp_err err;
	int fd = confine_open(&t->conf, path, O_RDONLY, 0, NULL, &err);
	if (fd < 0)
		return fail(r, "%s", err.msg);
	struct stat sb;
	if (fstat(fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		close(fd);
		return fail(r, "%s is a folder; use list_dir", path);
	}
	bool big;
	size_t len;
	char *text = read_fd(fd, (size_t)256 << 20, &big, &len);
	close(fd);
	if (memchr(text, '\0', len)) {
		free(text);
		return fail(r, "%s is a binary file", path);
	}
	long total = 0;
	for (const char *p = text; *p; p++)
		total += *p == '\n';
	if (*text && text[strlen(text) - 1] != '\n')
		total++;
	long from = 1, to = 0;
	arg_int(a, "start_line", &from);
	if (from < 1)
		from = 1;
	if (!arg_int(a, "end_line", &to) || to < from)
		to = from + READ_LINES - 1;
	if (to > total)
		to = total;
	struct sbuf out = SBUF_INIT;
	long line = 1, last = from - 1;
	const char *p = text;
	while (*p && line <= to) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (line >= from) {
			if (out.len + n > READ_BYTES)
				break;
			sb_printf(&out, "%6ld\t%.*s\n", line, (int)n, p);
			last = line;
		}
		p += n + (nl ? 1 : 0);
		line++;
	}
	char *head;
	if (total == 0)
		head = xasprintf("%s: empty file\n", path);
	else if (from > total)
		head = xasprintf("%s: %ld lines; line %ld is past the end\n", path, total, from);
	else if (last < total)
		head = xasprintf("%s: lines %ld-%ld of %ld (read on with start_line=%ld)%s\n", path, from, last,
				 total, last + 1, big ? "; the file is cut at 256 MiB" : "");
	else
		head = xasprintf("%s: lines %ld-%ld of %ld\n", path, from, last, total);
	r->output = xasprintf("%s%s", head, sb_str(&out));
	free(head);
	sb_free(&out);
	free(text);
}

static void t_write(struct tools *t, const cJSON *a, struct tool_result *r)
{
	const char *path = arg_str(a, "path"), *content = arg_str(a, "content");
	if (!path || !content)
		return fail(r, "write_file needs string 'path' and 'content'");
	size_t n = strlen(content);
	if (n > WRITE_MAX)
		return fail(r, "%s: %zu bytes is more than write_file takes (%zu)", path, n, WRITE_MAX);
	struct tp_err err;
	if (confine_mkparents(&t->conf, path, &err) < 0)
		return fail(r, "%s", err.msg);
	int fd = confine_open(&t->conf, path, O_WRONLY | O_CREAT | O_TRUNC, 0644, NULL, &err);
	if (fd < 0)
		return fail(r, "%s", err.msg);
	int rc = write_all(fd, content, n);
	if (close(fd) < 0)
		rc = -1;
	if (rc < 0)
		return fail(r, "%s: write failed: %s", path, strerror(errno));
	r->output = xasprintf("wrote %s (%zu bytes)", path, n);
}

static size_t count_matches(const char *hay, const char *needle)
{
	size_t n = 0, k = strlen(needle);
	for (const char *p = hay; (p = strstr(p, needle)); p += k)
		n++;
	return n;
}

static void t_edit(struct tools *t, const cJSON *a, struct tool_result *r)
{
	const char *path = arg_str(a, "path"), *old = arg_str(a, "old_text"), *new = arg_str(a, "new_text");
	if (!path || !old || !new)
		return fail(r, "edit_file needs string 'path', 'old_text' and 'new_text'");
	if (!*old)
		return fail(r, "edit_file: old_text is empty; use write_file to create a file");
	struct tp_err err;
	int fd = confine_open(&t->conf, path, O_RDWR, 0, NULL, &err);
	if (fd < 0)
		return fail(r, "%s", err.msg);
	bool big;
	size_t len;
	char *text = read_fd(fd, WRITE_MAX, &big, &len);
	size_t hits = big ? 0 : count_matches(text, old);
	if (big || hits != 1) {
		close(fd);
		free(text);
		if (big)
			return fail(r, "%s: larger than edit_file takes", path);
		return fail(r, "%s: old_text occurs %zu times; it must occur exactly once (%s)", path, hits,
			    hits ? "add surrounding lines to make it unique" : "copy it exactly, whitespace included");
	}
	char *at = strstr(text, old);
	struct sbuf out = SBUF_INIT;
	sb_add(&out, text, (size_t)(at - text));
	sb_adds(&out, new);
	sb_adds(&out, at + strlen(old));
	int rc = lseek(fd, 0, SEEK_SET) == 0 && ftruncate(fd, 0) == 0 ? write_all(fd, out.buf, out.len) : -1;
	if (close(fd) < 0)
		rc = -1;
	long line = 1;
	for (const char *p = text; p < at; p++)
		line += *p == '\n';
	free(text);
	sb_free(&out);
	if (rc < 0)
		return fail(r, "%s: write failed: %s", path, strerror(errno));
	r->output = xasprintf("edited %s at line %ld", path, line);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void t_list(struct tools *t, const cJSON *a, struct tool_result *r)
{
	const char *path = arg_str(a, "path");
	if (!path || !*path)
		path = ".";
	struct tp_err err;
	int fd = confine_open(&t->conf, path, O_RDONLY | O_DIRECTORY, 0, NULL, &err);
	if (fd < 0)
		return fail(r, "%s", err.msg);
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return fail(r, "%s: %s", path, strerror(errno));
	}
	char **names = NULL;
	size_t n = 0, cap = 0, total = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		total++;
		if (n >= LIST_MAX)
			continue;
		struct stat sb;
		const char *mark = "";
		if (fstatat(dirfd(d), e->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0)
			mark = S_ISDIR(sb.st_mode) ? "/" : S_ISLNK(sb.st_mode) ? "@" : "";
		names = xgrow(names, &cap, n + 1, sizeof(*names));
		names[n++] = xasprintf("%s%s", e->d_name, mark);
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_str);
	struct sbuf out = SBUF_INIT;
	sb_printf(&out, "%s: %zu entr%s%s\n", path, total, total == 1 ? "y" : "ies",
		  total > n ? " (the first 500 shown)" : "");
	for (size_t i = 0; i < n; i++) {
		sb_printf(&out, "%s\n", names[i]);
		free(names[i]);
	}
	free(names);
	r->output = sb_detach(&out);
}

/* ---- run_command ---- */

struct capture {
	struct sbuf head, tail;
	size_t total;
	bool done;
	struct proc_status st;
};

static void cap_add(struct capture *c, const char *d, size_t n)
{
	c->total += n;
	if (c->head.len < OUT_HEAD) {
		size_t k = OUT_HEAD - c->head.len < n ? OUT_HEAD - c->head.len : n;
		sb_add(&c->head, d, k);
		d += k;
		n -= k;
	}
	sb_add(&c->tail, d, n);
	if (c->tail.len > 4 * OUT_TAIL) {
		memmove(c->tail.buf, c->tail.buf + c->tail.len - OUT_TAIL, OUT_TAIL);
		c->tail.len = OUT_TAIL;
		c->tail.buf[OUT_TAIL] = '\0';
	}
}

static void on_out(struct proc *p, const char *d, size_t n, void *ud)
{
	(void)p;
	cap_add(ud, d, n);
}

static void on_done(struct proc *p, const struct proc_status *st, void *ud)
{
	(void)p;
	struct capture *c = ud;
	c->st = *st;
	c->done = true;
}

static bool stopped(void *ud)
{
	const struct tools *t = ud;
	return t->stop && *t->stop;
}

static void t_run(struct tools *t, const cJSON *a, struct tool_result *r)
{
	const char *cmd = arg_str(a, "cmd");
	if (!cmd || !*cmd)
		return fail(r, "run_command needs a string 'cmd'");
	long timeout = CMD_TIMEOUT_S;
	arg_int(a, "timeout_s", &timeout);
	if (timeout <= 0)
		timeout = CMD_TIMEOUT_S;
	if (timeout > CMD_TIMEOUT_MAX_S)
		timeout = CMD_TIMEOUT_MAX_S;
	char *argv[] = {"/bin/sh", "-c", (char *)cmd, NULL};
	struct capture c = {SBUF_INIT, SBUF_INIT, 0, false, {0}};
	struct proc_opts o = {.argv = argv, .env = t->env, .cwd = t->conf.roots[0].real,
			      .timeout_ms = timeout * 1000, .kill_grace_ms = t->kill_grace_ms,
			      .write_only_beneath = t->write_roots, .write_except = t->conf.guarded,
			      .command_log = t->command_log, .redact = t->secrets, .parent_death_signal = SIGKILL,
			      .on_stdout = on_out, .on_stderr = on_out, .on_exit = on_done, .ud = &c};
	struct tp_err err;
	struct proc *p = proc_spawn(t->loop, &o, &err);
	if (!p && t->write_roots && !sandbox_abi())
		return fail(r, "%s (llm.confine_commands = off in the config runs them unconfined)", err.msg);
	if (!p)
		return fail(r, "%s", err.msg);
	proc_wait(t->loop, p, &c.done, stopped, t);
	proc_free(p);
	struct sbuf out = SBUF_INIT;
	if (c.st.end == PROC_EXITED)
		sb_printf(&out, "exit=%d\n", c.st.code);
	else if (c.st.end == PROC_TIMED_OUT)
		sb_printf(&out, "exit=124 (timed out after %ld s; its process group was killed)\n", timeout);
	else {
		char buf[128];
		proc_status_str(&c.st, buf, sizeof(buf));
		sb_printf(&out, "exit=%d (%s)\n", c.st.signo ? 128 + c.st.signo : 1, buf);
	}
	sb_add(&out, c.head.buf ? c.head.buf : "", c.head.len);
	size_t shown = c.head.len + c.tail.len;
	if (c.total > shown) {
		sb_printf(&out, "\n[... %zu bytes elided ...]\n", c.total - c.head.len - OUT_TAIL);
		sb_add(&out, c.tail.buf + c.tail.len - OUT_TAIL, OUT_TAIL);
	} else {
		sb_add(&out, c.tail.buf ? c.tail.buf : "", c.tail.len);
	}
	if (c.total == 0)
		sb_adds(&out, "(no output)\n");
	r->output = sb_detach(&out);
	r->is_error = !(c.st.end == PROC_EXITED && c.st.code == 0);
	sb_free(&c.head);
	sb_free(&c.tail);
}

void tools_exec(struct tools *t, const char *name, const char *args_json, struct tool_result *r)
{
	memset(r, 0, sizeof(*r));
	const struct tool_def *d = NULL;
	for (size_t i = 0; i < TP_ARRAY_LEN(defs) && !d; i++)
		if (!strcmp(defs[i].name, name))
			d = &defs[i];
	if (!d) {
		fail(r, "no tool named '%s' (tools: read_file, write_file, edit_file, list_dir, run_command)", name);
	} else if (json_has_nul(args_json)) {
		fail(r, "%s: a NUL byte in the arguments; refused", name);
	} else {
		cJSON *a = cJSON_Parse(args_json);
		if (!cJSON_IsObject(a))
			fail(r, "%s: the arguments are not a JSON object: %.200s", name, args_json);
		else
			d->fn(t, a, r);
		cJSON_Delete(a);
	}
	if (t->secrets && r->output) {
		char *red = redact_secrets(r->output, t->secrets);
		free(r->output);
		r->output = red;
	}
}

void tool_result_free(struct tool_result *r)
{
	free(r->output);
	memset(r, 0, sizeof(*r));
}
