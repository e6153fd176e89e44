/* Internal to engine/sem: one Rust entry against the source kernel it
 * stands for — parameters and their binding (sem_params.c), the cases of
 * the constant conditions (sem_pair.c), one case compared from the stores backwards
 * (sem_case.c). */
#ifndef TILEPORT_SEM_SEM_PAIR_H
#define TILEPORT_SEM_SEM_PAIR_H

#include "engine/port/pymod.h"
#include "engine/sem/sem_cmp.h"
#include "engine/sem/sem_ffi.h"
#include "engine/sem/sem_rs.h"

struct slink {
	int pl, rl;
	bool differs;
};

struct slinks {
	struct slink *v;
	size_t n, cap;
};
void sl_add(struct slinks *l, int pl, int rl, bool differs);

struct spair {
	/* in */
	const struct pymod *m;
	const struct pm_func *k;
	const struct rfile *f;
	const struct rfn *fn;
	const struct sffi *ffi;   /* NULL: no launcher */
	/* a translator variant entry fixes a Constant: "BATCHED" true */
	const char *variant_param;
	bool variant_value;
	/* ... or sets one to a value: "BLOCK_N" 1 */
	const char *variant_eq_param;
	long long variant_eq_value;
	/* out */
	struct sfinds finds;
	struct slinks links;
	char *covers;
	int py_first, py_last, rs_first, rs_last;
};

void sem_pair_run(struct spair *p);
/* Both sides' parameters (in the arena), bound into b (sem_params.c). */
void sem_pair_params(const struct spair *p, struct sarena *a, struct sparam **py, size_t *npy,
		     struct sparam **rs, size_t *nrs, struct sbind *b);
void sem_pair_free(struct spair *p);

/* ---- one case (sem_case.c) ---- */

struct scase_in {
	struct sgraph *gp, *gr;
	struct sside *sp, *sr;
	struct sbind *b;
	struct sunify *uni, *uni_r;
	const struct spair *pair;
};
/* Compare the two graphs of one case: findings into out, line pairs
 * into links. */
void sem_case_compare(const struct scase_in *in, struct sfinds *out, struct slinks *links);

#endif
