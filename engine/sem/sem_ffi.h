/* Internal to engine/sem: what a launcher (ffi.rs) passes each argument
 * of an entry (sem_ffi.c). */
#ifndef TILEPORT_SEM_SEM_FFI_H
#define TILEPORT_SEM_SEM_FFI_H

#include "engine/sem/sem_rs.h"

enum sffi_kind { SFFI_OTHER, SFFI_ARRAY, SFFI_SHAPE, SFFI_STRIDE };

struct sffi_arg {
	enum sffi_kind kind;
	const char *desc; /* the descriptor variable ("a_d"), into the source */
	uint32_t ndesc;
	int axis;
};

struct sffi {
	const char *src;
	struct rtoks toks;
};

void sem_ffi_read(const char *src, size_t len, struct sffi *out);
void sem_ffi_free(struct sffi *f);
/* The arguments of the launcher's call of `entry`, classified; 0 when the
 * launcher does not call it. */
size_t sem_ffi_args(const struct sffi *f, const char *entry, size_t elen, struct sffi_arg *out, size_t max);

/* A generic the launcher computes (`(n * n).to_string()` in the entry's
 * `.generics(vec![...])`, where `n.to_string()` passes generic N): the
 * computation over the generics' names, "N * N". out[g] for the entry's
 * generic g (type parameters counted), NULL where it is passed as it is
 * or not read; returns how many were filled (0: no such call). Caller
 * frees each. */
struct sffi_gen {
	const char *s;
	uint32_t n;
};
size_t sem_ffi_generics(const struct sffi *f, const struct rfn *fn, char **out, size_t max);

#endif
