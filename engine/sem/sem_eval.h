/* Internal to engine/sem: what the two readers share — the values an
 * evaluation moves around besides nodes, the variable environment, the
 * constant conditions a case decides, the parameter binding the driver
 * set up, and the assumptions and hints a side states. */
#ifndef TILEPORT_SEM_SEM_EVAL_H
#define TILEPORT_SEM_SEM_EVAL_H

#include "engine/sem/sem_int.h"

/* ---- values ---- */

enum svk {
	SV_VOID,
	SV_NODE,     /* x */
	SV_TUPLE,    /* el */
	SV_PART,     /* a partition view: arr, dims, pad, order */
	SV_PTR,      /* a pointer tile: arr, x the element offset, dims */
	SV_SHAPEV,   /* an array's shape, indexable: arr */
	SV_RANGE,    /* lo, hi, step */
	SV_TOKEN,
	SV_ENUM,     /* name: an API enum member ("NegInf", "APPROX") */
	SV_SOME,     /* el[0] */
	SV_NONEV,
	SV_DTYPE,    /* dt */
	SV_STR,      /* name */
	SV_FUNC,     /* name: an API function or a device function */
	SV_SLICE,    /* `:` */
	SV_BLOCKPTR, /* Triton: arr, el the offsets, dims the block, pad */
	SV_UNKNOWN,  /* something the reader does not follow (problem set) */
};

struct sval {
	enum svk k;
	sid x;
	sid arr;
	int pad;
	int rank;
	sid dims[SEM_MAX_RANK];
	int order[SEM_MAX_RANK];
	bool has_order;
	struct sval *el;
	size_t nel;
	const char *name;
	sid lo, hi, step;
	int dt;
	const void *ref;  /* SV_FUNC: the definition, where the side has one */
	const void *mod;  /* SV_FUNC: the module defining ref, where another file */
};

static inline struct sval sv_node(sid x)
{
	struct sval v;
	__builtin_memset(&v, 0, sizeof(v));
	v.k = SV_NODE;
	v.x = x;
	return v;
}

static inline struct sval sv_kind(enum svk k)
{
	struct sval v;
	__builtin_memset(&v, 0, sizeof(v));
	v.k = k;
	return v;
}

struct sval sv_tuple(struct sgraph *g, const struct sval *el, size_t n);
/* The same value (shallowly: the same nodes, arrays, elements). */
bool sv_same(const struct sval *a, const struct sval *b);

/* ---- the environment ---- */

struct svar {
	const char *name;
	uint32_t n;
	struct sval v;
	int scope;
};

struct senv {
	struct svar *v;
	size_t n, cap;
	int scope;
};

struct svar *senv_find(struct senv *e, const char *name, size_t n);
void senv_set(struct sgraph *g, struct senv *e, const char *name, size_t n, struct sval v);
/* Assign an existing variable (the innermost); false when there is none. */
bool senv_assign(struct sgraph *g, struct senv *e, const char *name, size_t n, struct sval v);
void senv_push(struct senv *e);
void senv_pop(struct senv *e);
/* Snapshots for branches. */
struct senv senv_copy(const struct senv *e);
void senv_free(struct senv *e);

/* ---- loops (sem_loop.c) ---- */

struct sloop_in {
	sid lo, hi, step;
	int parent, line;
	const char *iv;           /* the loop variable */
	size_t iv_len;
	const char *const *names; /* what the body assigns */
	const size_t *lens;
	size_t nnames;
	bool scoped;              /* the body is a block scope (Rust; not Python) */
	void (*body)(void *ud, int loop);
	void *ud;
};

/* Read a loop: its carried variables as slots, its body (by in->body,
 * with the loop's index), induction variables as closed forms; the
 * variables left as the loop's results. The loop's index, or -1 with
 * *problem set (caller frees). */
int sem_loop(struct sgraph *g, struct senv *env, const struct sloop_in *in, char **problem);

/* ---- binding and conditions ---- */

/* The parameters of the two sides that stand for each other, decided by
 * the driver before either side is read (by name, by the launcher, by
 * position among arrays); what it leaves open the comparator binds. */
struct sbind {
	int *rs_of_py;  /* source parameter -> Rust parameter, -1 */
	int *py_of_rs;
	size_t npy, nrs;
	const struct sparam *py, *rs;
	/* Rust `const X: i32` standing for a source `X: ct.Constant[bool]` */
	bool *rs_bool_int;
};

/* The condition cond on constants as an atom of the case, or -1 when it
 * depends on runtime values. *neg: the atom's negation was written. */
int sem_cond_atom(struct sgraph *g, const struct sbind *b, sid cond, bool *neg);
/* The truth of a condition in the current case: 1, 0, or -1 (runtime). */
int sem_cond_value(struct sgraph *g, const struct sbind *b, sid cond);

/* ---- assumptions a side states ---- */

enum sassume_kind { SA_DIV_BY, SA_BOUNDS_LOWER, SA_BOUNDS_UPPER };
struct sassume {
	int param;
	int kind;
	long long value;
	int line;
};

/* What a reader hands back besides the graph. */
struct sside {
	struct sassume *assumes;
	size_t nassumes, capassumes;
	int first_line, last_line;
	const char *name;
};
void sside_assume(struct sside *s, int param, int kind, long long value, int line);

#endif
