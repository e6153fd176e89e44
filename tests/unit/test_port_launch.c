/* The launch a wrapper, ffi.rs and the launch contract are written from,
 * where the host builds it: argument tuples bound to local names, joined
 * with `+`, starred into others, chosen in branches (each kernel takes the
 * tuple that fits its parameters; two that fit one kernel equally are
 * refused), and a tuner's kernel candidates, which are launch functions in
 * the wrapper. Not TileGym's spelling: its own is tests/integration's. */
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

/* Not TileGym's spelling: a method of a module-like class launches; the
 * arguments are a list head plus a tail chosen in an if/elif/else, joined
 * at the launch; the tail's config attribute names the parameter it is
 * for (cfg.SPLIT for SPLIT, cfg.LANES for LANES), and the last arm has no
 * kernel of its own (it takes the first kernel's tuple, `block`). */
static const char built_src[] =
	"import cuda.tile as tile\n"                                                  /* 1 */
	"import torch\n"                                                              /* 2 */
	"\n"                                                                          /* 3 */
	"\n"                                                                          /* 4 */
	"@tile.kernel\n"                                                              /* 5 */
	"def fill_split(dst, n, SPLIT: tile.Constant[int]):\n"                        /* 6 */
	"    tile.store(dst, index=(tile.bid(0),), tile=tile.zeros((SPLIT,), dtype=tile.float32))\n"
	"\n"                                                                          /* 8 */
	"\n"                                                                          /* 9 */
	"@tile.kernel\n"                                                              /* 10 */
	"def fill_lanes(dst, n, LANES: tile.Constant[int]):\n"                        /* 11 */
	"    tile.store(dst, index=(tile.bid(0),), tile=tile.full((LANES,), 1.0, dtype=tile.float32))\n"
	"\n"                                                                          /* 13 */
	"\n"                                                                          /* 14 */
	"class Filler:\n"                                                             /* 15 */
	"    def __call__(self, dst, cfg):\n"                                         /* 16 */
	"        head = [dst, dst.numel()]\n"                                         /* 17 */
	"        if cfg.kind == \"split\":\n"                                         /* 18 */
	"            which = fill_split\n"                                            /* 19 */
	"            tail = [cfg.SPLIT]\n"                                            /* 20 */
	"        elif cfg.kind == \"lanes\":\n"                                       /* 21 */
	"            which = fill_lanes\n"                                            /* 22 */
	"            tail = [cfg.LANES]\n"                                            /* 23 */
	"        else:\n"                                                             /* 24 */
	"            which = fill_split\n"                                            /* 25 */
	"            tail = [cfg.block]\n"                                            /* 26 */
	"        tile.launch(torch.cuda.current_stream(), (8, 1, 1), which, head + tail)\n"
	"        return dst\n";

static void test_launch_arguments_built_in_branches(void **state)
{
	(void)state;
	struct port_op *op = NULL;
	struct tp_err err = {0};
	assert_int_equal(port_open_source("fill.py", built_src, strlen(built_src), NULL, NULL, &op, &err), 0);
	char *w = NULL, *ffi = NULL;
	if (port_wrapper_py(op, "fill.py", &w, &err) != 0)
		fail_msg("wrapper: %s", err.msg);
	/* the host's own tuple, unpacked: each kernel gets what the Python
	 * passes it */
	has(w, "        which(torch.cuda.current_stream(), (8, 1, 1), *(head + tail))\n");
	has(w, "            which = _launch_fill_lanes\n");
	/* which tuple each kernel takes: the one naming its own parameter;
	 * the arm without a name takes nothing from the other kernel */
	char *c = port_launch_contract(op);
	has(c, "  - host arguments, built as `head + tail` (the tuple bound at line 20): dst, dst.numel(), "
	       "cfg.SPLIT\n");
	has(c, "  - host arguments, built as `head + tail` (the tuple bound at line 23): dst, dst.numel(), "
	       "cfg.LANES\n");
	lacks(c, "cfg.block");
	free(c);
	/* an export per kernel, with its own Constant */
	if (port_ffi_rs(op, &ffi, &err) != 0)
		fail_msg("ffi: %s", err.msg);
	has(ffi, "pub unsafe extern \"C\" fn cutile_fill_fill_lanes(");
	has(ffi, "    lanes: i32,\n");
	free(ffi);
	free(w);
	port_close(op);
}

