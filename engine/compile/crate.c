/* The scratch crates of `tileport compile`, in the cache folder of a
 * workspace: `check/` includes the op's files by absolute path (so rustc's
 * messages name them, and nothing is copied or written in the user's tree),
 * `lower/` is the lowering program; both use the [dependencies] of the
 * workspace's own cutile_kernels crate and share one target folder. */
#include "engine/compile/compile_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"

static char *cache_base(void)
{
	const char *env = getenv("TILEPORT_CACHE_DIR");
	if (env && *env)
		return path_absolute(env);
	if ((env = getenv("XDG_CACHE_HOME")) && *env == '/')
		return path_join(env, "tileport");
	const char *home = getenv("HOME");
	return xasprintf("%s/.cache/tileport", home && *home ? home : "/tmp");
}

/* One target folder per set of dependencies, shared by every workspace
 * that pins the same crates: the first build (minutes) is paid once per
 * machine, not once per checkout. Each workspace has its own check crate
 * under it. */
char *compile_cache_dir(const struct ws_deps *d)
{
	char *base = cache_base();
	struct sbuf key = SBUF_INIT;
	sb_printf(&key, "%s\n%s\n%s", d->deps, d->patch ? d->patch : "", d->edition);
	char *dir = xasprintf("%s/compile/deps-%016llx", base,
			      (unsigned long long)tp_hash(key.buf, key.len, 0x74696c65ULL));
	sb_free(&key);
	free(base);
	return dir;
}

char *compile_kernels_dir(const char *workspace)
{
	/* absolute: the scratch crate includes files by these paths */
	const char *env = getenv("CUTILE_RS_KERNELS_DIR");
	if (env && *env)
		return path_absolute(env);
	char *ws = path_absolute(workspace);
	char *kd = path_join(ws, "src/tilegym/ops/cutile_rs/cutile_kernels");
	free(ws);
	return kd;
}

static const char default_deps[] = "cutile = \"=0.2.0\"\n"
				   "cutile-compiler = \"=0.2.0\"\n"
				   "cutile-macro = \"=0.2.0\"\n"
				   "cuda-core = \"=0.2.0\"\n"
				   "cuda-async = \"=0.2.0\"\n";

/* The key of a TOML line `key = ...` (or `[section]`), trimmed; NULL for
 * comments and blank lines. */
static char *toml_key(const char *line, size_t n)
{
	while (n && (*line == ' ' || *line == '\t'))
		line++, n--;
	if (!n || *line == '#')
		return NULL;
	size_t k = 0;
	while (k < n && line[k] != '=' && line[k] != ' ' && line[k] != '\t')
		k++;
	return xstrndup(line, k);
}

int compile_ws_deps(const char *workspace, struct ws_deps *d, struct tp_err *err)
{
	memset(d, 0, sizeof(*d));
	char *kd = compile_kernels_dir(workspace);
	char *toml = path_join(kd, "Cargo.toml");
	free(kd);
	if (!path_is_file(toml)) {
		d->deps = xstrdup(default_deps);
		d->cutile_line = xstrdup("cutile = \"=0.2.0\"");
		d->edition = xstrdup("2024");
		d->from = xasprintf("tileport's default pins (cutile 0.2.0: %s does not exist)", toml);
		free(toml);
		return 0;
	}
	size_t len;
	char *text = read_text_file(toml, &len, err);
	if (!text) {
		free(toml);
		return -1;
	}
	struct sbuf deps = SBUF_INIT, patch = SBUF_INIT;
	enum { OTHER, PACKAGE, DEPS, PATCH } sect = OTHER;
	int lineno = 0, deps_line = 0;
	for (const char *p = text; *p;) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		lineno++;
		char *key = toml_key(p, n);
		if (key && key[0] == '[') {
			sect = !strcmp(key, "[dependencies]")   ? (deps_line = lineno, DEPS)
			       : !strcmp(key, "[package]")      ? PACKAGE
			       : str_starts(key, "[patch")       ? PATCH
								  : OTHER;
			if (sect == PATCH) {
				sb_add(&patch, p, n);
				sb_addc(&patch, '\n');
			}
		} else if (sect == DEPS) {
			sb_add(&deps, p, n);
			sb_addc(&deps, '\n');
			if (key && !strcmp(key, "cutile"))
				d->cutile_line = xstrndup(p, n);
		} else if (sect == PATCH) {
			sb_add(&patch, p, n);
			sb_addc(&patch, '\n');
		} else if (sect == PACKAGE && key && !strcmp(key, "edition")) {
			const char *q = memchr(p, '"', n);
			const char *r = q ? memchr(q + 1, '"', n - (size_t)(q + 1 - p)) : NULL;
			if (r)
				d->edition = xstrndup(q + 1, (size_t)(r - q - 1));
		}
		free(key);
		p = e ? e + 1 : p + n;
	}
	free(text);
	if (!d->cutile_line) {
		if (deps_line)
			tp_err_set(err, TP_EXIT_USAGE,
				   "%s:%d: expected a `cutile = \"=VERSION\"` dependency in [dependencies] "
				   "(the crate the kernels are written against)",
				   toml, deps_line);
		else
			tp_err_set(err, TP_EXIT_USAGE,
				   "%s:1:1: expected a [dependencies] section with the cutile crate", toml);
		free(toml);
		sb_free(&deps);
		sb_free(&patch);
		compile_ws_deps_free(d);
		return -1;
	}
	d->deps = sb_detach(&deps);
	d->patch = patch.len ? sb_detach(&patch) : (sb_free(&patch), NULL);
	if (!d->edition)
		d->edition = xstrdup("2021");
	d->from = toml;
	return 0;
}

