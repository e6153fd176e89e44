/* ir_module_load: the one door every command and view uses to get a module
 * from a file, whatever its form (bytecode is detected by its magic). */
#include "engine/ir/ir.h"
#include "engine/ir/ir_internal.h"

#include <stdlib.h>
#include <string.h>

static bool is_bytecode(const char *buf, size_t len)
{
	return len >= IR_BYTECODE_MAGIC_LEN &&
	       memcmp(buf, IR_BYTECODE_MAGIC, IR_BYTECODE_MAGIC_LEN) == 0;
}

struct ir_module *ir_module_from_buffer(const char *path, const char *buf, size_t len,
					struct tp_err *err)
{
	if (is_bytecode(buf, len))
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
	/* read_file's buffer ends in a NUL: text is parsed in place, not copied */
	struct ir_module *m = is_bytecode(buf, len)
				      ? ir_bytecode_parse(path, (const unsigned char *)buf, len, err)
				      : ir_text_parse_terminated(path, buf, len, err);
	free(buf);
	return m;
}
