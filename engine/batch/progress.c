/* What each run's own files say, and the rules built on it: an op's state
 * from its run and its job, what resume does with it, the totals and the
 * batch's JSON form. */
#include "engine/batch/batch_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/run.h"
#include "engine/base/json.h"
#include "engine/core/session.h"
#include "engine/perf/perfmd.h"

void batch_progress_free(struct batch_progress *p)
{
	free(p->error);
	free(p->final);
	free(p->reason);
	free(p->outcome_reason);
	free(p->verdict);
	free(p->attempts);
	free(p->last_event);
	free(p->refusal);
	free(p->refused_by);
	memset(p, 0, sizeof(*p));
	p->geomean = NAN;
}

/* The geomean of stage E's reports/performance.md, as the report says it
 * (engine/perf reads the report); NAN when there is none. */
static double read_geomean(const char *run_dir)
{
	char *path = path_join(run_dir, "reports/performance.md");
	struct perf_table t;
	double g = perf_md_read(path, &t, NULL) == 0 ? t.geomean : NAN;
	perf_table_free(&t); /* initialised even when it is not a report */
	free(path);
	return g;
}

static char *attempts_str(const struct run_state *st)
{
	struct sbuf sb = SBUF_INIT;
	char seen[STAGE_LETTERS + 1] = "";
	for (size_t i = 0; i < st->natt; i++) {
		char s = st->att[i].stage;
		if (strchr(seen, s))
			continue;
		seen[strlen(seen)] = s;
		int n = 0;
		bool repair = false;
		for (size_t k = 0; k < st->natt; k++) {
			if (st->att[k].stage != s)
				continue;
			if (st->att[k].n > n)
				n = st->att[k].n;
			repair = repair || st->att[k].repair;
		}
		sb_printf(&sb, "%s%c%d%s", sb.len ? " " : "", s, n, repair ? "+r" : "");
	}
	return sb_detach(&sb);
}

/* The msg of the run's last event. */
static char *last_event(const struct run_model *m)
{
	const cJSON *all = run_model_events(m);
	const cJSON *ev = all ? cJSON_GetArrayItem(all, cJSON_GetArraySize(all) - 1) : NULL;
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(ev, "msg");
	return cJSON_IsString(msg) ? xstrdup(msg->valuestring) : NULL;
}

static void fill(struct batch_progress *p, const struct run_model *m)
{
	const struct run_state *st = run_model_state(m);
	p->exists = true;
	p->locked = run_model_driven(m);
	p->final = st->final ? xstrdup(st->final) : NULL;
	p->reason = st->reason ? xstrdup(st->reason) : NULL;
	p->outcome = st->outcome;
	p->outcome_reason = st->outcome_reason ? xstrdup(st->outcome_reason) : NULL;
	p->attempts = attempts_str(st);
	const struct attempt *last = st->natt ? &st->att[st->natt - 1] : NULL;
	p->stage = last ? last->stage : 0;
	p->verdict = last && last->verdict ? xstrdup(last->verdict) : NULL;
	if (last && last->refused_by) {
		p->refused_by = xstrdup(last->refused_by);
		p->refusal = last->refusal ? xstrdup(last->refusal) : NULL;
		p->refused_stage = last->stage;
	}
	struct run_usage u = run_model_usage(m, 0);
	p->tokens_in = u.tokens_in;
	p->tokens_out = u.tokens_out;
	p->cost = u.cost;
	for (size_t i = 0; i < st->natt; i++) {
		const struct attempt *a = &st->att[i];
		if (a->state == ATTEMPT_RUNNING)
			p->running_since = a->started;
		else if (a->ended > a->started)
			p->elapsed_ms += a->ended - a->started;
	}
	p->geomean = read_geomean(st->run_dir);
	p->last_event = last_event(m);
}

