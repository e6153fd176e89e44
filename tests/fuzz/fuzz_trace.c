/* libFuzzer target: trace files through the reader and the assignment of
 * operations to configurations. A malformed file fails with a message
 * naming the file and a line; a file read has its operations sorted, and
 * every iteration assigned is a non-negative sum of at least one
 * operation. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/perf/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace t;
	struct tp_err err;
	tp_err_clear(&err);
	if (trace_parse("fuzz.trace", (const char *)data, size, &t, &err) < 0) {
		if (!str_starts(err.msg, "fuzz.trace:"))
			__builtin_trap();
		trace_free(&t);
		return 0;
	}
	for (size_t i = 1; i < t.nops; i++)
		if (t.ops[i - 1].start > t.ops[i].start || t.ops[i].end < t.ops[i].start)
			__builtin_trap();
	/* a small flush threshold makes every memset a flush: both paths */
	uint64_t thresholds[] = {TRACE_FLUSH_BYTES, 1};
	for (int k = 0; k < 2; k++) {
		struct trace_configs c;
		trace_assign(&t, thresholds[k], &c);
		for (size_t i = 0; i < c.n; i++)
			for (size_t j = 0; j < c.v[i].n; j++)
				if (c.v[i].ns[j] < 0 || c.v[i].ops[j] < 1)
					__builtin_trap();
		trace_configs_free(&c);
	}
	trace_free(&t);
	return 0;
}
