#include "engine/agents/codex.h"

#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/agents/agent.h"
#include "engine/agents/cli_agent.h"
#include "engine/agents/guard.h"
#include "engine/agents/json_get.h"
#include "engine/base/sandbox.h"

void codex_map_init(struct codex_map *m, struct recorder *rec, const struct prices *prices)
{
	memset(m, 0, sizeof(*m));
	m->rec = rec;
	m->prices = prices;
}

void codex_map_free(struct codex_map *m)
{
	idset_free(&m->started);
	free(m->final);
	memset(m, 0, sizeof(*m));
}

static void call(struct codex_map *m, const char *id, const char *name, cJSON *input)
{
	if (!idset_add(&m->started, id)) {
		cJSON_Delete(input);
		return;
	}
	char *args = cJSON_PrintUnformatted(input);
	cJSON_Delete(input);
	rec_tool_call(m->rec, id, name, args);
	m->tool_calls++;
	cJSON_free(args);
}

static cJSON *one(const char *key, const char *value)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, key, value ? value : "");
	return o;
}

static void item(struct codex_map *m, const cJSON *it, bool done)
{
	const char *type = json_str(it, "type"), *id = json_str(it, "id");
	const char *status = json_str(it, "status");
	if (!type || !id)
		return;
	bool failed = status && (!strcmp(status, "failed") || !strcmp(status, "declined"));
	if (!strcmp(type, "command_execution")) {
		call(m, id, "command", one("command", json_str(it, "command")));
		if (!done)
			return;
		const cJSON *ec = cJSON_GetObjectItemCaseSensitive(it, "exit_code");
		struct sbuf sb = SBUF_INIT;
		const char *agg = json_str(it, "aggregated_output");
		if (cJSON_IsNumber(ec))
			sb_printf(&sb, "exit=%d\n", ec->valueint);
		if (failed)
			sb_printf(&sb, "(%s)\n", status);
		sb_adds(&sb, agg ? agg : "");
		rec_tool_result(m->rec, id, sb_str(&sb), failed || (cJSON_IsNumber(ec) && ec->valueint != 0));
		sb_free(&sb);
	} else if (!strcmp(type, "file_change") && done) {
		cJSON *in = cJSON_CreateObject();
		const cJSON *ch = cJSON_GetObjectItemCaseSensitive(it, "changes"), *c;
		cJSON_AddItemToObject(in, "changes", cJSON_Duplicate(ch, true));
		call(m, id, "file_change", in);
		struct sbuf sb = SBUF_INIT;
		cJSON_ArrayForEach(c, ch)
		{
			const char *kind = json_str(c, "kind"), *path = json_str(c, "path");
			sb_printf(&sb, "%s %s\n", kind ? kind : "?", path ? path : "?");
		}
		if (failed)
			sb_printf(&sb, "(%s)\n", status);
		rec_tool_result(m->rec, id, sb_str(&sb), failed);
		sb_free(&sb);
	} else if (!strcmp(type, "mcp_tool_call")) {
		cJSON *in = cJSON_CreateObject();
		cJSON_AddStringToObject(in, "server", json_str(it, "server") ? json_str(it, "server") : "");
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(it, "arguments");
		if (a)
			cJSON_AddItemToObject(in, "arguments", cJSON_Duplicate(a, true));
		call(m, id, json_str(it, "tool") ? json_str(it, "tool") : "mcp", in);
		if (done) {
			const cJSON *res = cJSON_GetObjectItemCaseSensitive(it, "result");
			char *j = res ? cJSON_PrintUnformatted(res) : NULL;
			const cJSON *err = cJSON_GetObjectItemCaseSensitive(it, "error");
			rec_tool_result(m->rec, id, j ? j : "", failed || (err && !cJSON_IsNull(err)));
			cJSON_free(j);
		}
	} else if (!strcmp(type, "web_search") && done) {
		call(m, id, "web_search", one("query", json_str(it, "query")));
		rec_tool_result(m->rec, id, "", false);
	} else if (!strcmp(type, "agent_message") && done && json_str(it, "text")) {
		rec_text(m->rec, json_str(it, "text"));
		free(m->final);
		m->final = xstrdup(json_str(it, "text"));
	} else if (!strcmp(type, "error") && done) {
		rec_error(m->rec, "codex: %s", json_str(it, "message") ? json_str(it, "message") : "error");
	}
	/* reasoning, todo_list, plan and new item types: not part of the record */
}

