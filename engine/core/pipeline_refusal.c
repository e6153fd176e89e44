/* A driver's refusal: a reply with an `unsupported:` line says the driver
 * cannot do this operator's stage, at FILE:LINE:COL, naming the construct.
 * From a driver without a model (mech) the same input gets the same reply,
 * so nothing runs it again: no repair retry, no respawn, no advice that
 * would repeat it. The run stops with the reason and with what would finish
 * the job (a driver for the stages left, and how to give one). Below the
 * attempt (pipeline_stage.c), beside routing (pipeline_route.c). */
#include "engine/core/pipeline_int.h"

#include <stdlib.h>
#include <string.h>

/* Is driver `name` the built-in one the attempt ran (not an exec: command
 * claiming a name in its transcript) and deterministic? */
static bool deterministic(const struct pipeline *p, const struct attempt *a, const char *name)
{
	if (!name || !p->catalog || !p->catalog->deterministic || !p->catalog->deterministic(name))
		return false;
	struct driver d;
	if (!a->driver || driver_parse(a->driver, p->catalog, &d, NULL) < 0)
		return false;
	bool ran = false;
	for (size_t i = 0; d.kind == DRIVER_BUILTIN && d.chain && d.chain[i] && !ran; i++)
		ran = !strcmp(d.chain[i], name);
	driver_free(&d);
	return ran;
}

/* The first "FAIL [rule] ..." line of a reply's validator block: what a
 * deterministic driver's own check found wrong with what it made. */
static char *first_fail(const char *reply)
{
	for (const char *l = reply; l && *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		if (n > 6 && !strncmp(l, "FAIL [", 6))
			return xstrndup(l, n);
		l = nl ? nl + 1 : NULL;
	}
	return NULL;
}

void pl_note_refusal(struct pipeline *p, struct attempt *a, const char *reply, const char *verdict,
		     const char *driver)
{
	pl_set(&a->refusal, NULL);
	pl_set(&a->refused_by, NULL);
	char *u = verdict_unsupported(reply);
	bool det = deterministic(p, a, driver);
	if (u) {
		const char *what = u + strlen("unsupported:");
		what += strspn(what, " \t");
		pl_set(&a->refusal, *what ? what : "(no reason given)");
		if (det)
			pl_set(&a->refused_by, driver);
		free(u);
		return;
	}
	/* Without an unsupported: line, a failing reply of a driver without a
	 * model fails the same way again: the same, as far as re-running goes. */
	const struct stage_def *s = table_stage(p->table, a->stage);
	bool failed = verdict && strcmp(verdict, "DEFERRED") != 0 && !stage_is_success(s, verdict);
	if (!det || !failed)
		return;
	char *fail = first_fail(reply);
	char *why = fail ? fail : xasprintf("its reply was %s", verdict);
	pl_set(&a->refusal, why);
	pl_set(&a->refused_by, driver);
	free(why);
}

void pl_refusal_gate(const struct attempt *a, struct gate_result *g)
{
	if (!a->refused_by || g->outcome != GATE_REPAIR)
		return;
	/* The failing command in its block is the refusal itself: an honest
	 * reply, which a repair retry would only repeat. */
	g->outcome = GATE_ACCEPT;
	snprintf(g->reason, sizeof(g->reason), "a %s by %s, which has no model: no repair retry, the "
					       "same input gets the same reply",
		 str_starts(a->refusal, "FAIL [") ? "failing reply" : "refusal", a->refused_by);
}

/* The stages from a's on that the run still needs and that the refusing
 * driver alone would do: "A, B, D". */
static void stages_left(const struct pipeline *p, const struct attempt *a, struct sbuf *out)
{
	bool from = false;
	for (size_t i = 0; i < p->table->nstages; i++) {
		const struct stage_def *s = &p->table->stages[i];
		from |= s->letter == a->stage;
		if (!from || s->manual || (p->st.offline && !s->deferrable))
			continue;
		const char *spec = p->st.drivers[stage_slot(s->letter)];
		if (s->letter == a->stage || (spec && !strcmp(spec, a->refused_by)))
			sb_printf(out, "%s%c", out->len ? ", " : "", s->letter);
	}
}

char *pl_refusal_reason(struct pipeline *p, const struct attempt *a)
{
	struct sbuf sb = SBUF_INIT, left = SBUF_INIT, why = SBUF_INIT;
	stages_left(p, a, &left);
	bool several = strchr(sb_str(&left), ',') != NULL;
	sb_printf(&sb, "%c%d: %s cannot do stage %c of %s: %s; it has no model, so running it again "
		       "would end the same way. What would finish the job: an agent driver for stage%s %s",
		  a->stage, a->n, a->refused_by, a->stage, p->st.op, a->refusal, several ? "s" : "",
		  sb_str(&left));
	sb_printf(&sb, ": give one with --driver X=claude|codex|llm|exec:COMMAND or 'driver.X = ...' in the "
		       "config (docs/agents.md), then 'tileport run %s --fresh'", p->st.op);
	char *def = p->catalog && p->catalog->choose
			    ? p->catalog->choose(a->stage, p->st.op, p->st.workspace, p->st.offline, &why)
			    : NULL;
	if (def && strcmp(def, a->refused_by) != 0)
		sb_printf(&sb, " (usable here: '%s', the default when no --driver names one)", def);
	else if (why.len)
		sb_printf(&sb, " (none is usable here: %s)", sb_str(&why));
	free(def);
	sb_free(&left);
	sb_free(&why);
	return sb_detach(&sb);
}
