/* libFuzzer target for engine/port: any bytes through the Python parser,
 * the lowering of every kernel found, the Rust, FFI and wrapper writers,
 * and the inventory scan of both the written Rust and the raw input read
 * as Rust. Each step either succeeds or reports an error with a message;
 * none may crash, hang or leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/port/inv.h"
#include "engine/port/port.h"

static void scan_rust(const char *src, size_t len)
{
	struct inv_list *lists;
	size_t n = inv_from_rust(src, len, &lists);
	for (size_t i = 0; i < n; i++)
		inv_list_free(&lists[i]);
	free(lists);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *src = malloc(size + 1);
	memcpy(src, data, size);
	src[size] = '\0';
	struct tp_err err = {0};
	struct port_op *op;
	if (port_open_source("fuzz.py", src, size, NULL, "fuzz", &op, &err) == 0) {
		char *rs = port_kernel_rs(op, "fuzz.py");
		scan_rust(rs, strlen(rs));
		free(rs);
		char *json = port_translation_json(op);
		free(json);
		char *host = NULL;
		if (port_ffi_rs(op, &host, &err) == 0)
			free(host);
		host = NULL;
		if (port_wrapper_py(op, "fuzz.py", &host, &err) == 0)
			free(host);
		free(port_launch_contract(op));
		port_close(op);
	} else if (!err.msg[0]) {
		abort(); /* a refusal always says why */
	}
	scan_rust(src, size);
	free(src);
	return 0;
}
