/* The operators of a workspace (engine/base/operator.h): a kernel is told
 * from the tokens (never a comment or a string), names and paths name the
 * same operator, one name two files of a backend share is refused with
 * both named, the test is found in the operator's subfolder, and the list
 * leaves helpers and ambiguous names out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "engine/base/operator.h"
#include "tests/unit/testutil.h"

static const char kernel[] = "import cuda.tile as ct\n\n@ct.kernel\ndef k(X):\n    pass\n";
static const char triton[] = "import triton\n\n@triton.autotune(configs=[])\n@triton.jit\ndef k(X):\n"
			     "    pass\n";
static const char helper[] = "import cuda.tile as ct\n# @ct.kernel in a comment\nDOC = \"\"\"\n"
			     "@ct.kernel\n\"\"\"\n\n@ct.function\ndef f(x):\n    return x\n";

static void ws_file(const char *ws, const char *rel, const char *text)
{
	free(tu_write(ws, rel, text));
}

static void by_name_and_by_path(void **state)
{
	const char *ws = *state;
	ws_file(ws, "src/tilegym/ops/cutile/activation/gelu.py", kernel);
	ws_file(ws, "src/tilegym/ops/triton/gelu.py", triton);
	ws_file(ws, "tests/ops/activation/test_gelu.py", "");
	const char *forms[] = {"gelu", "activation/gelu", "activation/gelu.py",
			       "src/tilegym/ops/cutile/activation/gelu.py", "./activation/gelu"};
	for (size_t i = 0; i < sizeof(forms) / sizeof(*forms); i++) {
		struct ws_operator o;
		struct tp_err err = {0};
		assert_int_equal(operator_find(ws, forms[i], &o, &err), 0);
		assert_string_equal(o.name, "gelu");
		assert_string_equal(o.sub, "activation");
		assert_string_equal(o.cutile_rel, "src/tilegym/ops/cutile/activation/gelu.py");
		assert_string_equal(o.triton_rel, "src/tilegym/ops/triton/gelu.py");
		assert_string_equal(o.test_rel, "tests/ops/activation/test_gelu.py");
		assert_true(o.test_found);
		assert_null(o.port);
		operator_free(&o);
	}
	char *abs = path_join(ws, "src/tilegym/ops/cutile/activation/gelu.py");
	struct ws_operator o;
	assert_int_equal(operator_find(ws, abs, &o, NULL), 0);
	assert_string_equal(o.name, "gelu");
	operator_free(&o);
	free(abs);
	struct tp_err err = {0};
	assert_int_equal(operator_find(ws, "experimental/gelu", &o, &err), -1);
	assert_int_equal(err.code, TP_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "operator 'experimental/gelu' not found"));
	assert_int_equal(operator_find(ws, "../gelu", &o, &err), -1);
	assert_non_null(strstr(err.msg, "is not an operator name"));
}

static void helpers_are_no_operators(void **state)
{
	const char *ws = *state;
	ws_file(ws, "src/tilegym/ops/cutile/utils.py", helper);
	ws_file(ws, "src/tilegym/ops/cutile/__init__.py", kernel);
	ws_file(ws, "src/tilegym/ops/cutile/softmax.py", kernel);
	struct ws_operator o;
	struct tp_err err = {0};
	assert_int_equal(operator_find(ws, "utils", &o, &err), -1);
	assert_string_equal(err.msg, "src/tilegym/ops/cutile/utils.py is not an operator: it has no kernel "
				     "(no @ct.kernel or @triton.jit); a helper module");
	struct ws_operator *all;
	size_t n;
	assert_int_equal(operator_list(ws, &all, &n, NULL, NULL), 0);
	assert_int_equal(n, 1);
	assert_string_equal(all[0].name, "softmax");
	assert_false(all[0].test_found);
	assert_string_equal(all[0].test_rel, "tests/ops/test_softmax.py");
	operators_free(all, n);
}

static void one_name_two_files(void **state)
{
	const char *ws = *state;
	ws_file(ws, "src/tilegym/ops/cutile/rope.py", kernel);
	ws_file(ws, "src/tilegym/ops/cutile/experimental/rope.py", kernel);
	ws_file(ws, "src/tilegym/ops/cutile/relu.py", kernel);
	struct ws_operator o;
	struct tp_err err = {0};
	assert_int_equal(operator_find(ws, "experimental/rope", &o, &err), -1);
	assert_non_null(strstr(err.msg, "two cutile operators are named 'rope'"));
	assert_non_null(strstr(err.msg, "src/tilegym/ops/cutile/experimental/rope.py and "
					"src/tilegym/ops/cutile/rope.py"));
	struct ws_operator *all;
	size_t n;
	char **amb;
	assert_int_equal(operator_list(ws, &all, &n, &amb, NULL), 0);
	assert_int_equal(n, 1);
	assert_string_equal(all[0].name, "relu");
	assert_non_null(amb);
	assert_string_equal(amb[0], "rope");
	assert_null(amb[1]);
	strv_free(amb);
	operators_free(all, n);
}

static void the_port_is_found(void **state)
{
	const char *ws = *state;
	ws_file(ws, "src/tilegym/ops/cutile/swiglu.py", kernel);
	ws_file(ws, "src/tilegym/ops/cutile_rs/swiglu_kernel/kernel.rs", "");
	ws_file(ws, "src/tilegym/ops/cutile_rs/swiglu.py", "");
	struct ws_operator o;
	assert_int_equal(operator_find(ws, "swiglu", &o, NULL), 0);
	char *port = operator_port_text(&o);
	assert_string_equal(port, "src/tilegym/ops/cutile_rs/swiglu_kernel/, src/tilegym/ops/cutile_rs/swiglu.py");
	free(port);
	operator_free(&o);
	struct tp_err err = {0};
	char *none = path_join(ws, "nothing");
	struct ws_operator *all;
	size_t n;
	assert_int_equal(operator_list(none, &all, &n, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "has no src/tilegym/ops"));
	free(none);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_DIR_TEST(by_name_and_by_path),
		TU_DIR_TEST(helpers_are_no_operators),
		TU_DIR_TEST(one_name_two_files),
		TU_DIR_TEST(the_port_is_found),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
