/* The orchestrator's front: creating a run (after checking the table, the
 * workspace, the op and the drivers) and resuming one, starting, freeing,
 * listeners and what callers may ask about it. */
#include "engine/core/pipeline_int.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"
#include "engine/core/driver.h"
#include "engine/core/events.h"
#include "engine/base/json.h"
#include "engine/base/operator.h"
#include "engine/core/preflight.h"















/* ---- creating and resuming ---- */

static int check_workspace(const char *ws, struct tp_err *err)
{
	DIR *d = opendir(ws);
	if (!d) {
		tp_err_set(err, TP_EXIT_USAGE, "workspace %s: cannot read it (expected a TileGym checkout)", ws);
		return -1;
	}
	closedir(d);
	return 0;
}

/* The operator arg names, refused when it has a port and not `again`. */
static int find_op(const char *ws, const char *arg, bool again, struct ws_operator *o, struct tp_err *err)
{
	if (operator_find(ws, arg, o, err) < 0)
		return -1;
	if (o->port && !again) {
		char *port = operator_port_text(o);
		tp_err_set(err, TP_EXIT_USAGE,
			   "%s already has a cuTile Rust port in workspace %s (%s): a run would meet that "
			   "port's files at every stage; to convert it anew anyway, its stage D writing "
			   "over them, use 'tileport run %s --again'", o->name, ws, port, o->name);
		free(port);
		operator_free(o);
		return -1;
	}
	return 0;
}

int pipeline_check_op(const char *ws, const char *arg, bool again, char **name, struct tp_err *err)
{
	if (name)
		*name = NULL;
	struct ws_operator o;
	if (find_op(ws, arg, again, &o, err) < 0)
		return -1;
	if (name)
		*name = xstrdup(o.name);
	operator_free(&o);
	return 0;
}

/* Every stage the run can reach on its own needs a driver that parses;
 * a stage without one gets the catalog's default. drivers[] are owned
 * strings; chosen[] marks the defaults. */
static int fill_drivers(const struct table *t, const struct driver_catalog *cat, char *drivers[STAGE_LETTERS],
			bool chosen[STAGE_LETTERS], const char *op, const char *ws, bool offline,
			struct tp_err *err)
{
	struct sbuf missing = SBUF_INIT, why = SBUF_INIT;
	for (size_t i = 0; i < t->nstages; i++) {
		const struct stage_def *s = &t->stages[i];
		int k = stage_slot(s->letter);
		if (s->manual || (offline && !s->deferrable))
			continue;
		if (!drivers[k] && cat) {
			struct sbuf w = SBUF_INIT;
			drivers[k] = cat->choose(s->letter, op, ws, offline, &w);
			chosen[k] = drivers[k] != NULL;
			if (!why.len)
				sb_adds(&why, sb_str(&w));
			sb_free(&w);
		}
		if (!drivers[k]) {
			sb_printf(&missing, "%s%c", missing.len ? ", " : "", s->letter);
			continue;
		}
		struct driver d;
		if (driver_parse(drivers[k], cat, &d, err) < 0) {
			sb_free(&missing);
			sb_free(&why);
			return -1;
		}
		driver_free(&d);
	}
	int rc = 0;
	if (missing.len) {
		tp_err_set(err, TP_EXIT_ENV,
			   "no driver for stage%s %s: %s%sor set one with --driver X=exec:COMMAND or "
			   "'driver.X = exec:COMMAND' in the config (docs/agents.md)",
			   strchr(sb_str(&missing), ',') ? "s" : "", sb_str(&missing), sb_str(&why),
			   why.len ? "; " : "");
		rc = -1;
	}
	sb_free(&missing);
	sb_free(&why);
	return rc;
}

/* "A claude (default), B exec:./agent.sh, ..." */
static void emit_drivers(struct pipeline *p)
{
	const bool *chosen = p->chosen;
	struct sbuf sb = SBUF_INIT;
	cJSON *f = cJSON_CreateObject();
	cJSON *d = cJSON_AddObjectToObject(f, "drivers");
	for (size_t i = 0; i < p->table->nstages; i++) {
		char l = p->table->stages[i].letter;
		const char *spec = p->st.drivers[stage_slot(l)];
		if (!spec)
			continue;
		char key[2] = {l, 0};
		cJSON_AddStringToObject(d, key, spec);
		sb_printf(&sb, "%s%c %s%s", sb.len ? ", " : "", l, spec, chosen[stage_slot(l)] ? " (default)" : "");
	}
	pl_emit(p, "drivers", f, "drivers: %s", sb_str(&sb));
	sb_free(&sb);
}

