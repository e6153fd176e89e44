/* One run as every reader sees it: live (a pipeline this process drives)
 * or followed from disk (state.json and events.jsonl, re-read when they
 * change), behind the same accessors and the same stream of changes. */
#include "engine/core/session_int.h"

#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/core/events.h"
#include "engine/core/prompt.h"

#define FOLLOW_MS 500 /* how often a followed run is looked at while anyone listens */

struct model_listener {
	run_listener fn; /* NULL: removed while the stream was being told */
	void *ud;
};

/* What identifies a version of a file replaced by rename. */
struct file_sig {
	long long mtime_ns, size, ino;
};

struct run_model {
	int refs;
	struct session *s;
	struct pipeline *p;   /* live; NULL while followed */
	struct run_state disk; /* followed: the state last read */
	const struct table *table; /* followed: the session's copy */
	struct file_sig state_sig;
	bool locked;          /* followed: another tileport holds the run */
	uint64_t timer;
	cJSON *events;
	long long events_off; /* bytes of events.jsonl read into events */
	char *why_ro;
	struct model_listener *ls;
	size_t nls;
	int telling; /* listeners are being told (removals wait) */
};

static struct file_sig file_sig(const char *path)
{
	struct stat sb;
	struct file_sig sig = {-1, -1, -1};
	if (stat(path, &sb) == 0)
		sig = (struct file_sig){(long long)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec,
					(long long)sb.st_size, (long long)sb.st_ino};
	return sig;
}

static bool sig_equal(struct file_sig a, struct file_sig b)
{
	return a.mtime_ns == b.mtime_ns && a.size == b.size && a.ino == b.ino;
}

static void tell(struct run_model *m, const struct run_change *c)
{
	m->telling++;
	for (size_t i = 0; i < m->nls; i++)
		if (m->ls[i].fn)
			m->ls[i].fn(m, c, m->ls[i].ud);
	if (--m->telling == 0) {
		size_t k = 0;
		for (size_t i = 0; i < m->nls; i++)
			if (m->ls[i].fn)
				m->ls[k++] = m->ls[i];
		m->nls = k;
	}
}

/* Events appended since the last look: read, then told one by one. */
static void read_new_events(struct run_model *m)
{
	int before = cJSON_GetArraySize(m->events);
	const char *dir = run_model_state(m)->run_dir;
	if (events_read_more(dir, &m->events_off, m->events, NULL) <= 0)
		return;
	for (int i = before; i < cJSON_GetArraySize(m->events); i++) {
		struct run_change c = {.kind = RUN_EVENT, .ev = cJSON_GetArrayItem(m->events, i)};
		tell(m, &c);
	}
}

/* ---- live ---- */

static void from_pipeline(struct pipeline *p, const struct pipeline_event *e, void *ud)
{
	struct run_model *m = ud;
	(void)p;
	if (e->kind == PEV_EVENT) {
		cJSON *ev = cJSON_Duplicate(e->ev, true);
		cJSON_AddItemToArray(m->events, ev);
		struct run_change c = {.kind = RUN_EVENT, .ev = ev};
		tell(m, &c);
		return;
	}
	struct run_change c = {.kind = e->kind == PEV_METER ? RUN_USAGE : RUN_OUTPUT, .line = e->line,
			       .len = e->len, .is_stderr = e->is_stderr,
			       .attempt = run_model_attempt(m, e->seq)};
	if (c.attempt)
		tell(m, &c);
}

static void become_live(struct run_model *m, struct pipeline *p)
{
	if (m->timer)
		loop_cancel_timer(session_loop(m->s), m->timer);
	m->timer = 0;
	m->p = p;
	run_state_free(&m->disk);
	m->table = NULL;
	free(m->why_ro);
	m->why_ro = NULL;
	struct run_change c = {.kind = RUN_CHANGED};
	tell(m, &c);
	/* What creating or resuming wrote before anyone could listen. */
	read_new_events(m);
	pipeline_listen(p, from_pipeline, m);
}

/* ---- followed from disk ---- */

static int load_state(struct run_model *m, const char *dir, struct tp_err *err)
{
	char *path = run_path(dir, "state.json");
	struct file_sig sig = file_sig(path);
	free(path);
	struct run_state st;
	if (run_state_load(dir, &st, err) < 0)
		return -1;
	run_state_free(&m->disk);
	m->disk = st;
	m->state_sig = sig;
	if (!m->table) {
		/* the run's own table, as resume picks it */
		const char *own = m->s->table_path ? m->s->table_path : st.table;
		char *tp = own && path_is_file(own) ? xstrdup(own) : table_default_path();
		m->table = session_table(m->s, tp, err);
		free(tp);
		if (!m->table)
			return -1;
	}
	return 0;
}

