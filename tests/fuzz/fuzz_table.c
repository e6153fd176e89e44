/* libFuzzer target: pipeline tables and config files through their loaders.
 * Loading must either succeed or fail with a message naming the file and a
 * line; it must never crash or leak. */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "engine/base/config.h"
#include "engine/core/table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("table", 0);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct tp_err err;
	struct table *t = table_load(path, &err);
	if (t) {
		char *json = table_to_json(t);
		free(json);
		table_free(t);
	} else if (!strstr(err.msg, path)) {
		__builtin_trap(); /* every error names the file */
	}
	struct config c = {0};
	config_load_file(&c, path, &err);
	config_free(&c);
	close(fd);
	return 0;
}
