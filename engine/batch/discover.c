/* --all: the operators of a TileGym workspace that still need a port. */
#include "engine/batch/batch.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "engine/core/pipeline.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool ported(const char *ws, const char *op)
{
	char *kernel = xasprintf("%s/src/tilegym/ops/cutile_rs/%s_kernel", ws, op);
	char *wrapper = xasprintf("%s/src/tilegym/ops/cutile_rs/%s.py", ws, op);
	bool yes = path_is_dir(kernel) || path_is_file(wrapper);
	free(kernel);
	free(wrapper);
	return yes;
}

/* Reference files of one backend folder, as operator names. */
static void scan(const char *ws, const char *backend, char ***ops, size_t *n, size_t *cap)
{
	char *dir = xasprintf("%s/src/tilegym/ops/%s", ws, backend);
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len <= 3 || !str_ends(e->d_name, ".py") || e->d_name[0] == '_')
			continue;
		char *op = xstrndup(e->d_name, len - 3);
		bool dup = false;
		for (size_t i = 0; i < *n && !dup; i++)
			dup = strcmp((*ops)[i], op) == 0;
		/* pipeline_check_op says what a run accepts as an operator */
		if (dup || pipeline_check_op(ws, op, NULL) < 0 || ported(ws, op)) {
			free(op);
			continue;
		}
		*ops = xgrow(*ops, cap, *n + 2, sizeof(**ops));
		(*ops)[(*n)++] = op;
		(*ops)[*n] = NULL;
	}
	if (d)
		closedir(d);
	free(dir);
}

int batch_discover(const char *workspace, char ***ops, struct tp_err *err)
{
	*ops = NULL;
	char *src = xasprintf("%s/src/tilegym/ops", workspace);
	bool ok = path_is_dir(src);
	free(src);
	if (!ok) {
		tp_err_set(err, TP_EXIT_USAGE, "workspace %s has no src/tilegym/ops (expected a TileGym "
					       "checkout)", workspace);
		return -1;
	}
	size_t n = 0, cap = 0;
	scan(workspace, "cutile", ops, &n, &cap);
	scan(workspace, "triton", ops, &n, &cap);
	if (!n) {
		tp_err_set(err, TP_EXIT_USAGE, "workspace %s has no operator left to port (every "
					       "src/tilegym/ops/{cutile,triton}/OP.py has a cutile_rs port)",
			   workspace);
		return -1;
	}
	qsort(*ops, n, sizeof(**ops), cmp_str);
	return 0;
}