/* Two tails that name no parameter: which one a kernel takes cannot be
 * told, and the refusal says where both are bound. */
static void test_ambiguous_launch_arguments_are_refused(void **state)
{
	(void)state;
	static const char src[] =
		"import cuda.tile as tile\n"
		"import torch\n"
		"\n"
		"\n"
		"@tile.kernel\n"
		"def fill_split(dst, n, SPLIT: tile.Constant[int]):\n"
		"    tile.store(dst, index=(tile.bid(0),), tile=tile.zeros((SPLIT,), dtype=tile.float32))\n"
		"\n"
		"\n"
		"@tile.kernel\n"
		"def fill_lanes(dst, n, LANES: tile.Constant[int]):\n"
		"    tile.store(dst, index=(tile.bid(0),), tile=tile.full((LANES,), 1.0, dtype=tile.float32))\n"
		"\n"
		"\n"
		"def fill(dst, wide):\n"
		"    if wide:\n"
		"        which = fill_lanes\n"
		"        extra = (64,)\n"
		"    else:\n"
		"        which = fill_split\n"
		"        extra = (dst.shape[0] // 8,)\n"
		"    tile.launch(torch.cuda.current_stream(), (8, 1, 1), which, (dst, dst.numel(), *extra))\n";
	struct port_op *op = NULL;
	struct tp_err err = {0};
	assert_int_equal(port_open_source("fill.py", src, strlen(src), NULL, NULL, &op, &err), 0);
	char *w = NULL;
	assert_int_equal(port_wrapper_py(op, "fill.py", &w, &err), -1);
	assert_string_equal(err.msg,
			    "fill.py:22:64: unsupported: ambiguous launch arguments `(dst, dst.numel(), "
			    "*extra)` for `fill_split`: the tuples bound at 18:9 and 21:9 fit its 3 parameters "
			    "equally (name the arguments as its parameters, or launch it with a tuple of its "
			    "own)");
	port_close(op);
}

/* Arguments a function of the host returns (a tuner's `args_fn(cfg)`) are
 * its return's tuple; a call of anything else is refused, named. */
static void test_launch_arguments_from_a_call(void **state)
{
	(void)state;
	static const char head[] =
		"import cuda.tile as tile\n"
		"import torch\n"
		"\n"
		"\n"
		"@tile.kernel\n"
		"def fill_split(dst, n, SPLIT: tile.Constant[int]):\n"
		"    tile.store(dst, index=(tile.bid(0),), tile=tile.zeros((SPLIT,), dtype=tile.float32))\n"
		"\n"
		"\n";
	char *src = xasprintf("%s"
			      "def fill(dst, cfg):\n"
			      "    def pack(c):\n"
			      "        width = c.SPLIT * 2\n"
			      "        return (dst, dst.numel(), width)\n"
			      "\n"
			      "    tile.launch(torch.cuda.current_stream(), (8, 1, 1), fill_split, pack(cfg))\n",
			      head);
	struct port_op *op = NULL;
	struct tp_err err = {0};
	assert_int_equal(port_open_source("fill.py", src, strlen(src), NULL, NULL, &op, &err), 0);
	char *ffi = NULL, *py = NULL;
	assert_int_equal(port_ffi_rs(op, &ffi, &err), 0);
	assert_int_equal(port_wrapper_py(op, "fill.py", &py, &err), 0);
	has(py, "*(pack(cfg))");
	free(ffi);
	free(py);
	port_close(op);
	free(src);
	src = xasprintf("%s"
			"def fill(dst):\n"
			"    args = tuple([dst, dst.numel(), 16])\n"
			"    tile.launch(torch.cuda.current_stream(), (8, 1, 1), fill_split, args)\n",
			head);
	assert_int_equal(port_open_source("fill.py", src, strlen(src), NULL, NULL, &op, &err), 0);
	assert_int_equal(port_ffi_rs(op, &ffi, &err), -1);
	assert_string_equal(err.msg, "fill.py:11:12: unsupported: ct.launch arguments "
				     "`tuple([dst, dst.numel(), 16])` that are not a tuple, a local name "
				     "bound to one, a `+` of these or the return of a function");
	port_close(op);
	free(src);
}

