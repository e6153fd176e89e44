#include "engine/agents/claude.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/agents/agent.h"
#include "engine/agents/cli_agent.h"
#include "engine/agents/guard.h"
#include "engine/agents/json_get.h"
#include "engine/base/sandbox.h"

void claude_map_init(struct claude_map *m, struct recorder *rec, const struct prices *prices)
{
	memset(m, 0, sizeof(*m));
	m->rec = rec;
	m->prices = prices;
}

void claude_map_free(struct claude_map *m)
{
	idset_free(&m->seen);
	free(m->model);
	free(m->final);
	sb_free(&m->last_text);
	memset(m, 0, sizeof(*m));
}

static double money(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0)
		return -1;
	return v->valuedouble > 1e6 ? 1e6 : v->valuedouble;
}

/* Input tokens as tileport counts them: cached ones included. */
static void read_usage(const cJSON *u, struct usage *out)
{
	out->cache_read = json_count(u, "cache_read_input_tokens");
	out->cache_write = json_count(u, "cache_creation_input_tokens");
	out->tokens_in = json_count(u, "input_tokens") + out->cache_read + out->cache_write;
	out->tokens_out = json_count(u, "output_tokens");
}

static void count(struct claude_map *m, struct usage *u)
{
	bool known = false;
	double c = m->prices ? prices_cost(m->prices, u->model, u->tokens_in, u->cache_read, u->cache_write,
					   u->tokens_out, &known) : 0;
	u->cost = known ? c : 0;
	m->tin += u->tokens_in;
	m->tout += u->tokens_out;
	m->cost += u->cost;
	rec_usage(m->rec, u);
}

static void assistant(struct claude_map *m, const cJSON *o)
{
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(o, "message");
	const cJSON *content = cJSON_GetObjectItemCaseSensitive(msg, "content"), *b;
	if (json_str(msg, "model")) {
		free(m->model);
		m->model = xstrdup(json_str(msg, "model"));
	}
	cJSON_ArrayForEach(b, content)
	{
		const char *t = json_str(b, "type");
		if (!t)
			continue;
		if (!strcmp(t, "text") && json_str(b, "text")) {
			rec_text(m->rec, json_str(b, "text"));
			sb_reset(&m->last_text);
			sb_adds(&m->last_text, json_str(b, "text"));
		} else if (!strcmp(t, "tool_use")) {
			const cJSON *in = cJSON_GetObjectItemCaseSensitive(b, "input");
			char *args = in ? cJSON_PrintUnformatted(in) : NULL;
			rec_tool_call(m->rec, json_str(b, "id"), json_str(b, "name"), args ? args : "{}");
			cJSON_free(args);
		}
	}
	/* Claude Code repeats a message's usage on every block it sends. */
	const char *id = json_str(msg, "id");
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(msg, "usage");
	if (cJSON_IsObject(u) && id && idset_add(&m->seen, id)) {
		struct usage us = {.model = m->model};
		read_usage(u, &us);
		count(m, &us);
	}
}

static char *result_text(const cJSON *c)
{
	if (cJSON_IsString(c))
		return xstrdup(c->valuestring);
	struct sbuf sb = SBUF_INIT;
	const cJSON *b;
	cJSON_ArrayForEach(b, c)
	{
		const char *t = json_str(b, "text");
		if (t)
			sb_printf(&sb, "%s%s", sb.len ? "\n" : "", t);
	}
	return sb_detach(&sb);
}

static void user(struct claude_map *m, const cJSON *o)
{
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(o, "message");
	const cJSON *content = cJSON_GetObjectItemCaseSensitive(msg, "content"), *b;
	cJSON_ArrayForEach(b, content)
	{
		const char *t = json_str(b, "type");
		if (!t || strcmp(t, "tool_result") != 0)
			continue;
		char *text = result_text(cJSON_GetObjectItemCaseSensitive(b, "content"));
		rec_tool_result(m->rec, json_str(b, "tool_use_id"), text,
				cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(b, "is_error")));
		free(text);
	}
}

