/* Sorting a Python module into imports, constants and functions. */
#include "engine/port/pymod.h"

#include <stdlib.h>
#include <string.h>

static const struct {
	const char *module, *prefix;
} known_modules[] = {
	{"cuda.tile", "ct"},
	{"triton.language", "tl"},
	{"triton", "triton"},
	{"torch", "torch"},
	{"math", "math"},
	{"numpy", "np"},
};

/* The short form of a canonical dotted name: "cuda.tile.load" -> "ct.load". */
static char *shorten(const char *dotted)
{
	for (size_t i = 0; i < TP_ARRAY_LEN(known_modules); i++) {
		size_t n = strlen(known_modules[i].module);
		if (strncmp(dotted, known_modules[i].module, n) == 0 &&
		    (dotted[n] == '\0' || dotted[n] == '.'))
			return xasprintf("%s%s", known_modules[i].prefix, dotted + n);
	}
	return xstrdup(dotted);
}

static void add_import(struct pymod *m, const char *local, size_t llen, const char *target)
{
	m->imports = xrealloc(m->imports, (m->nimports + 1) * sizeof(*m->imports));
	m->imports[m->nimports].local = xstrndup(local, llen);
	m->imports[m->nimports].target = xstrdup(target);
	m->nimports++;
}

static void read_import(struct pymod *m, const struct py_node *s)
{
	for (size_t k = 0; k < s->nkids; k++) {
		const struct py_node *a = s->kids[k];
		char *full = py_str(a);
		if (a->s2) {
			add_import(m, a->s2, a->n2, full);
		} else {
			/* `import triton.language` binds `triton` */
			const char *dot = strchr(full, '.');
			size_t head = dot ? (size_t)(dot - full) : strlen(full);
			char *top = xstrndup(full, head);
			add_import(m, full, head, top);
			free(top);
		}
		free(full);
	}
}

static void read_from(struct pymod *m, const struct py_node *s)
{
	char *mod = py_str(s);
	for (size_t k = 0; k < s->nkids; k++) {
		const struct py_node *a = s->kids[k];
		if (a->n == 1 && a->s[0] == '*')
			continue;
		char *name = py_str(a);
		char *target = xasprintf("%s.%s", mod, name);
		if (a->s2)
			add_import(m, a->s2, a->n2, target);
		else
			add_import(m, a->s, a->n, target);
		free(target);
		free(name);
	}
	free(mod);
}

char *pymod_canon(const struct pymod *m, const struct py_node *n)
{
	char *d = py_dotted(n);
	if (!d)
		return NULL;
	const char *dot = strchr(d, '.');
	size_t head = dot ? (size_t)(dot - d) : strlen(d);
	for (size_t i = m->nimports; i-- > 0;) {
		const struct pm_import *im = &m->imports[i];
		if (strlen(im->local) == head && strncmp(im->local, d, head) == 0) {
			char *full = xasprintf("%s%s", im->target, d + head);
			char *s = shorten(full);
			free(full);
			free(d);
			return s;
		}
	}
	return d;
}

bool pymod_is(const struct pymod *m, const struct py_node *n, const char *api)
{
	char *c = pymod_canon(m, n);
	bool ok = c && strcmp(c, api) == 0;
	free(c);
	return ok;
}

static const struct py_node *callee(const struct py_node *deco)
{
	return deco->kind == PY_CALL ? deco->kids[0] : deco;
}

static void read_def(struct pymod *m, const struct py_node *def, int cls)
{
	struct pm_func f = {0};
	f.def = def;
	f.cls = cls;
	f.name = py_str(def);
	f.role = PM_OTHER;
	const struct py_node *decos = def->kids[0];
	for (size_t k = 0; decos && k < decos->nkids; k++) {
		const struct py_node *d = decos->kids[k];
		char *c = pymod_canon(m, callee(d));
		if (!c)
			continue;
		if (strcmp(c, "ct.kernel") == 0) {
			f.role = PM_KERNEL;
			f.fe = FE_CUTILE;
			f.deco = d;
		} else if (strcmp(c, "triton.jit") == 0 || strcmp(c, "triton.autotune") == 0 ||
			   strcmp(c, "triton.heuristics") == 0) {
			if (f.role != PM_KERNEL && strcmp(c, "triton.jit") == 0) {
				f.role = PM_KERNEL;
				f.fe = FE_TRITON;
				f.deco = d;
			}
		} else if (strcmp(c, "ct.function") == 0) {
			f.role = PM_DEVICE;
		} else if (str_ends(c, "register_impl") && d->kind == PY_CALL) {
			f.register_impl = d;
			f.role = PM_HOST;
		}
		free(c);
	}
	m->funcs = xrealloc(m->funcs, (m->nfuncs + 1) * sizeof(*m->funcs));
	m->funcs[m->nfuncs++] = f;
}

