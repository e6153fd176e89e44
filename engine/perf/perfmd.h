/* reports/performance.md, stage E's report, in the reference shape that
 * validate_agent_e.sh checks: first line `VERDICT: DONE|INVESTIGATE`, the
 * table `| Config | baseline (ms) | cutile-rs (ms) | ratio | verdict |`,
 * exactly one `geomean_ratio=X.XXXX` line, `Geo-mean ratio: X.XXx`,
 * `Severity: ...`; then tileport's notes (docs/formats.md). And the same
 * table as JSON. */
#ifndef TILEPORT_PERF_PERFMD_H
#define TILEPORT_PERF_PERFMD_H

#include <stdbool.h>

#include "engine/base/util.h"
#include "engine/perf/compare.h"

/* The report of a table with at least one paired row (npaired > 0; a table
 * without any is stage E's BLOCKED, which has no geomean to write). */
void perf_md_write(const struct perf_table *t, struct sbuf *out);

/* Read a performance.md: its rows, geomean, verdict and severity as
 * written, with noise, samples and kernels per iteration filled in from
 * the perf logs its Inputs line (or its run directory) names, when they
 * are there. The table is always initialised; free it even after -1. -1
 * with err (exit 2, naming file and line) when it is not a report. */
int perf_md_read(const char *path, struct perf_table *t, struct tp_err *err);
/* Whether a file looks like a performance.md (first line VERDICT:, a
 * geomean_ratio= line), for `tileport open FILE`. */
bool perf_md_sniff(const char *path);

/* The table as a JSON document (docs/formats.md). Caller frees. */
char *perf_table_json(const struct perf_table *t);
struct cJSON;
/* The same as a cJSON tree, to embed (cJSON_Delete it). */
struct cJSON *perf_table_cjson(const struct perf_table *t);
/* Print a cJSON tree indented and delete it. Caller frees. */
char *perf_json_take(struct cJSON *o);

#endif