int run_model_refresh(struct run_model *m, struct tp_err *err)
{
	if (m->p)
		return 0;
	char *dir = xstrdup(m->disk.run_dir); /* reloading replaces m->disk */
	char *sp = run_path(dir, "state.json"), *ep = run_path(dir, "events.jsonl");
	bool changed = false;
	int rc = 0;
	if (!sig_equal(file_sig(sp), m->state_sig)) {
		rc = load_state(m, dir, err); /* on failure the last good state stays */
		changed = rc == 0;
	}
	bool locked = run_locked(dir);
	changed |= locked != m->locked;
	m->locked = locked;
	struct file_sig es = file_sig(ep);
	if (es.size >= 0 && es.size < m->events_off) {
		/* cut back (a torn line repaired): read it again from the start */
		cJSON_Delete(m->events);
		m->events = cJSON_CreateArray();
		m->events_off = 0;
		events_read_more(dir, &m->events_off, m->events, NULL);
		changed = true;
	}
	if (changed) {
		struct run_change c = {.kind = RUN_CHANGED};
		tell(m, &c);
	}
	if (!m->p) /* a listener may have attached it meanwhile */
		read_new_events(m);
	free(dir);
	free(sp);
	free(ep);
	return rc;
}

static void follow(struct loop *l, void *ud)
{
	struct run_model *m = ud;
	m->timer = 0;
	run_model_refresh(m, NULL);
	if (!m->p && m->nls)
		m->timer = loop_add_timer(l, FOLLOW_MS, follow, m);
}

/* ---- opening ---- */

static struct run_model *model_new(struct session *s)
{
	struct run_model *m = xcalloc(1, sizeof(*m));
	m->refs = 1;
	m->s = s;
	m->events = cJSON_CreateArray();
	run_state_init(&m->disk);
	return m;
}

struct run_model *session_run(struct session *s, const char *run, struct tp_err *err)
{
	char *dir = session_run_dir(s, run);
	if (!run_exists(dir)) {
		tp_err_set(err, TP_EXIT_USAGE, "%s: no tileport run here (no .tileport/state.json)", dir);
		free(dir);
		return NULL;
	}
	struct run_model *m = model_new(s);
	int rc = load_state(m, dir, err);
	free(dir);
	if (rc < 0) {
		run_model_free(m);
		return NULL;
	}
	m->locked = run_locked(m->disk.run_dir);
	events_read_more(m->disk.run_dir, &m->events_off, m->events, NULL);
	if (s->read_only)
		m->why_ro = xstrdup("opened with --read-only, to look and not to act");
	return m;
}

struct run_model *session_new_run(struct session *s, const char *op, struct tp_err *err)
{
	struct pipeline_opts o;
	session_pipeline_opts(s, RUN_NEW, &o);
	o.op = op;
	struct pipeline *p;
	if (pipeline_create(&p, s->loop, &o, err) < 0)
		return NULL;
	struct run_model *m = model_new(s);
	become_live(m, p);
	return m;
}

int run_model_attach(struct run_model *m, const struct run_attach *a, struct tp_err *err)
{
	if (m->p)
		return 0;
	if (m->s->read_only) {
		tp_err_set(err, TP_EXIT_USAGE, "%s", m->why_ro);
		return -1;
	}
	struct pipeline_opts o;
	session_pipeline_opts(m->s, RUN_EXISTING, &o);
	o.online = a && a->online;
	struct pipeline *p;
	if (pipeline_resume(&p, m->s->loop, m->disk.run_dir, &o, err) < 0) {
		free(m->why_ro);
		m->why_ro = xstrdup(err && err->msg[0] ? err->msg : "cannot attach");
		return -1;
	}
	become_live(m, p);
	return 0;
}

struct run_model *run_model_ref(struct run_model *m)
{
	m->refs++;
	return m;
}

void run_model_free(struct run_model *m)
{
	if (!m || --m->refs > 0)
		return;
	if (m->timer)
		loop_cancel_timer(session_loop(m->s), m->timer);
	if (m->p) {
		pipeline_unlisten(m->p, from_pipeline, m);
		pipeline_free(m->p);
	}
	run_state_free(&m->disk);
	cJSON_Delete(m->events);
	free(m->why_ro);
	free(m->ls);
	free(m);
}

/* ---- the stream ---- */

void run_model_listen(struct run_model *m, run_listener fn, void *ud)
{
	m->ls = xrealloc(m->ls, (m->nls + 1) * sizeof(*m->ls));
	m->ls[m->nls++] = (struct model_listener){fn, ud};
	if (!m->p && !m->timer)
		m->timer = loop_add_timer(session_loop(m->s), FOLLOW_MS, follow, m);
}

void run_model_unlisten(struct run_model *m, run_listener fn, void *ud)
{
	for (size_t i = 0; i < m->nls; i++) {
		if (m->ls[i].fn != fn || m->ls[i].ud != ud)
			continue;
		if (m->telling) {
			m->ls[i].fn = NULL;
		} else {
			memmove(&m->ls[i], &m->ls[i + 1], (m->nls - i - 1) * sizeof(*m->ls));
			m->nls--;
		}
		return;
	}
}

/* ---- reading ---- */

const struct run_state *run_model_state(const struct run_model *m)
{
	return m->p ? pipeline_state(m->p) : &m->disk;
}

