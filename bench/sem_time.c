/* Times the semantic check (engine/sem) in process, for bench/sem.sh: for
 * each pair SOURCE.py KERNEL.rs [FFI.rs] given as three arguments (FFI "-"
 * for none), the median and the minimum over RUNS checks, and the same for
 * reading the two files alone (the Python parsed into its module, the
 * Rust into its tree: the floor any check of the pair pays), with the
 * ratio between them.
 *   sem_time RUNS PY RS FFI [PY RS FFI ...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
		const char *name = strrchr(argv[a + 1], '/');
		name = name ? name + 1 : argv[a + 1];
		printf("%-28s check median %6.2f ms  min %6.2f ms   read median %5.2f ms   ratio %4.1fx   "
		       "(%d critical, %d warn, %d note)\n",
		       name, t[runs / 2] / 1e3, t[0] / 1e3, u[runs / 2] / 1e3, t[runs / 2] / u[runs / 2], crit, warn,
		       note);
		free(py);
		free(rs);
		free(ffi);
	}
	free(t);
	free(u);
	return 0;
}
