/* The imports of the cutile-rs wrapper. The wrapper is the reference's
 * host code without cuda.tile or Triton: TileGym makes the cutile-rs
 * backend unavailable when importing its wrappers fails, so an import the
 * copied code does not read is left out (`experimental_kernel`, which
 * decorates kernels only, imports cuda.tile), and a name the host code
 * takes from another operator's module (a launch helper: mla_decoding's
 * split-KV pass calls splitk_reduce, which launches splitk_reduce's kernel)
 * comes from that operator's cuTile Rust port, as a TileGym developer would
 * write it, or the wrapper is refused naming the operator to port first. */
#include "engine/port/host_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"

char *host_package_of(const char *source_rel)
{
	const char *p = str_starts(source_rel, "src/") ? source_rel + 4 : NULL;
	const char *slash = p ? strrchr(p, '/') : NULL;
	if (!slash)
		return NULL;
	char *pkg = xstrndup(p, (size_t)(slash - p));
	for (char *c = pkg; *c; c++)
		if (*c == '/')
			*c = '.';
	return pkg;
}

/* Helpers the cutile-rs side writes itself rather than import from a
 * sibling module of the reference (which imports cuda.tile). */
static const struct {
	const char *name, *def;
} own_helpers[] = {
	{"next_power_of_2", "def next_power_of_2(n):\n    return 1 << (n - 1).bit_length()\n"},
	{"cdiv", "def cdiv(a, b):\n    return (a + b - 1) // b\n"},
	{"ceil_div", "def ceil_div(a, b):\n    return (a + b - 1) // b\n"},
};

static const char *own_helper(const char *name)
{
	for (size_t i = 0; i < TP_ARRAY_LEN(own_helpers); i++)
		if (strcmp(own_helpers[i].name, name) == 0)
			return own_helpers[i].def;
	return NULL;
}

static bool is_used(const struct host_imports *in, const char *name)
{
	for (char *const *u = in->used; u && *u; u++)
		if (strcmp(*u, name) == 0)
			return true;
	return false;
}

/* The module of `from MOD import ...` as an absolute dotted name; NULL
 * for a relative one whose package is unknown. Caller frees. */
static char *absolute_module(const struct host_imports *in, const struct py_node *s)
{
	size_t dots = strspn(s->s, ".");
	if (dots == 0)
		return xstrndup(s->s, s->n);
	if (!in->pkg)
		return NULL;
	char *base = xstrdup(in->pkg);
	for (size_t d = 1; d < dots; d++) {
		char *dot = strrchr(base, '.');
		if (dot)
			*dot = '\0';
	}
	char *mod = s->n > dots ? xasprintf("%s.%.*s", base, (int)(s->n - dots), s->s + dots)
				: xstrdup(base);
	free(base);
	return mod;
}

/* The text of module `mod` of the workspace (mod.py or mod/__init__.py),
 * NULL when it is not one. */
static char *module_text(const struct host_imports *in, const char *mod)
{
	if (!in->src_root)
		return NULL;
	char *rel = xstrdup(mod);
	for (char *c = rel; *c; c++)
		if (*c == '.')
			*c = '/';
	char *a = xasprintf("%s/%s.py", in->src_root, rel);
	char *b = xasprintf("%s/%s/__init__.py", in->src_root, rel);
	size_t n;
	char *text = path_is_file(a) ? read_file(a, &n, NULL) : path_is_file(b) ? read_file(b, &n, NULL)
										: NULL;
	free(a);
	free(b);
	free(rel);
	return text;
}

