/* engine/git: the shape checks on changesets made from texts (each check
 * passing on the well-formed form and failing on its variants, with the
 * detail naming what is wrong), the six paths, and which runs count as
 * accepted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "engine/core/run.h"
#include "engine/git/changeset.h"

#define RS "src/tilegym/ops/cutile_rs/"

static const char lib_old[] = "#[path = \"../../ffi_util.rs\"]\nmod ffi_util;\n";
static const char lib_new[] = "#[path = \"../../ffi_util.rs\"]\nmod ffi_util;\n\n"
			      "// softmax (stage D)\n"
			      "pub mod softmax {\n"
			      "    include!(\"../../softmax_kernel/kernel.rs\");\n"
			      "    include!(\"../../softmax_kernel/ffi.rs\");\n"
			      "}\n";
static const char init_old[] = "from ...backend.selector import is_backend_available\n\n"
			       "if is_backend_available(\"cutile-rs\"):\n"
			       "    pass  # converted operators are imported here\n";
static const char init_new[] = "from ...backend.selector import is_backend_available\n\n"
			       "if is_backend_available(\"cutile-rs\"):\n"
			       "    from . import softmax  # noqa: F401\n";
static const char test_old[] = "import pytest\n\n_backends = [\"cutile\"]\n\n\ndef test_op():\n    pass\n";
static const char test_new[] = "import pytest\nfrom tilegym.backend.selector import is_backend_available\n\n"
			       "_backends = [\"cutile\"]\nif is_backend_available(\"cutile-rs\"):\n"
			       "    _backends = _backends + [\"cutile-rs\"]\n\n\ndef test_op():\n    pass\n";
static const char kernel[] = "#[cutile::module]\npub mod softmax_module {\n    use cutile::core::*;\n"
			     "    // #[cutile::entry] in a comment does not count\n"
			     "    #[cutile::entry()]\n    pub unsafe fn softmax_kernel<E: ElementType>() {}\n"
			     "    #[cutile::entry()]\n    pub unsafe fn softmax_wide<E: ElementType>() {}\n}\n";


static void add(struct changeset *cs, enum cs_role role, const char *path, const char *old,
		const char *new)
{
	cs->files = realloc(cs->files, (cs->nfiles + 1) * sizeof(*cs->files));
	struct cs_file *f = &cs->files[cs->nfiles++];
	memset(f, 0, sizeof(*f));
	f->path = xstrdup(path);
	f->role = role;
	f->old_text = old ? xstrdup(old) : NULL;
	f->new_text = new ? xstrdup(new) : NULL;
	f->old_len = old ? strlen(old) : 0;
	f->new_len = new ? strlen(new) : 0;
	assert_int_equal(cs_file_diff(f, NULL), 0);
}

/* The well-formed changeset of softmax; `skip` leaves one role out and
 * `swap` replaces that role's new text. */
static void make(struct changeset *cs, int skip, int swap, const char *text)
{
	memset(cs, 0, sizeof(*cs));
	cs->op = xstrdup("softmax");
	cs->prefix = xstrdup("");
	cs->subject = xstrdup("cutile-rs: add softmax");
	static const char *const olds[CS_NROLES] = {NULL, NULL, NULL, lib_old, init_old, test_old};
	const char *news[CS_NROLES] = {kernel, "// ffi\n", "# wrapper\n", lib_new, init_new, test_new};
	for (int r = 0; r < CS_NROLES; r++) {
		if (r == skip)
			continue;
		char *p = cs_role_path((enum cs_role)r, "softmax");
		add(cs, (enum cs_role)r, p, olds[r], r == swap ? text : news[r]);
		free(p);
	}
	cs_check_shape(cs);
}

static const struct cs_check *check(const struct changeset *cs, enum cs_shape s)
{
	return &cs->checks[s];
}

static void assert_fails(const struct changeset *cs, enum cs_shape s, const char *text)
{
	if (check(cs, s)->ok || !strstr(check(cs, s)->detail, text))
		fail_msg("%s: want a failure with '%s', got %s: %s", cs_shape_name(s), text,
			 check(cs, s)->ok ? "ok" : "FAIL", check(cs, s)->detail);
}

