/* Stepping by hand, shared by the pipeline and stage views: re-validate,
 * re-spawn (confirming past the cap), override a verdict (asking for the
 * verdict and a reason), skip (asking for a reason), continue and abort
 * (confirming). Every action is a call into engine/core/pipeline.h, which
 * records it in events.jsonl; the views themselves never spawn or write. */
#ifndef TILEPORT_VIEWS_STEP_H
#define TILEPORT_VIEWS_STEP_H

#include "engine/core/pipeline.h"
#include "views/view.h"

/* What an action applies to: a stage and its attempt (seq 0: none yet). */
struct step_target {
	struct pipeline *p; /* NULL: the run is read-only */
	const char *why_readonly;
	char stage;
	int seq;
};

/* Returns REQ_NONE when req was a stepping action (done, or a prompt is
 * open), else req. */
enum request step_request(struct view *v, const struct step_target *t, enum request req);

#endif
