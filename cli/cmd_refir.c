/* tileport refir OP|FILE.py: the reference kernels compiled to Tile IR by
 * cuTile Python itself, offline (docs/refir.md). */
#include "cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "engine/base/config.h"
#include "engine/base/json.h"
#include "engine/refir/refir.h"

static const char usage_refir[] =
	"usage: tileport refir OP|FILE.py [--workspace DIR] [--run DIR | --out DIR] [--python PY]\n"
	"                      [--sm SM] [--bytecode-version V] [--assemble SM,...|--no-assemble]\n"
	"                      [--no-analysis] [--json]\n"
	"       tileport refir --probe [--python PY] [--json]\n"
	"\n"
	"Compile the operator's cuTile Python kernels with cuTile Python's own compiler\n"
	"(cuda.tile, in the workspace's Python), without a GPU or a driver, and write\n"
	"their Tile IR as stage A does: RUN/reference/reference.mlir (one kernel) or\n"
	"reference_{variant}.mlir, the bytecode beside it (.tileirbc), and refir.json\n"
	"(symbols, the specialisation of every parameter, times, the assembler's word).\n"
	"Kernels, file names and Constant values come from RUN/reference/analysis.json\n"
	"when it is there; what it leaves open is inferred from the kernel and listed.\n"
	"\n"
	"  OP                  src/tilegym/ops/cutile/OP.py of the workspace; the run is\n"
	"                      OUT_ROOT/OP unless --run or --out says otherwise\n"
	"  FILE.py             any file of @ct.kernel functions (--run or --out needed)\n"
	"  --run DIR           the run directory: writes DIR/reference/\n"
	"  --out DIR           write into DIR itself\n"
	"  --python PY         the Python with cuda.tile (default: $TILEPORT_PYTHON, the\n"
	"                      config's `python`, the workspace's .venv or venv, python3)\n"
	"  --sm SM             the target the bytecode's hints name (default " REFIR_SM ")\n"
	"  --bytecode-version V  13.1, 13.2 or 13.3 (default " REFIR_BYTECODE_VERSION
	", the newest tileport reads)\n"
	"  --assemble SM,...   assemble each module with tileiras for these targets\n"
	"                      (default sm_90,sm_100 where tileiras is installed)\n"
	"  --no-assemble       do not run tileiras\n"
	"  --no-analysis       ignore analysis.json: every kernel, constants inferred\n"
	"  --probe             say which Python would compile and what it has\n"
	"  --json              print refir.json (or the probe) instead of lines\n"
	"\n"
	"exit: 0 every kernel compiled (and assembled), 1 one did not (its message and\n"
	"      line), 2 bad usage or input, 3 no Python with cuda.tile (what to install)\n";

struct refir_cli {
	const char *ws, *run, *out, *python, *sm, *bcv, *assemble;
	bool no_assemble, no_analysis, json, probe;
};

static int parse(int argc, char **argv, struct refir_cli *o)
{
	static const struct option opts[] = {
		{"workspace", required_argument, NULL, 'w'},
		{"run", required_argument, NULL, 'r'},
		{"out", required_argument, NULL, 'o'},
		{"python", required_argument, NULL, 'p'},
		{"sm", required_argument, NULL, 's'},
		{"bytecode-version", required_argument, NULL, 'b'},
		{"assemble", required_argument, NULL, 'a'},
		{"no-assemble", no_argument, NULL, 'A'},
		{"no-analysis", no_argument, NULL, 'N'},
		{"probe", no_argument, NULL, 'P'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'w': o->ws = optarg; break;
		case 'r': o->run = optarg; break;
		case 'o': o->out = optarg; break;
		case 'p': o->python = optarg; break;
		case 's': o->sm = optarg; break;
		case 'b': o->bcv = optarg; break;
		case 'a': o->assemble = optarg; break;
		case 'A': o->no_assemble = true; break;
		case 'N': o->no_analysis = true; break;
		case 'P': o->probe = true; break;
		case 'j': o->json = true; break;
		case 'h': fputs(usage_refir, stdout); return -1;
		default: return cli_bad_option("refir", argv, c);
		}
	}
	if (o->run && o->out)
		return cli_usage_error("refir", "--run and --out name the same thing; give one");
	if (o->assemble && o->no_assemble)
		return cli_usage_error("refir", "--assemble and --no-assemble contradict each other");
	if (o->probe ? optind != argc : optind + 1 != argc)
		return cli_usage_error("refir", o->probe ? "--probe takes no OP" : "expected one OP or FILE.py");
	return 0;
}

