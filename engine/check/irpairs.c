/* Pairing a run's reference and generated IR files by variant name. The
 * reference side is the validators' structural set (ck_structural_irs), so
 * the IR diff view and validate_entry_pattern agree on what a reference is. */
#include "engine/check/check_impl.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/util.h"

enum gen_form { GEN_CANON, GEN_RAW, GEN_BYTECODE, GEN__COUNT };

struct slot {
	char *variant;
	char *ref;
	char *gen[GEN__COUNT];
};

struct slots {
	struct slot *v;
	size_t n, cap;
};

static struct slot *slot_for(struct slots *s, const char *variant, size_t len)
{
	for (size_t i = 0; i < s->n; i++)
		if (strlen(s->v[i].variant) == len && !strncmp(s->v[i].variant, variant, len))
			return &s->v[i];
	s->v = xgrow(s->v, &s->cap, s->n + 1, sizeof(*s->v));
	struct slot *sl = &s->v[s->n++];
	memset(sl, 0, sizeof(*sl));
	sl->variant = xstrndup(variant, len);
	return sl;
}


static void add_references(const char *run_dir, struct slots *s)
{
	struct check_ctx ctx;
	check_ctx_init(&ctx);
	check_ctx_set(&ctx.run_dir, run_dir);
	struct check_report *r = check_report_new("irpairs");
	struct ck k;
	ck_begin(&k, &ctx, r, "irpairs", "");
	struct ck_ir *irs;
	size_t n = ck_structural_irs(&k, &irs);
	for (size_t i = 0; i < n; i++) {
		struct slot *sl = slot_for(s, irs[i].variant, strlen(irs[i].variant));
		sl->ref = xstrdup(irs[i].path);
	}
	ck_end(&k, "");
	check_report_free(r);
	check_ctx_free(&ctx);
}

static void add_generated(const char *run_dir, struct slots *s)
{
	char *dir = path_join(run_dir, "generated");
	size_t n;
	char **names = tx_list_dir(dir, "generated", "", &n);
	for (size_t i = 0; i < n; i++) {
		const char *nm = names[i];
		if (!str_starts(nm, "generated"))
			continue;
		enum gen_form form;
		size_t end;
		if (str_ends(nm, "_canon.mlir"))
			form = GEN_CANON, end = strlen(nm) - strlen("_canon.mlir");
		else if (str_ends(nm, ".mlir"))
			form = GEN_RAW, end = strlen(nm) - strlen(".mlir");
		else if (str_ends(nm, ".tileirbc"))
			form = GEN_BYTECODE, end = strlen(nm) - strlen(".tileirbc");
		else
			continue;
		size_t start = strlen("generated");
		if (end < start)
			continue; /* "generated_canon.mlir" cut short: not ours */
		/* "generated" alone is variant "", else "generated_<v>" */
		if (end > start && (nm[start] != '_' || end == start + 1))
			continue;
		if (end > start)
			start++;
		char *full = path_join(dir, nm);
		if (!path_is_file(full)) {
			free(full);
			continue;
		}
		struct slot *sl = slot_for(s, nm + start, end - start);
		free(sl->gen[form]);
		sl->gen[form] = full;
	}
	strv_free(names);
	free(dir);
}

static int cmp_pair(const void *a, const void *b)
{
	return strcmp(((const struct irpair_path *)a)->variant,
		      ((const struct irpair_path *)b)->variant);
}

void irpairs_of_run(const char *run_dir, struct irpair_list *out)
{
	struct slots s = {NULL, 0, 0};
	add_references(run_dir, &s);
	add_generated(run_dir, &s);
	out->v = xcalloc(s.n ? s.n : 1, sizeof(*out->v));
	out->n = 0;
	for (size_t i = 0; i < s.n; i++) {
		struct slot *sl = &s.v[i];
		struct irpair_path *p = &out->v[out->n++];
		p->variant = sl->variant;
		p->ref = sl->ref;
		for (int f = 0; f < GEN__COUNT; f++) {
			if (!p->gen && sl->gen[f])
				p->gen = sl->gen[f];
			else
				free(sl->gen[f]);
		}
	}
	free(s.v);
	qsort(out->v, out->n, sizeof(*out->v), cmp_pair);
}

void irpairs_free(struct irpair_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].variant);
		free(l->v[i].ref);
		free(l->v[i].gen);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

char *irpairs_gen_candidates(const char *variant)
{
	const char *sep = *variant ? "_" : "";
	return xasprintf("generated/generated%s%s_canon.mlir, generated/generated%s%s.mlir, "
			 "generated/generated%s%s.tileirbc",
			 sep, variant, sep, variant, sep, variant);
}

char *irpairs_ref_name(const char *variant)
{
	return *variant ? xasprintf("reference/reference_%s.mlir", variant)
			: xstrdup("reference/reference.mlir");
}
