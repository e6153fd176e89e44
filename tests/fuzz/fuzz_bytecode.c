/* libFuzzer target for the Tile IR bytecode reader: any input either fails
 * with a message naming the offset, or decodes into tables that both
 * printers (the bytecode printer and the shared model's) print without
 * fault. (A decodable file may still break the verifier's rules, e.g. a loop
 * variable whose type differs from its bounds, so the printed text need not
 * parse back; the unit tests check that round trip on valid files.) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/ir/bytecode.h"
#include "engine/ir/ir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tp_err err;
	tp_err_clear(&err);
	struct bc_module *bm = bc_decode(data, size, "fuzz.tileirbc", &err);
	if (!bm) {
		if (!strstr(err.msg, ": offset "))
			abort(); /* a rejection must name the offset */
		return 0;
	}
	struct sbuf a = SBUF_INIT;
	bc_print_module(bm, &a);
	struct ir_module *m = ir_from_bytecode(bm, "fuzz.tileirbc");
	char *b = ir_module_to_string(m, IR_PRINT_DEBUGINFO);
	if (!a.len || !b[0])
		abort();
	free(b);
	ir_module_free(m);
	sb_free(&a);
	bc_module_free(bm);
	return 0;
}
