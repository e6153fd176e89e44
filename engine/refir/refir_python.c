/* Which Python compiles the reference: the one the workspace already uses
 * for cuTile Python, found without guessing twice (docs/refir.md, "Which
 * Python"). */
#include "engine/refir/refir.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/base/json.h"
#include "engine/base/proc.h"

const char refir_how_to_get[] =
	"install cuTile Python into the workspace's Python: pip install 'cuda-tile[tileiras]==1.7.0' "
	"(the tileiras extra brings the assembler), or name a Python that has it with --python, "
	"TILEPORT_PYTHON or `python = PATH` in the config";

char *refir_script_path(void)
{
	return path_join(tp_data_dir(), "skill/scripts/refir.py");
}

/* The last non-empty line of s, at most 300 bytes (a traceback's message). */
static char *last_line(const char *s)
{
	size_t end = strlen(s);
	while (end && (s[end - 1] == '\n' || s[end - 1] == ' '))
		end--;
	size_t beg = end;
	while (beg && s[beg - 1] != '\n')
		beg--;
	return xstrndup(s + beg, end - beg > 300 ? 300 : end - beg);
}

/* Ask the interpreter what it has: refir.py --probe prints one JSON line. */
static void probe(const char *py, struct refir_python *p)
{
	char *script = refir_script_path();
	char *argv[] = {(char *)py, script, "--probe", NULL};
	char **env = env_current();
	env_set(&env, "PYTHONDONTWRITEBYTECODE", "1");
	struct sbuf out = SBUF_INIT, errout = SBUF_INIT;
	struct proc_status st;
	struct tp_err err = {0};
	struct proc_opts o = {.argv = argv, .env = env, .timeout_ms = 60000,
			      .parent_death_signal = 9};
	int rc = proc_run_sync(&o, &out, &errout, &st, &err);
	cJSON *j = rc == 0 ? cJSON_Parse(sb_str(&out)) : NULL;
	if (rc < 0)
		p->problem = xasprintf("%s does not run: %s", py, err.msg);
	else if (!j) {
		char how[64];
		proc_status_str(&st, how, sizeof(how));
		char *last = last_line(sb_str(&errout));
		p->problem = xasprintf("%s --probe: %s%s%s", py, how, *last ? ": " : "", last);
		free(last);
	} else {
		p->cuda_tile = json_get_str(j, "cuda_tile");
		p->tileiras = json_get_str(j, "tileiras");
		char *why = json_get_str(j, "error");
		if (!p->cuda_tile)
			p->problem = xasprintf("cuda.tile does not import in %s%s%s", py, why ? ": " : "",
					       why ? why : "");
		free(why);
	}
	cJSON_Delete(j);
	sb_free(&out);
	sb_free(&errout);
	strv_free(env);
	free(script);
}

static void set_found(struct refir_python *out, const char *path, const char *how)
{
	free(out->path);
	free(out->how);
	free(out->cuda_tile);
	free(out->tileiras);
	free(out->problem);
	out->path = xstrdup(path);
	out->how = xstrdup(how);
	out->cuda_tile = out->tileiras = out->problem = NULL;
	probe(path, out);
}

/* A name on PATH or a path; NULL when neither runs. */
static char *resolve(const char *py)
{
	if (strchr(py, '/')) {
		if (!path_is_exec(py))
			return NULL;
		if (py[0] == '/')
			return xstrdup(py);
		/* absolute (the child runs elsewhere) but not resolved: a venv's
		 * python is a link to the base interpreter, and only the link
		 * finds the venv's packages */
		char *cwd = getcwd(NULL, 0);
		char *abs = cwd ? path_join(cwd, py) : xstrdup(py);
		free(cwd);
		return abs;
	}
	return which(py);
}

int refir_find_python(const char *explicit_py, const char *config_py, const char *workspace,
		      struct refir_python *out, struct tp_err *err)
{
	memset(out, 0, sizeof(*out));
	struct sbuf tried = SBUF_INIT;
	const char *env_py = getenv("TILEPORT_PYTHON");
	struct {
		const char *py, *how;
		bool must;
	} named[] = {
		{explicit_py, "--python", true},
		{env_py && *env_py ? env_py : NULL, "TILEPORT_PYTHON", true},
		{config_py, "config python", true},
	};
	for (size_t i = 0; i < TP_ARRAY_LEN(named); i++) {
		if (!named[i].py || !*named[i].py)
			continue;
		char *path = resolve(named[i].py);
		if (!path) {
			out->how = xstrdup(named[i].how);
			out->problem = xasprintf("%s (%s) is not an executable", named[i].py, named[i].how);
		} else {
			set_found(out, path, named[i].how);
			free(path);
		}
		if (out->problem) {
			out->tried = xasprintf("%s: %s\n", named[i].how, out->problem);
			tp_err_set(err, TP_EXIT_ENV, "%s; %s", out->problem, refir_how_to_get);
			sb_free(&tried);
			return -1;
		}
		sb_free(&tried);
		return 0;
	}
	/* the workspace's own environment, then the Python on PATH */
	char *cands[4] = {0};
	const char *hows[4] = {0};
	size_t n = 0;
	if (workspace) {
		static const char *const venvs[] = {".venv/bin/python", "venv/bin/python"};
		for (size_t i = 0; i < TP_ARRAY_LEN(venvs); i++) {
			char *p = path_join(workspace, venvs[i]);
			if (path_is_exec(p)) {
				cands[n] = p;
				hows[n++] = "workspace venv";
			} else
				free(p);
		}
	}
	char *onpath = which("python3");
	if (onpath) {
		cands[n] = onpath;
		hows[n++] = "PATH";
	}
	int rc = -1;
	for (size_t i = 0; i < n; i++) {
		set_found(out, cands[i], hows[i]);
		if (!out->problem) {
			rc = 0;
			break;
		}
		sb_printf(&tried, "%s %s: %s\n", hows[i], cands[i], out->problem);
	}
	for (size_t i = 0; i < n; i++)
		free(cands[i]);
	if (rc < 0) {
		if (!n) {
			free(out->problem);
			out->problem = xstrdup("no Python: no venv in the workspace and no python3 on PATH");
			sb_printf(&tried, "%s\n", out->problem);
		}
		tp_err_set(err, TP_EXIT_ENV, "no Python with cuda.tile (%s); %s", out->problem,
			   refir_how_to_get);
	}
	out->tried = sb_detach(&tried);
	return rc;
}

void refir_python_free(struct refir_python *p)
{
	free(p->path);
	free(p->how);
	free(p->cuda_tile);
	free(p->tileiras);
	free(p->problem);
	free(p->tried);
	memset(p, 0, sizeof(*p));
}

char *refir_python_describe(const struct refir_python *p)
{
	if (p->problem)
		return xstrdup(p->problem);
	if (p->tileiras)
		return xasprintf("cuda.tile %s in %s (%s); tileiras %s", p->cuda_tile, p->path, p->how,
				 p->tileiras);
	return xasprintf("cuda.tile %s in %s (%s); no tileiras: modules are not assembled",
			 p->cuda_tile, p->path, p->how);
}