/* A tuner over kernel candidates (recurrent_gated_delta_rule's shape, in
 * another spelling): the candidates hold kernels in a NamedTuple typed
 * with the kernel language, the search runs over `cand.fn`, the host
 * compares the searches' times, and the winner gets other hints. In the
 * wrapper every kernel value is its launch function, so the host's own
 * choice picks among the exports. */
static void test_kernel_candidates_of_a_tuner(void **state)
{
	(void)state;
	static const char src[] =
		"from typing import NamedTuple\n"
		"\n"
		"import cuda.tile as tile\n"
		"import torch\n"
		"\n"
		"\n"
		"@tile.kernel\n"
		"def fill_split(dst, n, SPLIT: tile.Constant[int]):\n"
		"    tile.store(dst, index=(tile.bid(0),), tile=tile.zeros((SPLIT,), dtype=tile.float32))\n"
		"\n"
		"\n"
		"@tile.kernel\n"
		"def fill_lanes(dst, n, LANES: tile.Constant[int]):\n"
		"    tile.store(dst, index=(tile.bid(0),), tile=tile.full((LANES,), 1.0, dtype=tile.float32))\n"
		"\n"
		"\n"
		"class Cand(NamedTuple):\n"
		"    fn: tile.kernel\n"
		"    sizes: list\n"
		"\n"
		"\n"
		"def pick(dst, stream):\n"
		"    best, best_us, best_cfg = None, float(\"inf\"), None\n"
		"    for cand in (Cand(fill_split, [8, 16]), Cand(fn=fill_lanes, sizes=[32])):\n"
		"        res = tile.tune.exhaustive_search(cand.sizes, stream, lambda c: (8, 1, 1), cand.fn,\n"
		"                                          lambda c: (dst, dst.numel(), c), lambda c: {},\n"
		"                                          quiet=True)\n"
		"        if res.best.mean_us < best_us:\n"
		"            best, best_us, best_cfg = cand.fn, res.best.mean_us, res.best.config\n"
		"    return best.replace_hints(occupancy=2), best_cfg\n"
		"\n"
		"\n"
		"def fill(dst, tuned=True):\n"
		"    stream = torch.cuda.current_stream()\n"
		"    if tuned:\n"
		"        fn, size = pick(dst, stream)\n"
		"    elif dst.numel() > 1024:\n"
		"        fn = fill_lanes\n"
		"        size = 32\n"
		"    else:\n"
		"        fn = fill_split\n"
		"        size = 8\n"
		"    tile.launch(stream, (8, 1, 1), fn, (dst, dst.numel(), size))\n";
	struct port_op *op = NULL;
	struct tp_err err = {0};
	assert_int_equal(port_open_source("fill.py", src, strlen(src), NULL, NULL, &op, &err), 0);
	char *w = NULL;
	if (port_wrapper_py(op, "fill.py", &w, &err) != 0)
		fail_msg("wrapper: %s", err.msg);
	has(w, "class Cand(NamedTuple):\n    fn: object\n");
	has(w, "(Cand(_launch_fill_split, [8, 16]), Cand(fn=_launch_fill_lanes, sizes=[32]))");
	has(w, "        res = _exhaustive_search(cand.sizes, stream, lambda c: (8, 1, 1), cand.fn,\n");
	has(w, "    return functools.partial(best, occupancy=2), best_cfg\n");
	has(w, "        fn = _launch_fill_lanes\n");
	has(w, "    fn(stream, (8, 1, 1), dst, dst.numel(), size)\n");
	/* the search's result has the time the host compares */
	has(w, "def _exhaustive_search(configs, stream, grid_fn, launch, args_fn, hints_fn, **_options):");
	has(w, "mean_us=best_ms * 1000.0");
	lacks(w, "tile.kernel");
	lacks(w, "tile.launch");
	lacks(w, "import cuda");
	free(w);
	port_close(op);
}