static void result(struct claude_map *m, const cJSON *o)
{
	m->result = true;
	const char *sub = json_str(o, "subtype");
	m->error = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "is_error")) || (sub && strcmp(sub, "success"));
	/* the result's totals are the truth; bring the meter up to them */
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(o, "usage");
	struct usage tot = {.model = m->model};
	if (cJSON_IsObject(u))
		read_usage(u, &tot);
	bool known = false;
	double c = m->prices ? prices_cost(m->prices, m->model, tot.tokens_in, tot.cache_read, tot.cache_write,
					   tot.tokens_out, &known) : 0;
	double reported = money(o, "total_cost_usd");
	double total = known ? c : reported > 0 ? reported : 0;
	struct usage d = {.model = m->model, .tokens_in = tot.tokens_in > m->tin ? tot.tokens_in - m->tin : 0,
			  .tokens_out = tot.tokens_out > m->tout ? tot.tokens_out - m->tout : 0,
			  .cost = total > m->cost ? total - m->cost : 0};
	m->tin += d.tokens_in;
	m->tout += d.tokens_out;
	m->cost += d.cost;
	rec_usage(m->rec, &d);
	const cJSON *den = cJSON_GetObjectItemCaseSensitive(o, "permission_denials"), *x;
	cJSON_ArrayForEach(x, den)
	{
		const cJSON *in = cJSON_GetObjectItemCaseSensitive(x, "tool_input");
		char *args = in ? cJSON_PrintUnformatted(in) : NULL;
		const char *tool = json_str(x, "tool_name");
		rec_error(m->rec, "permission denied: %s %s", tool ? tool : "tool", args ? args : "");
		cJSON_free(args);
		m->denials++;
	}
	if (m->error) {
		struct sbuf errs = SBUF_INIT;
		const cJSON *e;
		cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(o, "errors"))
			if (cJSON_IsString(e))
				sb_printf(&errs, "; %s", e->valuestring);
		const cJSON *status = cJSON_GetObjectItemCaseSensitive(o, "api_error_status");
		char http[32] = "";
		if (cJSON_IsNumber(status))
			snprintf(http, sizeof(http), " (HTTP %d)", status->valueint);
		rec_error(m->rec, "claude ended in error (%s%s)%s", sub && strcmp(sub, "success") ? sub : "is_error",
			  http, sb_str(&errs));
		sb_free(&errs);
	}
	free(m->final);
	m->final = xstrdup(json_str(o, "result") ? json_str(o, "result") : sb_str(&m->last_text));
}

void claude_map_line(struct claude_map *m, const char *line, size_t n)
{
	size_t k = 0;
	while (k < n && (line[k] == ' ' || line[k] == '\t'))
		k++;
	if (k == n || line[k] != '{')
		return; /* some builds print debug lines on stdout */
	cJSON *o = cJSON_ParseWithLength(line + k, n - k);
	const char *type = json_str(o, "type");
	if (!type) {
		cJSON_Delete(o);
		return;
	}
	const char *sub = json_str(o, "subtype");
	if (!strcmp(type, "system") && sub && !strcmp(sub, "init")) {
		free(m->model);
		m->model = json_str(o, "model") ? xstrdup(json_str(o, "model")) : NULL;
		cJSON *s = cJSON_CreateObject();
		cJSON_AddStringToObject(s, "type", "start");
		cJSON_AddStringToObject(s, "driver", "claude");
		const char *keys[] = {"model", "claude_code_version", "session_id", "permissionMode", "cwd"};
		const char *as[] = {"model", "version", "session", "permission_mode", "cwd"};
		for (size_t i = 0; i < TP_ARRAY_LEN(keys); i++)
			if (json_str(o, keys[i]))
				cJSON_AddStringToObject(s, as[i], json_str(o, keys[i]));
		rec_emit(m->rec, s);
	} else if (!strcmp(type, "system") && sub && !strcmp(sub, "api_retry")) {
		rec_retry(m->rec, (int)json_count(o, "attempt"), (int)json_count(o, "max_retries"),
			  json_count(o, "retry_delay_ms"), (long)json_count(o, "error_status"), json_str(o, "error"));
	} else if (!strcmp(type, "assistant")) {
		assistant(m, o);
	} else if (!strcmp(type, "user")) {
		user(m, o);
	} else if (!strcmp(type, "result")) {
		result(m, o);
	}
	/* stream_event, rate_limit_event, hooks and new types carry nothing we keep */
	cJSON_Delete(o);
}

