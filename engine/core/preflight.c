#include "engine/core/preflight.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/base/proc.h"
#include "engine/base/util.h"

/* Where each item comes from: what a person needs to go and get. */
static const struct {
	const char *name, *from;
} origins[] = {
	{"TILEGYM_PATH", "a TileGym checkout, given with --workspace DIR or TILEGYM_PATH, or the current "
			 "directory"},
	{"TILEIRAS_BIN", "tileiras, the Tile IR compiler of the CUDA Toolkit (13.1 or newer); the "
			 "one cuTile Python uses"},
	{"CUDA_TILE_OPT_BIN", "cuda-tile-opt of the CUDA Tile IR tools, with cuda-tile-translate in "
			      "the same folder"},
	{"TRITON_TILEIR_PYTHONPATH", "a Triton build with the Tile IR backend, for the Triton-TileIR "
				     "baselines"},
	{"CUDA_TOOLKIT_PATH", "the CUDA Toolkit (13.2 or newer) whose headers cutile-rs builds "
			      "against, such as /usr/local/cuda"},
	{"CUTILE_KERNEL_OUT_ROOT", "where run directories go, given with --out DIR, "
				   "CUTILE_KERNEL_OUT_ROOT or out_root in the config"},
	{"cargo", "Rust (1.89 or newer, stable) from rustup.rs"},
	{"python", "Python 3 with PyTorch, cuda-tile and the TileGym package"},
	{"GPU", "an NVIDIA GPU and its driver, which nvidia-smi -L lists"},
};

static struct preflight_item *add(struct preflight *pf, const char *name, const char *needs,
				  bool toolchain)
{
	struct preflight_item *it = &pf->items[pf->n++];
	memset(it, 0, sizeof(*it));
	it->name = name;
	it->needs = needs;
	it->toolchain = toolchain;
	for (size_t i = 0; i < TP_ARRAY_LEN(origins); i++)
		if (!strcmp(origins[i].name, name))
			it->from = origins[i].from;
	return it;
}

static void check_env_path(struct preflight *pf, const char *var, bool want_dir, bool toolchain)
{
	struct preflight_item *it = add(pf, var, want_dir ? "a directory" : "an executable file", toolchain);
	const char *v = getenv(var);
	if (!v || !*v)
		it->problem = xstrdup("not set");
	else if (want_dir ? !path_is_dir(v) : !path_is_exec(v))
		it->problem = xasprintf("%s is not %s", v, it->needs);
	if (v && *v)
		it->value = xstrdup(v);
}

static void check_program(struct preflight *pf, const char *name, const char *const *cands,
			  const char *version_flag)
{
	struct preflight_item *it = add(pf, name, "a program on PATH", true);
	char *path = NULL;
	for (size_t i = 0; cands[i] && !path; i++)
		path = which(cands[i]);
	if (!path) {
		it->problem = xasprintf("%s not found on PATH", cands[0]);
		return;
	}
	char *argv[] = {path, (char *)version_flag, NULL};
	char *ver = proc_first_line(argv, 10000);
	it->value = ver ? xasprintf("%s (%s)", path, ver) : xstrdup(path);
	free(ver);
	free(path);
}

/* TILEPORT_GPU=0/1 overrides detection (tests, and machines where
 * nvidia-smi is not the right probe). */
static void check_gpu(struct preflight *pf)
{
	struct preflight_item *it = add(pf, "GPU", "a GPU", true);
	const char *force = getenv("TILEPORT_GPU");
	if (force && *force) {
		if (strcmp(force, "0") == 0)
			it->problem = xstrdup("disabled by TILEPORT_GPU=0");
		else
			it->value = xstrdup("assumed present (TILEPORT_GPU)");
		return;
	}
	char *smi = which("nvidia-smi");
	if (!smi) {
		it->problem = xstrdup("nvidia-smi not found; no NVIDIA driver on this machine");
		return;
	}
	char *argv[] = {smi, "-L", NULL};
	char *line = proc_first_line(argv, 15000);
	if (line && str_starts(line, "GPU "))
		it->value = line;
	else {
		it->problem = xstrdup("nvidia-smi -L lists no GPU");
		free(line);
	}
	free(smi);
}