static int probe(const struct refir_python *py, int found, bool json)
{
	char *what = refir_python_describe(py);
	if (json) {
		cJSON *j = cJSON_CreateObject();
		cJSON_AddBoolToObject(j, "usable", found == 0);
		json_put_str(j, "python", py->path);
		json_put_str(j, "how", py->how);
		json_put_str(j, "cuda_tile", py->cuda_tile);
		json_put_str(j, "tileiras", py->tileiras);
		json_put_str(j, "problem", py->problem);
		if (found != 0)
			json_put_str(j, "to_get_it", refir_how_to_get);
		char *s = cJSON_Print(j);
		printf("%s\n", s);
		cJSON_free(s);
		cJSON_Delete(j);
	} else {
		printf("%s  %s\n", found == 0 ? "ok     " : "missing", what);
		if (found != 0) {
			if (py->tried && *py->tried)
				printf("tried:\n%s", py->tried);
			printf("to get it: %s\n", refir_how_to_get);
		}
	}
	free(what);
	return found == 0 ? TP_EXIT_OK : TP_EXIT_ENV;
}

int cmd_refir(int argc, char **argv)
{
	struct refir_cli o = {0};
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? TP_EXIT_OK : rc;
	struct session *session;
	rc = cli_session(&session, &(struct session_opts){.workspace = o.ws, .read_only = true});
	if (rc)
		return rc;
	const char *ws = session_workspace(session);
	const char *conf_py = config_get(session_config(session), "python");
	struct tp_err err;
	tp_err_clear(&err);
	struct refir_python py;
	int found = refir_find_python(o.python, conf_py, ws, &py, &err);
	char *source = NULL, *outdir = NULL, *analysis = NULL;
	char **targets = NULL;
	struct refir_result res = {0};
	bool have_res = false;
	if (o.probe) {
		rc = probe(&py, found, o.json);
		goto done;
	}
	const char *what = argv[optind];
	bool is_file = str_ends(what, ".py");
	if (is_file) {
		if (!path_is_file(what)) {
			rc = cli_usage_error("refir", "%s: no such file", what);
			goto done;
		}
		if (!o.run && !o.out) {
			rc = cli_usage_error("refir", "FILE.py needs --run DIR or --out DIR");
			goto done;
		}
		source = path_absolute(what);
	} else {
		if (!ws) {
			rc = cli_usage_error("refir", "no workspace for OP %s (--workspace or TILEGYM_PATH)",
					     what);
			goto done;
		}
		source = refir_op_source(ws, what);
		if (!source) {
			char *rel = xasprintf("src/tilegym/ops/triton/%s.py", what);
			char *tri = path_join(ws, rel);
			if (path_is_file(tri))
				fprintf(stderr, "tileport refir: %s: the reference of %s is Triton (%s): refir "
						"compiles cuTile Python only (docs/refir.md)\n", ws, what, rel);
			else
				fprintf(stderr, "tileport refir: %s: no src/tilegym/ops/cutile/%s.py\n", ws, what);
			free(tri);
			free(rel);
			rc = TP_EXIT_USAGE;
			goto done;
		}
	}
	if (o.out)
		outdir = xstrdup(o.out);
	else {
		char *run = o.run ? xstrdup(o.run) : path_join(session_out_root(session), what);
		outdir = path_join(run, "reference");
		free(run);
	}
	char *a = path_join(outdir, "analysis.json");
	if (!o.no_analysis && path_is_file(a))
		analysis = a;
	else
		free(a);
	if (found < 0) {
		rc = cli_report(&err);
		goto done;
	}
	if (!o.no_assemble && py.tileiras)
		targets = str_split(o.assemble ? o.assemble : "sm_90,sm_100", ',', false, NULL);
	else if (o.assemble) {
		fprintf(stderr, "tileport refir: --assemble: %s has no tileiras (pip install "
				"'cuda-tile[tileiras]==1.7.0')\n", py.path);
		rc = TP_EXIT_ENV;
		goto done;
	}
	struct refir_opts ro = {.python = py.path, .workspace = ws, .source = source,
				.out_dir = outdir, .analysis = analysis, .sm = o.sm,
				.bytecode_version = o.bcv, .assemble = targets,
				.tileiras = py.tileiras};
	rc = refir_compile(&ro, &res, &err);
	have_res = rc >= 0;
	if (rc < 0) {
		rc = cli_report(&err);
		goto done;
	}
	if (o.json) {
		char *j = refir_result_json(&res);
		fputs(j, stdout);
		free(j);
	} else {
		refir_result_print(&res, stdout);
	}
	rc = rc == 0 ? TP_EXIT_OK : TP_EXIT_FAILED;
done:
	if (have_res)
		refir_result_free(&res);
	strv_free(targets);
	free(source);
	free(outdir);
	free(analysis);
	refir_python_free(&py);
	session_close(session);
	return rc;
}