/* ---- the driver ---- */

#define INSTALL "npm install -g @anthropic-ai/claude-code"

void claude_probe(const struct agent_probe *q, struct driver_status *st)
{
	cli_agent_probe(q, "claude", "claude", CLAUDE_MIN_VERSION, INSTALL, st);
}

static void on_line(void *mapper, const char *line, size_t n)
{
	claude_map_line(mapper, line, n);
}

/* Permission rules for the file tools: "//" starts an absolute path. */
static void allow_under(struct sbuf *sb, const char *tool, const char *dir)
{
	sb_printf(sb, ",%s(/%s/**)", tool, dir);
}

/* Claude Code runs its Bash commands itself, so its permission rules do not
 * hold for them: the CLI and everything it starts may write only beneath
 * the run directory, the workspace and Claude Code's own folder of state
 * (CLAUDE_CONFIG_DIR, else ~/.claude: its sessions, snapshots, credentials),
 * minus what git runs code from (guard.h), with its temporary files in the
 * run's .tileport/tmp (Landlock, as llm's run_command; claude.confine = off
 * lifts it). The folders to give proc_opts.write_only_beneath, or NULL
 * with err; *except receives the guarded paths. */
static char **confined(const struct agent_ctx *ctx, char ***env, char ***except, struct tp_err *err)
{
	if (!sandbox_abi()) {
		tp_err_set(err, TP_EXIT_ENV, "this kernel has no Landlock, which confines what Claude "
					     "Code's commands write; claude.confine = off in the config "
					     "runs it unconfined");
		return NULL;
	}
	const char *conf = env_get(*env, "CLAUDE_CONFIG_DIR"), *home = env_get(*env, "HOME");
	char *state = conf && *conf ? xstrdup(conf) : home && *home ? path_join(home, ".claude") : NULL;
	if (!state) {
		tp_err_set(err, TP_EXIT_ENV, "neither CLAUDE_CONFIG_DIR nor HOME is set: Claude Code "
					     "would have no folder of its own to write");
		return NULL;
	}
	char *tmp = path_join(ctx->run_dir, ".tileport/tmp");
	if (mkdir_p(state, 0700, err) < 0 || mkdir_p(tmp, 0700, err) < 0) {
		free(state);
		free(tmp);
		return NULL;
	}
	env_set(env, "TMPDIR", tmp);
	free(tmp);
	char **roots = xcalloc(4, sizeof(*roots));
	const char *dirs[] = {ctx->run_dir, ctx->workspace, state};
	for (size_t i = 0; i < TP_ARRAY_LEN(dirs); i++) {
		char *real = realpath(dirs[i], NULL);
		roots[i] = real ? real : xstrdup(dirs[i]);
	}
	free(state);
	*except = guard_paths(roots);
	return roots;
}

/* Claude Code's own file tools get deny rules for the guarded paths, so a
 * refusal says why rather than "permission denied" by the kernel; any .git
 * below the workspace too (a new repository). Paths the rule list cannot
 * hold are left to Landlock. */
static void deny_guarded(struct sbuf *sb, char *const *except, const char *workspace)
{
	for (size_t i = 0; except && except[i]; i++) {
		if (strpbrk(except[i], ", \t()"))
			continue;
		sb_printf(sb, "%sEdit(/%s)", sb->len ? "," : "", except[i]);
		sb_printf(sb, ",Edit(/%s/**)", except[i]);
	}
	sb_printf(sb, "%sEdit(/%s/**/.git/**)", sb->len ? "," : "", workspace);
}

