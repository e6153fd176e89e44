/* The run's event log, .tileport/events.jsonl (docs/architecture.md, "The
 * run directory"): one JSON object per line, append-only, each with "ts"
 * (ISO 8601 UTC), "t" (ms since the epoch), "type" and the event's fields.
 * The TUI can replay a run from it. A crash can leave a torn last line;
 * readers skip it and events_repair() cuts it off before new events are
 * appended. */
#ifndef TILEPORT_CORE_EVENTS_H
#define TILEPORT_CORE_EVENTS_H

#include <cJSON.h>
#include <stddef.h>

#include "engine/core/util.h"

/* Append one event; takes ownership of `fields` (may be NULL). The object
 * written is returned through `written` when non-NULL (caller deletes). */
int events_append(const char *run_dir, const char *type, cJSON *fields, cJSON **written,
		  struct tp_err *err);
/* Cut a torn trailing line left by a crash. */
int events_repair(const char *run_dir);
/* Read the log, and follow it: append to `into` (a cJSON array) the complete lines from
 * byte *offset on and move *offset past the last of them; a line still
 * being written stays for the next call. Returns how many were added, or
 * -1 when the file cannot be read (a missing file adds none). */
int events_read_more(const char *run_dir, long long *offset, cJSON *into, struct tp_err *err);

#endif