void codex_map_line(struct codex_map *m, const char *line, size_t n)
{
	size_t k = 0;
	while (k < n && (line[k] == ' ' || line[k] == '\t'))
		k++;
	if (k == n || line[k] != '{')
		return;
	cJSON *o = cJSON_ParseWithLength(line + k, n - k);
	const char *type = json_str(o, "type");
	if (!type) {
		cJSON_Delete(o);
		return;
	}
	if (!strcmp(type, "thread.started")) {
		cJSON *s = cJSON_CreateObject();
		cJSON_AddStringToObject(s, "type", "start");
		cJSON_AddStringToObject(s, "driver", "codex");
		if (m->model)
			cJSON_AddStringToObject(s, "model", m->model);
		if (m->version)
			cJSON_AddStringToObject(s, "version", m->version);
		if (json_str(o, "thread_id"))
			cJSON_AddStringToObject(s, "session", json_str(o, "thread_id"));
		rec_emit(m->rec, s);
	} else if (str_starts(type, "item.")) {
		item(m, cJSON_GetObjectItemCaseSensitive(o, "item"), !strcmp(type, "item.completed"));
	} else if (!strcmp(type, "turn.completed")) {
		m->turns_completed++;
		const cJSON *u = cJSON_GetObjectItemCaseSensitive(o, "usage");
		struct usage us = {.model = m->model};
		us.tokens_in = json_count(u, "input_tokens");
		us.cache_read = json_count(u, "cached_input_tokens");
		us.tokens_out = json_count(u, "output_tokens");
		if (us.cache_read > us.tokens_in)
			us.cache_read = us.tokens_in;
		if (m->prices)
			us.cost = prices_cost(m->prices, m->model, us.tokens_in, us.cache_read, 0, us.tokens_out, NULL);
		rec_usage(m->rec, &us);
	} else if (!strcmp(type, "turn.failed")) {
		m->turns_failed++;
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "error");
		const char *why = json_str(e, "message");
		rec_error(m->rec, "codex: the turn failed: %s", why ? why : "no reason given");
	} else if (!strcmp(type, "error")) {
		rec_error(m->rec, "codex: %s", json_str(o, "message") ? json_str(o, "message") : "error");
	}
	cJSON_Delete(o);
}

/* ---- the driver ---- */

#define INSTALL "npm install -g @openai/codex"

void codex_probe(const struct agent_probe *q, struct driver_status *st)
{
	cli_agent_probe(q, "codex", "codex", CODEX_MIN_VERSION, INSTALL, st);
}

struct codex_run {
	struct codex_map map;
	long max_calls;
};

static void on_line(void *ud, const char *line, size_t n)
{
	codex_map_line(&((struct codex_run *)ud)->map, line, n);
}

static bool over_limit(void *ud)
{
	struct codex_run *r = ud;
	return r->max_calls > 0 && r->map.tool_calls > r->max_calls;
}

/* A TOML basic string. */
static char *toml_str(const char *s)
{
	struct sbuf sb = SBUF_INIT;
	sb_addc(&sb, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			sb_addc(&sb, '\\');
		if ((unsigned char)*s >= 0x20)
			sb_addc(&sb, *s);
	}
	sb_addc(&sb, '"');
	return sb_detach(&sb);
}

