/* What a resume repairs after a kill (docs/pipeline.md, "Crashes and
 * resume"): events.jsonl is brought level with state.json (a transition
 * saved without its event gets the event, marked as recovered), and the
 * interrupted attempt is taken up where the state says it stopped: a reply
 * already judged is validated and routed, never run again; an agent that
 * was still working is stopped if it survived, what it left in its stage's
 * artifact paths goes to its attempt folder (partial/), its own files
 * there (transcript, stderr, prompt, a torn event the repair kept) to
 * killed/, and it runs again under the same number. Called by
 * pipeline_resume, beside the rest of the record (pipeline_record.c). */
#include "engine/core/pipeline_int.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/core/events.h"
#include "engine/core/prompt.h"

/* ---- events.jsonl against state.json ---- */

static bool has_event(const cJSON *events, const char *type, int seq)
{
	const cJSON *e;
	cJSON_ArrayForEach(e, events)
	{
		const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "type"));
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(e, "seq");
		if (t && !strcmp(t, type) && (seq < 0 || (cJSON_IsNumber(s) && s->valueint == seq)))
			return true;
	}
	return false;
}

/* Whether the run's end is in the log: a run_finished after the last event
 * that reopened it. */
static bool end_logged(const cJSON *events)
{
	static const char *const reopen[] = {"run_created", "run_online", "manual_override",
					     "manual_respawn", "manual_skip", "manual_owner"};
	bool ended = false;
	const cJSON *e;
	cJSON_ArrayForEach(e, events)
	{
		const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "type"));
		for (size_t i = 0; t && i < TP_ARRAY_LEN(reopen); i++)
			if (!strcmp(t, reopen[i]))
				ended = false;
		if (t && !strcmp(t, "run_finished"))
			ended = true;
	}
	return ended;
}

static void recovered(struct pipeline *p, const char *type, cJSON *f, const char *what)
{
	cJSON_AddBoolToObject(f, "recovered", true);
	pl_emit(p, type, f, "%s (recovered on resume: the kill came between saving it and logging it)",
		what);
}

/* Only the latest attempt can have lost its events: each transition is
 * saved and then logged before the next one is saved, so a kill leaves at
 * most the last ones unlogged (and the run's end). */
void pl_reconcile_events(struct pipeline *p)
{
	const struct run_state *st = &p->st;
	cJSON *events = cJSON_CreateArray();
	long long off = 0;
	events_read_more(st->run_dir, &off, events, NULL);
	for (size_t i = st->natt ? st->natt - 1 : 0; i < st->natt; i++) {
		const struct attempt *a = &st->att[i];
		char what[160];
		/* a later save of the attempt means its start was logged before it */
		if (a->state == ATTEMPT_RUNNING && a->pid > 0 && !has_event(events, "stage_started", a->seq)) {
			snprintf(what, sizeof(what), "%c%d started (%s)", a->stage, a->n, a->dir);
			recovered(p, "stage_started", pl_attempt_fields(a), what);
		}
		if (!a->action || (a->state != ATTEMPT_DONE && a->state != ATTEMPT_SKIPPED))
			continue;
		bool repair = !strcmp(a->action, "repair");
		if (!has_event(events, repair ? "repair_scheduled" : "routed", a->seq)) {
			cJSON *f = pl_attempt_fields(a);
			cJSON_AddStringToObject(f, "action", a->action);
			if (a->klass)
				cJSON_AddStringToObject(f, "class", a->klass);
			if (a->route_row) {
				cJSON_AddNumberToObject(f, "row", a->route_row);
				cJSON_AddNumberToObject(f, "line", a->route_line);
			}
			if (repair)
				snprintf(what, sizeof(what), "%c%d: repair retry (once per letter)", a->stage, a->n);
			else
				snprintf(what, sizeof(what), "route %c%d %s -> %s", a->stage, a->n,
					 a->verdict ? a->verdict : "-", a->action);
			recovered(p, repair ? "repair_scheduled" : "routed", f, what);
		}
	}
	if (st->final && !end_logged(events)) {
		cJSON *f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "final", st->final);
		cJSON_AddStringToObject(f, "outcome", run_outcome_name(st->outcome));
		if (st->outcome_reason)
			cJSON_AddStringToObject(f, "outcome_reason", st->outcome_reason);
		char *what = xasprintf("%s%s%s; %s%s%s", st->final, st->reason ? ": " : "",
				       st->reason ? st->reason : "", run_outcome_words(st->outcome),
				       st->outcome_reason ? ": " : "", st->outcome_reason ? st->outcome_reason : "");
		recovered(p, "run_finished", f, what);
		free(what);
	}
	cJSON_Delete(events);
}

/* ---- a killed attempt's partial outputs ---- */

struct mover {
	const char *run_dir, *workspace;
	char *dest;          /* the attempt's partial folder */
	struct timespec mark; /* when the attempt's agent was started: its prompt.md */
	int moved;
	struct sbuf names;   /* the first few, for the event */
};

