/* placeholder until the engine API lands */
#include "views/view.h"

static int stub_open(struct view *v, const struct view_arg *arg, struct tp_err *err)
{
	(void)v, (void)arg;
	tp_err_set(err, TP_EXIT_USAGE, "the transcript view is not available yet");
	return -1;
}

static void stub_line(struct view *v, size_t idx, struct line_out *out)
{
	(void)v, (void)idx, (void)out;
}

const struct view_ops transcript_view_ops = {
	.type = "transcript",
	.open = stub_open,
	.line = stub_line,
};
