#include "tui/display.h"

#include <curses.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <term.h>
#include <termios.h>
#include <unistd.h>
#include <wchar.h>

#include "engine/base/files.h"

static SCREEN *screen;
static FILE *null_out, *null_in;
static bool active, is_virtual, suspended;
static int out_fd = -1, in_fd = -1;

/* What the fatal-signal handler writes: prepared while it is still safe
 * to call terminfo, used when only write() and tcsetattr() are. */
static struct termios saved_tio;
static bool have_tio;
static char restore_seq[256];
static size_t restore_len;

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
static struct sigaction fatal_old[TP_ARRAY_LEN(fatal_signals)];
static bool fatal_caught;

static void add_cap(const char *cap)
{
	char *s = tigetstr((char *)cap);
	if (!s || s == (char *)-1)
		return;
	size_t n = strlen(s);
	if (restore_len + n < sizeof(restore_seq)) {
		memcpy(restore_seq + restore_len, s, n);
		restore_len += n;
	}
}

static void atexit_restore(void)
{
	display_done();
}

static const char *virtual_term(void)
{
	/* Honour TERM when it knows cursor addressing, so tests can pick the
	 * colour depth; anything else gets a fixed, common type. */
	static const char *const fallbacks[] = {"xterm-256color", "xterm", "vt100"};
	const char *t = getenv("TERM");
	int e;
	if (t && *t && setupterm((char *)t, -1, &e) == OK) {
		char *cup = tigetstr("cup");
		del_curterm(cur_term);
		if (cup && cup != (char *)-1)
			return t;
	}
	for (size_t i = 0; i < TP_ARRAY_LEN(fallbacks); i++) {
		if (setupterm((char *)fallbacks[i], -1, &e) == OK) {
			del_curterm(cur_term);
			return fallbacks[i];
		}
	}
	return "vt100";
}

int display_init(bool no_display, struct tp_err *err)
{
	if (active)
		return 0;
	is_virtual = no_display;
	if (no_display) {
		/* ncurses takes the size from LINES/COLUMNS when the output is
		 * not a terminal; give it the classic size when they are unset. */
		if (!getenv("LINES") || !*getenv("LINES"))
			setenv("LINES", "24", 1);
		if (!getenv("COLUMNS") || !*getenv("COLUMNS"))
			setenv("COLUMNS", "80", 1);
		null_out = fopen("/dev/null", "w");
		null_in = fopen("/dev/null", "r");
		if (!null_out || !null_in) {
			tp_err_set(err, TP_EXIT_ENV, "cannot open /dev/null: %s", strerror(errno));
			return -1;
		}
		use_env(TRUE);
		screen = newterm((char *)virtual_term(), null_out, null_in);
	} else {
		if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
			tp_err_set(err, TP_EXIT_ENV, "the screen needs a terminal on stdin and stdout");
			return -1;
		}
		if (tcgetattr(STDIN_FILENO, &saved_tio) == 0)
			have_tio = true;
		out_fd = STDOUT_FILENO;
		in_fd = STDIN_FILENO;
		screen = newterm(NULL, stdout, stdin);
	}
	if (!screen) {
		tp_err_set(err, TP_EXIT_ENV, "cannot start the screen for TERM='%s'",
			   getenv("TERM") ? getenv("TERM") : "");
		if (null_out)
			fclose(null_out), null_out = NULL;
		if (null_in)
			fclose(null_in), null_in = NULL;
		return -1;
	}
	set_term(screen);
	restore_len = 0;
	if (!no_display) {
		add_cap("sgr0");
		add_cap("cnorm");
		add_cap("rmkx");
		add_cap("rmcup");
	}
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	set_escdelay(40);
	curs_set(0);
	active = true;
	static bool atexit_done;
	if (!atexit_done) {
		atexit(atexit_restore);
		atexit_done = true;
	}
	display_catch_fatal();
	return 0;
}

void display_done(void)
{
	if (!active)
		return;
	active = false;
	display_uncatch_fatal();
	curs_set(1);
	endwin();
	delscreen(screen);
	screen = NULL;
	if (null_out)
		fclose(null_out), null_out = NULL;
	if (null_in)
		fclose(null_in), null_in = NULL;
	if (have_tio)
		tcsetattr(STDIN_FILENO, TCSADRAIN, &saved_tio);
	have_tio = false;
	out_fd = in_fd = -1;
	suspended = false;
}

