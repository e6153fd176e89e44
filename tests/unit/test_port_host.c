/* The host side of engine/port on TileGym's layout: the registration
 * edits (backend lists inside the test class or at module level, lists
 * derived from them, the import of is_backend_available, the __init__
 * import in name order) and the launch a wrapper and ffi.rs are written
 * from (inside an autograd.Function, through a helper, through a local
 * alias of the kernel; the arguments it builds and a tuner's kernel
 * candidates are test_port_launch.c's). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/port/port.h"
#include "tests/unit/testutil.h"

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

/* A test that calls each backend's module itself gets a cutile-rs branch
 * calling the port's module the same way (the ports are flat: no
 * subfolder); a branch that only skips is left alone. */
static void test_direct_backend_calls_get_a_cutile_rs_branch(void **state)
{
	(void)state;
	const char *src = "import pytest\n"
			  "import tilegym\n"
			  "from tilegym.backend import is_backend_available\n"
			  "\n"
			  "\n"
			  "class Test_Gate:\n"
			  "    _backends = [\"cutile\"]\n"
			  "    if is_backend_available(\"tilecpp\"):\n"
			  "        _backends = _backends + [\"tilecpp\"]\n"
			  "\n"
			  "    @pytest.mark.parametrize(\"backend\", _backends)\n"
			  "    def test_op(self, backend):\n"
			  "        if backend == \"cutile\":\n"
			  "            pytest.skip(\"not on this arch\")\n"
			  "        if backend == \"cutile\":\n"
			  "\n"
			  "            def fn():\n"
			  "                return tilegym.ops.cutile.activation.gate.gate(1)\n"
			  "\n"
			  "        elif backend == \"tilecpp\":\n"
			  "\n"
			  "            def fn():\n"
			  "                return tilegym.ops.tilecpp.gate.gate(1)\n"
			  "\n"
			  "        else:\n"
			  "            pytest.skip(f\"Backend {backend} not supported\")\n"
			  "        fn()\n";
	struct tp_err err = {0};
	char *t = port_register_test_py(src, "tests/ops/activation/test_gate.py", &err);
	assert_non_null(t);
	has(t, "                return tilegym.ops.tilecpp.gate.gate(1)\n"
	       "\n"
	       "        elif backend == \"cutile-rs\":\n"
	       "\n"
	       "            def fn():\n"
	       "                return tilegym.ops.cutile_rs.gate.gate(1)\n"
	       "\n"
	       "        else:\n");
	has(t, "        if backend == \"cutile\":\n            pytest.skip(\"not on this arch\")\n        if backend");
	assert_int_equal(count(t, "== \"cutile-rs\""), 1);
	free(t);
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

/* ---- the launch ---- */

/* A kernel launched through a local name, from a launch helper that an
 * autograd.Function's forward calls (TileGym's softmax), and a name bound
 * to one of two kernels in the arms of an if. */
static const char alias_src[] =
	"import cuda.tile as ct\n"
	"import torch\n"
	"\n"
	"from tilegym.backend import register_impl\n"
	"from tilegym.experimental import experimental_kernel\n"
	"\n"
	"\n"
	"@experimental_kernel\n"
	"@ct.kernel\n"
	"def _scale_tma(x, y, n: int, TILE: ct.Constant[int]):\n"
	"    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))\n"
	"    ct.store(y, index=(ct.bid(0),), tile=t * 2.0)\n"
	"\n"
	"\n"
	"@ct.kernel\n"
	"def _scale_plain(x, y, n: int, TILE: ct.Constant[int]):\n"
	"    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))\n"
	"    ct.store(y, index=(ct.bid(0),), tile=t * 3.0)\n"
	"\n"
	"\n"
	"def _launch_scale(x, y, use_tma):\n"
	"    if use_tma:\n"
	"        fwd = _scale_tma\n"
	"    else:\n"
	"        fwd = _scale_plain\n"
	"    grid = (ct.cdiv(x.shape[0], 128), 1, 1)\n"
	"    ct.launch(torch.cuda.current_stream(), grid, fwd, (x, y, x.shape[0], 128))\n"
	"\n"
	"\n"
	"class _Scale(torch.autograd.Function):\n"
	"    @staticmethod\n"
	"    def forward(ctx, x, use_tma=False):\n"
	"        y = torch.empty_like(x)\n"
	"        _launch_scale(x, y, use_tma)\n"
	"        return y\n"
	"\n"
	"\n"
	"@register_impl(\"scale\", backend=\"cutile\")\n"
	"def scale(x, use_tma=False):\n"
	"    return _Scale.apply(x, use_tma)\n";

static void test_launch_through_a_local_name(void **state)
{
	(void)state;
	struct port_op *op = NULL;
	struct tp_err err = {0};
	assert_int_equal(port_open_source("src/tilegym/ops/cutile/scale.py", alias_src, strlen(alias_src),
					  NULL, NULL, &op, &err),
			 0);
	char *w = NULL, *ffi = NULL;
	if (port_wrapper_py(op, "src/tilegym/ops/cutile/scale.py", &w, &err) != 0)
		fail_msg("wrapper: %s", err.msg);
	/* the name now holds each kernel's launch function; the launch goes
	 * through it, as the host wrote it */
	has(w, "        fwd = _launch__scale_tma\n    else:\n        fwd = _launch__scale_plain\n");
	has(w, "    fwd(torch.cuda.current_stream(), grid, x, y, x.shape[0], 128)\n");
	has(w, "def _launch__scale_tma(stream, grid, x, y, n, TILE, **_launch_hints):");
	has(w, "def _launch__scale_plain(stream, grid, x, y, n, TILE, **_launch_hints):");
	/* the autograd.Function and the public function come along */
	has(w, "class _Scale(torch.autograd.Function):");
	has(w, "@register_impl(\"scale\", backend=\"cutile-rs\")");
	/* an import the copied code does not read is left out: this one
	 * needs cuda.tile, which the cutile-rs backend runs without */
	lacks(w, "experimental_kernel");
	has(w, "\nimport torch\nfrom tilegym.backend import register_impl\n");
	if (port_ffi_rs(op, &ffi, &err) != 0)
		fail_msg("ffi: %s", err.msg);
	has(ffi, "pub unsafe extern \"C\" fn cutile_scale(");
	has(ffi, "pub unsafe extern \"C\" fn cutile_scale__scale_plain(");
	free(ffi);
	free(w);
	port_close(op);
}

static void test_kernel_object_in_host_code_is_refused(void **state)
{
	(void)state;
	static const char src[] = "import cuda.tile as ct\nimport torch\n\n\n@ct.kernel\n"
				  "def _k(x, TILE: ct.Constant[int]):\n"
				  "    ct.store(x, index=(ct.bid(0),), tile=ct.zeros((TILE,), dtype=ct.float32))\n"
				  "\n\n"
				  "def run(x):\n"
				  "    print(_k.__name__)\n"
				  "    ct.launch(torch.cuda.current_stream(), (1, 1, 1), _k, (x, 16))\n";
	struct port_op *op = NULL;
	struct tp_err err = {0};
	assert_int_equal(port_open_source("k.py", src, strlen(src), NULL, NULL, &op, &err), 0);
	char *w = NULL;
	assert_int_equal(port_wrapper_py(op, "k.py", &w, &err), -1);
	assert_string_equal(err.msg, "k.py:11:11: unsupported: the kernel `_k` used in host code other than "
				     "by its launch (the cutile-rs wrapper has a launch function in its "
				     "place, no kernel object)");
	port_close(op);
}

/* A launch helper of another operator's module: its cuTile Rust port, or
 * a refusal that names the operator to port first. */
static void test_launch_helper_in_another_module(void **state)
{
	const char *ws = *state;
	static const char src[] =
		"import cuda.tile as ct\n"
		"import torch\n"
		"\n"
		"from tilegym.backend import register_impl\n"
		"\n"
		"from .reduce import reduce_rows\n"
		"from .utils import next_power_of_2\n"
		"\n"
		"\n"
		"@ct.kernel\n"
		"def _partial(x, y, TILE: ct.Constant[int]):\n"
		"    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, TILE))\n"
		"    ct.store(y, index=(ct.bid(0), 0), tile=t)\n"
		"\n"
		"\n"
		"@register_impl(\"two_pass\", backend=\"cutile\")\n"
		"def two_pass(x):\n"
		"    y = torch.empty_like(x)\n"
		"    grid = (x.shape[0], 1, 1)\n"
		"    ct.launch(torch.cuda.current_stream(), grid, _partial, (x, y, next_power_of_2(x.shape[1])))\n"
		"    return reduce_rows(y)\n";
	free(tu_write(ws, "src/tilegym/ops/cutile/two_pass.py", src));
	free(tu_write(ws, "src/tilegym/ops/cutile/reduce.py",
		      "import cuda.tile as ct\n\n\ndef reduce_rows(y):\n    return y.sum(1)\n"));
	free(tu_write(ws, "src/tilegym/ops/cutile/utils.py",
		      "import cuda.tile as ct\n\n\ndef next_power_of_2(n):\n    return n\n"));
	struct port_op *op = NULL;
	struct tp_err err = {0};
	assert_int_equal(port_open_in(ws, "src/tilegym/ops/cutile/two_pass.py", NULL, NULL, &op, &err), 0);
	char *w = NULL;
	assert_int_equal(port_wrapper_py_in(op, ws, "src/tilegym/ops/cutile/two_pass.py", &w, &err), -1);
	assert_string_equal(err.msg,
			    "src/tilegym/ops/cutile/two_pass.py:6:21: unsupported: `reduce_rows` from "
			    "tilegym.ops.cutile.reduce, another operator's host code that runs its kernels in "
			    "cuTile Python: port reduce first (tileport run reduce); the wrapper then takes "
			    "`reduce_rows` from its cuTile Rust port");
	/* once reduce has its port, the wrapper takes the helper from there */
	free(tu_write(ws, "src/tilegym/ops/cutile_rs/reduce.py",
		      "from tilegym.backend import register_impl\n\n\ndef reduce_rows(y):\n    return y\n"));
	memset(&err, 0, sizeof(err));
	if (port_wrapper_py_in(op, ws, "src/tilegym/ops/cutile/two_pass.py", &w, &err) != 0)
		fail_msg("wrapper: %s", err.msg);
	has(w, "from tilegym.ops.cutile_rs.reduce import reduce_rows\n");
	lacks(w, "tilegym.ops.cutile.");
	/* next_power_of_2 of the cuTile utils: written out, not imported */
	has(w, "def next_power_of_2(n):\n    return 1 << (n - 1).bit_length()\n");
	free(w);
	port_close(op);
}

/* A kernel a tuner chose (rope): a helper returns it with other hints,
 * from cuda.tile's exhaustive_search or a fixed fallback. The wrapper's
 * kernel values are launch functions with the hints bound; the search
 * runs over the cutile-rs launch through autotune_launch. */
static void test_tuned_kernel_from_a_helper(void **state)
{
	(void)state;
	static const char src[] =
		"from types import SimpleNamespace\n"
		"\n"
		"import cuda.tile as ct\n"
		"import torch\n"
		"from cuda.tile.tune import exhaustive_search\n"
		"\n"
		"from .utils import cached_replace_hints\n"
		"\n"
		"_CONFIGS = tuple(SimpleNamespace(occupancy=o) for o in (1, 4))\n"
		"\n"
		"\n"
		"@ct.kernel\n"
		"def _shift(x, TILE: ct.Constant[int]):\n"
		"    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))\n"
		"    ct.store(x, index=(ct.bid(0),), tile=t + 1.0)\n"
		"\n"
		"\n"
		"def _pick(x, grid, fixed):\n"
		"    if fixed:\n"
		"        return _shift.replace_hints(occupancy=2, num_ctas=1)\n"
		"    result = exhaustive_search(list(_CONFIGS), torch.cuda.current_stream(), lambda c: grid,\n"
		"                               _shift, lambda c: (x.clone(), 128), lambda c: {\"occupancy\": c.occupancy})\n"
		"    return cached_replace_hints(_shift, occupancy=result.best.config.occupancy)\n"
		"\n"
		"\n"
		"def shift(x, fixed=False):\n"
		"    grid = (x.numel() // 128, 1, 1)\n"
		"    kernel = _pick(x, grid, fixed)\n"
		"    ct.launch(torch.cuda.current_stream(), grid, kernel, (x, 128))\n"
		"    return x\n";
	struct port_op *op = NULL;
	struct tp_err err = {0};
	assert_int_equal(port_open_source("src/tilegym/ops/cutile/shift.py", src, strlen(src), NULL, NULL,
					  &op, &err),
			 0);
	char *w = NULL;
	if (port_wrapper_py(op, "src/tilegym/ops/cutile/shift.py", &w, &err) != 0)
		fail_msg("wrapper: %s", err.msg);
	has(w, "        return functools.partial(_launch__shift, occupancy=2, num_ctas=1)\n");
	has(w, "    result = _exhaustive_search(list(_CONFIGS), torch.cuda.current_stream(), lambda c: grid,\n"
	       "                               _launch__shift,");
	has(w, "    return functools.partial(_launch__shift, occupancy=result.best.config.occupancy)\n");
	has(w, "    kernel(torch.cuda.current_stream(), grid, x, 128)\n");
	/* the launch function passes the hints on to the export */
	has(w, "_launch_hints.get(\"num_ctas\", -1), _launch_hints.get(\"occupancy\", -1),");
	has(w, "from tilegym.backend.cutile_rs import autotune_launch\n");
	has(w, "    tuned = autotune_launch(\n");
	has(w, "import functools\n");
	/* neither cuda.tile's tuner nor the helper that caches hinted kernels */
	lacks(w, "cached_replace_hints");
	lacks(w, "import cuda");
	lacks(w, "from cuda");
	free(w);
	port_close(op);
}

/* mla's form: the tuned kernel stored in a cache with its config, read
 * back by tuple unpacking and launched; the search under cuTile Python's
 * compile timeout. */
static void test_tuned_kernel_from_a_cache(void **state)
{
	(void)state;
	static const char src[] =
		"import cuda.tile as ct\n"
		"import torch\n"
		"from cuda.tile.tune import exhaustive_search\n"
		"\n"
		"_CACHE = {}\n"
		"\n"
		"\n"
		"@ct.kernel\n"
		"def _shift(x, TILE: ct.Constant[int]):\n"
		"    t = ct.load(x, index=(ct.bid(0),), shape=(TILE,))\n"
		"    ct.store(x, index=(ct.bid(0),), tile=t + 1.0)\n"
		"\n"
		"\n"
		"class _Shift(torch.autograd.Function):\n"
		"    @staticmethod\n"
		"    def forward(ctx, x, configs):\n"
		"        stream = torch.cuda.current_stream()\n"
		"        key = (x.shape, x.dtype)\n"
		"        if key not in _CACHE:\n"
		"            with ct.compiler_timeout(5):\n"
		"                result = exhaustive_search(configs, stream, lambda c: (8, 1, 1), _shift,\n"
		"                                           lambda c: (x, c.TILE), lambda c: {\"num_ctas\": c.num_ctas})\n"
		"            cfg = result.best.config\n"
		"            _CACHE[key] = (cfg, _shift.replace_hints(num_ctas=cfg.num_ctas))\n"
		"        cfg, tuned = _CACHE[key]\n"
		"        ct.launch(stream, (8, 1, 1), tuned, (x, cfg.TILE))\n"
		"        return x\n";
	struct port_op *op = NULL;
	struct tp_err err = {0};
	assert_int_equal(port_open_source("src/tilegym/ops/cutile/shift.py", src, strlen(src), NULL, NULL,
					  &op, &err),
			 0);
	char *w = NULL;
	if (port_wrapper_py(op, "src/tilegym/ops/cutile/shift.py", &w, &err) != 0)
		fail_msg("wrapper: %s", err.msg);
	has(w, "            with _compiler_timeout(5):\n");
	has(w, "def _compiler_timeout(seconds):");
	has(w, "            _CACHE[key] = (cfg, functools.partial(_launch__shift, num_ctas=cfg.num_ctas))\n");
	has(w, "        tuned(stream, (8, 1, 1), x, cfg.TILE)\n");
	free(w);
	port_close(op);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_class_level_backend_list),
		cmocka_unit_test(test_one_line_list_and_missing_import),
		cmocka_unit_test(test_module_list_and_two_classes),
		cmocka_unit_test(test_no_backend_list_is_refused_with_its_place),
		cmocka_unit_test(test_direct_backend_calls_get_a_cutile_rs_branch),
		cmocka_unit_test(test_init_import_in_name_order),
		cmocka_unit_test(test_launch_through_a_local_name),
		cmocka_unit_test(test_kernel_object_in_host_code_is_refused),
		TU_DIR_TEST(test_launch_helper_in_another_module),
		cmocka_unit_test(test_tuned_kernel_from_a_helper),
		cmocka_unit_test(test_tuned_kernel_from_a_cache),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
