/* validate_kernel.sh checks 18 (the Python wrapper: registration, a live
 * call of the FFI symbol, the package import) and 19 (the test file). */
#include "engine/check/check_impl.h"

#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

/* The first ops/cutile_rs/ *.py naming FFI_FN, else one whose name contains
 * the kernel name. */
static const char *find_wrapper(struct ck *k, const char *ops, const char *fn)
{
	size_t n;
	char **names = tx_list_dir(ops, NULL, ".py", &n);
	const char *found = NULL;
	for (size_t pass = 0; pass < 2 && !found; pass++) {
		for (size_t i = 0; i < n && !found; i++) {
			if (strcmp(names[i], "__init__.py") == 0)
				continue;
			const char *p = ck_keep(k, path_join(ops, names[i]), free);
			if (pass == 0) {
				const struct ck_file *f = ck_load(k, p);
				if (f->data && strstr(f->data, fn))
					found = p;
			} else if (strstr(names[i], k->kernel)) {
				found = p;
			}
		}
	}
	strv_free(names);
	return found;
}

/* Does __init__.py contain `from . import <module>` (plain, aliased or in a
 * parenthesised list)? Returns its line or 0. */
static int imports_module(const char *text, const char *module)
{
	regex_t re;
	if (regcomp(&re, "^[[:space:]]*from[[:space:]]+\\.[[:space:]]+import[[:space:]]+",
		    REG_EXTENDED | REG_NEWLINE) != 0)
		tp_die("check: import pattern");
	regmatch_t m;
	const char *p = text;
	int found = 0;
	size_t ml = strlen(module);
	while (!found && *p &&
	       regexec(&re, p, 1, &m, p == text || p[-1] == '\n' ? 0 : REG_NOTBOL) == 0) {
		const char *s = p + m.rm_eo;
		char end = '\n';
		if (*s == '(') {
			end = ')';
			s++;
		}
		bool after_as = false;
		while (*s && *s != end && !found) {
			if (*s == '#') {
				while (*s && *s != '\n')
					s++;
				if (end == ')' && *s)
					s++;
			} else if (isalnum((unsigned char)*s) || *s == '_') {
				const char *w = s;
				while (isalnum((unsigned char)*s) || *s == '_')
					s++;
				size_t wl = (size_t)(s - w);
				if (wl == 2 && strncmp(w, "as", 2) == 0)
					after_as = true;
				else if (after_as)
					after_as = false; /* an alias, not the module */
				else if (wl == ml && strncmp(w, module, ml) == 0)
					found = tx_line_at(text, (size_t)(w - text));
			} else if (*s == '\\' && s[1] == '\n') {
				s += 2;
			} else {
				s++;
			}
		}
		p = *s ? s + 1 : s;
	}
	regfree(&re);
	return found;
}

static void test_file(struct ck *k, const char *wrapper_text)
{
	const char *tests = ck_tg(k, "tests/ops");
	char *op = NULL;
	if (wrapper_text) {
		regex_t re;
		if (regcomp(&re, "register_impl\\([[:space:]]*[\"']([^\"']+)[\"']", REG_EXTENDED) != 0)
			tp_die("check: register_impl pattern");
		regmatch_t m[2];
		if (regexec(&re, wrapper_text, 2, m, 0) == 0)
			op = xstrndup(wrapper_text + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so));
		regfree(&re);
	}
	char *cands[6];
	size_t nc = 0;
	if (op) {
		cands[nc++] = xasprintf("test_%s.py", op);
		const char *act = strstr(op, "_act_");
		if (act)
			cands[nc++] = xasprintf("test_%.*s_activation_%s.py", (int)(act - op), op,
						act + 5);
		cands[nc++] = xasprintf("test_%s_kernel.py", op);
	}
	cands[nc++] = xasprintf("test_%s.py", k->kernel);
	if (str_ends(k->kernel, "_kernel"))
		cands[nc++] = xasprintf("test_%.*s.py", (int)(strlen(k->kernel) - 7), k->kernel);
	const char *found = NULL;
	for (size_t i = 0; i < nc; i++) {
		const char *p = ck_keep(k, path_join(tests, cands[i]), free);
		if (!found && path_is_file(p))
			found = p;
	}
	/* an operator in a subfolder has its test in the same one */
	const char *own = found ? NULL : ck_tg(k, ck_test_rel(k));
	if (own && path_is_file(own))
		found = own;
	if (!found) {
		struct sbuf sb = SBUF_INIT;
		for (size_t i = 0; i < nc; i++)
			sb_printf(&sb, "%s%s", i ? ", " : "", cands[i]);
		ck_add(k, CHECK_FAIL, 0, "kernel.test-file", tests, 0, "no test file (tried %s)",
		       sb_str(&sb));
		sb_free(&sb);
	} else {
		const struct ck_file *f = ck_load(k, found);
		int line = 0;
		if (f->data && tx_grep(f->data, "cutile.rs", 0, &line))
			ck_add(k, CHECK_PASS, 0, "kernel.test-file", found, line, "runs cutile-rs");
		else
			ck_add(k, CHECK_FAIL, 0, "kernel.test-file", found, 0,
			       "never mentions cutile-rs: add it to the test's backends");
	}
	for (size_t i = 0; i < nc; i++)
		free(cands[i]);
	free(op);
}

