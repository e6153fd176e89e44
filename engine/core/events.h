/* The run's event log, .tileport/events.jsonl (docs/architecture.md, "The
 * run directory"): one JSON object per line, append-only, each with "ts"
 * (ISO 8601 UTC), "t" (ms since the epoch), "type" and the event's fields.
 * The TUI can replay a run from it. A crash can leave a torn last line;
 * readers skip it and events_repair() mends it before new events are
 * appended by a run that goes on (docs/reliability.md, "Crash resume"). */
#ifndef TILEPORT_CORE_EVENTS_H
#define TILEPORT_CORE_EVENTS_H

#include <cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#include "engine/base/util.h"

/* Append one event; takes ownership of `fields` (may be NULL). The object
 * written is returned through `written` when non-NULL (caller deletes). */
int events_append(const char *run_dir, const char *type, cJSON *fields, cJSON **written,
		  struct tp_err *err);
/* Mend the end of the log before a run that goes on appends to it. A last
 * line that is a whole event and lacks only its newline gets one; a torn
 * fragment (the start of an event, or a crash's zero-filled tail) is cut
 * off and kept in keep_dir/events-torn.jsonl; anything else (a carriage
 * return anywhere: CRLF or CR line endings; a last line that is no event)
 * is refused, naming the byte offset, and the file is left as it is.
 * Also checks that the log can be appended to. 0, or -1 with err set.
 * (Readers take CRLF lines as they come; only appending refuses them.) */
int events_repair(const char *run_dir, const char *keep_dir, struct tp_err *err);
/* Whether the log needs no mending: missing, empty, or ending with a
 * newline (a regular file; anything else is not whole). */
bool events_whole(const char *run_dir);
/* Read the log, and follow it: append to `into` (a cJSON array) the complete lines from
 * byte *offset on and move *offset past the last of them; a line still
 * being written stays for the next call. Returns how many were added, or
 * -1 when the file cannot be read (a missing file adds none). */
int events_read_more(const char *run_dir, long long *offset, cJSON *into, struct tp_err *err);

#endif
