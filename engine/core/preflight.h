/* Preflight (pipeline.md §8, plus what the reference does not check):
 * the reference paths, the output root, cargo, python and a GPU. Missing
 * toolchain items switch a run to offline mode instead of failing it. */
#ifndef TILEPORT_CORE_PREFLIGHT_H
#define TILEPORT_CORE_PREFLIGHT_H

#include <stdbool.h>
#include <stdio.h>

struct preflight_item {
	const char *name;   /* TILEIRAS_BIN, cargo, GPU, ... */
	const char *needs;  /* "an executable file", ... */
	const char *from;   /* where it comes from and how to give it, for a missing item */
	char *value;        /* what was found (path, version line), or NULL */
	char *problem;      /* why it is missing, or NULL when ok */
	bool toolchain;     /* missing means offline rather than impossible */
};

struct preflight {
	struct preflight_item items[12];
	int n;
	bool online;   /* every item present */
	bool possible; /* the non-toolchain items are present */
};

/* workspace: the TileGym checkout; out_root: where runs go. */
void preflight_run(struct preflight *pf, const char *workspace, const char *out_root);
void preflight_free(struct preflight *pf);
/* Names of missing items, NULL-terminated (caller frees with strv_free). */
char **preflight_missing(const struct preflight *pf);
void preflight_print(const struct preflight *pf, FILE *out);
char *preflight_json(const struct preflight *pf); /* caller frees */

#endif
