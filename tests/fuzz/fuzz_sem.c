/* libFuzzer target for engine/sem: an input is a Python source, a Rust
 * kernel and a launcher, separated by lines "\n#---\n" (missing parts are
 * empty); the semantic check reads and compares them, the input as Rust
 * alone goes through the Rust reader, and the report is written as text
 * and JSON. Each step either succeeds or reports an error with a message;
 * none may crash, hang or leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/sem/sem.h"

static const char *part(const char *s, const char *end, const char **next)
{
	const char *sep = memmem(s, (size_t)(end - s), "\n#---\n", 6);
	*next = sep ? sep + 6 : end;
	return sep ? sep : end;
}

static void run(const char *py, size_t pl, const char *rs, size_t rl, const char *ffi, size_t fl)
{
	struct sem_input in = {"fuzz.py", py, pl, "fuzz.rs", rs, rl, fl ? ffi : NULL, fl};
	struct sem_report r;
	struct tp_err err = {0};
	if (sem_check(&in, &r, &err) == 0) {
		free(sem_report_text(&r, "fuzz.py", "fuzz.rs"));
		free(sem_report_json(&r, "fuzz.py", "fuzz.rs"));
		sem_verdict(&r);
	} else if (!err.msg[0]) {
		abort(); /* an error always says what */
	}
	sem_report_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *src = malloc(size + 1);
	memcpy(src, data, size);
	src[size] = '\0';
	const char *end = src + size, *next;
	const char *py = src, *py_end = part(py, end, &next);
	const char *rs = next, *rs_end = rs < end ? part(rs, end, &next) : end;
	const char *ffi = next, *ffi_end = ffi < end ? part(ffi, end, &next) : end;
	/* NUL-terminated copies: the readers take text */
	char *p = strndup(py, (size_t)(py_end - py));
	char *r = strndup(rs, (size_t)(rs_end - rs));
	char *f = strndup(ffi, (size_t)(ffi_end - ffi));
	run(p, strlen(p), r, strlen(r), f, strlen(f));
	/* the whole input as both sides */
	run(src, size, src, size, NULL, 0);
	free(p);
	free(r);
	free(f);
	free(src);
	return 0;
}
