/* tileport preflight [--json]: what the pipeline needs and what is missing. */
#include "cli/cli.h"

#include <cJSON.h>
#include <getopt.h>
#include <stdlib.h>

#include "engine/compile/compile.h"
#include "engine/base/config.h"
#include "engine/base/json.h"
#include "engine/core/preflight.h"
#include "engine/refir/refir.h"

static const char usage[] =
	"usage: tileport preflight [--workspace DIR] [--out DIR] [--json]\n"
	"\n"
	"Check the reference environment (TILEGYM_PATH, TILEIRAS_BIN, CUDA_TILE_OPT_BIN,\n"
	"TRITON_TILEIR_PYTHONPATH, CUDA_TOOLKIT_PATH, CUTILE_KERNEL_OUT_ROOT) plus\n"
	"cargo, python and a GPU, and say whether a run would be online, offline\n"
	"(toolchain missing: A, B, D do their offline part) or impossible; and whether\n"
	"the compile check (tileport compile: cargo >= 1.89, the CUDA headers, libclang)\n"
	"can run here, offline or not; and whether the reference IR can be made\n"
	"offline (tileport refir: a Python with cuda.tile; it does not change the mode).\n"
	"\n"
	"exit: 0 everything present, 3 something is missing (offline or impossible)\n";

/* The compile check's own readiness: it needs no GPU, so it runs in an
 * offline run too (docs/compile.md, "The toolchain"). */
static void print_compile(const struct compile_toolchain *tc, bool ready)
{
	if (ready) {
		printf("compile: ready (tileport compile, offline too): cargo %s, %s, libclang %s\n",
		       tc->cargo_version, tc->cuda_include, tc->libclang);
		return;
	}
	printf("compile: cannot run here; stage B and D's type check and lowering stay deferred:\n");
	for (size_t i = 0; tc->missing && tc->missing[i]; i++)
		printf("  missing %s\n", tc->missing[i]);
}

int cmd_preflight(int argc, char **argv)
{
	static const struct option opts[] = {
		{"workspace", required_argument, NULL, 'w'},
		{"out", required_argument, NULL, 'o'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *wopt = NULL, *oopt = NULL;
	bool json = false;
	int c;
	while ((c = getopt_long(argc, argv, ":w:o:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'w': wopt = optarg; break;
		case 'o': oopt = optarg; break;
		case 'j': json = true; break;
		case 'h': fputs(usage, stdout); return 0;
		default: return cli_bad_option("preflight", argv, c);
		}
	}
	if (optind != argc)
		return cli_usage_error("preflight", "unexpected argument '%s'", argv[optind]);
	struct session *s;
	int rc = cli_session(&s, &(struct session_opts){.workspace = wopt, .out_root = oopt});
	if (rc)
		return rc;
	struct preflight pf;
	preflight_run(&pf, session_workspace(s), session_out_root(s));
	struct compile_toolchain tc;
	bool can_compile = compile_toolchain_find(&tc);
	/* the offline reference IR: not a toolchain item of the run's mode */
	struct refir_python py;
	struct tp_err err = {0};
	bool refir_ok = refir_find_python(NULL, config_get(session_config(s), "python"),
					  session_workspace(s), &py, &err) == 0;
	char *what = refir_python_describe(&py);
	if (json) {
		char *text = preflight_json(&pf);
		cJSON *o = cJSON_Parse(text);
		free(text);
		cJSON *c = cJSON_AddObjectToObject(o, "compile");
		cJSON_AddBoolToObject(c, "ready", can_compile);
		json_put_str(c, "cargo", tc.cargo);
		json_put_str(c, "cargo_version", tc.cargo_version);
		json_put_str(c, "cuda_include", tc.cuda_include);
		json_put_str(c, "curand_include", tc.curand_include);
		json_put_str(c, "libclang", tc.libclang);
		json_put_strv(c, "missing", tc.missing);
		cJSON *r = cJSON_AddObjectToObject(o, "reference_ir_offline");
		cJSON_AddBoolToObject(r, "ok", refir_ok);
		json_put_str(r, "value", what);
		json_put_str(r, "python", py.path);
		json_put_str(r, "cuda_tile", py.cuda_tile);
		json_put_str(r, "tileiras", py.tileiras);
		if (!refir_ok)
			json_put_str(r, "from", refir_how_to_get);
		char *out = cJSON_Print(o);
		puts(out);
		cJSON_free(out);
		cJSON_Delete(o);
	} else {
		preflight_print(&pf, stdout);
		print_compile(&tc, can_compile);
		if (refir_ok)
			printf("reference IR offline: ok, %s\n", what);
		else
			printf("reference IR offline: missing, %s; %s\n", what, refir_how_to_get);
	}
	compile_toolchain_free(&tc);
	free(what);
	refir_python_free(&py);
	tp_err_clear(&err);
	rc = pf.online ? TP_EXIT_OK : TP_EXIT_ENV;
	preflight_free(&pf);
	session_close(s);
	return rc;
}
