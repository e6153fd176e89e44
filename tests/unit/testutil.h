/* Helpers shared by the unit tests. */
#ifndef TILEPORT_TESTS_TESTUTIL_H
#define TILEPORT_TESTS_TESTUTIL_H

/* A fresh private directory under $TMPDIR; caller frees (and may remove). */
char *tu_tmpdir(void);
/* Write `text` to dir/name (creating parents); returns the path (caller frees). */
char *tu_write(const char *dir, const char *name, const char *text);

#endif
