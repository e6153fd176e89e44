/* Reading what an agent returned (pipeline.md §2): the VERDICT line, the
 * <VALIDATOR_OUTPUT> block with its `$ cmd` lines and exit codes, the
 * optional <PERF_LOG> block, the offline `deferred:` line, and owner tags
 * in report files. Tolerant of noise (markdown decoration, CRLF, very long
 * lines, a missing closer); strict on meaning. Also the mechanical
 * acceptance gate that decides whether a returned block can be routed. */
#ifndef TILEPORT_CORE_VERDICT_H
#define TILEPORT_CORE_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/core/run.h"
#include "engine/core/table.h"
#include "engine/base/util.h"

struct verdict_cmd {
	char *command; /* text after "$ " */
	char *output;  /* lines between the command and its exit line */
	bool has_exit;
	int exit;
};

struct verdict_kv {
	char *key, *value;
};

struct verdict_reply {
	char *verdict;      /* NULL when no VERDICT line was found */
	int verdict_line;   /* 1-based line in the reply */
	bool enumerated;    /* the verdict is in the vocabulary given */
	bool trailing_text; /* something other than blank lines follows it */

	bool has_block;    /* <VALIDATOR_OUTPUT> seen */
	bool block_closed; /* </VALIDATOR_OUTPUT> seen */
	struct verdict_cmd *cmds;
	size_t ncmds;
	int exits;   /* parseable exit=/exit_code= values in the block */
	int nonzero; /* of which non-zero */

	bool has_perf_log;
	struct verdict_kv *perf;
	size_t nperf;

	char **deferred; /* items of a `deferred:` line, NULL-terminated or NULL */
};

/* Parse `text`. `vocab` (NULL-terminated, may be NULL) decides which
 * VERDICT line counts: the first one after the block whose value is in the
 * vocabulary, then the first such line anywhere, then the first VERDICT
 * line at all (enumerated = false). */
void verdict_parse(const char *text, size_t len, char *const *vocab, struct verdict_reply *out);
void verdict_reply_free(struct verdict_reply *r);
/* The first line of a reply that begins "unsupported:" (leading blanks
 * skipped), whole: how a driver says it cannot do this operator's stage
 * ("unsupported: FILE:LINE:COL: construct"). NULL when none; caller frees. */
char *verdict_unsupported(const char *text);

struct gate_result {
	enum gate_outcome outcome; /* GATE_ACCEPT, GATE_ACCEPT_SOFT_MISSING or GATE_REPAIR */
	char reason[256];
};

/* The mechanical acceptance gate (pipeline.md §2, steps 1-5) for a reply
 * of stage `s`. Offline, DEFERRED is part of the vocabulary. */
void verdict_gate(const struct table *t, const struct stage_def *s, const struct verdict_reply *r,
		  const char *text, bool offline, struct gate_result *out);

/* Read an owner tag ("fail_class", "block_class", "owner") from a report:
 * the first line of the form `key: value`, allowing markdown decoration.
 * Returns the lower-cased value, or NULL when absent or empty. */
char *owner_tag_read(const char *path, const char *key);

/* The verdict on the first line of a report ("VERDICT: X"), or NULL. */
char *report_first_verdict(const char *path);

#endif
