/* Helpers shared by the unit tests. */
#ifndef TILEPORT_TESTS_TESTUTIL_H
#define TILEPORT_TESTS_TESTUTIL_H

/* A fresh private directory under $TMPDIR; caller frees (and may remove). */
char *tu_tmpdir(void);
/* Write `text` to dir/name (creating parents); returns the path (caller frees). */
char *tu_write(const char *dir, const char *name, const char *text);
/* cmocka setup and teardown: *state is a fresh tu_tmpdir(), removed after;
 * an alarm of `TU_ALARM_S` seconds ends a test that hangs (a reader blocked
 * on a FIFO, an escapee never reaped) instead of the whole suite. */
#define TU_ALARM_S 120
int tu_dir_setup(void **state);
int tu_dir_teardown(void **state);
#define TU_DIR_TEST(fn) cmocka_unit_test_setup_teardown(fn, tu_dir_setup, tu_dir_teardown)

#endif
