/* The shape checks of a changeset (engine/git/shape.def): read from the
 * files' paths and from the lines their diffs add and remove, so the same
 * code judges a commit under review and the commit packaging is about to
 * make. Each check says what it found when it passes and what is wrong
 * when it fails. */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "engine/git/cs_int.h"

static const struct {
	const char *name, *help;
} shapes[] = {
#define SHAPE(id, name, help) {name, help},
#include "engine/git/shape.def"
#undef SHAPE
};

const char *cs_shape_name(enum cs_shape s)
{
	return shapes[s].name;
}

const char *cs_shape_help(enum cs_shape s)
{
	return shapes[s].help;
}

const struct cs_file *cs_file_of(const struct changeset *cs, enum cs_role r)
{
	for (size_t i = 0; i < cs->nfiles; i++)
		if (cs->files[i].role == r)
			return &cs->files[i];
	return NULL;
}

static void set(struct changeset *cs, enum cs_shape s, bool ok, const char *fmt, ...)
	TP_PRINTF(4, 5);
static void set(struct changeset *cs, enum cs_shape s, bool ok, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(cs->checks[s].detail);
	cs->checks[s].detail = xvasprintf(fmt, ap);
	va_end(ap);
	cs->checks[s].ok = ok;
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static bool blank(const char *s)
{
	return !*skip_ws(s);
}

/* An identifier at s; its length, 0 when there is none. */
static size_t ident(const char *s)
{
	size_t n = 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_')
		n++;
	return n;
}

/* "keyword " at s (after blanks): a pointer past it, else NULL. */
static const char *word(const char *s, const char *kw)
{
	s = skip_ws(s);
	size_t n = strlen(kw);
	if (strncmp(s, kw, n) != 0 || (s[n] != ' ' && s[n] != '\t'))
		return NULL;
	return skip_ws(s + n);
}

/* ---- six-paths ---- */

static void check_six_paths(struct changeset *cs)
{
	struct sbuf why = SBUF_INIT;
	int seen[CS_NROLES] = {0};
	for (size_t i = 0; i < cs->nfiles; i++) {
		const struct cs_file *f = &cs->files[i];
		if (f->role == CS_ROLE_OTHER)
			sb_printf(&why, "%sextra path %s", why.len ? "; " : "", f->path);
		else if (f->status == 'D')
			sb_printf(&why, "%s%s deleted (%s)", why.len ? "; " : "", cs_role_name(f->role), f->path);
		else
			seen[f->role]++;
	}
	for (int r = 0; r < CS_NROLES; r++) {
		if (seen[r])
			continue;
		char *p = cs->op ? cs_role_path((enum cs_role)r, cs->op) : NULL;
		sb_printf(&why, "%s%s missing (%s%s)", why.len ? "; " : "", cs_role_name((enum cs_role)r),
			  p ? cs->prefix : "", p ? p : "no op");
		free(p);
	}
	if (why.len)
		set(cs, CS_SHAPE_SIX_PATHS, false, "%zu path(s): %s", cs->nfiles, sb_str(&why));
	else
		set(cs, CS_SHAPE_SIX_PATHS, true, "6 paths: kernel, ffi, wrapper, lib.rs, import, test");
	sb_free(&why);
}

/* ---- lib.rs: one mod block ---- */

/* "mod NAME {" or "pub mod NAME {" (pub(crate) too): NAME's length, with
 * *name set; 0 otherwise. *block tells a block from "mod NAME;". */
static size_t mod_decl(const char *line, const char **name, bool *block)
{
	const char *s = skip_ws(line);
	if (str_starts(s, "pub(crate)"))
		s = skip_ws(s + 10);
	else if (word(s, "pub"))
		s = word(s, "pub");
	const char *m = word(s, "mod");
	if (!m)
		return 0;
	size_t n = ident(m);
	if (!n)
		return 0;
	const char *after = skip_ws(m + n);
	*name = m;
	*block = *after == '{';
	return *after == '{' || *after == ';' ? n : 0;
}

static int brace_delta(const char *s)
{
	int d = 0;
	for (; *s; s++) {
		if (*s == '/' && s[1] == '/')
			break;
		d += *s == '{' ? 1 : *s == '}' ? -1 : 0;
	}
	return d;
}

static bool rs_filler(const char *s)
{
	s = skip_ws(s);
	return !*s || str_starts(s, "//") || str_starts(s, "#[");
}

/* An include! line of body that names {mod}_kernel/FILE. */
static bool includes(const char *body, const char *mod, const char *file)
{
	char *want = xasprintf("%s_kernel/%s", mod, file);
	bool found = false;
	for (const char *l = body; l && *l && !found;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		char *line = xstrndup(l, n);
		found = strstr(line, "include!") && strstr(line, want);
		free(line);
		l += n + (nl ? 1 : 0);
	}
	free(want);
	return found;
}

static void check_lib(struct changeset *cs, char **mod_name)
{
	const struct cs_file *f = cs_file_of(cs, CS_ROLE_LIB);
	if (!f) {
		set(cs, CS_SHAPE_LIB_MOD, false, "lib.rs is not changed: the op needs its mod block");
		return;
	}
	int blocks = 0, removed = 0;
	const char *first_removed = NULL, *stray = NULL;
	int depth = 0;
	bool in_block = false; /* inside the first added block */
	struct sbuf names = SBUF_INIT, body = SBUF_INIT;
	for (size_t i = 0; i < f->nlines; i++) {
		const struct cs_line *l = &f->lines[i];
		if (l->origin == '-') {
			if (!blank(l->text) && !removed++)
				first_removed = l->text;
			continue;
		}
		if (depth > 0) {
			if (in_block)
				sb_printf(&body, "%s\n", l->text);
			depth += brace_delta(l->text);
			in_block &= depth > 0;
			continue;
		}
		const char *name;
		bool block;
		size_t n = mod_decl(l->text, &name, &block);
		if (n) {
			blocks++;
			sb_printf(&names, "%s%.*s%s", names.len ? ", " : "", (int)n, name, block ? "" : ";");
			if (blocks == 1) {
				free(*mod_name);
				*mod_name = xstrndup(name, n);
			}
			depth = block ? brace_delta(l->text) : 0;
			in_block = blocks == 1 && depth > 0;
			if (blocks == 1)
				sb_printf(&body, "%s\n", l->text);
		} else if (!rs_filler(l->text) && !stray) {
			stray = l->text;
		}
	}
	bool kernel = blocks == 1 && includes(sb_str(&body), *mod_name, "kernel.rs");
	bool ffi = blocks == 1 && includes(sb_str(&body), *mod_name, "ffi.rs");
	if (removed)
		set(cs, CS_SHAPE_LIB_MOD, false, "lib.rs removes %d line(s) (first: '%s'); it may only add",
		    removed, first_removed);
	else if (blocks != 1)
		set(cs, CS_SHAPE_LIB_MOD, false, "lib.rs adds %d mod declaration(s)%s%s%s; expected one block",
		    blocks, blocks ? " (" : "", sb_str(&names), blocks ? ")" : "");
	else if (!strchr(sb_str(&names), ';') && (!kernel || !ffi))
		set(cs, CS_SHAPE_LIB_MOD, false, "mod %s does not include!%s%s%s from %s_kernel/", *mod_name,
		    kernel ? "" : " kernel.rs", kernel || ffi ? "" : " and", ffi ? "" : " ffi.rs", *mod_name);
	else if (strchr(sb_str(&names), ';'))
		set(cs, CS_SHAPE_LIB_MOD, false, "lib.rs adds 'mod %s;' without a block; expected "
		    "mod %s { include!(kernel.rs); include!(ffi.rs); }", *mod_name, *mod_name);
	else if (stray)
		set(cs, CS_SHAPE_LIB_MOD, false, "lib.rs adds a line outside the mod block: '%s'", stray);
	else
		set(cs, CS_SHAPE_LIB_MOD, true, "adds mod %s { kernel.rs, ffi.rs }", *mod_name);
	sb_free(&names);
	sb_free(&body);
}

/* ---- __init__.py: one import inside the guard ---- */

static int indent_of(const char *s)
{
	return (int)(skip_ws(s) - s);
}

/* "from . import NAME" (a "# noqa" comment allowed): NAME's length. */
static size_t py_import(const char *line, const char **name)
{
	const char *s = word(line, "from");
	if (!s || *s != '.')
		return 0;
	s = word(s + 1, "import");
	if (!s)
		return 0;
	size_t n = ident(s);
	const char *after = skip_ws(s + n);
	if (!n || (*after && *after != '#'))
		return 0;
	*name = s;
	return n;
}

static bool py_filler(const char *s)
{
	s = skip_ws(s);
	return !*s || *s == '#';
}

/* The line that opens the block holding line `lineno` (1-based) of text. */
static char *enclosing_line(const char *text, int lineno)
{
	size_t n;
	char **lines = str_split(text, '\n', true, &n);
	char *found = NULL;
	if (lineno >= 1 && (size_t)lineno <= n) {
		int ind = indent_of(lines[lineno - 1]);
		for (int i = lineno - 2; i >= 0 && !found; i--)
			if (!py_filler(lines[i]) && indent_of(lines[i]) < ind)
				found = xstrdup(lines[i]);
	}
	strv_free(lines);
	return found;
}

static void check_init(struct changeset *cs, char **import_name)
{
	const struct cs_file *f = cs_file_of(cs, CS_ROLE_IMPORT);
	if (!f) {
		set(cs, CS_SHAPE_INIT_IMPORT, false, "__init__.py is not changed: the op needs its import");
		return;
	}
	int imports = 0, removed = 0, import_line = 0;
	const char *first_removed = NULL, *stray = NULL;
	struct sbuf names = SBUF_INIT;
	for (size_t i = 0; i < f->nlines; i++) {
		const struct cs_line *l = &f->lines[i];
		const char *s = skip_ws(l->text);
		if (l->origin == '-') {
			/* The placeholder a first import replaces may go. */
			bool placeholder = str_starts(s, "pass") && py_filler(s + 4);
			if (!py_filler(s) && !placeholder && !removed++)
				first_removed = l->text;
			continue;
		}
		const char *name;
		size_t n = py_import(l->text, &name);
		if (n) {
			if (!imports++) {
				free(*import_name);
				*import_name = xstrndup(name, n);
				import_line = l->lineno;
			}
			sb_printf(&names, "%s%.*s", names.len ? ", " : "", (int)n, name);
		} else if (!py_filler(s) && !stray) {
			stray = l->text;
		}
	}
	char *guard = imports == 1 ? enclosing_line(f->new_text ? f->new_text : "", import_line) : NULL;
	bool guarded = guard && word(guard, "if") && strstr(guard, "is_backend_available(") &&
		       (strstr(guard, "\"cutile-rs\"") || strstr(guard, "'cutile-rs'"));
	if (removed)
		set(cs, CS_SHAPE_INIT_IMPORT, false, "__init__.py removes %d line(s) (first: '%s')", removed,
		    first_removed);
	else if (imports != 1)
		set(cs, CS_SHAPE_INIT_IMPORT, false, "__init__.py adds %d import(s)%s%s%s; expected one",
		    imports, imports ? " (" : "", sb_str(&names), imports ? ")" : "");
	else if (stray)
		set(cs, CS_SHAPE_INIT_IMPORT, false, "__init__.py adds more than the import: '%s'", stray);
	else if (!guarded)
		set(cs, CS_SHAPE_INIT_IMPORT, false,
		    "'from . import %s' (line %d) is not inside 'if is_backend_available(\"cutile-rs\"):'",
		    *import_name, import_line);
	else
		set(cs, CS_SHAPE_INIT_IMPORT, true, "adds 'from . import %s' (line %d) inside the guard",
		    *import_name, import_line);
	free(guard);
	sb_free(&names);
}

/* ---- the test file: only cutile-rs lines ---- */

static bool mentions_cutile_rs(const char *s)
{
	return strstr(s, "cutile-rs") || strstr(s, "cutile_rs");
}

/* The cutile-rs lines may need an import (is_backend_available). */
static bool py_import_line(const char *s)
{
	return word(s, "import") || (word(s, "from") && strstr(s, " import "));
}

static void check_test(struct changeset *cs)
{
	const struct cs_file *f = cs_file_of(cs, CS_ROLE_TEST);
	if (!f) {
		set(cs, CS_SHAPE_TEST_LINES, false, "the test file is not changed: it needs the cutile-rs "
		    "parametrisation");
		return;
	}
	int removed = 0, blocks = 0, added = 0;
	const char *first_removed = NULL;
	/* A block is a run of added lines with consecutive line numbers; it
	 * must be about cutile-rs, or only imports. */
	int bad_line = 0, last = -10;
	bool block_ok = false, only_imports = true;
	const char *block_first = NULL, *bad_text = NULL;
	for (size_t i = 0; i <= f->nlines; i++) {
		const struct cs_line *l = i < f->nlines ? &f->lines[i] : NULL;
		if (l && l->origin == '-') {
			if (!removed++)
				first_removed = l->text;
			continue;
		}
		bool starts = !l || l->lineno != last + 1;
		if (starts && block_first && !block_ok && !only_imports && !bad_line) {
			bad_line = last;
			bad_text = block_first;
		}
		if (!l)
			break;
		if (starts) {
			block_first = NULL;
			block_ok = false;
			only_imports = true;
		}
		last = l->lineno;
		if (blank(l->text))
			continue;
		if (!block_first) {
			block_first = l->text;
			blocks++;
		}
		added++;
		block_ok |= mentions_cutile_rs(l->text);
		only_imports &= py_import_line(l->text);
	}
	if (removed)
		set(cs, CS_SHAPE_TEST_LINES, false, "the test file removes %d line(s) (first: '%s'); it may "
		    "only add cutile-rs lines", removed, first_removed);
	else if (!added)
		set(cs, CS_SHAPE_TEST_LINES, false, "the test file adds no lines");
	else if (bad_text)
		set(cs, CS_SHAPE_TEST_LINES, false, "the test file adds lines that are not about cutile-rs "
		    "(block ending at line %d: '%s')", bad_line, bad_text);
	else
		set(cs, CS_SHAPE_TEST_LINES, true, "adds %d line(s) in %d cutile-rs block(s)", added, blocks);
}

/* ---- kernel.rs: a module with entries ---- */

static void check_kernel(struct changeset *cs)
{
	const struct cs_file *f = cs_file_of(cs, CS_ROLE_KERNEL);
	if (!f || !f->new_text) {
		set(cs, CS_SHAPE_KERNEL, false, "no kernel.rs in the changeset");
		return;
	}
	size_t n;
	char **lines = str_split(f->new_text, '\n', true, &n);
	bool module = false, want_fn = false;
	int entries = 0;
	struct sbuf mod = SBUF_INIT, fns = SBUF_INIT;
	bool want_mod = false;
	for (size_t i = 0; i < n; i++) {
		const char *s = skip_ws(lines[i]);
		if (str_starts(s, "//"))
			continue;
		if (str_starts(s, "#[cutile::module")) {
			module = want_mod = true;
			continue;
		}
		if (str_starts(s, "#[cutile::entry")) {
			entries++;
			want_fn = true;
			continue;
		}
		const char *name;
		bool block;
		size_t ml;
		if (want_mod && (ml = mod_decl(s, &name, &block)) > 0) {
			sb_printf(&mod, "%.*s", (int)ml, name);
			want_mod = false;
		}
		const char *fn = want_fn ? strstr(s, "fn ") : NULL;
		if (fn && ident(fn + 3)) {
			sb_printf(&fns, "%s%.*s", fns.len ? ", " : "", (int)ident(fn + 3), fn + 3);
			want_fn = false;
		}
	}
	strv_free(lines);
	if (!module)
		set(cs, CS_SHAPE_KERNEL, false, "kernel.rs has no #[cutile::module]");
	else if (!entries)
		set(cs, CS_SHAPE_KERNEL, false, "kernel.rs has no #[cutile::entry] function");
	else
		set(cs, CS_SHAPE_KERNEL, true, "module %s, %d entr%s (%s)", mod.len ? sb_str(&mod) : "?",
		    entries, entries == 1 ? "y" : "ies", fns.len ? sb_str(&fns) : "?");
	sb_free(&mod);
	sb_free(&fns);
}

/* ---- names ---- */

/* Collect "where: name" pairs and whether they all equal the op. */
struct names {
	struct sbuf seen, wrong;
};

static void name_is(struct names *nm, const char *op, const char *where, const char *name, size_t n)
{
	sb_printf(&nm->seen, "%s%s %.*s", nm->seen.len ? ", " : "", where, (int)n, name);
	if (!op || strlen(op) != n || strncmp(op, name, n) != 0)
		sb_printf(&nm->wrong, "%s%s says '%.*s'", nm->wrong.len ? ", " : "", where, (int)n, name);
}

static void check_names(struct changeset *cs, const char *mod_name, const char *import_name)
{
	static const char rs_dir[] = "src/tilegym/ops/cutile_rs/", test_dir[] = "tests/ops/test_";
	struct names nm = {SBUF_INIT, SBUF_INIT};
	const char *op = cs->op;
	for (size_t i = 0; i < cs->nfiles; i++) {
		const char *p = cs->files[i].path;
		const char *rs = strstr(p, rs_dir), *t = strstr(p, test_dir);
		rs = rs ? rs + sizeof(rs_dir) - 1 : NULL;
		t = t ? t + sizeof(test_dir) - 1 : NULL;
		char *kop, *kpre;
		if (cs_kernel_path_op(p, &kpre, &kop)) {
			name_is(&nm, op, "kernel folder", kop, strlen(kop));
			free(kop);
			free(kpre);
		} else if (rs && str_ends(rs, ".py") && !strchr(rs, '/') && strcmp(rs, "__init__.py") != 0) {
			name_is(&nm, op, "wrapper", rs, strlen(rs) - 3);
		} else if (t && str_ends(t, ".py") && !strchr(t, '/')) {
			name_is(&nm, op, "test file", t, strlen(t) - 3);
		}
	}
	if (mod_name)
		name_is(&nm, op, "lib.rs mod", mod_name, strlen(mod_name));
	if (import_name)
		name_is(&nm, op, "import", import_name, strlen(import_name));
	static const char subject[] = "cutile-rs: add ";
	if (cs->subject && str_starts(cs->subject, subject))
		name_is(&nm, op, "subject", cs->subject + strlen(subject),
			strlen(cs->subject + strlen(subject)));
	if (!op)
		set(cs, CS_SHAPE_NAMES, false, "no op: neither a note nor a kernel.rs path names one");
	else if (nm.wrong.len)
		set(cs, CS_SHAPE_NAMES, false, "the op is %s, but %s", op, sb_str(&nm.wrong));
	else
		set(cs, CS_SHAPE_NAMES, true, "all say %s (%s)", op, sb_str(&nm.seen));
	sb_free(&nm.seen);
	sb_free(&nm.wrong);
}

void cs_check_shape(struct changeset *cs)
{
	char *mod_name = NULL, *import_name = NULL;
	check_six_paths(cs);
	check_lib(cs, &mod_name);
	check_init(cs, &import_name);
	check_test(cs);
	check_kernel(cs);
	check_names(cs, mod_name, import_name);
	free(mod_name);
	free(import_name);
	cs->nfailed = 0;
	for (int i = 0; i < CS_SHAPE__COUNT; i++)
		cs->nfailed += !cs->checks[i].ok;
}