/* A driver or validator for a stage the table does not have would never
 * run: say so instead of taking it silently. */
static int check_letters(const struct table *t, const struct stage_commands *c, struct tp_err *err)
{
	for (int i = 0; i < STAGE_LETTERS; i++) {
		const char *what = c->drivers[i] ? "driver" : c->validators[i] ? "validator" : NULL;
		if (!what || table_stage(t, stage_at_slot(i)))
			continue;
		struct sbuf have = SBUF_INIT;
		for (size_t k = 0; k < t->nstages; k++)
			sb_printf(&have, "%s%c", k ? " " : "", t->stages[k].letter);
		tp_err_set(err, TP_EXIT_USAGE, "a %s for stage %c, which the table %s does not have (its "
					       "stages: %s)", what, stage_at_slot(i), t->path, sb_str(&have));
		sb_free(&have);
		return -1;
	}
	return 0;
}

/* A key kept in a file (llm.api_key_file) is as secret as one in the
 * environment: hidden everywhere, and looked for in what agents leave. */
static void add_secret_files(char ***secrets, char *const *files)
{
	for (size_t i = 0; files && files[i]; i++) {
		const char *eq = strchr(files[i], '=');
		char *text = eq ? read_file(eq + 1, NULL, NULL) : NULL;
		if (text && strlen(str_trim(text)) >= REDACT_MIN_LEN) {
			*secrets = strv_take(*secrets, xasprintf("%.*s=%s", (int)(eq - files[i]), files[i], text));
		}
		free(text);
	}
}

static struct pipeline *pl_new(struct loop *l, const struct pipeline_opts *o)
{
	struct pipeline *p = xcalloc(1, sizeof(*p));
	p->loop = l;
	p->checker = o->checker;
	p->catalog = o->catalog;
	p->lock_fd = -1;
	p->grace_ms = o->kill_grace_ms > 0 ? o->kill_grace_ms : 2000;
	p->ask = o->ask;
	p->skill_dir = path_join(tp_data_dir(), "skill");
	char **env = env_current();
	p->secrets = env_secrets(env, o->secret_vars);
	add_secret_files(&p->secrets, o->secret_files);
	p->transcript_max = o->transcript_max ? o->transcript_max : PIPELINE_TRANSCRIPT_MAX;
	if (p->transcript_max < 0)
		p->transcript_max = 0;
	strv_free(env);
	run_state_init(&p->st);
	return p;
}

/* Driver and validator commands are kept in state.json and events; a key
 * spelled out in one is stored as ${NAME}, which the shell expands again. */
static void set_command(struct pipeline *p, char **field, const char *cmd)
{
	free(*field);
	*field = redact_secrets(cmd, p->secrets);
}

static void apply_opts(struct pipeline *p, const struct pipeline_opts *o)
{
	for (int i = 0; i < STAGE_LETTERS; i++) {
		if (o->commands.drivers[i]) {
			set_command(p, &p->st.drivers[i], o->commands.drivers[i]);
			p->st.drivers_default[i] = false;
		}
		if (o->commands.validators[i])
			set_command(p, &p->st.validators[i], o->commands.validators[i]);
	}
	if (o->hold)
		p->st.hold = true;
}

static void free_specs(char *v[STAGE_LETTERS])
{
	for (int i = 0; i < STAGE_LETTERS; i++)
		free(v[i]);
}

