/* The session: workspace, output root and configuration, resolved and
 * checked once; what a run executes. */
#include "engine/core/session_int.h"

#include "engine/base/operator.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/core/driver.h"
#include "engine/core/run.h"

/* The last value of key, in the user's file only or in both. */
static const char *setting(const struct session *s, const char *key, bool user_only)
{
	for (size_t i = user_only ? s->nuser : s->cfg.n; i-- > 0;)
		if (s->cfg.v[i].key && strcmp(s->cfg.v[i].key, key) == 0)
			return s->cfg.v[i].value;
	return NULL;
}

static bool stage_key(const char *key, const char *prefix)
{
	size_t n = strlen(prefix);
	return strncmp(key, prefix, n) == 0 && stage_letter_ok(key[n]) && !key[n + 1];
}

/* "64M", "512k", "1G", "0" (no cap): bytes, or -1 when malformed. */
static long long parse_size(const char *v)
{
	unsigned long long n;
	return str_size(v, &n) == 0 && n <= LLONG_MAX ? (long long)n : -1;
}

/* The engine's own keys: 1 known (value good), 0 not the engine's, -1 bad. */
static int engine_setting(const struct config_entry *e, const struct driver_catalog *cat, struct tp_err *err)
{
	if (!e->key)
		return 0;
	if (!strcmp(e->key, "workspace") || !strcmp(e->key, "out_root") ||
	    !strcmp(e->key, "secret_vars") || !strcmp(e->key, "python") || stage_key(e->key, "validator."))
		return 1;
	if (!strcmp(e->key, "transcript_max")) {
		if (parse_size(e->value) >= 0)
			return 1;
		tp_err_set(err, TP_EXIT_USAGE, "transcript_max: expected a size such as 64M or 0 (no "
			   "cap), got '%s'", e->value);
		return -1;
	}
	if (!stage_key(e->key, "driver."))
		return 0;
	struct driver d;
	if (driver_parse(e->value, cat, &d, err) < 0)
		return -1;
	driver_free(&d);
	return 1;
}

/* Every setting of every file is someone's: a typo is an error that says
 * where, not a line silently ignored. */
static int check_settings(const struct config *c, const struct session_opts *o, struct tp_err *err)
{
	for (size_t i = 0; i < c->n; i++) {
		const struct config_entry *e = &c->v[i];
		struct tp_err e2;
		tp_err_clear(&e2);
		int r = engine_setting(e, o->catalog, &e2);
		if (r == 0 && o->check_setting)
			r = o->check_setting(e, &e2);
		if (r > 0)
			continue;
		if (r < 0)
			tp_err_set(err, TP_EXIT_USAGE, "%s:%d: %s", e->file, e->line, e2.msg);
		else if (e->key)
			tp_err_set(err, TP_EXIT_USAGE,
				   "%s:%d: unknown setting '%s' (expected workspace, out_root, python, "
				   "driver.X, validator.X, secret_vars, transcript_max%s%s)", e->file, e->line, e->key,
				   o->settings_hint ? ", or " : "", o->settings_hint ? o->settings_hint : "");
		else
			tp_err_set(err, TP_EXIT_USAGE, "%s:%d: expected 'key = value', got '%s'", e->file,
				   e->line, e->value);
		return -1;
	}
	return 0;
}

/* Settings that name a file holding a secret, and the name it is hidden
 * under: the llm driver's key file, read from the user config only (as
 * the driver reads it), so that its key is redacted and looked for in what
 * agents leave in the run directory like a key from the environment. */
static const char *const secret_file_keys[][2] = {{"llm.api_key_file", "LLM_API_KEY"}};

static char **secret_files(const struct session *s)
{
	char **v = xcalloc(TP_ARRAY_LEN(secret_file_keys) + 1, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < TP_ARRAY_LEN(secret_file_keys); i++) {
		const char *path = setting(s, secret_file_keys[i][0], true);
		if (path && *path)
			v[n++] = xasprintf("%s=%s", secret_file_keys[i][1], path);
	}
	return v;
}