/* What a reader of the progress can tell apart. */
static char *signature(const struct batch_progress *p)
{
	return xasprintf("%d|%d|%s|%s|%d|%s|%c|%s|%s|%lld|%lld|%.6f|%.6f|%lld|%lld|%s|%s", p->exists,
			 p->locked, p->final ? p->final : "", p->reason ? p->reason : "", (int)p->outcome,
			 p->outcome_reason ? p->outcome_reason : "", p->stage ? p->stage : '-',
			 p->verdict ? p->verdict : "", p->attempts ? p->attempts : "", p->tokens_in,
			 p->tokens_out, p->cost, isnan(p->geomean) ? -1.0 : p->geomean,
			 (long long)p->elapsed_ms, (long long)p->running_since,
			 p->last_event ? p->last_event : "", p->error ? p->error : "");
}

static void on_run(struct run_model *m, const struct run_change *c, void *ud)
{
	(void)m;
	const struct op_run *r = ud;
	if (c->kind != RUN_OUTPUT)
		batch_progress_changed(r->b, r->i);
}

void batch_progress_forget(struct batch *b, size_t i)
{
	struct op_run *r = &b->runs[i];
	if (r->m) {
		run_model_unlisten(r->m, on_run, r);
		run_model_free(r->m);
		r->m = NULL;
	}
	batch_progress_free(&b->prog[i]);
}

bool batch_progress_read(struct batch *b, size_t i, bool now)
{
	struct op_run *r = &b->runs[i];
	struct batch_progress np;
	memset(&np, 0, sizeof(np));
	np.geomean = NAN;
	const char *dir = b->rec.ops[i].run_dir;
	struct tp_err err;
	if (!r->m && run_exists(dir)) {
		r->b = b;
		r->i = i;
		/* followed from now on: its model looks at it twice a second */
		if ((r->m = session_run(b->s, dir, &err)))
			run_model_listen(r->m, on_run, r);
		else
			np.error = xstrdup(err.msg);
	} else if (r->m && now && run_model_refresh(r->m, &err) < 0) {
		np.error = xstrdup(err.msg);
	}
	if (r->m)
		fill(&np, r->m);
	char *was = signature(&b->prog[i]), *is = signature(&np);
	bool changed = strcmp(was, is) != 0;
	free(was);
	free(is);
	batch_progress_free(&b->prog[i]);
	b->prog[i] = np;
	return changed;
}

int64_t batch_progress_elapsed(const struct batch_progress *p, int64_t now)
{
	int64_t t = p->elapsed_ms;
	if (p->running_since && p->locked && now > p->running_since)
		t += now - p->running_since;
	return t;
}

enum batch_state batch_state_from(const struct batch_progress *p, enum job_phase phase)
{
	if (p->exists && p->final) {
		if (!strcmp(p->final, "PIPELINE_COMPLETE"))
			return BST_COMPLETE;
		if (!strcmp(p->final, "OFFLINE_COMPLETE"))
			return BST_OFFLINE;
		return BST_STOPPED;
	}
	switch (phase) {
	case JOB_NONE:
		return BST_PENDING;
	case JOB_WAITING:
		return BST_QUEUED;
	case JOB_RUNNING:
		return BST_RUNNING;
	case JOB_CANCELLED:
		return BST_CANCELLED;
	case JOB_ENDED:
	case JOB_GONE:
	default:
		return p->exists ? BST_INTERRUPTED : BST_FAILED;
	}
}

/* A child that exited 2 before its run existed was refused its input (no
 * such operator, one with a port): starting it again changes nothing. */
static bool bad_input(const struct batch_op *o)
{
	return o->state == BST_FAILED && o->why && str_starts(o->why, "exit 2");
}