int pipeline_create(struct pipeline **out, struct loop *l, const struct pipeline_opts *o, struct tp_err *err)
{
	*out = NULL;
	char *drv[STAGE_LETTERS] = {0}; /* the command line's, and the defaults */
	bool chosen[STAGE_LETTERS] = {0};
	char *tpath = o->table_path ? xstrdup(o->table_path) : table_default_path();
	struct table *t = table_load(tpath, err);
	free(tpath);
	if (!t)
		return -1;
	if (check_letters(t, &o->commands, err) < 0) {
		table_free(t);
		return -1;
	}
	struct ws_operator wop = {0};
	if (!o->workspace || check_workspace(o->workspace, err) < 0 ||
	    find_op(o->workspace, o->op, o->again, &wop, err) < 0) {
		if (!o->workspace)
			tp_err_set(err, TP_EXIT_USAGE, "no workspace: use --workspace DIR or set TILEGYM_PATH");
		table_free(t);
		return -1;
	}
	const char *op = wop.name;
	char *ws = path_absolute(o->workspace);
	char *run_dir = path_join(o->out_root, op);
	char *aside = NULL;
	if (run_exists(run_dir) && !o->fresh) {
		tp_err_set(err, TP_EXIT_USAGE, "a run of %s already exists in %s; resume it with 'tileport "
					       "resume %s', or start another with 'tileport run %s --fresh' (the "
					       "old one is kept, moved aside)", op, run_dir, run_dir, op);
		goto fail;
	}
	struct preflight pf;
	preflight_run(&pf, ws, o->out_root);
	if (!pf.possible) {
		struct sbuf sb = SBUF_INIT;
		for (int i = 0; i < pf.n; i++)
			if (pf.items[i].problem && !pf.items[i].toolchain)
				sb_printf(&sb, "%s%s: %s", sb.len ? "; " : "", pf.items[i].name, pf.items[i].problem);
		tp_err_set(err, TP_EXIT_ENV, "cannot run even offline: %s", sb_str(&sb));
		sb_free(&sb);
		preflight_free(&pf);
		goto fail;
	}
	bool offline = !pf.online;
	for (int i = 0; i < STAGE_LETTERS; i++)
		drv[i] = o->commands.drivers[i] ? xstrdup(o->commands.drivers[i]) : NULL;
	if (fill_drivers(t, o->catalog, drv, chosen, op, ws, offline, err) < 0 ||
	    (o->fresh && run_exists(run_dir) && run_move_aside(run_dir, &aside, err) < 0)) {
		preflight_free(&pf);
		goto fail;
	}
	if (mkdir_p(run_dir, 0755, err) < 0) {
		preflight_free(&pf);
		goto fail;
	}
	char *attempts = run_path(run_dir, "attempts");
	int mk = mkdir_p(attempts, 0755, err);
	free(attempts);
	if (mk < 0) {
		preflight_free(&pf);
		goto fail;
	}
	struct pipeline *p = pl_new(l, o);
	p->table = t;
	p->lock_fd = run_lock(run_dir, err);
	if (p->lock_fd < 0 || run_exists(run_dir)) {
		/* another tileport may have created the run since the first check */
		if (p->lock_fd >= 0)
			tp_err_set(err, TP_EXIT_USAGE, "a run of %s already exists in %s; resume it with "
						       "'tileport resume %s'", op, run_dir, run_dir);
		preflight_free(&pf);
		t = NULL;
		pipeline_free(p);
		goto fail_nofree_table;
	}
	struct run_state *st = &p->st;
	st->version = xstrdup(TILEPORT_VERSION);
	st->op = xstrdup(op);
	if (wop.port) { /* --again: what the run meets in the workspace is not its own */
		st->port_before = wop.port;
		wop.port = NULL;
	}
	st->workspace = ws;
	st->out_root = path_absolute(o->out_root);
	st->run_dir = path_absolute(run_dir);
	st->table = xstrdup(t->path);
	st->status = RUN_RUNNING;
	st->offline = offline;
	st->missing = preflight_missing(&pf);
	st->created = wall_ms();
	st->next = (struct run_next){.set = true, .stage = t->first};
	apply_opts(p, o);
	p->events_ready = true;
	for (int i = 0; i < STAGE_LETTERS; i++) {
		if (chosen[i])
			set_command(p, &st->drivers[i], drv[i]);
		p->chosen[i] = st->drivers_default[i] = chosen[i];
	}
	free_specs(drv);
	pl_save(p);
	char *pfj = preflight_json(&pf);
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "op", st->op);
	cJSON_AddStringToObject(f, "mode", offline ? "offline" : "online");
	cJSON_AddItemToObject(f, "preflight", cJSON_Parse(pfj));
	free(pfj);
	char *miss = strv_join(st->missing, ", ");
	if (aside)
		cJSON_AddStringToObject(f, "previous", aside);
	char *port = strv_join(st->port_before, ", ");
	json_put_strv(f, "port_before", st->port_before);
	pl_emit(p, "run_created", f, "run of %s created in %s (%s%s)%s%s%s%s%s", st->op, st->run_dir,
		offline ? "offline; missing: " : "online", miss, aside ? "; the previous run is now " : "",
		aside ? aside : "", *port ? "; --again: the workspace has a cuTile Rust port (" : "", port,
		*port ? "), which stage D writes over" : "");
	free(port);
	free(miss);
	free(aside);
	preflight_free(&pf);
	free(run_dir);
	operator_free(&wop);
	*out = p;
	return 0;