void preflight_run(struct preflight *pf, const char *workspace, const char *out_root)
{
	memset(pf, 0, sizeof(*pf));
	struct preflight_item *ws = add(pf, "TILEGYM_PATH", "a directory", false);
	if (!workspace || !*workspace)
		ws->problem = xstrdup("not set");
	else if (!path_is_dir(workspace))
		ws->problem = xasprintf("%s is not a directory", workspace);
	if (workspace)
		ws->value = xstrdup(workspace);

	check_env_path(pf, "TILEIRAS_BIN", false, true);
	check_env_path(pf, "CUDA_TILE_OPT_BIN", false, true);
	check_env_path(pf, "TRITON_TILEIR_PYTHONPATH", true, true);
	check_env_path(pf, "CUDA_TOOLKIT_PATH", true, true);

	struct preflight_item *out = add(pf, "CUTILE_KERNEL_OUT_ROOT", "a writable directory", false);
	out->value = xstrdup(out_root);
	if (path_is_dir(out_root)) {
		if (access(out_root, W_OK) != 0)
			out->problem = xasprintf("%s is not writable", out_root);
	} else {
		/* It will be created: its nearest existing parent must be writable. */
		char *p = xstrdup(out_root);
		char *slash;
		while ((slash = strrchr(p, '/')) && slash != p && !path_is_dir(p))
			*slash = '\0';
		if (!slash && !path_is_dir(p)) {
			/* a relative path: its first component goes in the current directory */
			free(p);
			p = xstrdup(".");
		}
		if (!path_is_dir(p) || access(p, W_OK) != 0)
			out->problem = xasprintf("%s does not exist and cannot be created", out_root);
		free(p);
	}

	static const char *const cargo[] = {"cargo", NULL};
	static const char *const python[] = {"python3", "python", NULL};
	check_program(pf, "cargo", cargo, "--version");
	check_program(pf, "python", python, "--version");
	check_gpu(pf);

	pf->online = pf->possible = true;
	for (int i = 0; i < pf->n; i++) {
		if (!pf->items[i].problem)
			continue;
		pf->online = false;
		if (!pf->items[i].toolchain)
			pf->possible = false;
	}
}

void preflight_free(struct preflight *pf)
{
	for (int i = 0; i < pf->n; i++) {
		free(pf->items[i].value);
		free(pf->items[i].problem);
	}
	pf->n = 0;
}

char **preflight_missing(const struct preflight *pf)
{
	char **v = xcalloc((size_t)pf->n + 1, sizeof(*v));
	size_t k = 0;
	for (int i = 0; i < pf->n; i++)
		if (pf->items[i].problem)
			v[k++] = xstrdup(pf->items[i].name);
	return v;
}

void preflight_print(const struct preflight *pf, FILE *out)
{
	for (int i = 0; i < pf->n; i++) {
		const struct preflight_item *it = &pf->items[i];
		if (it->problem)
			fprintf(out, "missing  %-24s %s; needs %s%s%s\n", it->name, it->problem, it->needs,
				it->from ? ": " : "", it->from ? it->from : "");
		else
			fprintf(out, "ok       %-24s %s\n", it->name, it->value ? it->value : "");
	}
	if (pf->online) {
		fprintf(out, "mode: online (everything the pipeline needs is present)\n");
		return;
	}
	char **miss = preflight_missing(pf);
	char *list = strv_join(miss, ", ");
	if (pf->possible)
		fprintf(out, "mode: offline (missing: %s); stages A, B and D do their offline part and the "
			     "run ends OFFLINE_COMPLETE; 'tileport resume RUN --online' finishes it where "
			     "the toolchain is present\n", list);
	else
		fprintf(out, "mode: impossible (missing: %s); fix the items above first\n", list);
	free(list);
	strv_free(miss);
}

char *preflight_json(const struct preflight *pf)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "mode", pf->online ? "online" : pf->possible ? "offline" : "impossible");
	cJSON *items = cJSON_AddArrayToObject(o, "items");
	for (int i = 0; i < pf->n; i++) {
		const struct preflight_item *it = &pf->items[i];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "name", it->name);
		cJSON_AddBoolToObject(j, "ok", it->problem == NULL);
		cJSON_AddBoolToObject(j, "toolchain", it->toolchain);
		cJSON_AddStringToObject(j, "needs", it->needs);
		if (it->from)
			cJSON_AddStringToObject(j, "from", it->from);
		if (it->value)
			cJSON_AddStringToObject(j, "value", it->value);
		if (it->problem)
			cJSON_AddStringToObject(j, "problem", it->problem);
		cJSON_AddItemToArray(items, j);
	}
	char *s = cJSON_Print(o);
	cJSON_Delete(o);
	char *r = xstrdup(s);
	cJSON_free(s);
	return r;
}
