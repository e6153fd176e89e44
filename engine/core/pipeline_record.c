/* What the orchestrator records and tells: the run's state saved at every
 * step, events appended to events.jsonl and handed to listeners, and the
 * registered checker for the final output contract. The bottom of the
 * pipeline files: it calls none of the others. */
#include "engine/core/pipeline_int.h"

#include <stdarg.h>
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
	if (events_append(p->st.run_dir, type, fields, &ev, &err) < 0)
		fprintf(stderr, "tileport: %s\n", err.msg);
	tp_crashpoint();
	struct pipeline_event e = {.kind = PEV_EVENT, .ev = ev};
	pl_notify(p, &e);
	cJSON_Delete(ev);
}

void pl_save(struct pipeline *p)
{
	struct tp_err err;
	p->st.updated = wall_ms();
	tp_crashpoint();
	if (run_state_save(&p->st, &err) < 0 && !p->broken) {
		/* Without a saved state a crash would lose the run: go no further. */
		p->broken = true;
		fprintf(stderr, "tileport: cannot save the run state, stopping: %s\n", err.msg);
	}
	tp_crashpoint();
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