fail:
	table_free(t);
fail_nofree_table:
	operator_free(&wop);
	free(aside);
	free_specs(drv);
	free(ws);
	free(run_dir);
	return -1;
}

/* A state file names stages, attempt folders and processes that resume acts
 * on (it removes and re-creates a folder, it kills a process group): they
 * must be what tileport itself would have written. */
static int check_state_fits(const struct run_state *st, const struct table *t, struct tp_err *err)
{
	char *path = run_path(st->run_dir, "state.json");
	int rc = 0;
	for (size_t i = 0; i < st->natt && rc == 0; i++) {
		const struct attempt *a = &st->att[i];
		char want[32];
		snprintf(want, sizeof(want), "%02d-%c%d%s", a->seq, a->stage, a->n, a->repair ? "r" : "");
		if (!table_stage(t, a->stage)) {
			tp_err_set(err, TP_EXIT_USAGE, "%s: attempt %d is of stage %c, which the table %s does "
						       "not have", path, a->seq, a->stage, t->path);
			rc = -1;
		} else if (strcmp(a->dir, want) != 0) {
			tp_err_set(err, TP_EXIT_USAGE, "%s: attempt %d has folder '%s', expected '%s'", path,
				   a->seq, a->dir, want);
			rc = -1;
		}
	}
	if (rc == 0 && st->next.set && !table_stage(t, st->next.stage)) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: the next stage %c is not in the table %s", path,
			   st->next.stage ? st->next.stage : '?', t->path);
		rc = -1;
	}
	free(path);
	return rc;
}

int pipeline_resume(struct pipeline **out, struct loop *l, const char *run_dir,
		    const struct pipeline_opts *o, struct tp_err *err)
{
	*out = NULL;
	if (!run_exists(run_dir)) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: no tileport run here (no .tileport/state.json)", run_dir);
		return -1;
	}
	int fd = run_lock(run_dir, err);
	if (fd < 0)
		return -1;
	struct pipeline *p = pl_new(l, o);
	p->lock_fd = fd;
	/* Agents run in the workspace: every path they get must be absolute. */
	char *abs_dir = path_absolute(run_dir);
	int loaded = run_state_load(abs_dir, &p->st, err);
	free(abs_dir);
	if (loaded < 0) {
		pipeline_free(p);
		return -1;
	}
	struct run_state *st = &p->st;
	char *tpath = o->table_path ? xstrdup(o->table_path) : xstrdup(st->table ? st->table : "");
	if (!path_is_file(tpath)) {
		free(tpath);
		tpath = table_default_path();
	}
	p->table = table_load(tpath, err);
	free(tpath);
	if (!p->table) {
		pipeline_free(p);
		return -1;
	}
	if (check_state_fits(&p->st, p->table, err) < 0 || check_letters(p->table, &o->commands, err) < 0) {
		pipeline_free(p);
		return -1;
	}
	apply_opts(p, o);
	/* Only a run that goes on has its log mended; an ended one is left as
	 * it is (pl_emit mends it before a manual action's first event). */
	if (o->online || !st->final) {
		if (pl_events_ready(p, err) < 0) {
			pipeline_free(p);
			return -1;
		}
		pl_reconcile_events(p);
	} else if (events_whole(run_dir)) {
		/* An ended run still gets the transitions a crash kept out of its
		 * log, when appending needs no mending. */
		pl_reconcile_events(p);
	}

	if (o->online) {
		struct preflight pf;
		preflight_run(&pf, st->workspace, st->out_root);
		bool online = pf.online;
		char **miss = preflight_missing(&pf);
		preflight_free(&pf);
		if (!online) {
			char *list = strv_join(miss, ", ");
			tp_err_set(err, TP_EXIT_ENV, "cannot resume online: still missing %s", list);
			free(list);
			strv_free(miss);
			pipeline_free(p);
			return -1;
		}
		strv_free(miss);
		char first = 0;
		for (size_t i = 0; i < st->natt && !first; i++)
			if (st->att[i].verdict && strcmp(st->att[i].verdict, "DEFERRED") == 0)
				first = st->att[i].stage;
		if (!st->offline || !first) {
			tp_err_set(err, TP_EXIT_USAGE, "%s: nothing was deferred; 'resume --online' applies to "
						       "runs that ended OFFLINE_COMPLETE", run_dir);
			pipeline_free(p);
			return -1;
		}
		/* the offline defaults (mech for A, B, D) give way to the online ones */
		for (int i = 0; i < STAGE_LETTERS; i++)
			if (st->drivers_default[i])
				pl_set(&st->drivers[i], NULL);
		if (fill_drivers(p->table, p->catalog, st->drivers, p->chosen, st->op, st->workspace, false,
				 err) < 0) {
			pipeline_free(p);
			return -1;
		}
		for (int i = 0; i < STAGE_LETTERS; i++)
			st->drivers_default[i] |= p->chosen[i];
		st->offline = false;
		strv_free(st->missing);
		st->missing = xcalloc(1, sizeof(char *));
		pl_reopen(p);
		st->next = (struct run_next){.set = true, .stage = first};
		pl_save(p);
		char l1[2] = {first, 0};
		cJSON *f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "from", l1);
		pl_emit(p, "run_online", f, "resuming online: re-running the deferred stages from %c", first);
	} else if (st->final) {
		/* Nothing to do automatically; attach for inspection or manual work. */
	} else {
		pl_recover_attempt(p);
	}
	*out = p;
	return 0;
}

