/* libFuzzer target for the Tile IR text parser and printer: any input
 * either fails cleanly or parses into a module whose canonical text parses
 * back into an equal module and prints identically. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/ir/ir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tp_err err;
	tp_err_clear(&err);
	struct ir_module *m = ir_text_parse("fuzz.mlir", (const char *)data, size, &err);
	if (!m) {
		if (!err.msg[0])
			abort(); /* a failure must say why */
		return 0;
	}
	char *t1 = ir_module_to_string(m, IR_PRINT_DEBUGINFO);
	struct ir_module *m2 = ir_text_parse("fuzz2.mlir", t1, strlen(t1), &err);
	if (!m2 || !ir_module_equal(m, m2))
		abort();
	char *t2 = ir_module_to_string(m2, IR_PRINT_DEBUGINFO);
	if (strcmp(t1, t2) != 0)
		abort();
	free(t1);
	free(t2);
	ir_module_free(m2);
	ir_module_free(m);
	return 0;
}
