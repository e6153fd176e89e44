/* Finding the operators of a TileGym workspace (operator.h): a walk of
 * ops/cutile/ and ops/triton/ with their subfolders, a kernel decorator
 * told from the tokens (never from a comment or a string), the test beside
 * it under tests/ops/, the port under ops/cutile_rs/. */
#include "engine/base/operator.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"
#include "engine/base/pytok.h"

#define OPS_DIR "src/tilegym/ops/"
#define MAX_DEPTH 4 /* ops/cutile/a/b/c/op.py at most: deeper is no operator layout */

static const char *const backends[] = {"cutile", "triton"};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

bool operator_name_ok(const char *name)
{
	if (!name || !*name)
		return false;
	for (const char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			return false;
	return true;
}

/* A decorator whose dotted name ends in .kernel (ct.kernel,
 * cuda.tile.kernel) or in jit (triton.jit): the file has a kernel. */
static bool has_kernel(const char *path, struct tp_err *err)
{
	size_t len;
	char *src = read_file(path, &len, err);
	if (!src)
		return false;
	struct pytoks t = {0};
	struct tp_err terr = {0};
	bool found = false;
	if (pytok_scan(src, len, &t, &terr) < 0 && err)
		tp_err_set(err, TP_EXIT_USAGE, "%s:%s", path, terr.msg);
	for (size_t i = 0; i + 1 < t.n && !found; i++) {
		if (t.v[i].kind != PYT_OP || t.v[i].n != 1 || t.v[i].s[0] != '@')
			continue;
		size_t parts = 0, k = i + 1;
		const struct pytok *last = NULL;
		while (k < t.n && t.v[k].kind == PYT_NAME) {
			last = &t.v[k++];
			parts++;
			if (k < t.n && t.v[k].kind == PYT_OP && t.v[k].n == 1 && t.v[k].s[0] == '.')
				k++;
			else
				break;
		}
		if (!last)
			continue;
		bool kernel = parts >= 2 && last->n == 6 && !memcmp(last->s, "kernel", 6);
		bool jit = last->n == 3 && !memcmp(last->s, "jit", 3);
		found = kernel || jit;
	}
	pytoks_free(&t);
	free(src);
	return found;
}

/* One file found under a backend folder. */
struct hit {
	int backend; /* index into backends[] */
	char *sub;   /* "activation" or "" */
	char *name;  /* "gelu" */
	char *rel;   /* src/tilegym/ops/cutile/activation/gelu.py */
};

struct hits {
	struct hit *v;
	size_t n, cap;
};

static void hits_free(struct hits *h)
{
	for (size_t i = 0; i < h->n; i++) {
		free(h->v[i].sub);
		free(h->v[i].name);
		free(h->v[i].rel);
	}
	free(h->v);
	memset(h, 0, sizeof(*h));
}

/* Every .py under dir (sub: its path below the backend folder), or only
 * those named `only` (NULL: all). */
static void walk(const char *ws, int backend, const char *sub, const char *only, int depth, struct hits *h)
{
	char *rel = *sub ? xasprintf(OPS_DIR "%s/%s", backends[backend], sub)
			 : xasprintf(OPS_DIR "%s", backends[backend]);
	char *dir = path_join(ws, rel);
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.' || e->d_name[0] == '_')
			continue; /* ., .., __init__.py, __pycache__, private helpers */
		names = xgrow(names, &cap, n + 2, sizeof(*names));
		names[n++] = xstrdup(e->d_name);
		names[n] = NULL;
	}
	if (d)
		closedir(d);
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char *path = path_join(dir, names[i]);
		size_t len = strlen(names[i]);
		if (path_is_dir(path) && depth < MAX_DEPTH) {
			char *s = *sub ? xasprintf("%s/%s", sub, names[i]) : xstrdup(names[i]);
			walk(ws, backend, s, only, depth + 1, h);
			free(s);
		} else if (len > 3 && str_ends(names[i], ".py") && path_is_file(path)) {
			char *name = xstrndup(names[i], len - 3);
			if (operator_name_ok(name) && (!only || !strcmp(only, name))) {
				h->v = xgrow(h->v, &h->cap, h->n + 1, sizeof(*h->v));
				h->v[h->n++] = (struct hit){backend, xstrdup(sub), name,
							    xasprintf("%s/%s", rel, names[i])};
				name = NULL;
			}
			free(name);
		}
		free(path);
	}
	strv_free(names);
	free(dir);
	free(rel);
}

static void find_all(const char *ws, const char *only, struct hits *h)
{
	for (int b = 0; b < (int)TP_ARRAY_LEN(backends); b++)
		walk(ws, b, "", only, 0, h);
}

/* tests/ops/SUB/test_NAME.py, else tests/ops/test_NAME.py, else one
 * anywhere under tests/ops. */