/* Where runs live: --out, else $CUTILE_KERNEL_OUT_ROOT, else the config's
 * out_root, else WORKSPACE/cutile_kernel_out. */
static char *find_out_root(const struct session *s, const char *opt)
{
	const char *env = getenv("CUTILE_KERNEL_OUT_ROOT");
	const char *conf = setting(s, "out_root", false);
	if (opt && *opt)
		return xstrdup(opt);
	if (env && *env)
		return xstrdup(env);
	if (conf && *conf)
		return xstrdup(conf);
	return path_join(s->workspace ? s->workspace : ".", "cutile_kernel_out");
}

static char *find_workspace(const struct session *s, const char *opt)
{
	const char *env = getenv("TILEGYM_PATH");
	const char *conf = setting(s, "workspace", true);
	if (opt && *opt)
		return xstrdup(opt);
	if (env && *env)
		return xstrdup(env);
	if (conf && *conf)
		return xstrdup(conf);
	return path_is_dir("src/tilegym") ? getcwd(NULL, 0) : NULL;
}

/* Relative driver programs name files beside whoever wrote them: the
 * command line's against the current directory, a config file's against
 * its folder. */
static void resolve_drivers(struct session *s)
{
	char *cwd = getcwd(NULL, 0);
	for (int i = 0; i < STAGE_LETTERS; i++) {
		if (!s->cmdline.drivers[i])
			continue;
		s->own[i] = driver_spec_resolve(s->cmdline.drivers[i], cwd);
		s->cmdline.drivers[i] = s->own[i];
	}
	free(cwd);
	for (size_t i = 0; i < s->cfg.n; i++) {
		struct config_entry *e = &s->cfg.v[i];
		if (!e->key || !stage_key(e->key, "driver."))
			continue;
		char *dir = xstrdup(e->file);
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = '\0';
		char *r = driver_spec_resolve(e->value, slash ? dir : ".");
		free(e->value);
		e->value = r;
		free(dir);
	}
}

int session_open(struct session **out, const struct session_opts *o, struct tp_err *err)
{
	*out = NULL;
	struct session *s = xcalloc(1, sizeof(*s));
	char *user = config_user_path();
	int rc = user ? config_load_file(&s->cfg, user, err) : 0;
	free(user);
	s->nuser = s->cfg.n;
	if (rc == 0) {
		s->workspace = find_workspace(s, o->workspace);
		if (s->workspace && path_is_dir(s->workspace)) {
			char *ws = path_join(s->workspace, ".tileport.conf");
			rc = config_load_file(&s->cfg, ws, err);
			free(ws);
		}
	}
	if (rc == 0)
		rc = check_settings(&s->cfg, o, err);
	if (rc < 0) {
		s->loop = o->loop; /* not ours to free */
		session_close(s);
		return -1;
	}
	s->out_root = find_out_root(s, o->out_root);
	s->out_root_default = !(o->out_root && *o->out_root) && !(getenv("CUTILE_KERNEL_OUT_ROOT") &&
								  *getenv("CUTILE_KERNEL_OUT_ROOT")) &&
			      !setting(s, "out_root", false) && s->workspace;
	/* Every file's list counts: marking more secret is always safe. */
	struct sbuf sv = SBUF_INIT;
	for (size_t i = 0; i < s->cfg.n; i++)
		if (s->cfg.v[i].key && !strcmp(s->cfg.v[i].key, "secret_vars"))
			sb_printf(&sv, "%s%s", sv.len ? "," : "", s->cfg.v[i].value);
	s->secret_vars = sb_detach(&sv);
	s->secret_files = secret_files(s);
	s->table_path = o->table_path ? xstrdup(o->table_path) : NULL;
	s->cmdline = o->commands;
	resolve_drivers(s);
	s->read_only = o->read_only;
	s->ask = o->ask;
	s->fresh = o->fresh;
	s->again = o->again;
	s->checker = o->checker;
	s->catalog = o->catalog;
	s->loop = o->loop;
	if (!s->loop) {
		s->loop = loop_new();
		s->own_loop = true;
	}
	*out = s;
	return 0;
}

