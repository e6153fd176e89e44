/* Internal to engine/sem: the Rust evaluator's context, shared by its
 * statements and expressions (sem_rs_eval.c) and its calls of the cuTile
 * Rust API (sem_rs_call.c). */
#ifndef TILEPORT_SEM_SEM_RSX_H
#define TILEPORT_SEM_SEM_RSX_H

#include "engine/sem/sem_eval.h"
#include "engine/sem/sem_rs.h"

struct rctx {
	struct sgraph *g;
	struct sside *side;
	const struct sbind *b;
	const struct rfile *f;
	const struct rfn *fn;
	struct senv env;
	int loop;     /* the innermost loop, -1 */
	sid cond;     /* the path condition of runtime branches, 0: none */
	int want_dt;  /* the element type the value being read is declared with */
	const struct rnode *want_type; /* and its whole type (a let's), NULL none */
	int depth;
};

struct sval rx_expr(struct rctx *c, const struct rnode *n);
/* The node of a value, or a problem at the node's line. */
sid rx_node(struct rctx *c, struct sval v, const struct rnode *at);
/* Calls and methods of the API; handled false: not an API name. */
struct sval rx_call(struct rctx *c, const struct rnode *call, const char *name, bool *handled);
struct sval rx_method(struct rctx *c, const struct rnode *m, struct sval recv, bool *handled);
/* A type's element type ("Tile<f32, ..>" -> f32), SDT_NONE when none. */
int rx_type_dt(const struct rnode *t);
/* Dims of a shape value (const_shape![..], a tuple of nodes). */
bool rx_dims(struct rctx *c, struct sval v, sid *dims, int *rank);
void rx_problem(struct rctx *c, const struct rnode *at, const char *fmt, ...) TP_PRINTF(3, 4);
bool rx_name_is(const struct rnode *n, const char *s);

/* Read entry fn of f into g (its parameters already in g->params). */
void sem_rs_read(struct sgraph *g, struct sside *side, const struct rfile *f, const struct rfn *fn,
		 const struct sbind *b);

#endif
