/* Lookups several validators share: the structural reference IRs, the
 * ffi.rs copy, the cdylib, the wrapper module, and whether D has run. */
#include "engine/check/check_impl.h"

#include "engine/base/operator.h"
#include "engine/core/run.h"

#include <dirent.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

static void collect_supplements(const cJSON *j, bool under, char ***v, size_t *n, size_t *cap)
{
	if (!j)
		return;
	if (cJSON_IsString(j) && under && j->valuestring && str_ends(j->valuestring, ".mlir")) {
		*v = xgrow(*v, cap, *n + 2, sizeof(**v));
		(*v)[(*n)++] = xstrdup(tx_basename(j->valuestring));
		(*v)[*n] = NULL;
		return;
	}
	for (const cJSON *c = j->child; c; c = c->next)
		collect_supplements(c, under || (c->string && strstr(c->string, "supplement")), v, n,
				    cap);
}

static const char *const dtype_suffixes[] = {"f16", "f32", "bf16", "fp8", "tf32",
					     "float16", "float32"};

/* reference_<x>_<dtype>.mlir with a sibling reference_<x>.mlir? */
static bool dtype_supplement(const char *name, char *const *all, size_t n)
{
	for (size_t d = 0; d < TP_ARRAY_LEN(dtype_suffixes); d++) {
		char *suffix = xasprintf("_%s.mlir", dtype_suffixes[d]);
		bool hit = false;
		size_t nl = strlen(name), sl = strlen(suffix);
		if (nl > sl + strlen("reference_") && str_ends(name, suffix)) {
			char *sib = xasprintf("%.*s.mlir", (int)(nl - sl), name);
			for (size_t i = 0; i < n && !hit; i++)
				hit = strcmp(all[i], sib) == 0;
			free(sib);
		}
		free(suffix);
		if (hit)
			return true;
	}
	return false;
}

size_t ck_structural_irs(struct ck *k, struct ck_ir **out)
{
	*out = NULL;
	const char *dir = ck_out(k, "reference");
	if (!dir)
		return 0;
	size_t n;
	char **names = tx_list_dir(dir, "reference_", ".mlir", &n);
	char **supp = NULL;
	size_t nsupp = 0, capsupp = 0;
	collect_supplements(ck_analysis(k, NULL), false, &supp, &nsupp, &capsupp);
	struct ck_ir *v = NULL;
	size_t nv = 0, cap = 0;
	for (size_t i = 0; i < n; i++) {
		bool skip = dtype_supplement(names[i], names, n);
		for (size_t s = 0; s < nsupp && !skip; s++)
			skip = strcmp(supp[s], names[i]) == 0;
		if (skip)
			continue;
		v = xgrow(v, &cap, nv + 1, sizeof(*v));
		v[nv].path = ck_keep(k, path_join(dir, names[i]), free);
		size_t l = strlen(names[i]);
		v[nv].variant = ck_fmt(k, "%.*s", (int)(l - strlen("reference_") - strlen(".mlir")),
				       names[i] + strlen("reference_"));
		nv++;
	}
	strv_free(names);
	if (supp)
		strv_free(supp);
	if (nv == 0) {
		const char *single = ck_out(k, "reference/reference.mlir");
		if (path_is_file(single)) {
			v = xgrow(v, &cap, 1, sizeof(*v));
			v[0].path = single;
			v[0].variant = "";
			nv = 1;
		}
	}
	*out = v ? ck_keep(k, v, free) : NULL;
	return nv;
}

const char *ck_ffi(struct ck *k, const char *rule, const char *copy_rule)
{
	const char *out = ck_out(k, "ffi.rs");
	const char *tree = k->kernel ? ck_tg(k, ck_fmt(k, "src/tilegym/ops/cutile_rs/%s_kernel/ffi.rs",
						    k->kernel))
				     : NULL;
	const struct ck_file *a = ck_load(k, out);
	const struct ck_file *b = ck_load(k, tree);
	if (ck_nonempty(a)) {
		ck_add(k, CHECK_PASS, 0, rule, out, 0, "present");
		if (ck_nonempty(b) && (a->len != b->len || memcmp(a->data, b->data, a->len) != 0))
			ck_add(k, CHECK_WARN, 0, copy_rule, out, 0,
			       "differs from the in-tree copy %s (the cdylib is built from that one)",
			       tree);
		return out;
	}
	if (ck_nonempty(b)) {
		ck_add(k, CHECK_FAIL, 0, rule, out, 0,
		       "OUT/ffi.rs %s: the output contract reads this copy; copy %s there "
		       "(the in-tree copy's contents are checked meanwhile)",
		       a->exists ? "is empty" : "is missing", tree);
		return tree;
	}
	ck_add(k, CHECK_FAIL, 0, rule, out, 0, "ffi.rs %s",
	       a->exists ? "is empty" : "not found (in OUT or in-tree)");
	return NULL;
}