static bool newer(const struct stat *sb, const struct timespec *mark)
{
	/* ctime: a copy that kept an old mtime (cp -p) was still made now */
	return sb->st_ctim.tv_sec > mark->tv_sec ||
	       (sb->st_ctim.tv_sec == mark->tv_sec && sb->st_ctim.tv_nsec > mark->tv_nsec);
}

/* Where a path goes under partial/: its place in the run directory, or
 * workspace/ and its place in the workspace. */
static char *partial_name(const struct mover *mv, const char *path)
{
	size_t rl = strlen(mv->run_dir), wl = mv->workspace ? strlen(mv->workspace) : 0;
	if (!strncmp(path, mv->run_dir, rl) && path[rl] == '/')
		return xstrdup(path + rl + 1);
	if (wl && !strncmp(path, mv->workspace, wl) && path[wl] == '/')
		return xasprintf("workspace/%s", path + wl + 1);
	const char *base = strrchr(path, '/');
	return xstrdup(base ? base + 1 : path);
}

static void move_one(struct mover *mv, const char *path)
{
	char *rel = partial_name(mv, path);
	char *to = path_join(mv->dest, rel);
	char *dir = xstrdup(to);
	*strrchr(dir, '/') = '\0';
	if (mkdir_p(dir, 0755, NULL) == 0 && rename(path, to) == 0) {
		if (mv->moved++ < 3)
			sb_printf(&mv->names, "%s%s", mv->names.len ? ", " : "", rel);
	}
	free(dir);
	free(to);
	free(rel);
}

/* Everything under dir newer than the mark; emptied new folders go too. */
static void move_tree(struct mover *mv, const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, ".tileport")) {
			names = xgrow(names, &cap, n + 1, sizeof(*names));
			names[n++] = xstrdup(e->d_name);
		}
	closedir(d);
	for (size_t i = 0; i < n; i++) {
		char *path = path_join(dir, names[i]);
		struct stat sb;
		if (lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
			bool fresh = newer(&sb, &mv->mark);
			move_tree(mv, path);
			if (fresh)
				rmdir(path); /* only when nothing older is left in it */
		} else if (lstat(path, &sb) == 0 && newer(&sb, &mv->mark)) {
			move_one(mv, path);
		}
		free(path);
		free(names[i]);
	}
	free(names);
}

/* The stage's artifact paths: inside the run directory, every folder an
 * artifact lives in is the stage's working area (a half-done copy such as
 * reference/reference/ sits beside the artifacts it was meant to be); at
 * the top of the run directory and in the workspace only what the patterns
 * name. */
static void move_artifacts(struct mover *mv, const struct stage_def *s, const struct prompt_ctx *c)
{
	char **done = NULL;
	size_t nd = 0, cap = 0;
	for (size_t i = 0; s->artifacts && s->artifacts[i]; i++) {
		const char *t = s->artifacts[i] + (s->artifacts[i][0] == '?');
		char *exp = prompt_expand(t, c);
		char *full = exp[0] == '/' ? xstrdup(exp) : path_join(mv->run_dir, exp);
		free(exp);
		char *dir = xstrdup(full);
		char *slash = strrchr(dir, '/');
		*slash = '\0';
		size_t rl = strlen(mv->run_dir);
		bool inside = !strncmp(dir, mv->run_dir, rl) && dir[rl] == '/';
		bool seen = false;
		for (size_t k = 0; k < nd && inside; k++)
			seen |= !strcmp(done[k], dir);
		if (inside && !seen) {
			move_tree(mv, dir);
			done = xgrow(done, &cap, nd + 1, sizeof(*done));
			done[nd++] = xstrdup(dir);
		} else if (!inside) {
			glob_t g;
			struct stat sb;
			if (glob(full, 0, NULL, &g) == 0)
				for (size_t k = 0; k < g.gl_pathc; k++)
					if (lstat(g.gl_pathv[k], &sb) == 0 && !S_ISDIR(sb.st_mode) &&
					    newer(&sb, &mv->mark))
						move_one(mv, g.gl_pathv[k]);
			globfree(&g);
		}
		free(dir);
		free(full);
	}
	for (size_t k = 0; k < nd; k++)
		free(done[k]);
	free(done);
}

/* A free name for a kept folder in dir: NAME, NAME-2, NAME-3 ... */
static char *free_name(const char *dir, const char *name)
{
	char *n = xstrdup(name);
	for (int k = 2;; k++) {
		char *path = path_join(dir, n);
		struct stat sb;
		bool taken = lstat(path, &sb) == 0;
		free(path);
		if (!taken)
			return n;
		free(n);
		n = xasprintf("%s-%d", name, k);
	}
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The interrupted attempt's own files in its folder (its transcript and
 * stderr.log, its prompt, events-torn.jsonl from the repair) would be
 * emptied by the re-run: they go to killed/ (killed-2/ ...), which the
 * re-run keeps, as it keeps partial/. */
