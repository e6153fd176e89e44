/* Internal to the Python parser (py_parse.c statements, py_expr.c
 * expressions): the parser state and the helpers both halves use. */
#ifndef TILEPORT_PORT_PY_INT_H
#define TILEPORT_PORT_PY_INT_H

#include "engine/port/py.h"

/* Nesting deeper than this (brackets, unary chains, blocks) is refused
 * rather than recursed into, so no input can exhaust the stack. */
#define PY_MAX_DEPTH 200

struct pp {
	struct py_module *m;
	const struct pytok *t;
	size_t n, i;
	struct tp_err *err;
	bool failed;
	int depth;
};

void *pp_alloc(struct pp *p, size_t n);
struct py_node *pp_node(struct pp *p, enum py_kind kind, size_t at);
void pp_add(struct pp *p, struct py_node *parent, struct py_node *kid);
/* Close a node: its tokens end before the current one. */
struct py_node *pp_end(struct pp *p, struct py_node *n);
/* Record the first error (at token `at`); later ones are dropped. */
void pp_fail(struct pp *p, size_t at, int code, const char *fmt, ...) TP_PRINTF(4, 5);

const struct pytok *pp_tok(const struct pp *p, size_t k);
bool pp_op(const struct pp *p, const char *s);
bool pp_op_at(const struct pp *p, size_t k, const char *s);
bool pp_name(const struct pp *p, const char *s);
bool pp_kind(const struct pp *p, enum pytok_kind kind);
bool pp_accept_op(struct pp *p, const char *s);
bool pp_expect_op(struct pp *p, const char *s, const char *what);
/* A Python keyword (never a plain name). */
bool pp_is_keyword(const struct pytok *t);

/* py_expr.c */
struct py_node *pp_expr(struct pp *p);         /* test (lambda, ifexp, or...) */
struct py_node *pp_expr_nocond(struct pp *p);  /* or_test: no ifexp, no lambda */
struct py_node *pp_star_expr(struct pp *p);    /* *expr or expr */
/* expr (',' expr)* [','] -> a PY_TUPLE when there is a comma. With
 * allow_star, `*x` elements are read too. */
struct py_node *pp_exprlist(struct pp *p, bool allow_star);
/* Targets of `for` and comprehension loops: bitwise-or level, no `in`. */
struct py_node *pp_target_list(struct pp *p);
/* One target (a `with ... as` name). */
struct py_node *pp_target(struct pp *p);
/* Parameters up to `end` (")" or ":"), with annotations when annotated. */
struct py_node *pp_params(struct pp *p, const char *end, bool annotated);

#endif