int batch_resume_decide(const struct batch_op *o, const struct batch_progress *p, bool named, bool repeats,
			enum batch_resume_action *act, char **kept, struct tp_err *err)
{
	*act = BRA_KEEP;
	if (kept)
		*kept = NULL;
	switch (o->state) {
	case BST_COMPLETE:
	case BST_OFFLINE:
		if (named) {
			tp_err_set(err, TP_EXIT_USAGE, "--rerun %s: it ended %s, which is never run again "
						       "(--rerun is for runs that stopped on a verdict)",
				   o->op, batch_state_name(o->state));
			return -1;
		}
		return 0;
	case BST_QUEUED:
	case BST_RUNNING:
		if (named) {
			tp_err_set(err, TP_EXIT_USAGE, "--rerun %s: it is still %s%s%s", o->op,
				   batch_state_name(o->state), o->job ? " as " : "", o->job ? o->job : "");
			return -1;
		}
		return 0;
	case BST_STOPPED:
		if (repeats) {
			char *why = xasprintf("%s stopped on %s's refusal of stage %c (%s); %s has no model, so a "
					      "run with this batch's drivers would refuse the same way: give stage "
					      "%c another driver in a new batch (--driver %c=...)",
					      o->op, p->refused_by, p->refused_stage, p->refusal ? p->refusal : "?",
					      p->refused_by, p->refused_stage, p->refused_stage);
			if (named)
				tp_err_set(err, TP_EXIT_USAGE, "--rerun %s", why);
			if (kept && !named)
				*kept = xstrdup(why);
			free(why);
			return named ? -1 : 0;
		}
		*act = named ? BRA_RERUN : BRA_KEEP;
		return 0;
	default: /* never started, or ended without a verdict of its own */
		if (bad_input(o) && !named) {
			if (kept)
				*kept = xasprintf("%s was refused before its run began (%s): that does not change by "
						  "starting it again; once the cause is fixed, --rerun %s",
						  o->op, o->why, o->op);
			return 0;
		}
		*act = BRA_RESUME;
		return 0;
	}
}

bool batch_op_converted(const struct batch_op *o, const struct batch_progress *p)
{
	return o->state == BST_COMPLETE && p->outcome == OUTCOME_ACCEPTED;
}

bool batch_ended_text(const struct batch_op *o, const struct batch_progress *p, char *buf,
		      size_t n)
{
	const char *final = p->final ? p->final : "-";
	if (o->state == BST_COMPLETE)
		snprintf(buf, n, "%s, %s%s%s", final, run_outcome_words(p->outcome),
			 p->outcome_reason ? ": " : "", p->outcome_reason ? p->outcome_reason : "");
	else if (p->final || batch_state_final(o->state))
		snprintf(buf, n, "%s%s%s", final, p->reason ? ": " : "", p->reason ? p->reason : "");
	else if (n)
		buf[0] = '\0';
	return n && buf[0];
}

void batch_totals(const struct batch *b, struct batch_totals *t)
{
	memset(t, 0, sizeof(*t));
	t->geomean = NAN;
	double logs = 0;
	int64_t first = 0, last = 0;
	for (size_t i = 0; i < b->rec.nops; i++) {
		const struct batch_op *o = &b->rec.ops[i];
		const struct batch_progress *p = &b->prog[i];
		t->ops++;
		if (batch_op_converted(o, p)) {
			t->converted++;
			if (!isnan(p->geomean)) {
				logs += log(p->geomean);
				t->with_geomean++;
			}
		} else if (o->state == BST_COMPLETE) {
			t->not_accepted++;
		} else if (o->state == BST_OFFLINE) {
			t->offline++;
		} else if (o->state == BST_STOPPED) {
			t->stopped++;
		} else if (o->state == BST_FAILED) {
			t->failed++;
		} else {
			t->unfinished++;
		}
		t->tokens_in += p->tokens_in;
		t->tokens_out += p->tokens_out;
		t->cost += p->cost;
		if (o->started && (!first || o->started < first))
			first = o->started;
		if (o->ended > last)
			last = o->ended;
	}
	if (t->with_geomean)
		t->geomean = exp(logs / (double)t->with_geomean);
	t->elapsed_ms = first && last > first ? last - first : 0;
}