static void keep_killed(struct pipeline *p, struct attempt *a, const char *adir)
{
	DIR *d = opendir(adir);
	if (!d)
		return;
	char **own = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && !str_starts(e->d_name, "partial") &&
		    !str_starts(e->d_name, "killed")) {
			own = xgrow(own, &cap, n + 1, sizeof(*own));
			own[n++] = xstrdup(e->d_name);
		}
	closedir(d);
	qsort(own, n, sizeof(*own), cmp_name);
	char *name = free_name(adir, "killed");
	char *dest = path_join(adir, name);
	struct sbuf names = SBUF_INIT;
	int kept = 0;
	for (size_t i = 0; i < n; i++) {
		char *from = path_join(adir, own[i]), *to = path_join(dest, own[i]);
		if ((kept || mkdir(dest, 0755) == 0 || errno == EEXIST) && rename(from, to) == 0)
			sb_printf(&names, "%s%s", kept++ ? ", " : "", own[i]);
		free(from);
		free(to);
		free(own[i]);
	}
	free(own);
	if (kept) {
		char *rel = xasprintf(".tileport/attempts/%s/%s/", a->dir, name);
		cJSON *f = pl_attempt_fields(a);
		cJSON_AddStringToObject(f, "dir", rel);
		cJSON_AddNumberToObject(f, "files", kept);
		pl_emit(p, "killed_kept", f, "%c%d: the interrupted attempt's own files (%s) kept in %s", a->stage,
			a->n, sb_str(&names), rel);
		free(rel);
	}
	sb_free(&names);
	free(dest);
	free(name);
}

void pl_move_partial(struct pipeline *p, struct attempt *a)
{
	const struct stage_def *s = table_stage(p->table, a->stage);
	char *adir = run_attempt_dir(&p->st, a);
	char *prompt = path_join(adir, "prompt.md");
	struct stat sb;
	bool started = stat(prompt, &sb) == 0;
	keep_killed(p, a, adir);
	if (!s || !started) {
		/* no prompt: the agent never started, so it left nothing */
		free(prompt);
		free(adir);
		return;
	}
	struct mover mv = {.run_dir = p->st.run_dir, .workspace = p->st.workspace, .mark = sb.st_ctim,
			   .names = SBUF_INIT};
	char *name = free_name(adir, "partial");
	mv.dest = path_join(adir, name);
	struct prompt_ctx c = {.op = p->st.op, .workspace = p->st.workspace, .out_root = p->st.out_root,
			       .out = p->st.run_dir, .skill = p->skill_dir, .attempt = a->n,
			       .offline = p->st.offline};
	move_artifacts(&mv, s, &c);
	if (mv.moved) {
		char *rel = xasprintf(".tileport/attempts/%s/%s/", a->dir, name);
		pl_set(&a->partial, rel);
		a->npartial = mv.moved;
		cJSON *f = pl_attempt_fields(a);
		cJSON_AddStringToObject(f, "dir", rel);
		cJSON_AddNumberToObject(f, "files", mv.moved);
		pl_emit(p, "partial_moved", f, "%c%d: %d file%s the interrupted attempt left (%s%s) moved to %s",
			a->stage, a->n, mv.moved, mv.moved == 1 ? "" : "s", sb_str(&mv.names),
			mv.moved > 3 ? ", ..." : "", rel);
		free(rel);
	}
	sb_free(&mv.names);
	free(mv.dest);
	free(name);
	free(prompt);
	free(adir);
}

void pl_recover_attempt(struct pipeline *p)
{
	struct run_state *st = &p->st;
	struct attempt *run = NULL, *judged = NULL;
	for (size_t i = 0; i < st->natt; i++) {
		if (st->att[i].state == ATTEMPT_RUNNING)
			run = &st->att[i];
		else if (st->att[i].state == ATTEMPT_JUDGED)
			judged = &st->att[i];
	}
	if (run) {
		/* What it left is moved away only when it really runs again
		 * (pl_move_partial): a person may skip it, having done it by hand. */
		pl_kill_leftover(run);
		pl_rerun(p, run);
	} else if (judged) {
		/* The reply was read and judged before the kill: its verdict
		 * stands; the validator and the routing are what is left. */
		p->rejudge_seq = judged->seq;
	} else if (!st->next.set && st->natt) {
		/* Routing is recorded with the attempt's result; if neither a
		 * next stage nor an end was saved, route the last result again. */
		p->reroute = true;
	}
	const struct attempt *a = run ? run : judged;
	pl_emit(p, "run_resumed", a ? pl_attempt_fields(a) : NULL, "resumed%s%s%s",
		run ? "; interrupted attempt " : judged ? "; validating and routing the saved reply of " : "",
		a ? a->dir : "", run ? " runs again" : "");
}