static void test_well_formed(void **state)
{
	(void)state;
	struct changeset cs;
	make(&cs, -1, -1, NULL);
	for (int i = 0; i < CS_SHAPE__COUNT; i++)
		if (!cs.checks[i].ok)
			fail_msg("%s fails: %s", cs_shape_name((enum cs_shape)i), cs.checks[i].detail);
	assert_int_equal(cs.nfailed, 0);
	assert_string_equal(check(&cs, CS_SHAPE_KERNEL)->detail,
			    "module softmax_module, 2 entries (softmax_kernel, softmax_wide)");
	assert_string_equal(check(&cs, CS_SHAPE_LIB_MOD)->detail, "adds mod softmax { kernel.rs, ffi.rs }");
	assert_string_equal(check(&cs, CS_SHAPE_INIT_IMPORT)->detail,
			    "adds 'from . import softmax' (line 4) inside the guard");
	assert_string_equal(check(&cs, CS_SHAPE_TEST_LINES)->detail, "adds 3 line(s) in 2 cutile-rs block(s)");
	cs_free(&cs);
}

static void test_six_paths(void **state)
{
	(void)state;
	struct changeset cs;
	make(&cs, CS_ROLE_FFI, -1, NULL);
	assert_fails(&cs, CS_SHAPE_SIX_PATHS, "ffi missing (" RS "softmax_kernel/ffi.rs)");
	add(&cs, CS_ROLE_OTHER, "README.md", "a\n", "b\n");
	cs_check_shape(&cs);
	assert_fails(&cs, CS_SHAPE_SIX_PATHS, "6 path(s): extra path README.md; ffi missing");
	assert_int_equal(cs.files[cs.nfiles - 1].status, 'M');
	cs_free(&cs);
}

static void test_lib_mod(void **state)
{
	(void)state;
	struct changeset cs;
	make(&cs, -1, CS_ROLE_LIB, "#[path = \"../../ffi_util.rs\"]\nmod ffi_util;\nmod softmax;\n");
	assert_fails(&cs, CS_SHAPE_LIB_MOD, "adds 'mod softmax;' without a block");
	cs_free(&cs);
	make(&cs, -1, CS_ROLE_LIB, "mod ffi_util;\nmod softmax {\n    include!(\"../../softmax_kernel/kernel.rs\");\n}\n");
	assert_fails(&cs, CS_SHAPE_LIB_MOD, "removes 1 line(s) (first: '#[path = \"../../ffi_util.rs\"]')");
	cs_free(&cs);
	char *extra = xasprintf("%sfn stray() {}\n", lib_new);
	make(&cs, -1, CS_ROLE_LIB, extra);
	assert_fails(&cs, CS_SHAPE_LIB_MOD, "adds a line outside the mod block: 'fn stray() {}'");
	free(extra);
	cs_free(&cs);
	make(&cs, -1, CS_ROLE_LIB, "#[path = \"../../ffi_util.rs\"]\nmod ffi_util;\nmod softmax {\n"
		 "    include!(\"../../softmax_kernel/kernel.rs\");\n}\n");
	assert_fails(&cs, CS_SHAPE_LIB_MOD, "mod softmax does not include! ffi.rs from softmax_kernel/");
	cs_free(&cs);
	make(&cs, -1, CS_ROLE_LIB, "#[path = \"../../ffi_util.rs\"]\nmod ffi_util;\nmod softmax {\n"
		 "    include!(\"../../gelu_kernel/kernel.rs\");\n    include!(\"../../gelu_kernel/ffi.rs\");\n}\n");
	assert_fails(&cs, CS_SHAPE_LIB_MOD, "mod softmax does not include! kernel.rs and ffi.rs from softmax_kernel/");
	cs_free(&cs);
}