static cJSON *op_json(const struct batch_op *o, const struct batch_progress *p)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "op", o->op);
	cJSON_AddStringToObject(j, "run_dir", o->run_dir);
	cJSON_AddStringToObject(j, "state", batch_state_name(o->state));
	json_put_str(j, "final", p->final);
	json_put_str(j, "reason", p->reason);
	json_put_str(j, "outcome", p->exists && p->final ? run_outcome_name(p->outcome) : NULL);
	json_put_str(j, "outcome_reason", p->outcome_reason);
	char stage[2] = {p->stage, 0};
	json_put_str(j, "stage", p->stage ? stage : NULL);
	json_put_str(j, "verdict", p->verdict);
	cJSON_AddStringToObject(j, "attempts", p->attempts ? p->attempts : "");
	if (!isnan(p->geomean))
		cJSON_AddNumberToObject(j, "geomean", p->geomean);
	cJSON_AddNumberToObject(j, "tokens_in", (double)p->tokens_in);
	cJSON_AddNumberToObject(j, "tokens_out", (double)p->tokens_out);
	cJSON_AddNumberToObject(j, "cost", p->cost);
	cJSON_AddNumberToObject(j, "elapsed_ms", (double)batch_progress_elapsed(p, wall_ms()));
	json_put_str(j, "job", o->job);
	json_put_str(j, "node", o->node);
	json_put_str(j, "why", o->why);
	cJSON_AddNumberToObject(j, "starts", o->starts);
	json_put_str(j, "last_event", p->last_event);
	json_put_str(j, "error", p->error);
	return j;
}

/* The op with its run's own JSON form (engine/core/session.h), when it has
 * a run. */
static cJSON *op_with_run(const struct batch *b, size_t i)
{
	cJSON *j = op_json(&b->rec.ops[i], &b->prog[i]);
	if (b->runs[i].m)
		cJSON_AddItemToObject(j, "run", run_model_to_json(b->runs[i].m));
	return j;
}

cJSON *batch_to_json(const struct batch *b)
{
	const struct batch_record *r = &b->rec;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", r->name);
	cJSON_AddStringToObject(o, "dir", r->dir);
	cJSON_AddStringToObject(o, "executor", batch_executor_name(r->executor));
	json_put_str(o, "workspace", r->workspace);
	json_put_str(o, "out_root", r->out_root);
	cJSON_AddNumberToObject(o, "jobs", r->jobs);
	cJSON_AddNumberToObject(o, "created", (double)r->created);
	cJSON_AddNumberToObject(o, "updated", (double)r->updated);
	cJSON_AddBoolToObject(o, "going", batch_going(b));
	json_put_str(o, "problem", b->problem);
	if (r->nsubs)
		json_put_str(o, "job", r->subs[r->nsubs - 1].job);
	cJSON *ops = cJSON_AddArrayToObject(o, "ops");
	for (size_t i = 0; i < r->nops; i++)
		cJSON_AddItemToArray(ops, op_with_run(b, i));
	struct batch_totals t;
	batch_totals(b, &t);
	cJSON *tj = cJSON_AddObjectToObject(o, "totals");
	cJSON_AddNumberToObject(tj, "ops", (double)t.ops);
	cJSON_AddNumberToObject(tj, "converted", (double)t.converted);
	cJSON_AddNumberToObject(tj, "not_accepted", (double)t.not_accepted);
	cJSON_AddNumberToObject(tj, "offline_complete", (double)t.offline);
	cJSON_AddNumberToObject(tj, "stopped", (double)t.stopped);
	cJSON_AddNumberToObject(tj, "failed", (double)t.failed);
	cJSON_AddNumberToObject(tj, "unfinished", (double)t.unfinished);
	if (!isnan(t.geomean))
		cJSON_AddNumberToObject(tj, "geomean", t.geomean);
	cJSON_AddNumberToObject(tj, "geomean_over", (double)t.with_geomean);
	cJSON_AddNumberToObject(tj, "tokens_in", (double)t.tokens_in);
	cJSON_AddNumberToObject(tj, "tokens_out", (double)t.tokens_out);
	cJSON_AddNumberToObject(tj, "tokens", (double)(t.tokens_in + t.tokens_out));
	cJSON_AddNumberToObject(tj, "cost", t.cost);
	cJSON_AddNumberToObject(tj, "elapsed_ms", (double)t.elapsed_ms);
	return o;
}
