/* --all: the operators of a TileGym workspace that still need a port. */
#include "engine/batch/batch.h"

#include <stdlib.h>
#include <string.h>

#include "engine/base/operator.h"

static void add(char ***v, size_t *n, size_t *cap, char *s)
{
	*v = xgrow(*v, cap, *n + 2, sizeof(**v));
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
}

int batch_discover(const char *workspace, char ***ops, char ***left_out, struct tp_err *err)
{
	*ops = NULL;
	if (left_out)
		*left_out = NULL;
	struct ws_operator *all;
	size_t n_all;
	char **ambiguous;
	if (operator_list(workspace, &all, &n_all, &ambiguous, err) < 0)
		return -1;
	size_t n = 0, cap = 0, nl = 0, capl = 0;
	for (size_t i = 0; i < n_all; i++) {
		if (!all[i].port) {
			add(ops, &n, &cap, xstrdup(all[i].name));
		} else if (left_out) {
			char *port = operator_port_text(&all[i]);
			add(left_out, &nl, &capl, xasprintf("%s (a cuTile Rust port: %s)", all[i].name, port));
			free(port);
		}
	}
	for (size_t i = 0; ambiguous && ambiguous[i] && left_out; i++)
		add(left_out, &nl, &capl, xasprintf("%s (two files of one backend share the name)", ambiguous[i]));
	strv_free(ambiguous);
	operators_free(all, n_all);
	if (!n) {
		tp_err_set(err, TP_EXIT_USAGE, "workspace %s has no operator left to port (every kernel file "
					       "under src/tilegym/ops/{cutile,triton}/ has a cutile_rs port)",
			   workspace);
		strv_free(*ops);
		*ops = NULL;
		if (left_out) {
			strv_free(*left_out);
			*left_out = NULL;
		}
		return -1;
	}
	return 0;
}
