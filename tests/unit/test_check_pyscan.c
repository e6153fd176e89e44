/* The Python tokenizer and the live-call scanner (validate_kernel.sh
 * check 18). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "engine/check/check_impl.h"

static size_t count_kind(const struct pytoks *t, enum pytok_kind kind)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		n += t->v[i].kind == kind;
	return n;
}

static const struct pytok *nth(const struct pytoks *t, enum pytok_kind kind, size_t k)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].kind == kind && k-- == 0)
			return &t->v[i];
	return NULL;
}

static void test_tokens(void **state)
{
	(void)state;
	const char *src = "x = rb'a\\'b' + \"\"\"doc\n'q'\n\"\"\" # c\n"
			  "y = (1,\n     2.5e-3)\\\n\n"
			  "if x:\n    z = f'{x}'\n";
	struct pytoks t = {0};
	struct tp_err err = {0};
	assert_int_equal(pytok_scan(src, strlen(src), &t, &err), 0);
	assert_int_equal(count_kind(&t, PYT_STRING), 3);
	assert_int_equal(count_kind(&t, PYT_INDENT), 1);
	assert_int_equal(count_kind(&t, PYT_DEDENT), 1);
	/* brackets join lines; the backslash joins the blank line */
	assert_int_equal(count_kind(&t, PYT_NEWLINE), 4);
	const struct pytok *num = nth(&t, PYT_NUMBER, 1);
	assert_non_null(num);
	assert_int_equal((int)num->n, 6); /* 2.5e-3 */
	assert_int_equal(num->line, 5);
	const struct pytok *z = nth(&t, PYT_NAME, 4); /* x y if x z */
	assert_non_null(z);
	assert_int_equal(z->line, 8);
	assert_int_equal(z->col, 5);
	/* the triple-quoted string keeps the line it started on */
	assert_int_equal(nth(&t, PYT_STRING, 1)->line, 1);
	pytoks_free(&t);
}

static void test_token_errors(void **state)
{
	(void)state;
	struct pytoks t = {0};
	struct tp_err err = {0};
	const char *a = "x = 1\ny = 'abc\nz = 2\n";
	assert_int_equal(pytok_scan(a, strlen(a), &t, &err), -1);
	assert_string_equal(err.msg, "2:5: unterminated string");
	pytoks_free(&t);
	const char *b = "s = \"\"\"never closed\n\n";
	assert_int_equal(pytok_scan(b, strlen(b), &t, &err), -1);
	assert_string_equal(err.msg, "1:5: unterminated triple-quoted string");
	pytoks_free(&t);
	const char *c = "x = 1 \\ y\n";
	assert_int_equal(pytok_scan(c, strlen(c), &t, &err), -1);
	assert_non_null(strstr(err.msg, "1:7"));
	pytoks_free(&t);
	/* not UTF-8: refused where it is, whatever it is inside (issue 26) */
	const char *bad[] = {"x = 1\ny = 'ab\xff'\n", "row\xff\xfemax = 1\n", "x = '\xc0\xaf'\n",
			     "x = '\xed\xa0\x80'\n", "x = '\xf4\x90\x80\x80'\n", "x = '\xe2\x82'\n",
			     "x = '\xe2\x82"};
	const char *where[] = {"2:8: invalid UTF-8 (byte 0xff)", "1:4: invalid UTF-8 (byte 0xff)",
			       "1:6: invalid UTF-8 (byte 0xc0)", "1:6: invalid UTF-8 (byte 0xed)",
			       "1:6: invalid UTF-8 (byte 0xf4)", "1:6: invalid UTF-8 (byte 0xe2)",
			       "1:6: invalid UTF-8 (byte 0xe2)"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(pytok_scan(bad[i], strlen(bad[i]), &t, &err), -1);
		if (!strstr(err.msg, where[i]))
			fail_msg("%zu: %s", i, err.msg);
		pytoks_free(&t);
	}
	const char *good = "s = '\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf'  # \xe2\x9c\x93\n";
	assert_int_equal(pytok_scan(good, strlen(good), &t, &err), 0);
	pytoks_free(&t);
	/* an unindent to an unknown column is tolerated */
	const char *d = "if a:\n        b\n    c\n";
	assert_int_equal(pytok_scan(d, strlen(d), &t, &err), 0);
	pytoks_free(&t);
}

static void test_str_equals(void **state)
{
	(void)state;
	const char *src = "a('sym', \"sym\", r'sym', '''sym''', f'sym', 'sy\\m', b\"sym\", '')";
	struct pytoks t = {0};
	assert_int_equal(pytok_scan(src, strlen(src), &t, NULL), 0);
	bool want[] = {true, true, true, true, false, false, true, false};
	for (size_t i = 0; i < TP_ARRAY_LEN(want); i++)
		assert_int_equal(pytok_str_equals(nth(&t, PYT_STRING, i), "sym"), want[i]);
	pytoks_free(&t);
}

static int live(const char *src, struct py_live *res)
{
	struct tp_err err = {0};
	int rc = py_live_call(src, strlen(src), "cutile_op", res, &err);
	assert_int_equal(rc, 0);
	return res->call_line;
}

