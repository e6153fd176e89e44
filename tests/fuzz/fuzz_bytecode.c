/* libFuzzer target for the Tile IR bytecode reader: any input either fails
 * with a message naming the offset, or decodes into tables that map into the
 * shared model and print, with and without debug locations, without fault.
 * (A decodable file may still break the verifier's rules, e.g. a loop
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
	struct ir_module *m = ir_from_bytecode(bm, "fuzz.tileirbc");
	bc_module_free(bm); /* the model owns copies of everything it keeps */
	char *a = ir_module_to_string(m, 0);
	char *b = ir_module_to_string(m, IR_PRINT_DEBUGINFO);
	if (strncmp(a, "cuda_tile.module @kernels", 25) != 0 || strlen(b) < strlen(a))
		abort();
	free(a);
	free(b);
	ir_module_free(m);
	return 0;
}
