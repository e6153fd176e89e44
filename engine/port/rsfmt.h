/* Internal to engine/port: laying out generated Rust the way rustfmt does
 * (engine/port/rsfmt.c). */
#ifndef TILEPORT_PORT_RSFMT_H
#define TILEPORT_PORT_RSFMT_H

#include <stddef.h>

#include "engine/base/util.h"

#define RSFMT_WIDTH 100

/* One indented line, as is. */
void rsfmt_put(struct sbuf *o, int indent, const char *s, size_t n);
/* An expression (then `tail`) wrapped like a call's arguments when too
 * long; true when it took more than one line. */
bool rsfmt_expr(struct sbuf *o, int indent, const char *s, const char *tail);
/* The head of a method chain, `lhs` (e.g. "let x = ", or "") then
 * `head`, laid out; returns the indentation of the chain's elements. */
int rsfmt_chain_head(struct sbuf *o, int indent, const char *lhs, const char *head);
/* One statement (or header, comment, match arm), wrapped when too long. */
void rsfmt_line(struct sbuf *o, int indent, const char *s);

#endif