void pipeline_listen(struct pipeline *p, pipeline_listener fn, void *ud)
{
	p->ls = xrealloc(p->ls, (p->nls + 1) * sizeof(*p->ls));
	p->ls[p->nls++] = (struct listener){fn, ud};
}

void pipeline_unlisten(struct pipeline *p, pipeline_listener fn, void *ud)
{
	for (size_t i = 0; i < p->nls; i++) {
		if (p->ls[i].fn == fn && p->ls[i].ud == ud) {
			memmove(&p->ls[i], &p->ls[i + 1], (p->nls - i - 1) * sizeof(*p->ls));
			p->nls--;
			return;
		}
	}
}

void pipeline_start(struct pipeline *p)
{
	const struct run_state *st = &p->st;
	char *miss = strv_join(st->missing, ", ");
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "mode", st->offline ? "offline" : "online");
	if (st->final)
		pl_emit(p, "run_attached", f, "%s: attached to a run that ended %s", st->run_dir, st->final);
	else
		pl_emit(p, "run_started", f, "%s: %s run of %s%s%s%s", st->run_dir,
			st->offline ? "offline" : "online", st->op, *miss ? " (missing: " : "", miss,
			*miss ? ")" : "");
	free(miss);
	if (!st->final)
		emit_drivers(p);
	if (p->st.status == RUN_ABORTED)
		p->st.status = RUN_RUNNING;
	p->started = true;
	pl_schedule(p);
}

void pipeline_free(struct pipeline *p)
{
	if (!p)
		return;
	if (p->step_timer)
		loop_cancel_timer(p->loop, p->step_timer);
	if (p->proc) {
		/* Leaving while a stage runs: kill it; the attempt stays "running"
		 * in state.json and is re-run on resume. */
		proc_free(p->proc);
		p->proc = NULL;
	}
	if (p->vproc)
		proc_free(p->vproc);
	if (p->tr)
		transcript_close(p->tr);
	if (p->errlog)
		fclose(p->errlog);
	sb_free(&p->errtail);
	lines_free(&p->errlines);
	sb_free(&p->vout);
	run_unlock(p->lock_fd);
	run_state_free(&p->st);
	table_free(p->table);
	free(p->skill_dir);
	strv_free(p->secrets);
	redact_stream_free(&p->errred);
	free(p->ls);
	free(p);
}

bool pipeline_busy(const struct pipeline *p)
{
	return p->proc || p->vproc || p->step_timer;
}

bool pipeline_finished(const struct pipeline *p)
{
	return p->st.final || p->st.status == RUN_ABORTED;
}

int pipeline_exit_code(const struct pipeline *p)
{
	if (p->broken)
		return TP_EXIT_ENV;
	const char *f = p->st.final;
	bool offline_done = f && strcmp(f, "OFFLINE_COMPLETE") == 0;
	return f && (p->st.outcome == OUTCOME_ACCEPTED || offline_done) ? TP_EXIT_OK : TP_EXIT_FAILED;
}

const char *pipeline_failure(const struct pipeline *p)
{
	return p->broken ? p->fail.msg : NULL;
}

const struct run_state *pipeline_state(const struct pipeline *p)
{
	return &p->st;
}

const struct table *pipeline_table(const struct pipeline *p)
{
	return p->table;
}

const struct attempt *pipeline_running(const struct pipeline *p)
{
	return p->proc ? run_attempt_by_seq((struct run_state *)&p->st, p->cur_seq) : NULL;
}
