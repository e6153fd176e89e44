/* Redaction throughput (bench/redact.sh): 64 MB of transcript records,
 * three secrets, through the byte-stream redaction (64 KiB reads) and
 * through redact_secrets line by line. Two kinds of text: plain tool
 * output, and output full of backslashes and percent signs, where every
 * escape has to be read. Prints MB/s for each. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/base/redact.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void run(const char *kind, const char *record, char **secrets)
{
	struct sbuf text = SBUF_INIT;
	while (text.len < ((size_t)64 << 20))
		sb_adds(&text, record);
	struct redact_stream rs = {.secrets = secrets};
	struct sbuf out = SBUF_INIT;
	double t0 = now();
	for (size_t at = 0; at < text.len; at += 65536)
		redact_stream_feed(&rs, text.buf + at, text.len - at < 65536 ? text.len - at : 65536, &out);
	redact_stream_flush(&rs, &out);
	double t1 = now();
	for (char *p = text.buf; *p;) {
		char *nl = strchr(p, '\n');
		*nl = '\0';
		free(redact_secrets(p, secrets));
		p = nl + 1;
	}
	double t2 = now();
	printf("%-10s stream %7.1f MB/s   per line %7.1f MB/s\n", kind, (double)text.len / 1e6 / (t1 - t0),
	       (double)text.len / 1e6 / (t2 - t1));
	redact_stream_free(&rs);
	sb_free(&out);
	sb_free(&text);
}

int main(void)
{
	char *secrets[] = {"OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz012345",
			   "ANTHROPIC_API_KEY=sk-ant-api03-zyxwvutsrqponmlkjihgfedcba",
			   "GITHUB_TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyz", NULL};
	run("plain", "{\"type\":\"tool_result\",\"id\":\"call_17\",\"output\":\"exit=0 the kernel compiled; "
		     "all 12 tests passed in 3.2 s, geomean 0.97\"}\n", secrets);
	run("escapes", "{\"type\":\"tool_result\",\"id\":\"call_17\",\"output\":\"exit=0\\n    let x = "
		       "tile.load(ptr, [i, j]) % 4; // 50% \\\\path\\\\to\\\\file\\n\"}\n", secrets);
	return 0;
}
