/* libFuzzer target: agent CLI output through the claude (stream-json) and
 * codex (exec --json) mappers, line by line, as the drivers feed them. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/agents/claude.h"
#include "engine/agents/codex.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *sink = fopen("/dev/null", "w");
	if (!sink)
		return 0;
	struct recorder rec;
	recorder_init(&rec, sink);
	struct prices p;
	prices_load(&p, NULL, NULL);
	struct claude_map cm;
	struct codex_map xm;
	claude_map_init(&cm, &rec, &p);
	codex_map_init(&xm, &rec, &p);
	const char *text = (const char *)data;
	for (size_t i = 0; i < size;) {
		const char *nl = memchr(text + i, '\n', size - i);
		size_t n = nl ? (size_t)(nl - (text + i)) : size - i;
		claude_map_line(&cm, text + i, n);
		codex_map_line(&xm, text + i, n);
		i += n + 1;
	}
	/* the meter only ever counts up */
	if (rec.tokens_in < 0 || rec.tokens_out < 0 || rec.cost < 0 || cm.tin < 0 || cm.cost < 0)
		__builtin_trap();
	claude_map_free(&cm);
	codex_map_free(&xm);
	prices_free(&p);
	recorder_free(&rec);
	fclose(sink);
	return 0;
}
