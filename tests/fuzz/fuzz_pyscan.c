/* libFuzzer target for the source scanners of engine/check: the Python
 * tokenizer and live-call scanner (wrapper check), and the Rust comment
 * blanker and entry/extern parsers run on the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/check/check_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the validators read files as NUL-terminated text */
	char *src = malloc(size + 1);
	memcpy(src, data, size);
	src[size] = '\0';
	size_t len = strlen(src);

	struct py_live live;
	struct tp_err err = {0};
	if (py_live_call(src, len, "cutile_op", &live, &err) == 0 && live.call_line)
		if (live.call_line < 1 || live.call_col < 1 || !live.call_form)
			abort();

	char *blank = rs_blank(src, len, true);
	if (strlen(blank) != len) /* blanking never changes lengths or lines */
		abort();
	free(blank);
	struct rs_entry *ents;
	size_t n = rs_entries(src, len, &ents);
	rs_entries_free(ents, n);
	free(rs_extern_c_fn(src, len, NULL));
	char *diff = NULL;
	layout_attrs_equal(src, "strides=[?,1]", &diff, NULL, NULL);
	free(diff);
	free(src);
	return 0;
}
