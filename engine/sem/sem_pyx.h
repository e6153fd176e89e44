/* Internal to engine/sem: the Python reader's context, shared by its
 * statements and expressions (sem_py.c) and its calls of the cuTile
 * Python and Triton APIs (sem_py_api.c). The source is parsed by
 * engine/port's Python parser and module reader, and read here on its
 * own: the translator's lowering is not used, so a mistake there cannot
 * hide itself by appearing on both sides. */
#ifndef TILEPORT_SEM_SEM_PYX_H
#define TILEPORT_SEM_SEM_PYX_H

#include "engine/port/pymod.h"
#include "engine/sem/sem_eval.h"

struct pctx {
	struct sgraph *g;
	struct sside *side;
	const struct sbind *b;
	const struct pymod *m;
	const struct pm_func *kernel;
	struct senv env;
	int loop;
	sid cond;
	int depth;
	bool returned;
	struct sval ret;
	bool triton;
};

struct sval px_expr(struct pctx *c, const struct py_node *n);
sid px_node(struct pctx *c, struct sval v, const struct py_node *at);
sid px_truth(struct pctx *c, sid x);
void px_problem(struct pctx *c, const struct py_node *at, const char *fmt, ...) TP_PRINTF(3, 4);
/* A call of an API function (canonical name "ct.load", "tl.dot", "min")
 * or of a method (name "astype" with recv set). handled false: unknown. */
struct sval px_api(struct pctx *c, const struct py_node *call, const char *api, bool *handled);
struct sval px_method(struct pctx *c, const struct py_node *call, struct sval recv, const char *name,
		      bool *handled);
/* Shapes and lists: a tuple of constants or nodes. */
bool px_dims(struct pctx *c, struct sval v, sid *dims, int *rank);
bool px_ints(struct pctx *c, struct sval v, int *out, int *n);
/* Arithmetic on values with Python's meaning (op '+' '-' '*' '/' 'd' '%'
 * '^' (power) '@' '&' '|' 'x' (xor) '<' '>' (shifts)). */
struct sval px_binop(struct pctx *c, int op, struct sval a, struct sval b, const struct py_node *at);
/* The argument i of a call, else its keyword name; NULL: absent. */
const struct py_node *px_arg(const struct py_node *call, size_t i, const char *name);
int px_dtype_of(struct pctx *c, struct sval v);

/* Read kernel k of module m into g (parameters already in g->params). */
void sem_py_read(struct sgraph *g, struct sside *side, const struct pymod *m, const struct pm_func *k,
		 const struct sbind *b);

#endif