/* Does a module's text import cuda.tile or Triton at its top level? */
static bool imports_kernel_language(const char *text)
{
	static const char *const heads[] = {"import cuda", "from cuda", "import triton", "from triton"};
	for (const char *line = text; line && *line;) {
		for (size_t i = 0; i < TP_ARRAY_LEN(heads); i++) {
			size_t l = strlen(heads[i]);
			if (strncmp(line, heads[i], l) == 0 && (line[l] == ' ' || line[l] == '.'))
				return true;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return false;
}

/* `def NAME(` or `class NAME` at the top level of a module's text. */
static bool defines(const char *text, const char *name)
{
	char *d = xasprintf("\ndef %s(", name), *c = xasprintf("\nclass %s", name);
	bool yes = strstr(text, d) || strstr(text, c);
	free(d);
	free(c);
	return yes;
}

/* MOD is an operator module of a kernel language: PKG.ops.cutile[.SUB].STEM
 * or PKG.ops.triton[.SUB].STEM; its stem. */
static const char *operator_stem(const char *mod)
{
	if (!strstr(mod, ".ops.cutile.") && !strstr(mod, ".ops.triton."))
		return NULL;
	const char *dot = strrchr(mod, '.');
	return dot ? dot + 1 : NULL;
}

static void add_name(struct sbuf *names, const struct py_node *alias)
{
	sb_printf(names, "%s%.*s", names->len ? ", " : "", (int)alias->n, alias->s);
	if (alias->s2)
		sb_printf(names, " as %.*s", (int)alias->n2, alias->s2);
}

static int from_import(const struct host_imports *in, const struct py_node *s, struct sbuf *out,
		       struct sbuf *helpers, struct tp_err *err)
{
	char *mod = absolute_module(in, s);
	char *text = mod ? module_text(in, mod) : NULL;
	bool lang = text && imports_kernel_language(text);
	const char *stem = lang ? operator_stem(mod) : NULL;
	char *top = mod ? xstrndup(mod, strcspn(mod, ".")) : NULL;
	char *port_mod = stem ? xasprintf("%s.ops.cutile_rs.%s", top, stem) : NULL;
	char *port_text = port_mod ? module_text(in, port_mod) : NULL;
	struct sbuf names = SBUF_INIT, ported = SBUF_INIT;
	int rc = 0;
	for (size_t k = 0; k < s->nkids && rc == 0; k++) {
		const struct py_node *a = s->kids[k];
		char *name = py_str(a);
		char *bound = a->s2 ? xstrndup(a->s2, a->n2) : xstrdup(name);
		const char *h = a->s2 ? NULL : own_helper(name);
		if (strcmp(name, "*") != 0 && !is_used(in, bound)) {
			/* not read by the copied code */
		} else if (h) {
			if (!strstr(sb_str(helpers), h))
				sb_printf(helpers, "\n\n%s", h);
		} else if (lang && port_text && defines(port_text, name)) {
			add_name(&ported, a);
		} else if (lang) {
			const char *at = in->pm->path;
			if (stem)
				tp_err_set(err, TP_EXIT_FAILED,
					   "%s:%d:%d: unsupported: `%s` from %s, another operator's host code "
					   "that runs its kernels in cuTile Python: port %s first (tileport run "
					   "%s); the wrapper then takes `%s` from its cuTile Rust port",
					   at, a->line, a->col, name, mod, stem, stem, name);
			else
				tp_err_set(err, TP_EXIT_FAILED,
					   "%s:%d:%d: unsupported: `%s` from %s, which imports cuda.tile or "
					   "Triton (the cutile-rs wrapper runs without them)",
					   at, a->line, a->col, name, mod);
			rc = -1;
		} else {
			add_name(&names, a);
		}
		free(bound);
		free(name);
	}
	if (rc == 0 && names.len)
		sb_printf(out, "from %s import %s\n", mod ? mod : "", sb_str(&names));
	if (rc == 0 && ported.len)
		sb_printf(out, "from %s import %s\n", port_mod, sb_str(&ported));
	sb_free(&names);
	sb_free(&ported);
	free(port_text);
	free(port_mod);
	free(top);
	free(text);
	free(mod);
	return rc;
}

int host_import(const struct host_imports *in, const struct py_node *s, struct sbuf *out,
		struct sbuf *helpers, struct tp_err *err)
{
	if (s->kind == PY_FROM && s->n == 10 && memcmp(s->s, "__future__", 10) == 0) {
		char *t = py_node_text(in->pm, s);
		sb_printf(out, "%s\n", t);
		free(t);
		return 0;
	}
	if (s->kind == PY_FROM) {
		if (strspn(s->s, ".") && !in->pkg) {
			/* a relative import whose package is unknown: kept as written */
			char *t = py_node_text(in->pm, s);
			sb_printf(out, "%s\n", t);
			free(t);
			return 0;
		}
		return from_import(in, s, out, helpers, err);
	}
	struct sbuf names = SBUF_INIT;
	for (size_t k = 0; k < s->nkids; k++) {
		const struct py_node *a = s->kids[k];
		/* `import a.b` binds a */
		size_t first = strcspn(a->s, ". \t,\n");
		char *bound = a->s2 ? xstrndup(a->s2, a->n2) : xstrndup(a->s, first < a->n ? first : a->n);
		if (is_used(in, bound))
			add_name(&names, a);
		free(bound);
	}
	if (names.len)
		sb_printf(out, "import %s\n", sb_str(&names));
	sb_free(&names);
	return 0;
}