static void test_live_forms(void **state)
{
	(void)state;
	struct py_live r;
	static const char *const live_srcs[] = {
		/* attribute call at module level */
		"lib.cutile_op(1)\n",
		/* in a decorated function */
		"@register_impl('op', backend='cutile-rs')\ndef op(x):\n    return lib.cutile_op(x)\n",
		/* getattr with the literal, called */
		"@reg\ndef op(x):\n    getattr(lib, 'cutile_op')(x)\n",
		/* getattr with a module constant */
		"NAME = 'cutile_op'\n@reg\ndef op(x):\n    getattr(lib, NAME)(x)\n",
		/* alias through an attribute target */
		("class K:\n    def __init__(self):\n        self._fn = lib.cutile_op\n"
		 "    def __call__(self, x):\n        return self._fn(x)\n"),
		/* alias of an alias */
		"@reg\ndef op(x):\n    a = lib.cutile_op\n    b = a\n    b(x)\n",
		/* factory called directly */
		"def get():\n    return lib.cutile_op\n@reg\ndef op(x):\n    get()(x)\n",
		/* binder called with the literal */
		"@reg\ndef op(x):\n    fn = load_symbol(\"cutile_op\")\n    fn(x)\n",
		/* handed to a launcher */
		"@reg\ndef op(x):\n    autotune_launch(lib.cutile_op, configs)\n",
		/* helper reached through another live function */
		"def _b(x):\n    return lib.cutile_op(x)\ndef _a(x):\n    return _b(x)\n@reg\ndef op(x):\n    return _a(x)\n",
		/* a one-line body */
		"@reg\ndef op(x): return lib.cutile_op(x)\n",
		/* inside a lambda in a live statement */
		"@reg\ndef op(x):\n    run(lambda c: lib.cutile_op(x, c))\n",
		/* else of an `if False` is live */
		"if False:\n    pass\nelse:\n    lib.cutile_op(1)\n",
	};
	for (size_t i = 0; i < TP_ARRAY_LEN(live_srcs); i++) {
		if (!live(live_srcs[i], &r))
			fail_msg("case %zu should be live:\n%s", i, live_srcs[i]);
	}
}

static void test_dead_forms(void **state)
{
	(void)state;
	struct py_live r;
	static const struct {
		const char *src;
		int dead_line; /* 0: no invocation at all */
	} dead[] = {
		{"# lib.cutile_op(x)\ns = 'lib.cutile_op(x)'\n", 0},
		{"CDEF = \"\"\"int cutile_op(int x);\"\"\"\n", 0},
		{"@reg\ndef op(x):\n    return ref(x)\n    lib.cutile_op(x)\n", 4},
		{"@reg\ndef op(x):\n    raise NotImplementedError\n    lib.cutile_op(x)\n", 4},
		{"if False:\n    lib.cutile_op(1)\n", 2},
		{"while 0:\n    lib.cutile_op(1)\n", 2},
		{"def unused(x):\n    return lib.cutile_op(x)\n", 2},
		/* only recursion refers to it */
		{"def loop(x):\n    loop(x)\n    lib.cutile_op(x)\n", 3},
		{"@reg\ndef op(x):\n    if hasattr(lib, 'cutile_op'):\n        return x\n", 0},
		{"@reg\ndef op(x):\n    check_rc(0, 'cutile_op')\n    print('cutile_op')\n", 0},
		/* a different symbol */
		{"lib.cutile_op2(1)\nlib.xcutile_op(1)\n", 0},
		/* an attribute read, never called nor passed on */
		{"@reg\ndef op(x):\n    ok = callable(lib.cutile_op)\n", 0},
	};
	for (size_t i = 0; i < TP_ARRAY_LEN(dead); i++) {
		if (live(dead[i].src, &r))
			fail_msg("case %zu should be dead (found line %d):\n%s", i, r.call_line,
				 dead[i].src);
		assert_int_equal(r.dead_line, dead[i].dead_line);
	}
}

static void test_early_exit(void **state)
{
	(void)state;
	struct py_live r;
	assert_int_equal(live("@reg\ndef op(x):\n    if not x.is_cuda:\n        return ref(x)\n"
			      "    return lib.cutile_op(x)\n",
			      &r),
			 5);
	assert_int_equal(r.early_line, 4);
	assert_string_equal(r.early_kw, "return");
	/* the call's own return does not count, nor a nested function's */
	assert_int_equal(live("@reg\ndef op(x):\n    def helper():\n        raise ValueError\n"
			      "    return lib.cutile_op(x)\n",
			      &r),
			 5);
	assert_int_equal(r.early_line, 0);
	assert_int_equal(live("@reg\ndef op(x):\n    if x is None:\n        raise ValueError('x')\n"
			      "    lib.cutile_op(x)\n",
			      &r),
			 5);
	assert_string_equal(r.early_kw, "raise");
}

static void test_bad_source(void **state)
{
	(void)state;
	struct py_live r;
	struct tp_err err = {0};
	const char *src = "@reg\ndef op(x):\n    s = 'open\n    lib.cutile_op(x)\n";
	assert_int_equal(py_live_call(src, strlen(src), "cutile_op", &r, &err), -1);
	assert_string_equal(err.msg, "3:9: unterminated string");
	/* unbalanced brackets and stray dedents never crash */
	const char *junk[] = {")))\n(((", "def\n", "@\n", "if :\n  else:\n", "lambda: :\n",
			      "x = [\n", "\tif a:\n\t\tb\n  c\n", "getattr(\n", "a.cutile_op\n("};
	for (size_t i = 0; i < TP_ARRAY_LEN(junk); i++)
		py_live_call(junk[i], strlen(junk[i]), "cutile_op", &r, &err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tokens),	   cmocka_unit_test(test_token_errors),
		cmocka_unit_test(test_str_equals), cmocka_unit_test(test_live_forms),
		cmocka_unit_test(test_dead_forms), cmocka_unit_test(test_early_exit),
		cmocka_unit_test(test_bad_source),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
