/* A Python tokenizer: names, numbers, strings (all prefixes, triple
 * quotes), operators, logical lines (brackets join lines, a backslash
 * continues them) and indentation. It follows the language's lexical rules
 * closely enough that comments and string contents are never mistaken for
 * code. Shared by the validators' wrapper scanner (engine/check) and the
 * kernel parser (engine/port). */
#ifndef TILEPORT_CORE_PYTOK_H
#define TILEPORT_CORE_PYTOK_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/base/util.h"

enum pytok_kind {
	PYT_NAME,
	PYT_NUMBER,
	PYT_STRING,
	PYT_OP,
	PYT_NEWLINE,
	PYT_INDENT,
	PYT_DEDENT,
	PYT_END,
};
struct pytok {
	enum pytok_kind kind;
	const char *s; /* into the source */
	size_t n;
	int line, col; /* 1-based */
};
struct pytoks {
	struct pytok *v;
	size_t n, cap;
};
/* Tokenize Python source (strings with every prefix and triple quotes,
 * implicit line joining in brackets, backslash continuation, INDENT and
 * DEDENT). On a lexical error returns -1 with "line:col: what" in err
 * (TP_EXIT_USAGE); the tokens up to the error stay in `out`. */
int pytok_scan(const char *src, size_t len, struct pytoks *out, struct tp_err *err);
void pytoks_free(struct pytoks *t);
/* The value of a plain string token (no f-string, no escapes needed for
 * identifiers); false when it is not a simple literal. */
bool pytok_str_equals(const struct pytok *t, const char *value);

#endif
