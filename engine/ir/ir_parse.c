/* Text parser (in progress). */
#include "engine/ir/ir.h"

struct ir_module *ir_text_parse(const char *path, const char *buf, size_t len, struct tp_err *err)
{
	(void)buf;
	(void)len;
	tp_err_set(err, TP_EXIT_USAGE, "%s: text parsing not implemented yet", path);
	return NULL;
}