static bool find_test_in(const char *ws, const char *rel_dir, const char *file, int depth, char **out)
{
	char *rel = xasprintf("%s/%s", rel_dir, file);
	char *abs = path_join(ws, rel);
	bool yes = path_is_file(abs);
	free(abs);
	if (yes) {
		*out = rel;
		return true;
	}
	free(rel);
	if (depth >= MAX_DEPTH)
		return false;
	char *dir = path_join(ws, rel_dir);
	DIR *d = opendir(dir);
	struct dirent *e;
	char **subs = NULL;
	size_t n = 0, cap = 0;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.' || e->d_name[0] == '_')
			continue;
		char *p = path_join(dir, e->d_name);
		if (path_is_dir(p)) {
			subs = xgrow(subs, &cap, n + 2, sizeof(*subs));
			subs[n++] = xstrdup(e->d_name);
			subs[n] = NULL;
		}
		free(p);
	}
	if (d)
		closedir(d);
	free(dir);
	if (n > 1)
		qsort(subs, n, sizeof(*subs), cmp_str);
	bool found = false;
	for (size_t i = 0; i < n && !found; i++) {
		char *next = xasprintf("%s/%s", rel_dir, subs[i]);
		found = find_test_in(ws, next, file, depth + 1, out);
		free(next);
	}
	strv_free(subs);
	return found;
}

static void locate_test(const char *ws, struct ws_operator *o)
{
	char *file = xasprintf("test_%s.py", o->name);
	char *want = *o->sub ? xasprintf("tests/ops/%s/%s", o->sub, file) : xasprintf("tests/ops/%s", file);
	char *abs = path_join(ws, want);
	if (path_is_file(abs)) {
		o->test_rel = want;
		o->test_found = true;
	} else if (find_test_in(ws, "tests/ops", file, 0, &o->test_rel)) {
		o->test_found = true;
		free(want);
	} else {
		o->test_rel = want;
	}
	free(abs);
	free(file);
}

static void locate_port(const char *ws, struct ws_operator *o)
{
	char *paths[] = {xasprintf(OPS_DIR "cutile_rs/%s_kernel/", o->name),
			 xasprintf(OPS_DIR "cutile_rs/%s.py", o->name)};
	size_t n = 0;
	for (size_t i = 0; i < TP_ARRAY_LEN(paths); i++) {
		char *abs = path_join(ws, paths[i]);
		bool there = path_is_dir(abs) || path_is_file(abs);
		free(abs);
		if (!there) {
			free(paths[i]);
			continue;
		}
		o->port = xrealloc(o->port, (n + 2) * sizeof(*o->port));
		o->port[n++] = paths[i];
		o->port[n] = NULL;
	}
}

/* The operator of the hits (all with one name): one file per backend, the
 * subfolder of the first. */
static int make(const char *ws, const char *name, struct hits *h, struct ws_operator *o, struct tp_err *err)
{
	memset(o, 0, sizeof(*o));
	for (size_t i = 0; i < h->n; i++) {
		for (size_t k = 0; k < i; k++) {
			if (h->v[k].backend != h->v[i].backend)
				continue;
			tp_err_set(err, TP_EXIT_USAGE, "two %s operators are named '%s' in %s: %s and %s; the "
						       "cuTile Rust port is named after the operator "
						       "(cutile_rs/%s_kernel/), so one of them must be renamed",
				   backends[h->v[i].backend], name, ws, h->v[k].rel, h->v[i].rel, name);
			return -1;
		}
	}
	o->name = xstrdup(name);
	o->sub = xstrdup(h->v[0].sub);
	for (size_t i = 0; i < h->n; i++)
		*(h->v[i].backend == 0 ? &o->cutile_rel : &o->triton_rel) = xstrdup(h->v[i].rel);
	locate_test(ws, o);
	locate_port(ws, o);
	return 0;
}

/* arg without the workspace, the ops/BACKEND/ prefix and .py: "activation/gelu". */
static char *normalise(const char *ws, const char *arg)
{
	char *wsabs = path_absolute(ws);
	const char *s = arg;
	size_t wl = strlen(wsabs);
	if (arg[0] == '/' && !strncmp(arg, wsabs, wl) && arg[wl] == '/')
		s = arg + wl + 1;
	while (str_starts(s, "./"))
		s += 2;
	if (str_starts(s, OPS_DIR)) {
		s += strlen(OPS_DIR);
		for (size_t b = 0; b < TP_ARRAY_LEN(backends); b++) {
			size_t bl = strlen(backends[b]);
			if (!strncmp(s, backends[b], bl) && s[bl] == '/') {
				s += bl + 1;
				break;
			}
		}
	}
	char *key = xstrdup(s);
	if (str_ends(key, ".py"))
		key[strlen(key) - 3] = '\0';
	free(wsabs);
	return key;
}

