/* Times the semantic check (engine/sem) in process, for bench/sem.sh: for
 * each pair SOURCE.py KERNEL.rs [FFI.rs] given as three arguments (FFI "-"
 * for none), the median and the minimum over RUNS checks, and the same for
 * reading the two files alone (the Python parsed into its module, the
 * Rust into its tree: the floor any check of the pair pays), with the
 * ratio between them. With TILEPORT set, also the median of the whole
 * process `$TILEPORT equiv PY RS [--ffi FFI]` (start, read, check, print),
 * as stage B and the source view run it.
 *   sem_time RUNS PY RS FFI [PY RS FFI ...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <spawn.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine/base/files.h"
#include "engine/port/pymod.h"
#include "engine/sem/sem.h"
#include "engine/sem/sem_rs.h"

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

extern char **environ;

/* One run of the command, its output to /dev/null; its wall time in us. */
static double spawn_us(char *const argv[])
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	double t0 = now_us();
	pid_t pid;
	if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ)) {
		perror(argv[0]);
		exit(3);
	}
	int st;
	waitpid(pid, &st, 0);
	double t = now_us() - t0;
	posix_spawn_file_actions_destroy(&fa);
	if (!WIFEXITED(st) || WEXITSTATUS(st) > 1) {
		fprintf(stderr, "%s %s exited %d\n", argv[0], argv[1], WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		exit(1);
	}
	return t;
}

static char *slurp(const char *p, size_t *n)
{
	struct tp_err err = {0};
	char *t = read_file(p, n, &err);
	if (!t) {
		fprintf(stderr, "%s\n", err.msg);
		exit(2);
	}
	return t;
}

int main(int argc, char **argv)
{
	if (argc < 5 || (argc - 2) % 3) {
		fprintf(stderr, "usage: sem_time RUNS PY RS FFI [PY RS FFI ...]\n");
		return 2;
	}
	int runs = atoi(argv[1]);
	const char *exe = getenv("TILEPORT");
	if (exe && *exe) {
		/* the comparison for the whole processes below */
		char *ver[] = {(char *)exe, "--version", NULL};
		double w[50];
		for (int i = 0; i < 50; i++)
			w[i] = spawn_us(ver);
		qsort(w, 50, sizeof(double), cmp_d);
		printf("%-34s process median %6.2f ms\n", "process start (tileport --version)", w[25] / 1e3);
	}
	double *t = malloc(sizeof(double) * (size_t)runs), *u = malloc(sizeof(double) * (size_t)runs);
	for (int a = 2; a + 2 < argc; a += 3) {
		size_t pl, rl, fl = 0;
		char *py = slurp(argv[a], &pl), *rs = slurp(argv[a + 1], &rl);
		char *ffi = strcmp(argv[a + 2], "-") ? slurp(argv[a + 2], &fl) : NULL;
		struct sem_input in = {argv[a], py, pl, argv[a + 1], rs, rl, ffi, fl};
		int crit = 0, warn = 0, note = 0;
		for (int i = 0; i < runs; i++) {
			double t0 = now_us();
			struct sem_report r;
			struct tp_err err = {0};
			if (sem_check(&in, &r, &err) < 0) {
				fprintf(stderr, "%s\n", err.msg);
				return 1;
			}
			t[i] = now_us() - t0;
			crit = r.ncritical, warn = r.nwarn, note = r.nnote;
			sem_report_free(&r);
			t0 = now_us();
			struct pymod m;
			struct rfile f;
			pymod_parse(&m, argv[a], py, pl, &err);
			rs_parse(&f, rs, rl);
			u[i] = now_us() - t0;
			pymod_free(&m);
			rs_file_free(&f);
		}
		qsort(t, (size_t)runs, sizeof(double), cmp_d);
		qsort(u, (size_t)runs, sizeof(double), cmp_d);
		double proc = 0;
		if (exe && *exe) {
			char *cmd[] = {(char *)exe, "equiv", argv[a], argv[a + 1], ffi ? "--ffi" : "--no-ffi",
				       ffi ? argv[a + 2] : NULL, NULL};
			int pr = runs < 50 ? runs : 50;
			double *w = malloc(sizeof(double) * (size_t)pr);
			for (int i = 0; i < pr; i++)
				w[i] = spawn_us(cmd);
			qsort(w, (size_t)pr, sizeof(double), cmp_d);
			proc = w[pr / 2];
			free(w);
		}
		/* the file and its folder: tilegym/matmul.kernel.rs, golden/matmul.kernel.rs */
		const char *name = argv[a + 1];
		for (const char *q = name, *prev = NULL; *q; q++)
			if (*q == '/') {
				if (prev)
					name = prev + 1;
				prev = q;
			}
		printf("%-34s check median %6.2f ms  min %6.2f ms   read median %5.2f ms   ratio %4.1fx   "
		       "(%d critical, %d warn, %d note)",
		       name, t[runs / 2] / 1e3, t[0] / 1e3, u[runs / 2] / 1e3, t[runs / 2] / u[runs / 2], crit, warn,
		       note);
		if (proc > 0)
			printf("   process median %6.2f ms", proc / 1e3);
		printf("\n");
		free(py);
		free(rs);
		free(ffi);
	}
	free(t);
	free(u);
	return 0;
}
