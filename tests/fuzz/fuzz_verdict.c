/* libFuzzer target: agent replies through the verdict parser and the
 * acceptance gate, and report files through the owner-tag reader. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine/core/table.h"
#include "engine/core/verdict.h"

static char *vocab[] = {"ALL_PASS", "FAIL", "BLOCKED", NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct verdict_reply r;
	verdict_parse((const char *)data, size, vocab, &r);
	/* invariants the gate relies on */
	if (r.nonzero > r.exits || (r.verdict && r.verdict_line <= 0))
		__builtin_trap();
	for (size_t i = 0; i < r.ncmds; i++)
		if (r.cmds[i].command && strchr(r.cmds[i].command, '\n'))
			__builtin_trap();
	verdict_reply_free(&r);

	int fd = memfd_create("report", 0);
	if (fd >= 0) {
		if (write(fd, data, size) == (ssize_t)size) {
			char path[64];
			snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
			free(owner_tag_read(path, "fail_class"));
			free(report_first_verdict(path));
		}
		close(fd);
	}
	return 0;
}