void session_close(struct session *s)
{
	if (!s)
		return;
	config_free(&s->cfg);
	for (int i = 0; i < STAGE_LETTERS; i++)
		free(s->own[i]);
	free(s->workspace);
	free(s->out_root);
	free(s->secret_vars);
	strv_free(s->secret_files);
	free(s->table_path);
	for (size_t i = 0; i < s->ntables; i++)
		table_free(s->tables[i]);
	free(s->tables);
	if (s->own_loop)
		loop_free(s->loop);
	free(s);
}

const char *session_workspace(const struct session *s)
{
	return s->workspace;
}

const char *session_out_root(const struct session *s)
{
	return s->out_root;
}

const char *session_secret_vars(const struct session *s)
{
	return s->secret_vars;
}

const struct driver_catalog *session_catalog(const struct session *s)
{
	return s->catalog;
}

bool session_out_root_default(const struct session *s)
{
	return s->out_root_default;
}

struct loop *session_loop(const struct session *s)
{
	return s->loop;
}

const struct config *session_config(const struct session *s)
{
	return &s->cfg;
}

char *session_run_dir(const struct session *s, const char *run)
{
	if (run_exists(run))
		return xstrdup(run);
	/* an operator by its path (activation/gelu): its run is OUT/NAME */
	struct ws_operator o;
	if (s->workspace && strchr(run, '/') && !path_is_dir(run) &&
	    operator_find(s->workspace, run, &o, NULL) == 0) {
		char *dir = path_join(s->out_root, o.name);
		operator_free(&o);
		return dir;
	}
	if (strchr(run, '/'))
		return xstrdup(run);
	return path_join(s->out_root, run);
}

void session_stage_commands(const struct session *s, enum run_origin origin,
			    struct stage_commands *out)
{
	bool user_only = origin == RUN_EXISTING;
	for (int i = 0; i < STAGE_LETTERS; i++) {
		char key[32];
		out->drivers[i] = s->cmdline.drivers[i];
		if (!out->drivers[i]) {
			snprintf(key, sizeof(key), "driver.%c", stage_at_slot(i));
			out->drivers[i] = setting(s, key, user_only);
		}
		out->validators[i] = s->cmdline.validators[i];
		if (!out->validators[i]) {
			snprintf(key, sizeof(key), "validator.%c", stage_at_slot(i));
			out->validators[i] = setting(s, key, user_only);
		}
	}
}

void session_pipeline_opts(const struct session *s, enum run_origin origin,
			   struct pipeline_opts *out)
{
	memset(out, 0, sizeof(*out));
	if (origin == RUN_NEW) {
		out->workspace = s->workspace;
		out->out_root = s->out_root;
		out->fresh = s->fresh;
		out->again = s->again;
	}
	out->table_path = s->table_path;
	out->checker = s->checker;
	out->secret_vars = s->secret_vars;
	out->secret_files = s->secret_files;
	/* the user's file only: agents can write the workspace's */
	const char *max = setting(s, "transcript_max", true);
	long long n = max ? parse_size(max) : -1;
	out->transcript_max = n < 0 ? 0 : n == 0 ? -1 : n;
	out->ask = s->ask;
	out->catalog = s->catalog;
	session_stage_commands(s, origin, &out->commands);
}

const struct table *session_table(struct session *s, const char *path, struct tp_err *err)
{
	for (size_t i = 0; i < s->ntables; i++)
		if (strcmp(s->tables[i]->path, path) == 0)
			return s->tables[i];
	struct table *t = table_load(path, err);
	if (!t)
		return NULL;
	s->tables = xrealloc(s->tables, (s->ntables + 1) * sizeof(*s->tables));
	s->tables[s->ntables++] = t;
	return t;
}