void compile_ws_deps_free(struct ws_deps *d)
{
	free(d->deps);
	free(d->patch);
	free(d->cutile_line);
	free(d->edition);
	free(d->from);
	memset(d, 0, sizeof(*d));
}

/* Write a file only when its text changed: cargo looks at modification
 * times, and an unchanged crate should cost nothing. */
int compile_write_if_changed(const char *path, const char *text, struct tp_err *err)
{
	size_t n;
	char *old = path_is_file(path) ? read_file(path, &n, NULL) : NULL;
	bool same = old && n == strlen(text) && memcmp(old, text, n) == 0;
	free(old);
	return same ? 0 : write_file_atomic(path, text, strlen(text), err);
}

char *compile_manifest(const char *name, const struct ws_deps *d, bool bin, const char *deps)
{
	struct sbuf sb = SBUF_INIT;
	sb_printf(&sb, "# Written by tileport compile (docs/compile.md): dependencies from %s\n"
		       "[package]\nname = \"%s\"\nversion = \"0.0.0\"\nedition = \"%s\"\npublish = false\n\n",
		  d->from, name, d->edition);
	if (bin)
		sb_printf(&sb, "[[bin]]\nname = \"%s\"\npath = \"src/main.rs\"\n\n", name);
	else
		sb_adds(&sb, "[lib]\npath = \"src/lib.rs\"\n\n");
	sb_printf(&sb, "[dependencies]\n%s\n", deps);
	/* no debug info: the lowering program links faster and the target
	 * folder stays smaller; nothing here is debugged. syn optimised: the
	 * lowering re-parses the cutile core module's source for every entry
	 * (1.6x faster for about 15 s more of a cold build) */
	sb_adds(&sb, "[profile.dev]\ndebug = false\n\n[profile.dev.package.syn]\nopt-level = 3\n\n"
		     "[profile.dev.package.proc-macro2]\nopt-level = 3\n\n");
	if (d->patch)
		sb_printf(&sb, "%s\n", d->patch);
	sb_adds(&sb, "[workspace]\n");
	return sb_detach(&sb);
}

/* A Rust string literal of an absolute path. */
static void add_path_lit(struct sbuf *sb, const char *path)
{
	sb_addc(sb, '"');
	for (const char *p = path; *p; p++) {
		if (*p == '"' || *p == '\\')
			sb_addc(sb, '\\');
		sb_addc(sb, *p);
	}
	sb_addc(sb, '"');
}

char *compile_lib_rs(const char *op, const char *ffi_util, const char *kernel, const char *ffi)
{
	struct sbuf sb = SBUF_INIT;
	sb_adds(&sb, "// Written by tileport compile (docs/compile.md): the op's files, included by\n"
		     "// absolute path as the cutile_kernels crate's lib.rs includes them.\n");
	if (ffi && ffi_util) {
		sb_adds(&sb, "#[path = ");
		add_path_lit(&sb, ffi_util);
		sb_adds(&sb, "]\nmod ffi_util;\n\n");
	}
	sb_printf(&sb, "pub mod %s {\n    include!(", op);
	add_path_lit(&sb, kernel);
	sb_adds(&sb, ");\n");
	if (ffi) {
		sb_adds(&sb, "    include!(");
		add_path_lit(&sb, ffi);
		sb_adds(&sb, ");\n");
	}
	sb_adds(&sb, "}\n");
	return sb_detach(&sb);
}

/* The workspace's lib.rs with every `#[path = "..."]` and `include!("...")`
 * made absolute (relative to the file's folder), so that the scratch crate
 * compiles the crate exactly as registered. */
char *compile_lib_rs_absolute(const char *text, const char *dir)
{
	struct sbuf sb = SBUF_INIT;
	const char *p = text;
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p + 1) : strlen(p);
		char *line = xstrndup(p, n);
		char *cmt = strstr(line, "//");
		char *at = strstr(line, "include!(");
		if (!at)
			at = strstr(line, "#[path");
		char *q1 = at && (!cmt || at < cmt) ? strchr(at, '"') : NULL;
		char *q2 = q1 ? strchr(q1 + 1, '"') : NULL;
		if (q2 && q1[1] != '/') {
			sb_add(&sb, line, (size_t)(q1 - line));
			char *rel = xstrndup(q1 + 1, (size_t)(q2 - q1 - 1));
			char *abs = path_join(dir, rel);
			add_path_lit(&sb, abs);
			free(abs);
			free(rel);
			sb_adds(&sb, q2 + 1);
		} else {
			sb_adds(&sb, line);
		}
		free(line);
		p += n;
	}
	return sb_detach(&sb);
}