/* Does the body launch something: ct.launch(...) or kernel[grid](...)? */
static bool launches(const struct pymod *m, const struct py_node *n)
{
	if (!n)
		return false;
	if (n->kind == PY_CALL) {
		if (pymod_is(m, n->kids[0], "ct.launch"))
			return true;
		if (n->kids[0]->kind == PY_SUBSCRIPT && n->kids[0]->kids[0]->kind == PY_NAME) {
			char *name = py_str(n->kids[0]->kids[0]);
			const struct pm_func *k = pymod_func(m, name);
			free(name);
			if (k && k->role == PM_KERNEL)
				return true;
		}
	}
	if (n->kind == PY_DEF || n->kind == PY_CLASS || n->kind == PY_LAMBDA)
		return n->kind == PY_DEF ? launches(m, n->kids[3]) : false;
	for (size_t k = 0; k < n->nkids; k++)
		if (launches(m, n->kids[k]))
			return true;
	return false;
}

static void sort(struct pymod *m)
{
	const struct py_node *body = m->py.body;
	for (size_t k = 0; k < body->nkids; k++) {
		const struct py_node *s = body->kids[k];
		if (s->kind == PY_IMPORT)
			read_import(m, s);
		else if (s->kind == PY_FROM)
			read_from(m, s);
	}
	for (size_t k = 0; k < body->nkids; k++) {
		const struct py_node *s = body->kids[k];
		if (s->kind == PY_DEF) {
			read_def(m, s, -1);
		} else if (s->kind == PY_CLASS) {
			m->classes = xrealloc(m->classes, (m->nclasses + 1) * sizeof(*m->classes));
			m->classes[m->nclasses].name = py_str(s);
			m->classes[m->nclasses].def = s;
			const struct py_node *cb = s->kids[2];
			for (size_t j = 0; cb && j < cb->nkids; j++)
				if (cb->kids[j]->kind == PY_DEF)
					read_def(m, cb->kids[j], (int)m->nclasses);
			m->nclasses++;
		} else if ((s->kind == PY_ASSIGN && s->nkids == 2 && s->kids[0]->kind == PY_NAME) ||
			   (s->kind == PY_ANNASSIGN && s->kids[2] && s->kids[0]->kind == PY_NAME)) {
			m->consts = xrealloc(m->consts, (m->nconsts + 1) * sizeof(*m->consts));
			m->consts[m->nconsts].name = py_str(s->kids[0]);
			m->consts[m->nconsts].value = s->kind == PY_ASSIGN ? s->kids[1] : s->kids[2];
			m->nconsts++;
		}
	}
	for (size_t k = 0; k < m->nfuncs; k++)
		if (m->funcs[k].role == PM_OTHER && launches(m, m->funcs[k].def->kids[3]))
			m->funcs[k].role = PM_HOST;
}

int pymod_parse(struct pymod *m, const char *path, const char *src, size_t len,
		struct tp_err *err)
{
	memset(m, 0, sizeof(*m));
	if (py_parse(&m->py, path, src, len, err) < 0)
		return -1;
	sort(m);
	return 0;
}

int pymod_load(struct pymod *m, const char *path, struct tp_err *err)
{
	memset(m, 0, sizeof(*m));
	if (py_parse_file(&m->py, path, err) < 0)
		return -1;
	sort(m);
	return 0;
}

struct pymod_deps {
	struct pymod *mods; /* loaded, or path NULL where the file did not read */
	char **paths;
	size_t n;
};

