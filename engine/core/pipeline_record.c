/* What the orchestrator records and tells: the run's state saved at every
 * step, events appended to events.jsonl and handed to listeners, and the
 * registered checker for the final output contract. The bottom of the
 * pipeline files: it calls none of the others. */
#include "engine/core/pipeline_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/events.h"

void pl_set(char **field, const char *value)
{
	free(*field);
	*field = value ? xstrdup(value) : NULL;
}

struct attempt *pl_cur(struct pipeline *p)
{
	return run_attempt_by_seq(&p->st, p->cur_seq);
}

cJSON *pl_attempt_fields(const struct attempt *a)
{
	cJSON *f = cJSON_CreateObject();
	char l[2] = {a->stage, 0};
	cJSON_AddNumberToObject(f, "seq", a->seq);
	cJSON_AddStringToObject(f, "stage", l);
	cJSON_AddNumberToObject(f, "attempt", a->n);
	if (a->repair)
		cJSON_AddBoolToObject(f, "repair", true);
	if (a->verdict)
		cJSON_AddStringToObject(f, "verdict", a->verdict);
	return f;
}

void pl_notify(struct pipeline *p, const struct pipeline_event *e)
{
	for (size_t i = 0; i < p->nls; i++)
		p->ls[i].fn(p, e, p->ls[i].ud);
}

void pl_emit(struct pipeline *p, const char *type, cJSON *fields, const char *fmt, ...)
{
	/* A stopped run records and tells nothing more: what it would say
	 * ("run aborted") is not in its saved state, and after a lost lock the
	 * log may be another orchestrator's. pl_break told the reason. */
	if (p->broken) {
		cJSON_Delete(fields);
		return;
	}
	if (!fields)
		fields = cJSON_CreateObject();
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		char *msg = xvasprintf(fmt, ap);
		va_end(ap);
		cJSON_AddStringToObject(fields, "msg", msg);
		free(msg);
	}
	cJSON *ev = NULL;
	struct tp_err err;
	int rc = pl_events_ready(p, &err);
	if (rc < 0) {
		ev = fields;
		cJSON_AddStringToObject(ev, "type", type);
	} else {
		rc = events_append(p->st.run_dir, type, fields, &ev, &err);
	}
	if (rc < 0) {
		/* A run whose log cannot be kept would disagree with its state:
		 * it stops here, and says why. */
		pl_break(p, "cannot record events, stopping", &err);
		cJSON_Delete(ev);
		return;
	}
	tp_crashpoint();
	struct pipeline_event e = {.kind = PEV_EVENT, .ev = ev};
	pl_notify(p, &e);
	cJSON_Delete(ev);
}

void pl_break(struct pipeline *p, const char *what, const struct tp_err *why)
{
	if (p->broken)
		return;
	p->broken = true;
	/* said once, by whoever receives it (pipeline_failure, pl_outcome): a
	 * manual action that also printed it said it twice */
	tp_err_set(&p->fail, TP_EXIT_ENV, "%s: %.900s", what, why->msg);
}

int pl_outcome(struct pipeline *p, struct tp_err *err)
{
	if (!p->broken)
		return 0;
	if (err)
		*err = p->fail;
	return -1;
}

int pl_events_ready(struct pipeline *p, struct tp_err *err)
{
	if (p->events_ready)
		return 0;
	char *keep = run_keep_dir(&p->st);
	int rc = events_repair(p->st.run_dir, keep, err);
	free(keep);
	p->events_ready = rc == 0;
	return rc;
}

void pl_save(struct pipeline *p)
{
	struct tp_err err;
	p->st.updated = wall_ms();
	tp_crashpoint();
	if (p->lock_lost || run_lock_check(p->st.run_dir, p->lock_fd, &err) < 0) {
		/* Another orchestrator may own the run now: write nothing more. */
		if (!p->lock_lost)
			pl_break(p, "stopping", &err);
		p->lock_lost = true;
		return;
	}
	/* Without a saved state a crash would lose the run: go no further. */
	if (run_state_save(&p->st, &err) < 0)
		pl_break(p, "cannot save the run state, stopping", &err);
	tp_crashpoint();
}

void pl_reopen(struct pipeline *p)
{
	struct run_state *st = &p->st;
	pl_set(&st->final, NULL);
	pl_set(&st->reason, NULL);
	st->contract = VALIDATOR_NOT_RUN;
	st->outcome = OUTCOME_NONE;
	pl_set(&st->outcome_reason, NULL);
	st->status = RUN_RUNNING;
	st->next.set = false;
}

void pl_aborted(struct pipeline *p)
{
	struct attempt *a = pl_cur(p);
	p->aborting = false;
	p->st.status = RUN_ABORTED;
	pl_set(&p->st.reason, "aborted by hand while running");
	pl_save(p);
	pl_emit(p, "run_aborted", NULL, "run aborted; %c%d will be run again on resume", a->stage, a->n);
}

int pl_final_check(struct pipeline *p, struct check_outcome *o)
{
	if (!p->checker)
		return -1;
	struct check_request rq = {p->st.op, p->st.run_dir, p->st.out_root, p->st.workspace, 0, NULL,
				   p->st.offline};
	return p->checker(&rq, o);
}

void check_outcome_free(struct check_outcome *o)
{
	free(o->text);
	free(o->json);
	free(o->summary);
	memset(o, 0, sizeof(*o));
}

static void secret_found(const char *path, const char *name, void *ud)
{
	struct pipeline *p = ud;
	const char *rel = str_starts(path, p->st.run_dir) ? path + strlen(p->st.run_dir) + 1 : path;
	cJSON *f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "file", rel);
	cJSON_AddStringToObject(f, "variable", name);
	fprintf(stderr, "tileport: warning: %s holds the value of %s (left as it is)\n", path, name);
	pl_emit(p, "secret_in_file", f, "%s holds the value of %s; tileport left the file as it is",
		rel, name);
}

void pl_stage_outputs_done(struct pipeline *p, struct attempt *a)
{
	struct tp_err err;
	if (transcript_error(p->tr, &err) < 0)
		pl_break(p, "stopping", &err);
	if (fflush(p->errlog) != 0 || ferror(p->errlog)) {
		char *dir = run_attempt_dir(&p->st, a);
		tp_err_set(&err, TP_EXIT_ENV, "%s/stderr.log: write failed: %s", dir, strerror(errno));
		free(dir);
		pl_break(p, "stopping", &err);
	}
	long long cut = transcript_cut_bytes(p->tr);
	if (cut) {
		cJSON *f = pl_attempt_fields(a);
		cJSON_AddNumberToObject(f, "bytes", (double)cut);
		cJSON_AddNumberToObject(f, "records", (double)transcript_cut_records(p->tr));
		cJSON_AddNumberToObject(f, "limit", (double)p->transcript_max);
		pl_emit(p, "transcript_cut", f, "%c%d's transcript reached its cap of %lld bytes: %lld "
			"bytes in the middle were left out", a->stage, a->n, p->transcript_max, cut);
	}
	redact_scan_tree(p->st.run_dir, a->started, p->secrets, secret_found, p);
}
