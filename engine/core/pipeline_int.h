/* Internals shared by the orchestrator's files. Not a public header. */
#ifndef TILEPORT_CORE_PIPELINE_INT_H
#define TILEPORT_CORE_PIPELINE_INT_H

#include <stdio.h>
#include <string.h>

#include "engine/core/driver.h"
#include "engine/base/lines.h"
#include "engine/core/pipeline.h"
#include "engine/base/proc.h"
#include "engine/core/transcript.h"
#include "engine/core/verdict.h"

struct listener {
	pipeline_listener fn;
	void *ud;
};

struct pipeline {
	struct loop *loop;
	pipeline_checker checker;
	const struct driver_catalog *catalog;
	struct table *table;
	struct run_state st;
	int lock_fd;
	char *skill_dir;
	int64_t grace_ms;
	struct listener *ls;
	size_t nls;

	/* the attempt being run */
	int cur_seq;
	struct proc *proc;
	struct transcript *tr;
	FILE *errlog;
	struct lines errlines; /* stderr, cut into lines as transcripts are */
	struct sbuf errtail;   /* its last lines, for when it fails */
	char **secrets; /* secret NAME=VALUE entries hidden from transcripts and logs */
	struct redact_stream errred; /* the stage's stderr, redacted as it comes */
	long long transcript_max;    /* cap of a transcript's size (0: none) */
	bool aborting;
	int64_t meter_saved; /* when a usage change was last saved */
	bool chosen[STAGE_LETTERS]; /* drivers taken by default, for the drivers event */

	/* a command validator running for attempt vseq */
	struct proc *vproc;
	struct sbuf vout;
	int vseq;
	bool vmanual; /* a re-validation by hand: it records, it does not route */

	int outside_seq; /* the attempt already run again after a kill from outside */

	uint64_t step_timer;
	bool started;
	bool go_once;   /* hold mode: one spawn allowed by continue */
	bool broken;    /* state or events could not be saved: spawn nothing more */
	bool lock_lost; /* .tileport was replaced under our lock: write nothing */
	struct tp_err fail; /* why the run is broken */
	bool events_ready; /* events.jsonl checked (events_repair) by this process */
	int rerun_seq;  /* attempt interrupted by a crash, to run again */
	int rejudge_seq; /* attempt whose judged reply is still to be validated and routed */
	bool reroute;   /* resume found a result without its routing */
	bool ask;       /* a person answers questions (pipeline_opts.ask) */
};

/* The files call downwards only: pipeline.c and pipeline_manual.c (what
 * the API and a person ask for) -> pipeline_stage.c (one attempt, and the
 * step that starts the next) -> pipeline_route.c (what comes next) ->
 * pipeline_record.c (state, events, listeners). */

/* pipeline_record.c */
void pl_set(char **field, const char *value);
struct attempt *pl_cur(struct pipeline *p);
cJSON *pl_attempt_fields(const struct attempt *a);
/* Append an event to events.jsonl and tell the listeners. */
void pl_emit(struct pipeline *p, const char *type, cJSON *fields, const char *fmt, ...) TP_PRINTF(4, 5);
void pl_notify(struct pipeline *p, const struct pipeline_event *e);
void pl_save(struct pipeline *p);
/* A write the run depends on failed: say why once, spawn nothing more. */
void pl_break(struct pipeline *p, const char *what, const struct tp_err *why);
/* 0, or -1 with the reason when the run broke (a manual action's result). */
int pl_outcome(struct pipeline *p, struct tp_err *err);
/* Mend events.jsonl once before this process first appends to it (a run
 * that goes on); -1 with err when it cannot be mended or written. */
int pl_events_ready(struct pipeline *p, struct tp_err *err);
/* A finished run goes on (an override, a re-spawn, resume --online): no
 * end state, contract or outcome until it ends again. */
void pl_reopen(struct pipeline *p);
/* The abort of a running attempt took effect: save it as interrupted. */
void pl_aborted(struct pipeline *p);
/* A stage's outputs are complete (before the transcript closes): a failed
 * write breaks the run, a cut transcript and secrets in files the agent
 * left in the run directory are recorded as events. */