void pymod_free(struct pymod *m)
{
	if (m->deps) {
		for (size_t i = 0; i < m->deps->n; i++) {
			if (m->deps->mods[i].py.path)
				pymod_free(&m->deps->mods[i]);
			free(m->deps->paths[i]);
		}
		free(m->deps->mods);
		free(m->deps->paths);
		free(m->deps);
	}
	for (size_t i = 0; i < m->nimports; i++) {
		free(m->imports[i].local);
		free(m->imports[i].target);
	}
	free(m->imports);
	for (size_t i = 0; i < m->nfuncs; i++)
		free(m->funcs[i].name);
	free(m->funcs);
	for (size_t i = 0; i < m->nclasses; i++)
		free(m->classes[i].name);
	free(m->classes);
	for (size_t i = 0; i < m->nconsts; i++)
		free(m->consts[i].name);
	free(m->consts);
	py_module_free(&m->py);
	memset(m, 0, sizeof(*m));
}

const struct pm_func *pymod_func(const struct pymod *m, const char *name)
{
	for (size_t i = m->nfuncs; i-- > 0;)
		if (m->funcs[i].cls < 0 && strcmp(m->funcs[i].name, name) == 0)
			return &m->funcs[i];
	return NULL;
}

const struct pm_const *pymod_const(const struct pymod *m, const char *name)
{
	for (size_t i = m->nconsts; i-- > 0;)
		if (strcmp(m->consts[i].name, name) == 0)
			return &m->consts[i];
	return NULL;
}

size_t pymod_kernels(const struct pymod *m, const struct pm_func **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < m->nfuncs; i++)
		if (m->funcs[i].role == PM_KERNEL) {
			if (n < max)
				out[n] = &m->funcs[i];
			n++;
		}
	return n;
}

/* The file a relative module name stands for beside `from`: ".gelu" the
 * sibling gelu.py, "..x.y" ../x/y.py. NULL for an absolute name. */
static char *relative_path(const char *from, const char *mod)
{
	if (mod[0] != '.')
		return NULL;
	const char *slash = strrchr(from, '/');
	struct sbuf sb = SBUF_INIT;
	if (slash)
		sb_add(&sb, from, (size_t)(slash - from) + 1);
	const char *p = mod + 1;
	for (; *p == '.'; p++)
		sb_adds(&sb, "../");
	for (; *p; p++)
		sb_addc(&sb, *p == '.' ? '/' : *p);
	sb_adds(&sb, ".py");
	return sb_detach(&sb);
}

const struct pm_func *pymod_imported_func(const struct pymod *m, const char *name,
					  const struct pymod **owner)
{
	const char *target = NULL;
	for (size_t i = 0; i < m->nimports; i++)
		if (strcmp(m->imports[i].local, name) == 0)
			target = m->imports[i].target;
	const char *dot = target ? strrchr(target, '.') : NULL;
	if (!dot || dot == target || target[0] != '.')
		return NULL;
	char *mod = xstrndup(target, (size_t)(dot - target));
	char *path = relative_path(m->py.path, mod);
	free(mod);
	if (!path)
		return NULL;
	struct pymod *self = (struct pymod *)m; /* the cache only */
	if (!self->deps)
		self->deps = xcalloc(1, sizeof(*self->deps));
	struct pymod_deps *d = self->deps;
	size_t i = 0;
	while (i < d->n && strcmp(d->paths[i], path) != 0)
		i++;
	if (i == d->n) {
		if (d->n >= 16) {
			free(path);
			return NULL;
		}
		d->mods = xrealloc(d->mods, (d->n + 1) * sizeof(*d->mods));
		d->paths = xrealloc(d->paths, (d->n + 1) * sizeof(*d->paths));
		d->paths[d->n] = path;
		struct tp_err err = {0};
		if (pymod_load(&d->mods[d->n], path, &err) < 0)
			memset(&d->mods[d->n], 0, sizeof(d->mods[d->n]));
		tp_err_clear(&err);
		d->n++;
	} else {
		free(path);
	}
	if (!d->mods[i].py.path)
		return NULL;
	const struct pm_func *f = pymod_func(&d->mods[i], dot + 1);
	if (f && owner)
		*owner = &d->mods[i];
	return f;
}
