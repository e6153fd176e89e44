/* ir_module_load: the one door every command and view uses to get a module
 * from a file, whatever its form (bytecode is detected by its magic). */
#include "engine/ir/ir.h"

#include <stdlib.h>
#include <string.h>

struct ir_module *ir_module_from_buffer(const char *path, const char *buf, size_t len,
					struct tp_err *err)
{
	if (len >= IR_BYTECODE_MAGIC_LEN &&
	    memcmp(buf, IR_BYTECODE_MAGIC, IR_BYTECODE_MAGIC_LEN) == 0)
		return ir_bytecode_parse(path, (const unsigned char *)buf, len, err);
	return ir_text_parse(path, buf, len, err);
}

struct ir_module *ir_module_load(const char *path, struct tp_err *err)
{
	size_t len;
	struct tp_err rerr;
	char *buf = read_file(path, &len, &rerr);
	if (!buf) {
		tp_err_set(err, TP_EXIT_USAGE, "%s", rerr.msg);
		return NULL;
	}
	struct ir_module *m = ir_module_from_buffer(path, buf, len, err);
	free(buf);
	return m;
}
