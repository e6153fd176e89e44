/* libFuzzer target: what tileport compile reads from other programs —
 * cargo's JSON lines, the lowering program's result lines — and the
 * signature reader of kernel files (engine/compile). Nothing may crash,
 * and a finding's place is either absent or a line and column >= 0. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/compile/compile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct compile_finding f;
	if (compile_parse_cargo_line(s, size, NULL, &f) == 1) {
		if (f.line < 0 || f.col < 0 || !f.message || !f.code)
			__builtin_trap();
		compile_finding_free(&f);
	}
	char *id;
	int64_t ms;
	if (compile_parse_lower_line(s, size, &id, &ms, &f) == 0) {
		if (!id || !f.message || (f.file && f.line <= 0))
			__builtin_trap();
		compile_finding_free(&f);
	}
	free(id);
	struct rs_sig *sigs;
	size_t n;
	struct tp_err err = {0};
	if (rs_sigs_read("fuzz.rs", s, size, &sigs, &n, &err) == 0) {
		for (size_t i = 0; i < n; i++)
			if (!sigs[i].name || !sigs[i].module || sigs[i].line <= 0)
				__builtin_trap();
		rs_sigs_free(sigs, n);
	}
	return 0;
}
