/* libFuzzer target for engine/port: any bytes through the Python parser,
 * the lowering of every kernel found, the Rust, FFI and wrapper writers,
 * and the semantic check (engine/sem) of the source against the Rust it
 * was translated to and against the raw input read as Rust. Each step
 * either succeeds or reports an error with a message; none may crash,
 * hang or leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/port/port.h"
#include "engine/sem/sem.h"

static void check(const char *py, size_t pl, const char *rs, size_t rl)
{
	struct sem_input in = {"fuzz.py", py, pl, "fuzz.rs", rs, rl, NULL, 0};
	struct sem_report r;
	struct tp_err err = {0};
	if (sem_check(&in, &r, &err) != 0 && !err.msg[0])
		abort();
	sem_report_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *src = malloc(size + 1);
	memcpy(src, data, size);
	src[size] = '\0';
	struct tp_err err = {0};
	struct port_op *op;
	/* per kernel: a whole translation is a partial one without refusals */
	if (port_open_source_partial("fuzz.py", src, size, "fuzz", &op, &err) == 0) {
		if (port_refused(op, NULL))
			free(port_partial_summary(op, "kernel.rs"));
		char *rs = port_kernel_rs(op, "fuzz.py");
		check(src, size, rs, strlen(rs));
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
	check(src, size, src, size);
	free(src);
	return 0;
}