static bool key_ok(const char *key)
{
	if (!*key || key[0] == '/' || strstr(key, "//") || str_ends(key, "/"))
		return false;
	for (const char *c = key; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_' && *c != '/')
			return false;
	return true;
}

int operator_find(const char *ws, const char *arg, struct ws_operator *out, struct tp_err *err)
{
	memset(out, 0, sizeof(*out));
	char *key = normalise(ws, arg ? arg : "");
	if (!key_ok(key)) {
		tp_err_set(err, TP_EXIT_USAGE, "'%s' is not an operator name (letters, digits and '_') or "
					       "its path under src/tilegym/ops/{cutile,triton}/", arg ? arg : "");
		free(key);
		return -1;
	}
	const char *slash = strrchr(key, '/');
	const char *name = slash ? slash + 1 : key;
	char *sub = slash ? xstrndup(key, (size_t)(slash - key)) : NULL;
	struct hits h = {0};
	find_all(ws, name, &h);
	/* a path must name one of the files; the operator is all of them */
	bool named = !sub;
	for (size_t i = 0; i < h.n && !named; i++)
		named = !strcmp(sub, h.v[i].sub);
	if (!named)
		hits_free(&h);
	int rc = -1;
	if (!h.n) {
		tp_err_set(err, TP_EXIT_USAGE, "operator '%s' not found in workspace %s (looked for %s.py under "
					       "src/tilegym/ops/cutile/ and src/tilegym/ops/triton/, "
					       "subfolders included)", arg, ws, key);
	} else {
		struct tp_err kerr = {0};
		size_t with_kernel = 0;
		for (size_t i = 0; i < h.n; i++) {
			char *abs = path_join(ws, h.v[i].rel);
			if (has_kernel(abs, &kerr))
				with_kernel++;
			free(abs);
		}
		if (!with_kernel) {
			if (kerr.msg[0])
				tp_err_set(err, TP_EXIT_USAGE, "%s", kerr.msg);
			else
				tp_err_set(err, TP_EXIT_USAGE, "%s is not an operator: it has no kernel (no "
							       "@ct.kernel or @triton.jit); a helper module",
					   h.v[0].rel);
		} else {
			rc = make(ws, name, &h, out, err);
		}
	}
	hits_free(&h);
	free(sub);
	free(key);
	return rc;
}

static int cmp_op(const void *a, const void *b)
{
	return strcmp(((const struct ws_operator *)a)->name, ((const struct ws_operator *)b)->name);
}

int operator_list(const char *ws, struct ws_operator **out, size_t *n, char ***ambiguous,
		  struct tp_err *err)
{
	*out = NULL;
	*n = 0;
	if (ambiguous)
		*ambiguous = NULL;
	char *ops = path_join(ws, OPS_DIR);
	bool ok = path_is_dir(ops);
	free(ops);
	if (!ok) {
		tp_err_set(err, TP_EXIT_USAGE, "workspace %s has no src/tilegym/ops (expected a TileGym "
					       "checkout)", ws);
		return -1;
	}
	struct hits all = {0};
	find_all(ws, NULL, &all);
	size_t cap = 0, namb = 0, capamb = 0;
	bool *done = xcalloc(all.n + 1, sizeof(*done));
	for (size_t i = 0; i < all.n; i++) {
		if (done[i])
			continue;
		struct hits same = {0};
		for (size_t k = i; k < all.n; k++) {
			if (done[k] || strcmp(all.v[k].name, all.v[i].name) != 0)
				continue;
			done[k] = true;
			char *abs = path_join(ws, all.v[k].rel);
			bool kernel = has_kernel(abs, NULL);
			free(abs);
			if (!kernel)
				continue;
			same.v = xgrow(same.v, &same.cap, same.n + 1, sizeof(*same.v));
			same.v[same.n++] = (struct hit){all.v[k].backend, xstrdup(all.v[k].sub),
							xstrdup(all.v[k].name), xstrdup(all.v[k].rel)};
		}
		struct ws_operator o;
		if (same.n && make(ws, all.v[i].name, &same, &o, NULL) == 0) {
			*out = xgrow(*out, &cap, *n + 1, sizeof(**out));
			(*out)[(*n)++] = o;
		} else if (same.n && ambiguous) {
			*ambiguous = xgrow(*ambiguous, &capamb, namb + 2, sizeof(**ambiguous));
			(*ambiguous)[namb++] = xstrdup(all.v[i].name);
			(*ambiguous)[namb] = NULL;
		}
		hits_free(&same);
	}
	free(done);
	hits_free(&all);
	if (*n > 1)
		qsort(*out, *n, sizeof(**out), cmp_op);
	return 0;
}

const char *operator_source(const struct ws_operator *o)
{
	return o->cutile_rel ? o->cutile_rel : o->triton_rel;
}

char *operator_port_text(const struct ws_operator *o)
{
	return o->port ? strv_join(o->port, ", ") : xstrdup("");
}

void operator_free(struct ws_operator *o)
{
	if (!o)
		return;
	free(o->name);
	free(o->sub);
	free(o->cutile_rel);
	free(o->triton_rel);
	free(o->test_rel);
	strv_free(o->port);
	memset(o, 0, sizeof(*o));
}

void operators_free(struct ws_operator *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		operator_free(&v[i]);
	free(v);
}
