/* Requests on one attempt of a run, shared by the pipeline and stage
 * views: stepping by hand (re-validate, re-spawn confirming past the cap,
 * override a verdict asking for the verdict and a reason, skip asking for
 * a reason, continue, abort confirming), and opening the views of an
 * attempt's artifacts (views/views.def entries whose ops name their
 * stages). Every action is a call into engine/core/pipeline.h, which
 * records it in events.jsonl; views never spawn or write themselves. */
#ifndef TILEPORT_VIEWS_ATTEMPT_H
#define TILEPORT_VIEWS_ATTEMPT_H

#include "engine/core/session.h"
#include "views/view.h"

/* What a request applies to: a stage of a run and its attempt (seq 0:
 * none yet; stage 0: no stage selected). */
struct attempt_target {
	struct run_model *m;
	char stage;
	int seq;
};

/* Returns REQ_NONE when req was a stepping action or an attempt view
 * (done, refused with a message, or a prompt is open), else req. */
enum request attempt_request(struct view *v, const struct attempt_target *t, enum request req);

/* Whether req applies to t's run now: the stepping keys do not on a run
 * this screen cannot drive (read-only), skip, continue and abort not on a
 * run that has ended. Other requests always "apply". For the key hints. */
bool attempt_offers(const struct attempt_target *t, enum request req);

/* Open view `id` on attempt a of run m: view_arg run = m, index = a->seq,
 * path = the run directory. */
struct view *attempt_view_open(struct view *from, enum view_id id, struct run_model *m,
			       const struct attempt *a, unsigned flags);

/* Ask for the owner class the live run m waits for (a missing owner tag;
 * engine/core/pipeline.h, pipeline_set_owner): the class, then a reason.
 * Nothing when it waits for none. */
void attempt_ask_owner(struct view *v, struct run_model *m);

/* The line type a run's outcome is drawn in (the runs view, the pipeline
 * view's title and its run_finished event): the theme colours it. */
enum line_type outcome_line_type(enum run_outcome o);

#endif
