#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "engine/base/loop.h"
#include "engine/base/util.h"

static char order[16];
static size_t norder;

static void mark(struct loop *l, void *data)
{
	(void)l;
	order[norder++] = *(const char *)data;
}

static void test_timers_fire_in_due_order(void **state)
{
	(void)state;
	struct loop *l = loop_new();
	norder = 0;
	static const char a = 'a', b = 'b', c = 'c';
	loop_add_timer(l, 30, mark, (void *)&c);
	loop_add_timer(l, 0, mark, (void *)&a);
	uint64_t cancelled = loop_add_timer(l, 10, mark, (void *)&b);
	loop_cancel_timer(l, cancelled);
	while (norder < 2)
		assert_true(loop_run_once(l, -1) >= 0);
	assert_memory_equal(order, "ac", 2);
	assert_int_equal(loop_next_timer_ms(l), -1);
	loop_free(l);
}

struct reader {
	char buf[64];
	size_t len;
	bool eof;
};

static void on_read(struct loop *l, int fd, short rev, void *data)
{
	struct reader *r = data;
	(void)rev;
	ssize_t n = read(fd, r->buf + r->len, sizeof(r->buf) - r->len - 1);
	if (n <= 0) {
		r->eof = true;
		loop_remove_fd(l, fd);
		loop_stop(l);
		return;
	}
	r->len += (size_t)n;
}

static void write_later(struct loop *l, void *data)
{
	(void)l;
	int fd = *(int *)data;
	assert_int_equal(write(fd, "hello", 5), 5);
	close(fd);
}

static void test_fd_readiness_and_stop(void **state)
{
	(void)state;
	struct loop *l = loop_new();
	int p[2];
	assert_int_equal(pipe(p), 0);
	struct reader r = {0};
	assert_int_equal(loop_add_fd(l, p[0], POLLIN, on_read, &r), 0);
	assert_int_equal(loop_add_fd(l, p[0], POLLIN, on_read, &r), -1);
	loop_add_timer(l, 5, write_later, &p[1]);
	loop_run(l);
	assert_true(r.eof);
	r.buf[r.len] = '\0';
	assert_string_equal(r.buf, "hello");
	close(p[0]);
	loop_free(l);
}

static int got_signo;
static void on_sig(struct loop *l, int signo, void *data)
{
	(void)data;
	got_signo = signo;
	loop_stop(l);
}

static void test_signal_delivered_as_callback(void **state)
{
	(void)state;
	struct loop *l = loop_new();
	assert_int_equal(loop_on_signal(l, SIGUSR1, on_sig, NULL), 0);
	raise(SIGUSR1);
	loop_run(l);
	assert_int_equal(got_signo, SIGUSR1);
	loop_free(l);
}

struct reuse {
	int a[2], c[2], b[2];
	int stale_calls;
};

static void on_new(struct loop *l, int fd, short rev, void *data)
{
	(void)l, (void)fd, (void)rev;
	((struct reuse *)data)->stale_calls++;
}

static void on_c(struct loop *l, int fd, short rev, void *data)
{
	(void)l, (void)fd, (void)rev, (void)data;
	fail_msg("the closed watch was dispatched");
}

/* Polled first: closes the second watched pipe (which is ready too) and
 * registers a new pipe under the same fd number. The old fd's readiness
 * from this pass must not reach the new watch. */
static void on_a(struct loop *l, int fd, short rev, void *data)
{
	struct reuse *r = data;
	(void)fd, (void)rev;
	int num = r->c[0];
	loop_remove_fd(l, r->c[0]);
	close(r->c[0]);
	close(r->c[1]);
	assert_int_equal(pipe(r->b), 0);
	assert_int_equal(r->b[0], num);
	loop_add_fd(l, r->b[0], POLLIN, on_new, r);
	loop_remove_fd(l, r->a[0]);
}

static void test_reused_fd_number_is_a_new_watch(void **state)
{
	(void)state;
	struct loop *l = loop_new();
	struct reuse r = {0};
	assert_int_equal(pipe(r.a), 0);
	assert_int_equal(pipe(r.c), 0);
	assert_int_equal(write(r.a[1], "x", 1), 1);
	assert_int_equal(write(r.c[1], "y", 1), 1);
	loop_add_fd(l, r.a[0], POLLIN, on_a, &r);
	loop_add_fd(l, r.c[0], POLLIN, on_c, &r);
	assert_true(loop_run_once(l, 0) >= 1);
	assert_int_equal(r.stale_calls, 0);
	loop_remove_fd(l, r.b[0]);
	close(r.a[0]);
	close(r.a[1]);
	close(r.b[0]);
	close(r.b[1]);
	loop_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timers_fire_in_due_order),
		cmocka_unit_test(test_fd_readiness_and_stop),
		cmocka_unit_test(test_signal_delivered_as_callback),
		cmocka_unit_test(test_reused_fd_number_is_a_new_watch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