bool display_active(void)
{
	return active;
}

bool display_virtual(void)
{
	return is_virtual;
}

int display_input_fd(void)
{
	return active && !is_virtual ? in_fd : -1;
}

void display_suspend(void)
{
	if (!active || is_virtual || suspended)
		return;
	def_prog_mode();
	endwin();
	suspended = true;
}

void display_resume(void)
{
	if (!active || is_virtual || !suspended)
		return;
	reset_prog_mode();
	suspended = false;
	/* Whatever the other program left on the terminal must go. */
	clearok(curscr, TRUE);
}

int display_resize(int nlines, int ncols, struct tp_err *err)
{
	if (!active) {
		tp_err_set(err, TP_EXIT_USAGE, "no screen");
		return -1;
	}
	if (nlines < 2 || ncols < 10 || nlines > 1000 || ncols > 1000) {
		tp_err_set(err, TP_EXIT_USAGE, "size %dx%d out of range (10x2 to 1000x1000)", ncols, nlines);
		return -1;
	}
	if (!is_virtual) {
		tp_err_set(err, TP_EXIT_USAGE, "resize works only on the virtual screen "
			   "(TILEPORT_NO_DISPLAY=1); resize the terminal instead");
		return -1;
	}
	if (resize_term(nlines, ncols) != OK) {
		tp_err_set(err, TP_EXIT_FAILED, "resize to %dx%d failed", ncols, nlines);
		return -1;
	}
	return 0;
}

int display_save(const char *path, struct tp_err *err)
{
	if (!active) {
		tp_err_set(err, TP_EXIT_USAGE, "no screen");
		return -1;
	}
	struct sbuf out = SBUF_INIT;
	int rows = LINES, cols = COLS;
	wchar_t *w = xcalloc((size_t)cols + 1, sizeof(*w));
	int cy, cx;
	getyx(curscr, cy, cx);
	for (int y = 0; y < rows; y++) {
		/* mvwinnwstr skips the second cell of wide characters. */
		int n = mvwinnwstr(curscr, y, 0, w, cols);
		if (n == ERR)
			n = 0;
		w[n] = 0;
		size_t start = out.len;
		for (int i = 0; i < n; i++) {
			char mb[MB_LEN_MAX];
			mbstate_t st;
			memset(&st, 0, sizeof(st));
			size_t k = wcrtomb(mb, w[i], &st);
			if (k == (size_t)-1)
				sb_addc(&out, '?');
			else
				sb_add(&out, mb, k);
		}
		while (out.len > start && out.buf[out.len - 1] == ' ')
			out.len--;
		sb_addc(&out, '\n');
	}
	wmove(curscr, cy, cx);
	free(w);
	int rc = write_output(path, out.buf, out.len, err);
	sb_free(&out);
	return rc;
}

void display_restore_raw(void)
{
	if (!active || is_virtual)
		return;
	if (restore_len && out_fd >= 0) {
		ssize_t r = write(out_fd, restore_seq, restore_len);
		(void)r;
	}
	if (have_tio)
		tcsetattr(in_fd, TCSANOW, &saved_tio);
}

static void fatal_handler(int signo, siginfo_t *info, void *ctx)
{
	(void)ctx;
	display_restore_raw();
	active = false;
	/* Hand the signal to whoever had it before (the default action, or a
	 * sanitizer's report): a fault re-faults when we return; a sent
	 * signal is sent again. */
	for (size_t i = 0; i < TP_ARRAY_LEN(fatal_signals); i++)
		if (fatal_signals[i] == signo)
			sigaction(signo, &fatal_old[i], NULL);
	if (!info || info->si_code <= 0)
		raise(signo);
}

void display_catch_fatal(void)
{
	if (fatal_caught)
		return;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fatal_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < TP_ARRAY_LEN(fatal_signals); i++)
		sigaction(fatal_signals[i], &sa, &fatal_old[i]);
	fatal_caught = true;
}

void display_uncatch_fatal(void)
{
	if (!fatal_caught)
		return;
	for (size_t i = 0; i < TP_ARRAY_LEN(fatal_signals); i++)
		sigaction(fatal_signals[i], &fatal_old[i], NULL);
	fatal_caught = false;
}
