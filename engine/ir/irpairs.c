/* Pairing a run's reference and generated IR files by variant name. */
#include "engine/ir/irpairs.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/util.h"

/* dtype suffixes that mark a supplement (pipeline.md, validate_entry_pattern) */
static const char *const dtypes[] = {"f16", "f32", "bf16", "fp8", "tf32", "float16", "float32"};

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

/* The names in a directory (NULL when it cannot be read). */
static char **list_dir(const char *dir, size_t *n)
{
	*n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	char **v = NULL;
	size_t cap = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		v = xgrow(v, &cap, *n + 1, sizeof(*v));
		v[(*n)++] = xstrdup(e->d_name);
	}
	closedir(d);
	return v;
}

static bool has_name(char **names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* reference_<x>_<dtype>.mlir with a sibling reference_<x>.mlir */
static bool is_supplement(char **names, size_t n, const char *name)
{
	size_t len = strlen(name) - strlen(".mlir");
	for (size_t i = 0; i < TP_ARRAY_LEN(dtypes); i++) {
		size_t dl = strlen(dtypes[i]);
		if (len <= strlen("reference_") + dl + 1)
			continue;
		const char *suffix = name + len - dl;
		if (suffix[-1] != '_' || strncmp(suffix, dtypes[i], dl) != 0)
			continue;
		char *sibling = xasprintf("%.*s.mlir", (int)(suffix - 1 - name), name);
		bool found = has_name(names, n, sibling);
		free(sibling);
		if (found)
			return true;
	}
	return false;
}

static void add_references(const char *run_dir, struct slots *s)
{
	char *dir = path_join(run_dir, "reference");
	size_t n;
	char **names = list_dir(dir, &n);
	bool any = false;
	for (size_t i = 0; i < n; i++) {
		const char *nm = names[i];
		if (!str_starts(nm, "reference_") || !str_ends(nm, ".mlir") ||
		    strlen(nm) <= strlen("reference_.mlir") || is_supplement(names, n, nm))
			continue;
		char *full = path_join(dir, nm);
		if (!path_is_file(full)) {
			free(full);
			continue;
		}
		const char *v = nm + strlen("reference_");
		struct slot *sl = slot_for(s, v, strlen(v) - strlen(".mlir"));
		sl->ref = full;
		any = true;
	}
	if (!any && has_name(names, n, "reference.mlir")) {
		char *full = path_join(dir, "reference.mlir");
		if (path_is_file(full))
			slot_for(s, "", 0)->ref = full;
		else
			free(full);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(dir);
}

static void add_generated(const char *run_dir, struct slots *s)
{
	char *dir = path_join(run_dir, "generated");
	size_t n;
	char **names = list_dir(dir, &n);
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
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
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
