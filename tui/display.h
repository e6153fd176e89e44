/* The terminal: curses start and stop, the virtual screen used by tests
 * (TILEPORT_NO_DISPLAY=1: newterm on /dev/null, size from LINES and
 * COLUMNS, no /dev/tty needed), restoring the terminal on every way out
 * (normal exit, exit(), SIGINT/SIGTERM/SIGHUP through the loop, fatal
 * signals straight from the handler: restore, then re-raise), and
 * suspending curses around $EDITOR and $PAGER. */
#ifndef TILEPORT_TUI_DISPLAY_H
#define TILEPORT_TUI_DISPLAY_H

#include <stdbool.h>

#include "engine/base/util.h"

/* Start curses. Returns 0, or -1 with err set (no terminal, unknown TERM). */
int display_init(bool no_display, struct tp_err *err);
/* Stop curses and restore the terminal; safe to call more than once. */
void display_done(void);
bool display_active(void);
bool display_virtual(void);
/* The descriptor keys are read from (-1 on a virtual screen). */
int display_input_fd(void);

/* Give the terminal to another program and take it back. */
void display_suspend(void);
void display_resume(void);

/* Virtual screen only: change the size as a terminal resize would. */
int display_resize(int nlines, int ncols, struct tp_err *err);
/* Write what is on screen, one row per line, trailing blanks trimmed. */
int display_save(const char *path, struct tp_err *err);

/* Async-signal-safe terminal restore for the fatal-signal path. */
void display_restore_raw(void);
/* Install handlers for SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT that
 * restore the terminal and then let the signal take its course. */
void display_catch_fatal(void);
void display_uncatch_fatal(void);

#endif
