/* The host side of engine/port on TileGym's layout: the registration
 * edits (backend lists inside the test class or at module level, lists
 * derived from them, the import of is_backend_available, the __init__
 * import in name order) and the launch a wrapper and ffi.rs are written
 * from (inside an autograd.Function, through a helper, through a local
 * alias of the kernel). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/port/port.h"

static void has(const char *text, const char *want)
{
	if (!text || !strstr(text, want)) {
		fprintf(stderr, "%s\n", text ? text : "(null)");
		fail_msg("'%s' not in the text above", want);
	}
}

static void lacks(const char *text, const char *unwanted)
{
	if (strstr(text, unwanted))
		fail_msg("'%s' unexpectedly in:\n%s", unwanted, text);
}

static size_t count(const char *text, const char *what)
{
	size_t n = 0;
	for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

/* ---- the test file ---- */

/* TileGym's own layout: the list inside the class, a tilecpp line, a perf
 * list derived from it. */
static const char class_test[] =
	"import pytest\n"
	"import torch\n"
	"\n"
	"import tilegym\n"
	"from tilegym.backend import is_backend_available\n"
	"\n"
	"from ... import common\n"
	"\n"
	"\n"
	"class Test_Op(common.PyTestCase):\n"
	"    @staticmethod\n"
	"    def reference(x):\n"
	"        return x\n"
	"\n"
	"    _backends = [\"cutile\"]\n"
	"    if is_backend_available(\"tilecpp\"):\n"
	"        _backends = _backends + [\"tilecpp\"]\n"
	"    _perf_backends = _backends + [\"pytorch\"]\n"
	"\n"
	"    @pytest.mark.parametrize(\"n\", [1, 2])\n"
	"    @pytest.mark.parametrize(\"backend\", _backends)\n"
	"    def test_op(self, n, backend):\n"
	"        pass\n"
	"\n"
	"    @pytest.mark.parametrize(\"backend\", _perf_backends)\n"
	"    def test_perf(self, backend):\n"
	"        pass\n";

static void test_class_level_backend_list(void **state)
{
	(void)state;
	struct tp_err err = {0};
	char *t = port_register_test_py(class_test, "tests/ops/activation/test_op.py", &err);
	assert_non_null(t);
	/* right after the tilecpp line, in the class, at its indentation */
	has(t, "    if is_backend_available(\"tilecpp\"):\n"
	       "        _backends = _backends + [\"tilecpp\"]\n"
	       "    if is_backend_available(\"cutile-rs\"):\n"
	       "        _backends = _backends + [\"cutile-rs\"]\n"
	       "    _perf_backends = _backends + [\"pytorch\"]\n");
	/* the perf list takes it from _backends, not a second time */
	assert_int_equal(count(t, "\"cutile-rs\"]"), 1);
	/* the import is there already */
	assert_int_equal(count(t, "import is_backend_available"), 1);
	/* applied twice: nothing more to do */
	char *again = port_register_test_py(t, "tests/ops/activation/test_op.py", &err);
	assert_null(again);
	free(t);
}

/* A class whose list is one line, and a module without the import: it
 * goes among the tilegym imports in name order. */
static void test_one_line_list_and_missing_import(void **state)
{
	(void)state;
	const char *src = "import pytest\n"
			  "\n"
			  "from tilegym.backend import set_backend\n"
			  "from tilegym.ops import op\n"
			  "\n"
			  "from ... import common\n"
			  "\n"
			  "\n"
			  "class TestOp(common.PyTestCase):\n"
			  "    _backends = [\"cutile\"]\n"
			  "\n"
			  "    @pytest.mark.parametrize(\"backend\", _backends)\n"
			  "    def test_op(self, backend):\n"
			  "        set_backend(backend)\n";
	struct tp_err err = {0};
	char *t = port_register_test_py(src, "t.py", &err);
	assert_non_null(t);
	has(t, "import pytest\n\nfrom tilegym.backend import is_backend_available\n"
	       "from tilegym.backend import set_backend\n");
	has(t, "    _backends = [\"cutile\"]\n"
	       "    if is_backend_available(\"cutile-rs\"):\n"
	       "        _backends = _backends + [\"cutile-rs\"]\n"
	       "\n"
	       "    @pytest.mark.parametrize(\"backend\", _backends)\n");
	free(t);
}

/* Module-level lists still work; two classes with a list each get one
 * line each; a class that uses the module's list adds nothing of its own. */
