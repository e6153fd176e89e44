/* tileport ops: the operators of a TileGym workspace, each with where it
 * is, its test, any cuTile Rust port, and whether the built-in translator
 * (mech) converts it offline or at which FILE:LINE:COL it refuses: the
 * first question on a new checkout, answered without running anything. */
#include "cli/cli.h"

#include <cJSON.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "engine/agents/mech.h"
#include "engine/base/operator.h"
#include "engine/port/port.h"

static const char ops_usage[] =
	"usage: tileport ops [--workspace DIR] [--json]\n"
	"\n"
	"List the operators of the workspace: every file under src/tilegym/ops/cutile/\n"
	"and ops/triton/ (subfolders included) with a kernel, by name; its test under\n"
	"tests/ops/; its cuTile Rust port if it has one (run refuses those without\n"
	"--again); and what the built-in translator does with it offline: converts\n"
	"(stages A, B and D, no model), or the stage it refuses and where, as\n"
	"FILE:LINE:COL and the construct (an agent driver finishes those: 'tileport\n"
	"drivers'). Helper modules without a kernel are left out. Nothing is run or\n"
	"written.\n"
	"\n"
	"exit: 0 listed, 2 no workspace or not a TileGym checkout\n";

struct verdict {
	char stage;    /* the stage refused, 0 when it converts */
	char *refusal; /* FILE:LINE:COL: construct (or why) */
};

/* Where some of the op's kernels are refused: which, and what stage B's
 * kernel.rs would hold; NULL when every kernel translates. */
static char *partial_b(const char *ws, const char *opname)
{
	char *rel = port_source_of(ws, opname);
	struct port_op *op = NULL;
	struct tp_err err = {0};
	char *s = NULL;
	if (rel && port_open_in_partial(ws, rel, opname, &op, &err) == 0 && port_refused(op, NULL))
		s = port_partial_summary(op, "kernel.rs");
	port_close(op);
	free(rel);
	return s;
}

/* What mech would do offline: stage A reads the operator and its tests
 * (the translation included), D writes the host code. */
static void offline(const char *ws, const struct ws_operator *o, struct verdict *v)
{
	memset(v, 0, sizeof(*v));
	char *json = NULL, *why = NULL;
	struct tp_err err = {0};
	char *partial = NULL;
	if (port_analyze_workspace(ws, o->name, false, &json, &err) < 0) {
		v->stage = 'A';
		v->refusal = xstrdup(err.msg);
	} else if ((partial = partial_b(ws, o->name))) {
		/* B writes the kernels that translate and hands over the rest */
		v->stage = 'B';
		v->refusal = partial;
	} else if (!mech_handles('D', o->name, ws, &why)) {
		v->stage = 'D';
		v->refusal = why ? why : xstrdup("?");
		why = NULL;
	}
	free(json);
	free(why);
	/* "FILE:LINE:COL: unsupported: X" reads as "FILE:LINE:COL: X" here */
	char *u = v->refusal ? strstr(v->refusal, ": unsupported: ") : NULL;
	if (u)
		memmove(u + 2, u + strlen(": unsupported: "), strlen(u + strlen(": unsupported: ")) + 1);
}

static const char *where(const struct ws_operator *o)
{
	const char *s = operator_source(o);
	return str_starts(s, "src/tilegym/ops/") ? s + strlen("src/tilegym/ops/") : s;
}

