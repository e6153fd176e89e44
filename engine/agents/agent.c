/* The driver registry (drivers.def), the chain rule and what every driver
 * shares: its settings and waiting on the agent's loop. */
#include "engine/agents/agent.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/agents/guard.h"
#include "engine/agents/handover.h"
#include "engine/core/verdict.h"

#define DRIVER(name, summary, hands_over, deterministic, settings, probe, handles, run)                    \
	void probe(const struct agent_probe *q, struct driver_status *st);                                 \
	bool handles(const struct agent_probe *q, char stage, const char *op, const char *ws, char **why); \
	int run(struct agent_ctx *ctx);
#include "engine/agents/drivers.def"
#undef DRIVER

static const struct agent_driver registry[] = {
#define DRIVER(name, summary, hands_over, deterministic, settings, probe, handles, run) \
	{#name, summary, hands_over, deterministic, settings, probe, handles, run},
#include "engine/agents/drivers.def"
#undef DRIVER
};

const struct agent_driver *agent_drivers(size_t *n)
{
	*n = TP_ARRAY_LEN(registry);
	return registry;
}

const struct agent_driver *agent_driver_find(const char *name)
{
	for (size_t i = 0; i < TP_ARRAY_LEN(registry); i++)
		if (!strcmp(registry[i].name, name))
			return &registry[i];
	return NULL;
}

void driver_status_free(struct driver_status *st)
{
	free(st->path);
	free(st->version);
	free(st->why);
	memset(st, 0, sizeof(*st));
}

bool agent_handles_any(const struct agent_probe *q, char stage, const char *op, const char *workspace,
		       char **why)
{
	(void)q, (void)stage, (void)op, (void)workspace;
	if (why)
		*why = NULL;
	return true;
}

const char *agent_setting(const struct agent_ctx *ctx, const char *env, const char *key)
{
	const char *v = env ? getenv(env) : NULL;
	if (v && *v)
		return v;
	v = ctx->cfg && key ? config_get(ctx->cfg, key) : NULL;
	return v && *v ? v : NULL;
}

long agent_setting_long(const struct agent_ctx *ctx, const char *key, long def)
{
	const char *v = agent_setting(ctx, NULL, key);
	if (!v)
		return def;
	char *end;
	long n = strtol(v, &end, 10);
	return end != v && !*end && n >= 0 ? n : def;
}

/* The settings that are sizes: a value that is not one is an error in the
 * config, naming file and line. */
static const char *const size_keys[] = {"llm.max_response", "llm.max_tool_args"};

size_t agent_setting_size(const struct agent_ctx *ctx, const char *key, size_t def)
{
	const char *v = agent_setting(ctx, NULL, key);
	unsigned long long n;
	return v && str_size(v, &n) == 0 && n > 0 && n <= SIZE_MAX ? (size_t)n : def;
}

static void wake(struct loop *l, void *ud)
{
	(void)l;
	*(bool *)ud = true;
}

bool agent_wait(struct agent_ctx *ctx, int64_t ms)
{
	bool due = false;
	uint64_t id = loop_add_timer(ctx->loop, ms, wake, &due);
	while (!due && !ctx->stop)
		loop_run_once(ctx->loop, -1);
	if (!due)
		loop_cancel_timer(ctx->loop, id);
	return !ctx->stop;
}

/* The chain rule: a FAIL verdict with an "unsupported:" line. */
static char *hand_over_reason(const char *final, char **verdict)
{
	struct verdict_reply r;
	verdict_parse(final, strlen(final), NULL, &r);
	char *why = r.verdict && str_starts(r.verdict, "FAIL") ? verdict_unsupported(final) : NULL;
	*verdict = why && r.verdict ? xstrdup(r.verdict) : NULL;
	verdict_reply_free(&r);
	return why;
}

static void refused_repo(const char *path, const char *to, void *ud)
{
	rec_error(ud, "the agent made %s, which git would take for a repository and run its hooks and "
		      "config from; moved aside to %s", path, to);
}

static int run_chain(struct agent_ctx *ctx, char *const *names);

/* The chain (its final message held back), and after it the check that no
 * agent left a new repository beneath the run directory or the workspace
 * (guard.h). */
int agent_run_chain(struct agent_ctx *ctx, char *const *names)
{
	char *roots[3] = {ctx->run_dir ? realpath(ctx->run_dir, NULL) : NULL,
			  ctx->workspace ? realpath(ctx->workspace, NULL) : NULL, NULL};
	if (!roots[0]) {
		roots[0] = roots[1];
		roots[1] = NULL;
	}
	char **before = guard_paths(roots);
	int rc = run_chain(ctx, names);
	/* the final message stays last in the transcript */
	guard_refuse_new(roots, before, refused_repo, ctx->rec);
	ctx->rec->hold_final = false;
	rec_commit_final(ctx->rec);
	strv_free(before);
	free(roots[0]);
	free(roots[1]);
	return rc;
}

static int run_chain(struct agent_ctx *ctx, char *const *names)
{
	size_t n = strv_len(names);
	int rc = TP_EXIT_ENV;
	const char *spawn_prompt = ctx->prompt_path;
	char *handed = NULL; /* the hand-over prompt the current driver reads */
	ctx->rec->hold_final = true;
	for (size_t i = 0; i < n && !ctx->stop; i++) {
		/* an exec:COMMAND link ends a chain (handover.h) */
		bool exec = str_starts(names[i], "exec:");
		const struct agent_driver *d = exec ? NULL : agent_driver_find(names[i]);
		if (!d && !exec) {
			rec_error(ctx->rec, "no built-in driver named '%s'", names[i]);
			rec_final(ctx->rec, "");
			rc = TP_EXIT_USAGE;
			break;
		}
		bool last = i + 1 == n;
		free(ctx->rec->final);
		ctx->rec->final = NULL;
		rc = exec ? handover_exec(ctx, names[i] + strlen("exec:")) : d->run(ctx);
		if (last)
			break;
		char *verdict = NULL;
		char *why = ctx->rec->final ? hand_over_reason(ctx->rec->final, &verdict) : NULL;
		if (!why) {
			free(verdict);
			break;
		}
		/* What it said stays in the transcript, as text: only the last
		 * driver's message is the stage's reply. The next driver reads
		 * it in front of the spawn prompt. */
		rec_text(ctx->rec, ctx->rec->final);
		rec_handover(ctx->rec, names[i], names[i + 1], why, verdict);
		free(why);
		free(verdict);
		struct tp_err err = {0};
		ctx->prompt_path = spawn_prompt;
		char *next = handover_prompt(ctx, (int)i + 1, names[i], ctx->rec->final, &err);
		if (!next)
			rec_error(ctx->rec, "the hand-over prompt: %s (the next driver reads the spawn "
					    "prompt alone)", err.msg);
		free(handed);
		handed = next;
		ctx->prompt_path = handed ? handed : spawn_prompt;
	}
	/* stopped before the next driver ran, or none gave a final message:
	 * the caller commits what there is ("" for none) */
	ctx->prompt_path = spawn_prompt;
	free(handed);
	return rc;
}

/* The driver whose settings key is ("llm.model" -> llm), or NULL. */
static const struct agent_driver *setting_owner(const char *key)
{
	const char *dot = strchr(key, '.');
	for (size_t i = 0; dot && i < TP_ARRAY_LEN(registry); i++)
		if ((size_t)(dot - key) == strlen(registry[i].name) &&
		    !strncmp(key, registry[i].name, (size_t)(dot - key)))
			return &registry[i];
	return NULL;
}

const char agent_settings_hint[] = "a driver's settings (claude.*, codex.*, llm.*), price.MODEL";

int agent_setting_check(const struct config_entry *e, struct tp_err *err)
{
	if (!e->key)
		return 0;
	const struct agent_driver *d = setting_owner(e->key);
	bool price = str_starts(e->key, "price.") && e->key[6];
	if (!d && !price)
		return 0;
	if (str_ends(e->file, "/.tileport.conf")) {
		tp_err_set(err, TP_EXIT_USAGE, "'%s' is an agent setting, read from the user config only "
					       "($XDG_CONFIG_HOME/tileport/config)", e->key);
		return -1;
	}
	if (price) {
		struct price p;
		return price_parse(e->key, e->value, &p, err) < 0 ? -1 : 1;
	}
	char **keys = str_split(d->settings, ' ', false, NULL);
	bool hit = false;
	for (size_t k = 0; keys[k] && !hit; k++)
		hit = !strcmp(keys[k], e->key + strlen(d->name) + 1);
	strv_free(keys);
	if (!hit) {
		tp_err_set(err, TP_EXIT_USAGE, "unknown setting '%s' (%s takes: %s)", e->key, d->name, d->settings);
		return -1;
	}
	unsigned long long n;
	for (size_t k = 0; k < TP_ARRAY_LEN(size_keys); k++)
		if (!strcmp(e->key, size_keys[k]) && (str_size(e->value, &n) < 0 || n == 0)) {
			tp_err_set(err, TP_EXIT_USAGE, "%s: expected a size such as 4M or 512k, got '%s'", e->key,
				   e->value);
			return -1;
		}
	return 1;
}

/* ---- the catalog for core ---- */

static bool cat_known(const char *name)
{
	return agent_driver_find(name) != NULL;
}

/* The user config: agent settings live nowhere else (the session refuses
 * them in the workspace's, which agents can write). */
static void user_config(struct config *c)
{
	memset(c, 0, sizeof(*c));
	char *path = config_user_path();
	if (path && config_load_file(c, path, NULL) < 0)
		config_free(c);
	free(path);
}

static char *cat_choose(char stage, const char *op, const char *workspace, bool offline,
			struct sbuf *why)
{
	struct config cfg;
	user_config(&cfg);
	struct agent_probe q = {&cfg, false, offline};
	char *first = NULL;
	const struct agent_driver *refused = NULL; /* usable, but it refuses this op */
	for (size_t i = 0; i < TP_ARRAY_LEN(registry); i++) {
		const struct agent_driver *d = &registry[i];
		struct driver_status st;
		d->probe(&q, &st);
		char *no = NULL;
		bool takes = st.available && d->handles(&q, stage, op, workspace, &no);
		if (!st.available && st.why)
			sb_printf(why, "%s%s: %s", why->len ? "; " : "", d->name, st.why);
		else if (st.available && !takes && no && d->deterministic && !refused)
			refused = d;
		free(no);
		driver_status_free(&st);
		if (!takes)
			continue;
		if (!first) {
			first = xstrdup(d->name);
			if (!d->hands_over)
				break;
		} else {
			/* a driver that may hand over gets the next usable one after it */
			char *chain = xasprintf("%s, %s", first, d->name);
			free(first);
			first = chain;
			break;
		}
	}
	/* Nothing takes the stage, but a deterministic driver said why: it
	 * runs and refuses, so that the run exists and shows the reason
	 * (FILE:LINE:COL and the construct) and what would finish the job. */
	if (!first && refused)
		first = xstrdup(refused->name);
	config_free(&cfg);
	return first;
}

static bool cat_deterministic(const char *name)
{
	const struct agent_driver *d = name ? agent_driver_find(name) : NULL;
	return d && d->deterministic;
}

static const char names[] =
#define DRIVER(name, summary, hands_over, deterministic, settings, probe, handles, run) ", " #name
#include "engine/agents/drivers.def"
#undef DRIVER
	;

const struct driver_catalog agent_catalog = {names + 2, cat_known, cat_choose, cat_deterministic};