static void test_init_import(void **state)
{
	(void)state;
	struct changeset cs;
	make(&cs, -1, CS_ROLE_IMPORT, "from ...backend.selector import is_backend_available\n\n"
		 "if is_backend_available(\"cutile-rs\"):\n    pass  # converted operators are imported here\n"
		 "from . import softmax\n");
	assert_fails(&cs, CS_SHAPE_INIT_IMPORT, "'from . import softmax' (line 5) is not inside");
	cs_free(&cs);
	char *other = xasprintf("%sif is_backend_available(\"cuda\"):\n    from . import softmax\n", init_old);
	make(&cs, -1, CS_ROLE_IMPORT, other);
	assert_fails(&cs, CS_SHAPE_INIT_IMPORT, "adds more than the import: 'if is_backend_available(\"cuda\"):'");
	free(other);
	cs_free(&cs);
	make(&cs, -1, CS_ROLE_IMPORT, "from ...backend.selector import is_backend_available\n\n"
		 "if is_backend_available(\"cutile-rs\"):\n    from . import softmax\n    import os\n");
	assert_fails(&cs, CS_SHAPE_INIT_IMPORT, "adds more than the import: '    import os'");
	cs_free(&cs);
	make(&cs, -1, CS_ROLE_IMPORT, "if is_backend_available(\"cutile-rs\"):\n    from . import softmax\n");
	assert_fails(&cs, CS_SHAPE_INIT_IMPORT,
		     "removes 1 line(s) (first: 'from ...backend.selector import is_backend_available')");
	cs_free(&cs);
}

static void test_test_lines(void **state)
{
	(void)state;
	struct changeset cs;
	char *noise = xasprintf("%s\nprint('debug')\n", test_new);
	make(&cs, -1, CS_ROLE_TEST, noise);
	assert_fails(&cs, CS_SHAPE_TEST_LINES, "block ending at line 12: 'print('debug')'");
	free(noise);
	cs_free(&cs);
	make(&cs, CS_ROLE_TEST, -1, NULL);
	assert_fails(&cs, CS_SHAPE_SIX_PATHS, "test missing");
	assert_fails(&cs, CS_SHAPE_TEST_LINES, "the test file is not changed");
	cs_free(&cs);
	char *edited = xstrdup(test_new);
	memcpy(strstr(edited, "[\"cutile\"]"), "[\"triton\"]", 10);
	make(&cs, -1, CS_ROLE_TEST, edited);
	assert_fails(&cs, CS_SHAPE_TEST_LINES, "removes 1 line(s) (first: '_backends = [\"cutile\"]')");
	free(edited);
	cs_free(&cs);
}

static void test_kernel_and_names(void **state)
{
	(void)state;
	struct changeset cs;
	make(&cs, -1, CS_ROLE_KERNEL, "pub mod softmax_module {\n    #[cutile::entry()]\n    fn k() {}\n}\n");
	assert_fails(&cs, CS_SHAPE_KERNEL, "kernel.rs has no #[cutile::module]");
	cs_free(&cs);
	make(&cs, -1, CS_ROLE_KERNEL, "#[cutile::module]\npub mod m {\n    // #[cutile::entry()]\n}\n");
	assert_fails(&cs, CS_SHAPE_KERNEL, "no #[cutile::entry] function");
	cs_free(&cs);
	make(&cs, -1, -1, NULL);
	free(cs.subject);
	cs.subject = xstrdup("cutile-rs: add gelu");
	cs_check_shape(&cs);
	assert_fails(&cs, CS_SHAPE_NAMES, "the op is softmax, but subject says 'gelu'");
	cs_free(&cs);
}

static void test_paths_and_names(void **state)
{
	(void)state;
	char *p = cs_role_path(CS_ROLE_TEST, "layer_norm");
	assert_string_equal(p, "tests/ops/test_layer_norm.py");
	free(p);
	p = cs_role_path(CS_ROLE_LIB, "layer_norm");
	assert_string_equal(p, RS "cutile_kernels/src/lib.rs");
	free(p);
	assert_null(cs_role_path(CS_ROLE_OTHER, "x"));
	assert_true(cs_op_name_ok("layer_norm2"));
	assert_false(cs_op_name_ok("../etc"));
	assert_false(cs_op_name_ok("2x"));
	assert_false(cs_op_name_ok(""));
}

