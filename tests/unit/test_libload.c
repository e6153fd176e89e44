/* Libraries loaded on first use (engine/base/libload.h): libgit2 and
 * libcurl are not in the process until one of their functions is called,
 * the call then reaches the real library, and a library or symbol that
 * cannot be found is exit 3 with a message naming it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>
#include <git2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/base/libload.h"
#include "engine/base/util.h"

/* whether a file whose name contains NAME is mapped into this process */
static bool mapped(const char *name)
{
	FILE *f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	char line[4096];
	bool found = false;
	while (!found && fgets(line, sizeof line, f))
		found = strstr(line, name) != NULL;
	fclose(f);
	return found;
}

static void test_libgit2_is_loaded_by_its_first_call(void **state)
{
	(void)state;
	assert_false(mapped("/libgit2.so"));
	assert_true(git_libgit2_init() >= 1);
	assert_true(mapped("/libgit2.so"));
	int major = 0, minor = 0, rev = 0;
	assert_int_equal(git_libgit2_version(&major, &minor, &rev), 0);
	assert_int_equal(major, LIBGIT2_VER_MAJOR);
	assert_int_equal(minor, LIBGIT2_VER_MINOR);
	git_libgit2_shutdown();
}

static void test_libcurl_is_loaded_by_its_first_call(void **state)
{
	(void)state;
	assert_false(mapped("/libcurl.so"));
	struct curl_slist *l = curl_slist_append(NULL, "X-A: 1");
	assert_true(mapped("/libcurl.so"));
	assert_non_null(l);
	assert_string_equal(l->data, "X-A: 1");
	curl_slist_free_all(l);
	/* the variadic ones pass their argument through by type */
	CURL *c = curl_easy_init();
	assert_non_null(c);
	assert_int_equal(curl_easy_setopt(c, CURLOPT_TIMEOUT, 5L), CURLE_OK);
	assert_int_equal(curl_easy_setopt(c, CURLOPT_URL, "http://127.0.0.1:9/"), CURLE_OK);
	assert_int_equal(curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)3), CURLE_OK);
	long code = -1;
	assert_int_equal(curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code), CURLE_OK);
	assert_int_equal(code, 0);
	assert_string_equal(curl_easy_strerror(CURLE_OK), "No error");
	curl_easy_cleanup(c);
}

static void test_symbol_of_a_loaded_library(void **state)
{
	(void)state;
	struct lib_lazy m = {"libm", "/nonexistent", "libm.so.6", NULL};
	assert_false(lib_lazy_loaded(&m));
	double (*c)(double) = (double (*)(double))lib_lazy_sym(&m, "cos");
	assert_true(lib_lazy_loaded(&m));
	assert_true(c(0.0) == 1.0);
}

/* runs lib_lazy_sym(LIB, SYM) in a child; returns its exit status, its
 * stderr in ERR */
static int sym_in_child(struct lib_lazy *lib, const char *sym, char *err, size_t n)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(p[1], 2);
		close(p[0]);
		lib_lazy_sym(lib, sym);
		_exit(99);
	}
	close(p[1]);
	size_t got = 0;
	ssize_t r;
	while (got + 1 < n && (r = read(p[0], err + got, n - 1 - got)) > 0)
		got += (size_t)r;
	err[got] = '\0';
	close(p[0]);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void test_missing_library_is_exit_3_naming_it(void **state)
{
	(void)state;
	struct lib_lazy lib = {"libnothere", "/nonexistent/lib", "libtileport-nothere.so.9", NULL};
	char err[4096];
	assert_int_equal(sym_in_child(&lib, "f", err, sizeof err), TP_EXIT_ENV);
	assert_non_null(strstr(err, "tileport: cannot load libnothere (libtileport-nothere.so.9)"));
	assert_non_null(strstr(err, "built against /nonexistent/lib/libtileport-nothere.so.9"));
	assert_non_null(strstr(err, "make deps"));
}

static void test_missing_symbol_is_exit_3_naming_it(void **state)
{
	(void)state;
	struct lib_lazy lib = {"libm", "/nonexistent", "libm.so.6", NULL};
	char err[4096];
	assert_int_equal(sym_in_child(&lib, "tileport_no_such_function", err, sizeof err), TP_EXIT_ENV);
	assert_non_null(strstr(err, "cannot load libm (tileport_no_such_function)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libgit2_is_loaded_by_its_first_call),
		cmocka_unit_test(test_libcurl_is_loaded_by_its_first_call),
		cmocka_unit_test(test_symbol_of_a_loaded_library),
		cmocka_unit_test(test_missing_library_is_exit_3_naming_it),
		cmocka_unit_test(test_missing_symbol_is_exit_3_naming_it),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
