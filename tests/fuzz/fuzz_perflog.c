/* libFuzzer target: perf logs through the reader, and what is read through
 * the pairing and the report writer. The reader never fails; every record
 * either has a median or says why not; a report written from any table
 * keeps exactly one geomean_ratio= line. */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine/perf/compare.h"
#include "engine/perf/perflog.h"
#include "engine/perf/perfmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_log log;
	perflog_parse("fuzz.txt", (const char *)data, size, &log);
	for (size_t i = 0; i < log.nrecs; i++) {
		const struct perf_record *r = &log.recs[i];
		if (!r->config || (isnan(r->st.median) && !r->problem))
			__builtin_trap();
		if (r->line < 1)
			__builtin_trap();
	}
	if (log.sections < log.nrecs && log.nrecs && !log.recs[0].backend)
		__builtin_trap();
	perflog_free(&log);

	/* the same bytes as both sides of a comparison */
	int fd = memfd_create("perflog", 0);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		char *files[] = {path, NULL};
		struct perf_table t;
		struct tp_err err;
		if (perf_compare(files, files, NULL, &t, &err) == 0 && t.npaired) {
			struct sbuf md = SBUF_INIT;
			perf_md_write(&t, &md);
			const char *g = strstr(md.buf, "\ngeomean_ratio=");
			if (!g || strstr(g + 1, "\ngeomean_ratio=") || !str_starts(md.buf, "VERDICT: "))
				__builtin_trap();
			sb_free(&md);
		}
		perf_table_free(&t);
	}
	close(fd);
	return 0;
}