int claude_run(struct agent_ctx *ctx)
{
	char *version;
	char *path = cli_agent_ready(ctx, "claude", "Claude Code", CLAUDE_MIN_VERSION, INSTALL, &version);
	if (!path)
		return TP_EXIT_ENV;
	/* the rule list is split at commas and blanks, and a rule ends at ')' */
	const char *dirs[] = {ctx->workspace, ctx->skill_dir};
	for (size_t i = 0; i < TP_ARRAY_LEN(dirs); i++) {
		if (dirs[i] && strpbrk(dirs[i], ", \t()")) {
			rec_error(ctx->rec, "claude: %s has a comma, a blank or a parenthesis, which Claude Code's "
					    "permission rules cannot hold; move it or use another driver", dirs[i]);
			free(version);
			free(path);
			return TP_EXIT_ENV;
		}
	}
	char **env = env_current();
	/* Claude Code refuses to start inside another Claude Code session. */
	env_unset(&env, "CLAUDECODE");
	char **roots = NULL, **except = NULL;
	const char *confine = agent_setting(ctx, NULL, "claude.confine");
	if (!confine || strcmp(confine, "off") != 0) {
		struct tp_err err;
		roots = confined(ctx, &env, &except, &err);
		if (!roots) {
			rec_error(ctx->rec, "claude: %s", err.msg);
			strv_free(env);
			free(version);
			free(path);
			return TP_EXIT_ENV;
		}
	} else {
		char *mine[3] = {realpath(ctx->run_dir, NULL), realpath(ctx->workspace, NULL), NULL};
		except = guard_paths(mine[0] && mine[1] ? mine : NULL);
		free(mine[0]);
		free(mine[1]);
	}
	const char *model = agent_setting(ctx, NULL, "claude.model");
	struct sbuf allow = SBUF_INIT, deny = SBUF_INIT;
	sb_adds(&allow, "Read(./**),Edit(./**)");
	allow_under(&allow, "Read", ctx->workspace);
	allow_under(&allow, "Edit", ctx->workspace);
	if (ctx->skill_dir)
		allow_under(&allow, "Read", ctx->skill_dir);
	sb_adds(&allow, ",Bash");
	deny_guarded(&deny, except, ctx->workspace);
	char turns[24];
	snprintf(turns, sizeof(turns), "%ld", agent_setting_long(ctx, "claude.max_turns", 60));
	char *argv[32];
	size_t n = 0;
	argv[n++] = path;
	argv[n++] = "-p";
	argv[n++] = "--output-format";
	argv[n++] = "stream-json";
	argv[n++] = "--verbose";
	argv[n++] = "--max-turns";
	argv[n++] = turns;
	argv[n++] = "--permission-mode";
	argv[n++] = "dontAsk";
	argv[n++] = "--tools";
	argv[n++] = "Read,Edit,Write,Glob,Grep,Bash";
	argv[n++] = "--allowedTools";
	argv[n++] = allow.buf;
	/* deny rules win over allow rules: what git runs code from */
	argv[n++] = "--disallowedTools";
	argv[n++] = deny.buf;
	argv[n++] = "--add-dir";
	argv[n++] = (char *)ctx->workspace;
	/* nothing from settings files (which an agent could write) widens this */
	argv[n++] = "--setting-sources";
	argv[n++] = "";
	argv[n++] = "--strict-mcp-config";
	if (model) {
		argv[n++] = "--model";
		argv[n++] = (char *)model;
	}
	const char *budget = agent_setting(ctx, NULL, "claude.max_cost");
	if (budget) {
		argv[n++] = "--max-budget-usd";
		argv[n++] = (char *)budget;
	}
	argv[n] = NULL;
	struct claude_map m;
	claude_map_init(&m, ctx->rec, ctx->prices);
	long idle = agent_setting_long(ctx, "claude.idle_timeout_s", 600);
	struct cli_run r = {argv, env, ctx->run_dir, idle * 1000, on_line, &m, NULL, roots, except};
	struct proc_status st;
	cli_agent_run(ctx, &r, &st);
	char how[128];
	proc_status_str(&st, how, sizeof(how));
	int rc = TP_EXIT_OK;
	if (st.end == PROC_IDLE_TIMEOUT) {
		rec_error(ctx->rec, "claude printed nothing for %ld s; stopped it (claude.idle_timeout_s)", idle);
		rc = TP_EXIT_FAILED;
	} else if (!m.result) {
		rec_error(ctx->rec, "claude ended (%s) without a result", how);
		rc = TP_EXIT_FAILED;
	} else if (m.error) {
		rc = TP_EXIT_FAILED;
	}
	rec_final(ctx->rec, m.final ? m.final : sb_str(&m.last_text));
	claude_map_free(&m);
	strv_free(env);
	strv_free(roots);
	strv_free(except);
	sb_free(&deny);
	sb_free(&allow);
	free(version);
	free(path);
	return rc;
}