int codex_run(struct agent_ctx *ctx)
{
	char *version;
	char *path = cli_agent_ready(ctx, "codex", "Codex", CODEX_MIN_VERSION, INSTALL, &version);
	if (!path)
		return TP_EXIT_ENV;
	const char *model = agent_setting(ctx, NULL, "codex.model");
	const char *base = agent_setting(ctx, NULL, "codex.base_url");
	char **argv = xcalloc(40, sizeof(char *)); /* grown for the --add-dir list */
	size_t n = 0;
	const char *fixed[] = {"exec", "--json", "--skip-git-repo-check", "--sandbox", "workspace-write",
			       "-c", "sandbox_workspace_write.exclude_slash_tmp=true",
			       "-c", "sandbox_workspace_write.exclude_tmpdir_env_var=true"};
	argv[n++] = xstrdup(path);
	for (size_t i = 0; i < TP_ARRAY_LEN(fixed); i++)
		argv[n++] = xstrdup(fixed[i]);
	argv[n++] = xstrdup("--cd");
	argv[n++] = xstrdup(ctx->run_dir);
	/* Codex's sandbox keeps the top .git of each writable folder read-only,
	 * but knows nothing of core.hooksPath, include.path or another VCS:
	 * the workspace goes in as its entries minus what git runs code from
	 * (guard.h), each folder its own --add-dir. */
	char *ws = realpath(ctx->workspace, NULL), *run = realpath(ctx->run_dir, NULL);
	char *mine[] = {ws, run, NULL};
	char **except = guard_paths(ws && run ? mine : NULL);
	char *only_ws[] = {ws ? ws : (char *)ctx->workspace, NULL};
	char **grants = sandbox_grants(only_ws, except, NULL);
	size_t ngrants = strv_len(grants);
	argv = xrealloc(argv, (40 + 2 * ngrants) * sizeof(char *));
	for (size_t i = 0; i < ngrants; i++) {
		argv[n++] = xstrdup("--add-dir");
		argv[n++] = xstrdup(grants[i]);
	}
	strv_free(grants);
	strv_free(except);
	free(ws);
	free(run);
	if (model) {
		argv[n++] = xstrdup("-m");
		argv[n++] = xstrdup(model);
	}
	if (base) {
		const char *key = agent_setting(ctx, NULL, "codex.env_key");
		const char *wire = agent_setting(ctx, NULL, "codex.wire_api");
		char *u = toml_str(base), *k = toml_str(key ? key : "OPENAI_API_KEY"),
		     *w = toml_str(wire ? wire : "responses");
		argv[n++] = xstrdup("-c");
		argv[n++] = xstrdup("model_provider=\"tileport\"");
		argv[n++] = xstrdup("-c");
		argv[n++] = xasprintf("model_providers.tileport={name=\"tileport\",base_url=%s,env_key=%s,"
				      "wire_api=%s}", u, k, w);
		free(u);
		free(k);
		free(w);
	}
	argv[n++] = xstrdup("-"); /* the prompt: stdin, the prompt file */
	argv[n] = NULL;
	char **env = env_current();
	struct codex_run cr = {.max_calls = agent_setting_long(ctx, "codex.max_tool_calls", 400)};
	codex_map_init(&cr.map, ctx->rec, ctx->prices);
	cr.map.model = model;
	cr.map.version = version;
	long idle = agent_setting_long(ctx, "codex.idle_timeout_s", 600);
	struct cli_run r = {argv, env, ctx->run_dir, idle * 1000, on_line, &cr, over_limit};
	struct proc_status st;
	cli_agent_run(ctx, &r, &st);
	char how[128];
	proc_status_str(&st, how, sizeof(how));
	int rc = TP_EXIT_OK;
	if (st.end == PROC_IDLE_TIMEOUT) {
		rec_error(ctx->rec, "codex printed nothing for %ld s; stopped it (codex.idle_timeout_s)", idle);
		rc = TP_EXIT_FAILED;
	} else if (over_limit(&cr)) {
		rec_error(ctx->rec, "codex made more than %ld tool calls; stopped it (codex.max_tool_calls)",
			  cr.max_calls);
		rc = TP_EXIT_FAILED;
	} else if (cr.map.turns_completed != 1 || cr.map.turns_failed) {
		/* success is exactly one completed turn, whatever the exit code */
		rec_error(ctx->rec, "codex ended (%s) without a completed turn", how);
		rc = TP_EXIT_FAILED;
	}
	rec_final(ctx->rec, cr.map.final ? cr.map.final : "");
	codex_map_free(&cr.map);
	strv_free(env);
	strv_free(argv);
	free(version);
	free(path);
	return rc;
}