void ck_kernel_wrapper(struct ck *k, const char *fn)
{
	const char *ops = ck_tg(k, "src/tilegym/ops/cutile_rs");
	const char *p = find_wrapper(k, ops, fn);
	const struct ck_file *f = ck_load(k, p);
	if (!f->data) {
		ck_add(k, CHECK_FAIL, 0, "kernel.wrapper", ops, 0,
		       "no wrapper in ops/cutile_rs naming %s or %s", fn, k->kernel);
		test_file(k, NULL);
		return;
	}
	ck_add(k, CHECK_PASS, 0, "kernel.wrapper", p, 0, "wrapper found");
	int line = 0;
	if (tx_grep(f->data, "register_impl.*cutile-rs", 0, &line))
		ck_add(k, CHECK_PASS, 0, "kernel.wrapper-register", p, line,
		       "registers a cutile-rs implementation");
	else
		ck_add(k, CHECK_FAIL, 0, "kernel.wrapper-register", p, 0,
		       "no register_impl(..., backend=\"cutile-rs\")");
	struct py_live live;
	struct tp_err e = {0};
	if (py_live_call(f->data, f->len, fn, &live, &e) < 0) {
		ck_add(k, CHECK_FAIL, 0, "kernel.wrapper-live-call", p, atoi(e.msg),
		       "cannot scan the wrapper: %s", e.msg);
	} else if (!live.call_line) {
		if (live.dead_line)
			ck_add(k, CHECK_FAIL, 0, "kernel.wrapper-live-call", p, live.dead_line,
			       "%s is only called in code that never runs: dead code / fallback", fn);
		else
			ck_add(k, CHECK_FAIL, 0, "kernel.wrapper-live-call", p, 0,
			       "no live invocation of %s: dead code / fallback", fn);
	} else {
		ck_add(k, CHECK_PASS, 0, "kernel.wrapper-live-call", p, live.call_line,
		       "%s invoked (%s)", fn, live.call_form);
		if (live.early_line)
			ck_add(k, CHECK_WARN, 0, "kernel.wrapper-early-exit", p, live.early_line,
			       "`%s` before the first call of %s (line %d): a fallback path?",
			       live.early_kw, fn, live.call_line);
	}
	const char *base = tx_basename(p);
	char *module = xstrndup(base, strlen(base) - 3);
	const char *init = ck_keep(k, path_join(ops, "__init__.py"), free);
	const struct ck_file *inf = ck_load(k, init);
	int at = inf->data ? imports_module(inf->data, module) : 0;
	if (at)
		ck_add(k, CHECK_PASS, 0, "kernel.wrapper-import", init, at, "imports %s", module);
	else
		ck_add(k, CHECK_FAIL, 0, "kernel.wrapper-import", init, 0,
		       "%s: no `from . import %s`", inf->exists ? "not imported" : "not found",
		       module);
	free(module);
	test_file(k, f->data);
}