/* ---- acceptance ---- */

static void run_with(struct run_state *st, const char *status, const char *final, const char *e_verdict,
		     const char *outcome)
{
	run_state_init(st);
	st->status = (enum run_status)run_status_parse(status);
	st->final = final ? xstrdup(final) : NULL;
	st->outcome = (enum run_outcome)run_outcome_parse(outcome ? outcome : "none");
	st->run_dir = xstrdup("/nonexistent/run");
	if (e_verdict) {
		struct attempt *a = run_add_attempt(st);
		a->stage = 'E';
		a->n = 1;
		a->state = ATTEMPT_DONE;
		a->verdict = xstrdup(e_verdict);
	}
}

static void test_acceptance(void **state)
{
	(void)state;
	static const struct {
		const char *status, *final, *e, *outcome, *reason;
		bool accepted, by_hand, ended;
		const char *why;
	} cases[] = {
		{"complete", "PIPELINE_COMPLETE", "DONE", "accepted", NULL, true, false, true,
		 "PIPELINE_COMPLETE with E DONE"},
		/* E DONE is not enough: the outcome says the contract failed */
		{"complete", "PIPELINE_COMPLETE", "DONE", "not_accepted", NULL, false, false, true,
		 "the run ended PIPELINE_COMPLETE, not accepted: the output contract failed 1 check: ffi.rs "
		 "missing or empty: accept it by hand with --accept \"reason\""},
		/* a run that ended before runs had an outcome: nothing to go on */
		{"complete", "PIPELINE_COMPLETE", "DONE", NULL, NULL, false, false, true,
		 "the run ended PIPELINE_COMPLETE, not accepted: accept it by hand"},
		{"offline_complete", "OFFLINE_COMPLETE", "DONE", "pending", NULL, false, false, true,
		 "the run ended OFFLINE_COMPLETE, pending: the output contract failed"},
		{"offline_complete", "OFFLINE_COMPLETE", NULL, "pending", "  no GPU here\n yet ", true, true, true,
		 "OFFLINE_COMPLETE accepted by hand: no GPU here  yet"},
		{"stopped", "STOP", "DONE", "not_accepted", "  ", false, false, true, "the run ended STOP"},
		{"aborted", NULL, NULL, NULL, "good enough", true, true, true, "aborted accepted by hand: good enough"},
		{"running", NULL, NULL, NULL, "please", false, false, false,
		 "the run has not ended (its status is running)"},
	};
	for (size_t i = 0; i < TP_ARRAY_LEN(cases); i++) {
		struct run_state st;
		run_with(&st, cases[i].status, cases[i].final, cases[i].e, cases[i].outcome);
		if (st.outcome != OUTCOME_ACCEPTED && st.outcome != OUTCOME_NONE)
			st.outcome_reason = xstrdup("the output contract failed 1 check: ffi.rs missing or empty");
		struct cs_acceptance a;
		cs_run_acceptance(&st, cases[i].reason, &a);
		if (a.accepted != cases[i].accepted || a.by_hand != cases[i].by_hand ||
		    a.ended != cases[i].ended || !strstr(a.why, cases[i].why))
			fail_msg("case %zu: accepted %d by_hand %d ended %d why '%s'", i, a.accepted, a.by_hand,
				 a.ended, a.why);
		cs_acceptance_free(&a);
		run_state_free(&st);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_well_formed),
		cmocka_unit_test(test_six_paths),
		cmocka_unit_test(test_lib_mod),
		cmocka_unit_test(test_init_import),
		cmocka_unit_test(test_test_lines),
		cmocka_unit_test(test_kernel_and_names),
		cmocka_unit_test(test_paths_and_names),
		cmocka_unit_test(test_acceptance),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
