/* The Python-subset parser of engine/port: trees by precedence, statement
 * forms kernels and host code use, values of literals, exact node text,
 * and positioned errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "engine/port/py.h"

/* The module's tree as an S-expression, or "ERR <code> <message>". */
static char *dump(const char *src)
{
	struct py_module m;
	struct tp_err err = {0};
	char *out;
	if (py_parse(&m, "t.py", src, strlen(src), &err) == 0)
		out = py_dump(m.body);
	else
		out = xasprintf("ERR %d %s", err.code, err.msg);
	py_module_free(&m);
	return out;
}

static void expect(const char *src, const char *want)
{
	char *got = dump(src);
	assert_string_equal(got, want);
	free(got);
}

static void test_precedence(void **state)
{
	(void)state;
	expect("y = a + b * c ** -d",
	       "(block (assign (name y) (binop + (name a) (binop * (name b) (binop ** (name c) "
	       "(unary - (name d)))))))");
	/* ** binds right to left, unary minus looser than ** */
	expect("y = -a ** b ** c",
	       "(block (assign (name y) (unary - (binop ** (name a) (binop ** (name b) (name c))))))");
	expect("x = a < b <= c and not d or e",
	       "(block (assign (name x) (boolop or (boolop and (compare (name a) (cmpop <) (name b) "
	       "(cmpop <=) (name c)) (unary not (name d))) (name e))))");
	expect("x = a @ b - c // d % e",
	       "(block (assign (name x) (binop - (binop @ (name a) (name b)) (binop % (binop // "
	       "(name c) (name d)) (name e)))))");
	expect("x = a | b & c << 1",
	       "(block (assign (name x) (binop | (name a) (binop & (name b) (binop << (name c) "
	       "(num 1))))))");
}

static void test_subscripts_calls_comprehensions(void **state)
{
	(void)state;
	expect("v = t[:, None] if a else x[1:2:3, ...]",
	       "(block (assign (name v) (ifexp (sub (name t) (tuple (slice _ _ _) (const None))) "
	       "(name a) (sub (name x) (tuple (slice (num 1) (num 2) (num 3)) (const ...))))))");
	expect("f(a, *b, k=1, **kw)",
	       "(block (expr (call (name f) (name a) (star (name b)) (kw k (num 1)) "
	       "(dstar (name kw)))))");
	expect("z = [i * 2 for i in range(4) if i]",
	       "(block (assign (name z) (comp (binop * (name i) (num 2)) (compfor (name i) "
	       "(call (name range) (num 4)) (name i)))))");
	expect("a, b = c", "(block (assign (tuple (name a) (name b)) (name c)))");
	expect("x += 1", "(block (augassign + (name x) (num 1)))");
	expect("f = lambda x: x + 1",
	       "(block (assign (name f) (lambda (params (param x _ _)) (binop + (name x) (num 1)))))");
}

static void test_statements(void **state)
{
	(void)state;
	expect("@ct.kernel\ndef k(a: int, b=2, *, c: ct.Constant[int]):\n    return a\n",
	       "(block (def k (block (attr kernel (name ct))) (params (param a (name int) _) "
	       "(param b _ (num 2)) (param _ _) (param c (sub (attr Constant (name ct)) (name int)) "
	       "_)) _ (block (return (name a)))))");
	expect("for i in range(3):\n    pass\nelse:\n    x = 1\n",
	       "(block (for (name i) (call (name range) (num 3)) (block (pass)) "
	       "(block (assign (name x) (num 1)))))");
	/* elif is an if in the else block */
	expect("if a:\n    x = 1\nelif b:\n    x = 2\nelse:\n    x = 3\n",
	       "(block (if (name a) (block (assign (name x) (num 1))) (block (if (name b) "
	       "(block (assign (name x) (num 2))) (block (assign (name x) (num 3)))))))");
	/* comments, blank lines and bracket continuations are layout */
	expect("x = (a +  # why\n\n     b)\n", "(block (assign (name x) (binop + (name a) (name b))))");
}

static void test_literal_values_and_text(void **state)
{
	(void)state;
	const char *src = "s = 'a' \"b\\n\"\nn = -12\nf = 2.5e1\ny = foo( a,\n  b )  # c\n";
	struct py_module m;
	struct tp_err err = {0};
	assert_int_equal(py_parse(&m, "t.py", src, strlen(src), &err), 0);
	assert_int_equal(m.body->nkids, 4);
	char *v = py_str_value(&m, m.body->kids[0]->kids[1]);
	assert_string_equal(v, "ab\n");
	free(v);
	long long i = 0;
	assert_true(py_int_value(m.body->kids[1]->kids[1], &i));
	assert_int_equal(i, -12);
	double d = 0;
	assert_true(py_float_value(m.body->kids[2]->kids[1], &d));
	assert_true(d == 25.0);
	const struct py_node *call = m.body->kids[3]->kids[1];
	char *t = py_node_text(&m, call);
	assert_string_equal(t, "foo( a,\n  b )");
	free(t);
	assert_int_equal(py_call_nargs(call), 2);
	assert_true(py_is_name(py_call_arg(call, 1), "b"));
	assert_null(py_call_arg(call, 2));
	assert_int_equal(py_end_line(&m, call), 5);
	py_module_free(&m);
}

static void test_errors_have_positions(void **state)
{
	(void)state;
	expect("def f():\nreturn 1\n", "ERR 2 t.py:2:1: expected an indented block");
	expect("x = (1,", "ERR 2 t.py:1:8: expected an expression");
	expect("x = 1 +\n", "ERR 2 t.py:1:8: expected an expression");
	/* valid Python the parser does not read is a refusal, not bad input */
	expect("match x:\n    case 1:\n        pass\n", "ERR 1 t.py:1:1: unsupported: match statement");
	/* NUL bytes are input like any other */
	struct py_module m;
	struct tp_err err = {0};
	assert_int_equal(py_parse(&m, "t.py", "x = 1\0y", 7, &err), -1);
	assert_int_equal(err.code, TP_EXIT_USAGE);
	assert_non_null(strstr(err.msg, "t.py:1:"));
	py_module_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_subscripts_calls_comprehensions),
		cmocka_unit_test(test_statements),
		cmocka_unit_test(test_literal_values_and_text),
		cmocka_unit_test(test_errors_have_positions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