void pl_stage_outputs_done(struct pipeline *p, struct attempt *a);
/* The final output contract through the run's checker; -1 when none. */
int pl_final_check(struct pipeline *p, struct check_outcome *o);

/* pipeline_recover.c: what resume repairs */
/* Append the events of transitions state.json has and events.jsonl lacks. */
void pl_reconcile_events(struct pipeline *p);
/* Take up the interrupted attempt: a judged reply is validated and routed
 * (rejudge_seq), a running one killed and run again (rerun_seq), a result
 * without its routing routed (reroute). Emits run_resumed. */
void pl_recover_attempt(struct pipeline *p);
/* Before an interrupted attempt runs again: what it left in its stage's
 * artifact paths goes to its folder's partial/. */
void pl_move_partial(struct pipeline *p, struct attempt *a);

/* pipeline_route.c */
/* Route a's result by the table and save it. Returns true when another
 * stage is due (the caller schedules it), false when the run ended. */
bool pl_route(struct pipeline *p, struct attempt *a);
void pl_finish(struct pipeline *p, const char *final, const char *reason);
/* a ends the run STOP without a table row (no owner and nobody to ask, a
 * deterministic refusal, a driver that could not start): saved, then
 * logged as its `routed` event ("route D1 FAIL -> STOP (how)", extra's
 * fields added; extra is taken) and the run's end, like any route, so that
 * a resume finds every event it expects. */
void pl_stop_attempt(struct pipeline *p, struct attempt *a, const char *how, const char *reason, cJSON *extra);

/* pipeline_refusal.c */
/* Record a's refusal from its reply's `unsupported:` line (a->refusal), and
 * the driver that gave the reply (transcript_driver) as a->refused_by when
 * it is deterministic and the attempt ran it as a built-in; a failing
 * verdict of such a driver without that line is recorded too (its first
 * FAIL line), since running it again fails the same way. */
void pl_note_refusal(struct pipeline *p, struct attempt *a, const char *reply, const char *verdict,
		     const char *driver);
/* A deterministic refusal is no reply to repair: the gate accepts it. */
void pl_refusal_gate(const struct attempt *a, struct gate_result *g);
/* Why the run stops on a's deterministic refusal, with what would finish
 * the job (an agent driver for the stages left, how to give one). */
char *pl_refusal_reason(struct pipeline *p, const struct attempt *a);

/* pipeline_owner.c */
/* Owner class of a's verdict: from its report's tag; for an overruled
 * success claim, from what failed the validator; a missing tag is the
 * table's gate.missing_owner (kernel: guessed, stop: a->owner_unknown). */
void pl_classify(struct pipeline *p, struct attempt *a);

/* pipeline_stage.c */
/* Take the next step on the loop (never inline). */
void pl_schedule(struct pipeline *p);
/* Run attempt a again under its number on the next step (resume's
 * interrupted attempt, a stage killed from outside). */
void pl_rerun(struct pipeline *p, struct attempt *a);
/* An attempt record for st.next (numbered, counted); clears st.next. */
struct attempt *pl_new_attempt(struct pipeline *p);
/* Run the stage's own validator for `a` on the loop: after a stage (then
 * route), or by hand (record the result, route nothing). */
void pl_validate(struct pipeline *p, struct attempt *a, bool manual);
/* An attempt's reply (text, taken over) through the gate, the validator
 * and routing (pipeline_judge.c). */
void pl_judge_reply(struct pipeline *p, struct attempt *a, char *text, const struct proc_status *st,
		    const char *driver);
/* The toolchain steps attempt a still owes (deferred offline, not done
 * since); NULL-terminated, caller frees (pipeline_judge.c). */
char **pl_owed_steps(struct pipeline *p, const struct attempt *a);
/* The environment of a stage's processes: the agent and its validator. */
char **pl_stage_env(struct pipeline *p, const struct attempt *a);
/* The last line of a stderr tail (NULL for none). */
static inline const char *pl_last_line(const char *tail)
{
	const char *nl = tail ? strrchr(tail, '\n') : NULL;
	return nl ? nl + 1 : tail;
}
void pl_kill_leftover(const struct attempt *a);

#endif
