/* An agent's transcript (docs/architecture.md, "Agent transcripts").
 * Drivers write JSON lines on stdout:
 *   {"type":"start", ...}            {"type":"text","text":"..."}
 *   {"type":"tool_call","id":..,"name":..,"input":{..}}
 *   {"type":"tool_result","id":..,"output":"..","is_error":false}
 *   {"type":"usage","tokens_in":N,"tokens_out":N,"cost":X}   (increments)
 *   {"type":"error","message":"..."} {"type":"final","text":"..."}
 * A driver whose first non-blank line is not such an object is plain text:
 * its whole stdout is the final message. Either way the attempt's
 * transcript.jsonl holds JSON lines, ending with a "final" record; one
 * that tileport made of the text records before it (plain text, or a
 * stream without its own final) says "gathered": true. */
#ifndef TILEPORT_CORE_TRANSCRIPT_H
#define TILEPORT_CORE_TRANSCRIPT_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/base/util.h"

struct transcript;

typedef void (*transcript_line_cb)(const char *line, size_t n, void *ud);

struct transcript *transcript_open(const char *path, struct tp_err *err);
/* Hide these secret values (NAME=VALUE entries, see env_secrets) in the raw
 * bytes before they are cut into lines, and in the decoded strings of every
 * JSON record, before anything is written or passed on; the list is
 * borrowed. */
void transcript_redact(struct transcript *t, char *const *secrets);
/* Cap the file at about max_bytes (0: no cap): a head is written as it
 * comes, a tail is kept and written at the end after a "cut" record that
 * says how much was left out between them, and the final record keeps the
 * end of the reply. */
void transcript_limit(struct transcript *t, long long max_bytes);
/* Feed raw stdout bytes; `cb` (may be NULL) sees every complete line. */
void transcript_feed(struct transcript *t, const char *data, size_t n, transcript_line_cb cb, void *ud);
/* End of stdout: flush a partial line and write the final record. */
void transcript_finish(struct transcript *t, transcript_line_cb cb, void *ud);
void transcript_close(struct transcript *t);
/* 0, or -1 when a write to the file failed (a full disk): the transcript
 * is incomplete, and err says why. */
int transcript_error(const struct transcript *t, struct tp_err *err);
/* What the cap left out (0 when nothing). */
long long transcript_cut_bytes(const struct transcript *t);
long long transcript_cut_records(const struct transcript *t);

const char *transcript_final(const struct transcript *t); /* "" when none */
/* The built-in driver that gave the final reply: the last "start" record's
 * driver, or the "to" of a "handover" after it; NULL for other drivers. */
const char *transcript_driver(const struct transcript *t);
long long transcript_tokens_in(const struct transcript *t);
long long transcript_tokens_out(const struct transcript *t);
double transcript_cost(const struct transcript *t);

#endif