const struct table *run_model_table(const struct run_model *m)
{
	return m->p ? pipeline_table(m->p) : m->table;
}

struct pipeline *run_model_pipeline(const struct run_model *m)
{
	return m->p;
}

const char *run_model_why_read_only(const struct run_model *m)
{
	return m->p ? NULL : m->why_ro ? m->why_ro : "not attached";
}

bool run_model_driven(const struct run_model *m)
{
	return m->p || m->locked;
}

const char *run_model_state_name(const struct run_model *m)
{
	return run_display_state(run_model_state(m)->status, NULL, run_model_driven(m));
}

const struct attempt *run_model_attempt(const struct run_model *m, int seq)
{
	return run_attempt_by_seq((struct run_state *)run_model_state(m), seq);
}

const struct attempt *run_model_latest(const struct run_model *m, char stage)
{
	return run_latest_attempt((struct run_state *)run_model_state(m), stage);
}

bool run_model_running(const struct run_model *m, const struct attempt *a)
{
	if (!a || a->state != ATTEMPT_RUNNING)
		return false;
	if (m->p) {
		const struct attempt *r = pipeline_running(m->p);
		return r && r->seq == a->seq;
	}
	return m->locked;
}

int64_t run_model_elapsed_ms(const struct run_model *m, const struct attempt *a, int64_t now)
{
	if (!a || !a->started)
		return 0;
	int64_t end = a->ended;
	if (a->state == ATTEMPT_RUNNING && run_model_running(m, a)) {
		end = now;
	} else if (a->state == ATTEMPT_RUNNING) {
		/* interrupted: it ran until it last said something */
		end = a->started;
		static const char *const out[] = {"transcript.jsonl", "stderr.log"};
		for (size_t i = 0; i < TP_ARRAY_LEN(out); i++) {
			char *path = run_model_attempt_path(m, a, out[i]);
			struct stat sb;
			if (stat(path, &sb) == 0) {
				int64_t t = (int64_t)sb.st_mtim.tv_sec * 1000 + sb.st_mtim.tv_nsec / 1000000;
				end = t > end ? t : end;
			}
			free(path);
		}
	}
	return end > a->started ? end - a->started : 0;
}

struct run_usage run_model_usage(const struct run_model *m, char stage)
{
	return run_state_usage(run_model_state(m), stage);
}

char *run_model_attempt_path(const struct run_model *m, const struct attempt *a, const char *name)
{
	char *dir = run_attempt_dir(run_model_state(m), a);
	if (!name)
		return dir;
	char *p = path_join(dir, name);
	free(dir);
	return p;
}

static void add_artifact(struct run_artifact **v, size_t *n, size_t *cap, const char *run_dir,
			 const char *path, bool exists, bool optional)
{
	*v = xgrow(*v, cap, *n + 1, sizeof(**v));
	struct run_artifact *a = &(*v)[(*n)++];
	a->path = xstrdup(path);
	size_t rl = strlen(run_dir);
	a->rel = !strncmp(a->path, run_dir, rl) && a->path[rl] == '/' ? a->path + rl + 1 : a->path;
	a->exists = exists;
	a->optional = optional;
}

size_t run_model_artifacts(const struct run_model *m, const struct attempt *a,
			   struct run_artifact **out)
{
	*out = NULL;
	const struct run_state *st = run_model_state(m);
	const struct stage_def *d = table_stage(run_model_table(m), a->stage);
	if (!d || !d->artifacts)
		return 0;
	/* {skill} is the table's folder */
	char *skill = xstrdup(run_model_table(m)->path);
	char *slash = strrchr(skill, '/');
	if (slash)
		*slash = '\0';
	else
		strcpy(skill, ".");
	struct prompt_ctx c = {.op = st->op, .workspace = st->workspace, .out_root = st->out_root,
			       .out = st->run_dir, .skill = skill, .attempt = a->n,
			       .offline = st->offline};
	size_t n = 0, cap = 0;
	for (size_t i = 0; d->artifacts[i]; i++) {
		bool optional = d->artifacts[i][0] == '?';
		char *exp = prompt_expand(d->artifacts[i] + optional, &c);
		char *full = exp[0] == '/' ? xstrdup(exp) : path_join(st->run_dir, exp);
		free(exp);
		if (strpbrk(full, "*?[")) {
			glob_t g;
			int r = glob(full, 0, NULL, &g);
			for (size_t k = 0; r == 0 && k < g.gl_pathc; k++)
				add_artifact(out, &n, &cap, st->run_dir, g.gl_pathv[k], true, optional);
			if (r != 0)
				add_artifact(out, &n, &cap, st->run_dir, full, false, optional);
			globfree(&g);
		} else {
			struct stat sb;
			add_artifact(out, &n, &cap, st->run_dir, full, stat(full, &sb) == 0, optional);
		}
		free(full);
	}
	free(skill);
	return n;
}

void run_artifacts_free(struct run_artifact *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

const cJSON *run_model_events(const struct run_model *m)
{
	return m->events;
}