/* One kernel through the launch: every tuple that reaches it is its own
 * (the Python passes each), found through a with, a loop and an if around
 * the launch; nothing to refuse. */
static void test_tuples_of_one_kernel_are_its_own(void **state)
{
	(void)state;
	static const char src[] =
		"import cuda.tile as tile\n"
		"import torch\n"
		"\n"
		"\n"
		"@tile.kernel\n"
		"def fill_split(dst, n, SPLIT: tile.Constant[int]):\n"
		"    tile.store(dst, index=(tile.bid(0),), tile=tile.zeros((SPLIT,), dtype=tile.float32))\n"
		"\n"
		"\n"
		"def fill(dst, n):\n"
		"    args = [dst]\n"
		"    args = [dst, dst]\n"
		"    with torch.cuda.device(dst.device):\n"
		"        args = args[:1] + [n] if n else args\n"
		"        args = [dst] + [n]\n"
		"        for i in range(2):\n"
		"            if i:\n"
		"                tail = (16,)\n"
		"            else:\n"
		"                tail = (8,)\n"
		"            tile.launch(torch.cuda.current_stream(), (8, 1, 1), fill_split, (*args, *tail))\n";
	struct port_op *op = NULL;
	struct tp_err err = {0};
	assert_int_equal(port_open_source("fill.py", src, strlen(src), NULL, NULL, &op, &err), 0);
	char *w = NULL;
	if (port_wrapper_py(op, "fill.py", &w, &err) != 0)
		fail_msg("wrapper: %s", err.msg);
	has(w, "            _launch_fill_split(torch.cuda.current_stream(), (8, 1, 1), *args, *tail)\n");
	/* the binding in the with hides the ones before it (a conditional
	 * expression would not resolve) */
	char *c = port_launch_contract(op);
	has(c, "  - host arguments, built as `(*args, *tail)` (the tuple bound at line 18): dst, n, 16\n");
	free(c);
	free(w);
	port_close(op);
}

/* Two kernels through one launch and no tuple of as many arguments as
 * one of them takes: refused, with the launch's place. */
static void test_no_tuple_fits_a_kernel(void **state)
{
	(void)state;
	static const char src[] =
		"import cuda.tile as tile\n"
		"import torch\n"
		"\n"
		"\n"
		"@tile.kernel\n"
		"def fill_split(dst, n, SPLIT: tile.Constant[int]):\n"
		"    tile.store(dst, index=(tile.bid(0),), tile=tile.zeros((SPLIT,), dtype=tile.float32))\n"
		"\n"
		"\n"
		"@tile.kernel\n"
		"def fill_lanes(dst, n, LANES: tile.Constant[int]):\n"
		"    tile.store(dst, index=(tile.bid(0),), tile=tile.full((LANES,), 1.0, dtype=tile.float32))\n"
		"\n"
		"\n"
		"def fill(dst, wide):\n"
		"    which = fill_split\n"
		"    args = (dst, 8)\n"
		"    if wide:\n"
		"        which = fill_lanes\n"
		"        args = (dst, dst.numel(), 8, 1)\n"
		"    tile.launch(torch.cuda.current_stream(), (8, 1, 1), which, args)\n";
	struct port_op *op = NULL;
	struct tp_err err = {0};
	assert_int_equal(port_open_source("fill.py", src, strlen(src), NULL, NULL, &op, &err), 0);
	char *ffi = NULL;
	assert_int_equal(port_ffi_rs(op, &ffi, &err), -1);
	assert_string_equal(err.msg, "fill.py:21:64: unsupported: none of the 2 tuples the launch arguments "
				     "`args` may be fits `fill_split` (3 parameters)");
	port_close(op);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_launch_arguments_built_in_branches),
		cmocka_unit_test(test_ambiguous_launch_arguments_are_refused),
		cmocka_unit_test(test_launch_arguments_from_a_call),
		cmocka_unit_test(test_tuples_of_one_kernel_are_its_own),
		cmocka_unit_test(test_no_tuple_fits_a_kernel),
		cmocka_unit_test(test_kernel_candidates_of_a_tuner),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
