/* The pipeline table (skill/pipeline.json; docs/architecture.md, "The
 * pipeline table"): stages, routing rows, gate settings. Loaded and checked
 * at start; every semantic error names the file and the line of the offending
 * stage or row. */
#ifndef TILEPORT_CORE_TABLE_H
#define TILEPORT_CORE_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#include "engine/base/util.h"

/* A stage is named by one capital letter. What is kept per stage (drivers,
 * validators, repair counts) lives in arrays of STAGE_LETTERS slots indexed
 * by stage_slot(). */
#define STAGE_LETTERS 26
static inline bool stage_letter_ok(char c)
{
	return c >= 'A' && c <= 'Z';
}
static inline int stage_slot(char letter)
{
	return letter - 'A';
}
static inline char stage_at_slot(int slot)
{
	return (char)('A' + slot);
}

enum route_action {
	ROUTE_SPAWN,
	ROUTE_STOP,
	ROUTE_COMPLETE,         /* PIPELINE_COMPLETE */
	ROUTE_OFFLINE_COMPLETE, /* OFFLINE_COMPLETE */
};

enum route_cond_kind {
	COND_NOT_RUN,       /* "not_run X": X has no counted attempt */
	COND_NOT_RESPAWNED, /* "not_respawned X": X has at most one counted attempt */
};

struct route_cond {
	enum route_cond_kind kind;
	char stage;
};

/* Which owner-tag key a verdict is classified by, and its classes. */
struct owner_key {
	char *verdict;
	char *key;      /* "fail_class", "block_class", "owner" */
	char **classes; /* NULL-terminated */
};

struct gate_nonzero {
	char *verdict; /* with this verdict ... */
	char *command; /* ... a `$ cmd` containing this may exit non-zero */
	int exits[4];  /* ... with one of these codes (none listed: any) */
	int nexits;
};

struct stage_def {
	char letter;
	char *name;
	char *agent; /* agent procedure file, relative to the skill dir */
	char **verdicts; /* NULL-terminated, table order */
	char **success;
	int cap;
	int timeout_s, idle_timeout_s;
	bool deferrable; /* may answer DEFERRED offline */
	bool manual;     /* reached only by a manual action (no row spawns it) */
	char *validator; /* "builtin" or a shell command template */
	char *validator_fail_verdict;
	char *verdict_file; /* report whose first line must carry the verdict */
	char *owner_file;
	char *owner_missing; /* class assumed when the tag is absent */
	struct owner_key *owner_keys;
	size_t nowner_keys;
	struct gate_nonzero *nonzero;
	size_t nnonzero;
	char **step0, **prior, **artifacts; /* NULL-terminated templates */
	int line;
};

struct route_row {
	int index; /* 1-based, table order */
	int line;
	char stage;
	int attempt; /* 0: any; 1: first; 2: second or later */
	char **verdicts;
	char *klass; /* NULL: any class */
	struct route_cond *conds;
	size_t nconds;
	bool offline_only;
	enum route_action action;
	char target; /* ROUTE_SPAWN */
};

struct table {
	char *path;
	int schema;
	char *name;
	char first;
	struct stage_def *stages;
	size_t nstages;
	struct route_row *routes;
	size_t nroutes;
	int repairs_per_letter;
	/* gate.missing_owner: what a missing fail_class:/block_class:/owner: tag
	 * does. true ("kernel", the reference SKILL.md): take the stage's
	 * owner.missing class. false ("stop", the default, as the reference
	 * pipeline.md says): ask the person on the screen, else stop the run. */
	bool missing_owner_kernel;
	char **clean_success;
	char **bad_words;
	char *final_validator;
	/* "final": {"accept": {"stage": "E", "verdicts": ["DONE"]}}: a complete
	 * run is accepted when that stage's latest attempt ended with one of
	 * these verdicts and the output contract passed (0: no stage named, the
	 * contract alone decides). */
	char accept_stage;
	char **accept_verdicts;
};

struct table *table_load(const char *path, struct tp_err *err);
void table_free(struct table *t);
/* Path of the table to use: $TILEPORT_TABLE, else DATA_DIR/skill/pipeline.json. */
char *table_default_path(void);

const struct stage_def *table_stage(const struct table *t, char letter);
bool stage_has_verdict(const struct stage_def *s, const char *verdict, bool offline);
bool stage_is_success(const struct stage_def *s, const char *verdict);
/* The owner-tag key for a verdict of this stage, or NULL when the verdict is
 * not classified. */
const struct owner_key *stage_owner_key(const struct stage_def *s, const char *verdict);

/* Condition evaluator supplied by the caller (the run's history). */
typedef bool (*route_cond_fn)(const struct route_cond *c, void *ud);
/* The first row matching; NULL when none does. */
const struct route_row *table_route(const struct table *t, char stage, int attempt,
				    const char *verdict, const char *klass, bool offline,
				    route_cond_fn cond, void *ud);

const char *route_action_name(enum route_action a);
/* "spawn B", "STOP", ... into buf. */
void route_row_action_str(const struct route_row *r, char *buf, size_t n);

void table_print_text(const struct table *t, FILE *out);
char *table_to_json(const struct table *t); /* caller frees */

#endif