/* Depth-limited search, sorted for a stable answer; skips cargo's and
 * Python's bulky internals. */
static char *find_file(const char *dir, const char *name, int depth)
{
	char *direct = path_join(dir, name);
	if (path_is_file(direct))
		return direct;
	free(direct);
	if (depth <= 0)
		return NULL;
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	size_t n = 0, cap = 0;
	char **subs = NULL;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		const char *s = e->d_name;
		if (s[0] == '.' || strcmp(s, "build") == 0 || strcmp(s, "incremental") == 0 ||
		    strcmp(s, "__pycache__") == 0 || strcmp(s, "src") == 0)
			continue;
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
		subs = xgrow(subs, &cap, n + 1, sizeof(*subs));
		subs[n++] = xstrdup(s);
	}
	closedir(d);
	char *found = NULL;
	for (size_t pass = 0; pass < n; pass++) {
		/* pick in name order without sorting the whole list up front */
		size_t best = n;
		for (size_t i = 0; i < n; i++)
			if (subs[i] && (best == n || strcmp(subs[i], subs[best]) < 0))
				best = i;
		if (best == n)
			break;
		if (!found) {
			char *sub = path_join(dir, subs[best]);
			if (path_is_dir(sub))
				found = find_file(sub, name, depth - 1);
			free(sub);
		}
		free(subs[best]);
		subs[best] = NULL;
	}
	free(subs);
	return found;
}

const char *ck_find_cdylib(struct ck *k)
{
	const char *kd = ck_kernels_dir(k);
	if (kd) {
		char *rel = path_join(kd, "target/release");
		char *hit = find_file(rel, "libcutile_kernels.so", 2);
		free(rel);
		if (hit)
			return ck_keep(k, hit, free);
	}
	const char *ops = ck_tg(k, "src/tilegym/ops/cutile_rs");
	if (ops) {
		char *hit = find_file(ops, "libcutile_kernels.so", 4);
		if (hit)
			return ck_keep(k, hit, free);
	}
	return NULL;
}

const char *ck_test_rel(struct ck *k)
{
	struct ws_operator o;
	if (k->ctx->tilegym && k->kernel && operator_find(k->ctx->tilegym, k->kernel, &o, NULL) == 0) {
		const char *rel = ck_keep(k, xstrdup(o.test_rel), free);
		operator_free(&o);
		return rel;
	}
	return ck_fmt(k, "tests/ops/test_%s.py", k->kernel ? k->kernel : "");
}

bool ck_port_before(struct ck *k)
{
	const char *dir = ck_out(k, "");
	struct run_state st;
	if (!dir || !run_exists(dir) || run_state_load(dir, &st, NULL) < 0)
		return false;
	bool yes = st.port_before != NULL;
	run_state_free(&st);
	return yes;
}

bool ck_host_written(struct ck *k)
{
	if (k->ctx->host_written >= 0)
		return k->ctx->host_written > 0;
	if (ck_port_before(k))
		return true;
	static const char *const d_reports[] = {
		"reports/correctness.md", "reports/agent_d.md", "reports/agent_logs/agent_d.md",
		"correctness_cutile_rs.txt",
	};
	for (size_t i = 0; i < TP_ARRAY_LEN(d_reports); i++) {
		const char *p = ck_out(k, d_reports[i]);
		if (p && path_is_file(p))
			return true;
	}
	return false;
}

static char *without_underscores(const char *s)
{
	char *d = xstrdup(s), *w = d;
	for (const char *p = s; *p; p++)
		if (*p != '_')
			*w++ = *p;
	*w = '\0';
	return d;
}

const char *ck_wrapper_by_kernel(struct ck *k)
{
	const char *ops = ck_tg(k, "src/tilegym/ops/cutile_rs");
	if (!ops || !k->kernel)
		return NULL;
	const char *a = ck_keep(k, xasprintf("%s/%s.py", ops, k->kernel), free);
	if (path_is_file(a))
		return a;
	char *bare = without_underscores(k->kernel);
	const char *b = ck_keep(k, xasprintf("%s/%s.py", ops, bare), free);
	free(bare);
	if (path_is_file(b))
		return b;
	size_t n;
	char **names = tx_list_dir(ops, NULL, ".py", &n);
	char *esc = tx_ere_escape(k->kernel);
	char *re = xasprintf("register_impl.*%s", esc);
	const char *found = NULL;
	for (size_t i = 0; i < n && !found; i++) {
		const char *p = ck_keep(k, path_join(ops, names[i]), free);
		const struct ck_file *f = ck_load(k, p);
		if (f->data && tx_grep(f->data, re, 0, NULL))
			found = p;
	}
	free(re);
	free(esc);
	strv_free(names);
	return found;
}
