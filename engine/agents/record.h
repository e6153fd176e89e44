/* The transcript a built-in driver writes on stdout (engine/core/transcript.h
 * lists the records), one JSON object per line, flushed as it goes so the
 * pipeline panel moves live. Every line passes the secret filter first:
 * the values of the environment's secret variables and of keys read from
 * files never leave this process.
 *
 * Besides the core records, drivers write
 *   {"type":"retry","attempt":N,"of":M,"delay_ms":D,"status":S,"message":..}
 *   {"type":"handover","from":D1,"to":D2,"reason":..,"verdict":..}
 * and usage records carry "model" and cache counts when known. */
#ifndef TILEPORT_AGENTS_RECORD_H
#define TILEPORT_AGENTS_RECORD_H

#include <cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#include "engine/base/util.h"

struct usage {
	long long tokens_in;  /* every input token, cached ones included */
	long long tokens_out;
	long long cache_read, cache_write;
	double cost;          /* USD; 0 when unknown */
	const char *model;
};

struct recorder {
	FILE *f;
	char **secrets;     /* NAME=VALUE entries hidden as ${NAME} */
	char *final;        /* the final message, once given */
	bool hold_final;    /* keep the final for the chain to decide */
	long long tokens_in, tokens_out;
	double cost;
	int tool_calls;
};

void recorder_init(struct recorder *r, FILE *f);
/* Hide value too (a key read from a file), shown as ${name}. */
void recorder_secret(struct recorder *r, const char *name, const char *value);
void recorder_free(struct recorder *r);

/* The record as given (its "type" set by the caller); takes o. */
void rec_emit(struct recorder *r, cJSON *o);
void rec_start(struct recorder *r, const char *driver, const char *model, const char *version);
void rec_text(struct recorder *r, const char *text);
void rec_tool_call(struct recorder *r, const char *id, const char *name, const char *args_json);
void rec_tool_result(struct recorder *r, const char *id, const char *output, bool is_error);
void rec_usage(struct recorder *r, const struct usage *u);
void rec_error(struct recorder *r, const char *fmt, ...) TP_PRINTF(2, 3);
void rec_retry(struct recorder *r, int attempt, int of, int64_t delay_ms, long status, const char *why);
void rec_handover(struct recorder *r, const char *from, const char *to, const char *reason,
		  const char *verdict);
/* The final message: written now, or kept when hold_final is set. */
void rec_final(struct recorder *r, const char *text);
/* Write the kept final message. */
void rec_commit_final(struct recorder *r);

#endif
