/* Placeholder for the Tile IR bytecode reader (issue 5): the bytecode
 * engineer replaces this file with the real reader. */
#include "engine/ir/ir.h"

struct ir_module *ir_bytecode_parse(const char *path, const unsigned char *buf, size_t len,
				    struct tp_err *err)
{
	(void)buf;
	(void)len;
	tp_err_set(err, TP_EXIT_USAGE, "%s: Tile IR bytecode is not supported by this build", path);
	return NULL;
}
