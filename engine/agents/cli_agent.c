#include "engine/agents/cli_agent.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/base/lines.h"

#define EVENT_LINE_MAX ((size_t)16 << 20)

char *cli_agent_find(const struct config *cfg, const char *prog, const char *key)
{
	char k[64];
	snprintf(k, sizeof(k), "%s.path", key);
	const char *p = cfg ? config_get(cfg, k) : NULL;
	return which(p && *p ? p : prog);
}

char *cli_agent_version(const char *path, struct tp_err *err)
{
	char *argv[] = {(char *)path, "--version", NULL};
	char **env = env_current();
	struct sbuf out = SBUF_INIT;
	struct proc_status st;
	struct proc_opts o = {.argv = argv, .env = env, .timeout_ms = 30000, .kill_grace_ms = 500};
	char *v = NULL;
	if (proc_run_sync(&o, &out, &out, &st, err) == 0) {
		for (const char *p = sb_str(&out); *p && !v; p++) {
			if (isdigit((unsigned char)*p) && (p == out.buf || !isalnum((unsigned char)p[-1]))) {
				size_t n = strspn(p, "0123456789.");
				if (memchr(p, '.', n))
					v = xstrndup(p, n);
			}
		}
		if (!v) {
			char *first = xstrndup(sb_str(&out), strcspn(sb_str(&out), "\n"));
			tp_err_set(err, TP_EXIT_ENV, "%s --version printed no version (%s)", path, first);
			free(first);
		}
	}
	sb_free(&out);
	strv_free(env);
	return v;
}

int cli_version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		long x = strtol(a, (char **)&a, 10), y = strtol(b, (char **)&b, 10);
		if (x != y)
			return x < y ? -1 : 1;
		if (*a == '.')
			a++;
		if (*b == '.')
			b++;
		if (!isdigit((unsigned char)*a) && !isdigit((unsigned char)*b))
			break;
	}
	return 0;
}

void cli_agent_probe(const struct agent_probe *q, const char *prog, const char *key, const char *min,
		     const char *install, struct driver_status *st)
{
	memset(st, 0, sizeof(*st));
	st->path = cli_agent_find(q->cfg, prog, key);
	if (!st->path) {
		st->why = xasprintf("%s is not on PATH (install: %s; or set %s.path)", prog, install, key);
		return;
	}
	st->available = true;
	if (!q->version)
		return;
	struct tp_err err;
	st->version = cli_agent_version(st->path, &err);
	if (!st->version) {
		st->available = false;
		st->why = xstrdup(err.msg);
	} else if (cli_version_cmp(st->version, min) < 0) {
		st->available = false;
		st->why = xasprintf("version %s is older than %s, the oldest tileport drives (upgrade: %s)",
				    st->version, min, install);
	}
}

char *cli_agent_ready(struct agent_ctx *ctx, const char *prog, const char *product, const char *min,
		      const char *install, char **version)
{
	*version = NULL;
	char *path = cli_agent_find(ctx->cfg, prog, prog);
	if (!path) {
		rec_error(ctx->rec, "%s is not on PATH (install: %s; or set %s.path)", prog, install, prog);
		return NULL;
	}
	struct tp_err err;
	char *v = cli_agent_version(path, &err);
	if (!v)
		rec_error(ctx->rec, "%s", err.msg);
	else if (cli_version_cmp(v, min) < 0)
		rec_error(ctx->rec, "%s is %s %s; tileport needs %s or newer (upgrade: %s)", path, product, v, min,
			  install);
	if (!v || cli_version_cmp(v, min) < 0) {
		free(v);
		free(path);
		return NULL;
	}
	*version = v;
	return path;
}

struct cli_exec {
	struct agent_ctx *ctx;
	const struct cli_run *r;
	struct lines out, err;
	bool done;
	struct proc_status st;
};

static void out_line(const char *line, size_t n, void *ud)
{
	struct cli_exec *s = ud;
	s->r->on_line(s->r->mapper, line, n);
}

static void err_line(const char *line, size_t n, void *ud)
{
	(void)ud;
	fprintf(stderr, "%.*s\n", (int)n, line);
}

static void on_out(struct proc *p, const char *d, size_t n, void *ud)
{
	struct cli_exec *s = ud;
	(void)p;
	lines_feed(&s->out, d, n, out_line, s);
}

static void on_err(struct proc *p, const char *d, size_t n, void *ud)
{
	struct cli_exec *s = ud;
	(void)p;
	lines_feed(&s->err, d, n, err_line, s);
}

static void on_exit_(struct proc *p, const struct proc_status *st, void *ud)
{
	struct cli_exec *s = ud;
	(void)p;
	lines_flush(&s->out, out_line, s);
	lines_flush(&s->err, err_line, s);
	s->st = *st;
	s->done = true;
}

static bool should_stop(void *ud)
{
	struct cli_exec *s = ud;
	return s->ctx->stop || (s->r->over && s->r->over(s->r->mapper));
}

void cli_agent_run(struct agent_ctx *ctx, const struct cli_run *r, struct proc_status *st)
{
	struct cli_exec s = {ctx, r, {SBUF_INIT, EVENT_LINE_MAX}, {SBUF_INIT, 0}, false, {0}};
	struct proc_opts o = {.argv = r->argv, .env = r->env, .cwd = r->cwd, .stdin_path = ctx->prompt_path,
			      .idle_timeout_ms = r->idle_timeout_ms, .kill_grace_ms = ctx->kill_grace_ms,
			      .command_log = ctx->command_log, .parent_death_signal = SIGKILL,
			      .write_only_beneath = r->write_only_beneath, .write_except = r->write_except,
			      .on_stdout = on_out, .on_stderr = on_err, .on_exit = on_exit_, .ud = &s};
	struct tp_err err;
	memset(st, 0, sizeof(*st));
	struct proc *p = proc_spawn(ctx->loop, &o, &err);
	if (!p) {
		st->end = PROC_EXEC_FAILED;
		st->code = ENOENT;
		rec_error(ctx->rec, "%s", err.msg);
		return;
	}
	proc_wait(ctx->loop, p, &s.done, should_stop, &s);
	proc_free(p);
	lines_free(&s.out);
	lines_free(&s.err);
	*st = s.st;
}