static void print_text(const char *ws, const struct ws_operator *v, size_t n)
{
	int nw = 16, sw = 24;
	for (size_t i = 0; i < n; i++) {
		int a = (int)strlen(v[i].name), b = (int)strlen(where(&v[i]));
		nw = a > nw ? a : nw;
		sw = b > sw ? b : sw;
	}
	size_t converts = 0, refused = 0, ported = 0;
	printf("%-*s %-*s %-5s %-5s %s\n", nw, "OP", sw, "SOURCE", "TEST", "PORT", "OFFLINE (the built-in "
											  "translator, no model)");
	for (size_t i = 0; i < n; i++) {
		const struct ws_operator *o = &v[i];
		struct verdict d;
		offline(ws, o, &d);
		printf("%-*s %-*s %-5s %-5s ", nw, o->name, sw, where(o), o->test_found ? "yes" : "none",
		       o->port ? "yes" : "-");
		if (d.stage)
			printf("refuses at stage %c: %s\n", d.stage, d.refusal);
		else
			printf("converts (A, B, D)\n");
		converts += !d.stage;
		refused += d.stage != 0;
		ported += o->port != NULL;
		free(d.refusal);
	}
	printf("\n%zu operator%s: %zu convert%s offline, %zu refused (an agent driver finishes those)", n,
	       n == 1 ? "" : "s", converts, converts == 1 ? "s" : "", refused);
	if (ported)
		printf("; %zu already ha%s a cuTile Rust port ('tileport run OP --again' converts one anew)",
		       ported, ported == 1 ? "s" : "ve");
	printf("\n");
}

static void print_json(const char *ws, const struct ws_operator *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++) {
		const struct ws_operator *o = &v[i];
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "op", o->name);
		cJSON_AddStringToObject(j, "subfolder", o->sub);
		if (o->cutile_rel)
			cJSON_AddStringToObject(j, "cutile", o->cutile_rel);
		if (o->triton_rel)
			cJSON_AddStringToObject(j, "triton", o->triton_rel);
		cJSON_AddStringToObject(j, "test", o->test_rel);
		cJSON_AddBoolToObject(j, "test_found", o->test_found);
		cJSON *port = cJSON_AddArrayToObject(j, "port");
		for (size_t k = 0; o->port && o->port[k]; k++)
			cJSON_AddItemToArray(port, cJSON_CreateString(o->port[k]));
		struct verdict d;
		offline(ws, o, &d);
		cJSON *off = cJSON_AddObjectToObject(j, "offline");
		cJSON_AddBoolToObject(off, "converts", !d.stage);
		if (d.stage) {
			char s[2] = {d.stage, 0};
			cJSON_AddStringToObject(off, "stage", s);
			cJSON_AddStringToObject(off, "refusal", d.refusal);
		}
		free(d.refusal);
		cJSON_AddItemToArray(a, j);
	}
	char *s = cJSON_Print(a);
	puts(s);
	cJSON_free(s);
	cJSON_Delete(a);
}

int cmd_ops(int argc, char **argv)
{
	static const struct option opts[] = {
		{"workspace", required_argument, NULL, 'w'},
		{"json", no_argument, NULL, 'j'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *wopt = NULL;
	bool json = false;
	int c;
	while ((c = getopt_long(argc, argv, ":w:jh", opts, NULL)) != -1) {
		if (c == 'w')
			wopt = optarg;
		else if (c == 'j')
			json = true;
		else if (c == 'h')
			return fputs(ops_usage, stdout), 0;
		else
			return cli_bad_option("ops", argv, c);
	}
	if (optind != argc)
		return cli_usage_error("ops", "unexpected argument '%s'", argv[optind]);
	struct session *s;
	int rc = cli_session(&s, &(struct session_opts){.workspace = wopt, .read_only = true});
	if (rc)
		return rc;
	const char *ws = session_workspace(s);
	struct ws_operator *v = NULL;
	size_t n = 0;
	struct tp_err err;
	if (!ws) {
		rc = cli_usage_error("ops", "no workspace: use --workspace DIR, set TILEGYM_PATH, or run it in a "
					    "TileGym checkout");
	} else if (operator_list(ws, &v, &n, NULL, &err) < 0) {
		rc = cli_report(&err);
	} else if (json) {
		print_json(ws, v, n);
	} else {
		print_text(ws, v, n);
	}
	operators_free(v, n);
	session_close(s);
	return rc;
}
