/* libFuzzer target: a run directory's own files, as a crash or a person
 * may leave them. The input is written as both state.json and events.jsonl
 * of one run; loading the state, following the log and mending its tail
 * must each succeed or fail with a message, never crash, leak or lose a
 * complete event line. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cJSON.h>

#include "engine/base/files.h"
#include "engine/core/events.h"
#include "engine/core/run.h"

static char *run_dir;

static void put(const char *name, const uint8_t *data, size_t size)
{
	char *p = run_path(run_dir, name);
	write_file(p, data, size, NULL);
	free(p);
}

/* Complete lines that parse as objects: the repair must keep every one. */
static int whole_events(void)
{
	long long off = 0;
	cJSON *arr = cJSON_CreateArray();
	events_read_more(run_dir, &off, arr, NULL);
	int n = cJSON_GetArraySize(arr);
	cJSON_Delete(arr);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!run_dir) {
		char tmpl[] = "/tmp/fuzz-run-XXXXXX";
		run_dir = xstrdup(mkdtemp(tmpl));
		char *tp = path_join(run_dir, ".tileport");
		mkdir_p(tp, 0755, NULL);
		free(tp);
	}
	put("state.json", data, size);
	put("events.jsonl", data, size);
	struct run_state st;
	struct tp_err err;
	if (run_state_load(run_dir, &st, &err) == 0)
		run_state_free(&st);
	int before = whole_events();
	if (events_repair(run_dir, run_dir, &err) == 0 && whole_events() < before)
		abort(); /* the repair lost a complete event */
	return 0;
}