static void test_module_list_and_two_classes(void **state)
{
	(void)state;
	const char *src = "import pytest\n"
			  "from tilegym.backend import is_backend_available\n"
			  "\n"
			  "_backends = [\"cutile\", \"triton\"]\n"
			  "if is_backend_available(\"tilecpp\"):\n"
			  "    _backends = _backends + [\"tilecpp\"]\n"
			  "_perf_frameworks = _backends + [\"pytorch\"]\n"
			  "\n"
			  "\n"
			  "class Test_A:\n"
			  "    @pytest.mark.parametrize(\"backend\", _backends)\n"
			  "    def test_op(self, backend):\n"
			  "        pass\n"
			  "\n"
			  "\n"
			  "class Test_B:\n"
			  "\tbackends = [\"cutile\"]\n"
			  "\n"
			  "\t@pytest.mark.parametrize(\"backend\", backends)\n"
			  "\tdef test_op(self, backend):\n"
			  "\t\tpass\n"
			  "\n"
			  "\t@pytest.mark.parametrize(\"backend\", _backends)\n"
			  "\tdef test_other(self, backend):\n"
			  "\t\tpass\n";
	struct tp_err err = {0};
	char *t = port_register_test_py(src, "t.py", &err);
	assert_non_null(t);
	has(t, "    _backends = _backends + [\"tilecpp\"]\n"
	       "if is_backend_available(\"cutile-rs\"):\n"
	       "    _backends = _backends + [\"cutile-rs\"]\n"
	       "_perf_frameworks = _backends + [\"pytorch\"]\n");
	/* a tab-indented class keeps its tabs */
	has(t, "\tbackends = [\"cutile\"]\n"
	       "\tif is_backend_available(\"cutile-rs\"):\n"
	       "\t\tbackends = backends + [\"cutile-rs\"]\n");
	assert_int_equal(count(t, "\"cutile-rs\"]"), 2);
	free(t);
}

static void test_no_backend_list_is_refused_with_its_place(void **state)
{
	(void)state;
	struct tp_err err = {0};
	char *t = port_register_test_py("import pytest\n\n\ndef test_op():\n    pass\n", "tests/ops/test_x.py",
					&err);
	assert_null(t);
	assert_string_equal(err.msg, "tests/ops/test_x.py:1:1: unsupported: a test without a backend list "
				     "(pytest.mark.parametrize(\"backend\", NAME), NAME set in the test class or "
				     "the module)");
	memset(&err, 0, sizeof(err));
	t = port_register_test_py("import pytest\n\n\n@pytest.mark.parametrize(\"backend\", [\"cutile\"])\n"
				  "def test_op(backend):\n    pass\n",
				  "tests/ops/test_x.py", &err);
	assert_null(t);
	has(err.msg, "tests/ops/test_x.py:4:37: unsupported: a backend list written inside "
		     "pytest.mark.parametrize");
	/* a list under a parametrize of several names is not a backend list */
	memset(&err, 0, sizeof(err));
	t = port_register_test_py("import pytest\nB = [(1, 'cutile')]\n\n\n"
				  "@pytest.mark.parametrize(\"n, backend\", B)\ndef test_op(n, backend):\n    pass\n",
				  "t.py", &err);
	assert_null(t);
	has(err.msg, "a test without a backend list");
}

/* ---- ops/cutile_rs/__init__.py ---- */

static void test_init_import_in_name_order(void **state)
{
	(void)state;
	const char *src = "from tilegym.backend import is_backend_available\n"
			  "\n"
			  "if is_backend_available(\"cutile-rs\"):\n"
			  "    from . import bmm  # noqa: F401  (register dispatch entry)\n"
			  "    from . import matmul  # noqa: F401  (register dispatch entry)\n"
			  "    from . import swiglu  # noqa: F401  (register dispatch entry)\n";
	char *t = port_register_init_py(src, "relu");
	assert_non_null(t);
	has(t, "    from . import matmul  # noqa: F401  (register dispatch entry)\n"
	       "    from . import relu  # noqa: F401  (register dispatch entry)\n"
	       "    from . import swiglu  # noqa: F401  (register dispatch entry)\n");
	char *u = port_register_init_py(t, "zeta");
	has(u, "    from . import swiglu  # noqa: F401  (register dispatch entry)\n"
	       "    from . import zeta  # noqa: F401  (register dispatch entry)\n");
	/* `relu` is there; `rel` and `relu_bwd` are other modules */
	assert_null(port_register_init_py(u, "relu"));
	char *v = port_register_init_py(u, "rel");
	has(v, "    from . import rel  #");
	lacks(src, "rel ");
	free(v);
	free(u);
	free(t);
	/* no guard yet: one is written */
	t = port_register_init_py("\"\"\"ops\"\"\"\n", "relu");
	has(t, "\nif is_backend_available(\"cutile-rs\"):\n    from . import relu  # noqa: F401\n");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_class_level_backend_list),
		cmocka_unit_test(test_one_line_list_and_missing_import),
		cmocka_unit_test(test_module_list_and_two_classes),
		cmocka_unit_test(test_no_backend_list_is_refused_with_its_place),
		cmocka_unit_test(test_init_import_in_name_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
