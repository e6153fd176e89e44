/* What `tileport compile` needs on this machine: cargo >= 1.89, the CUDA
 * headers cuda-bindings runs bindgen on (cuda.h and curand.h), and the
 * libclang bindgen loads. Each missing piece is named with where it comes
 * from (docs/compile.md, "The toolchain"). */
#include "engine/compile/compile.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/proc.h"

void compile_toolchain_free(struct compile_toolchain *tc)
{
	free(tc->cargo);
	free(tc->cargo_version);
	free(tc->cuda_include);
	free(tc->curand_include);
	free(tc->libclang);
	strv_free(tc->missing);
	memset(tc, 0, sizeof(*tc));
}

static void missing(struct compile_toolchain *tc, const char *fmt, ...) TP_PRINTF(2, 3);
static void missing(struct compile_toolchain *tc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvasprintf(fmt, ap);
	va_end(ap);
	tc->missing = strv_take(tc->missing, s);
}

/* "1.95.0" >= "1.89"? */
static bool version_at_least(const char *have, const char *want)
{
	unsigned a[3] = {0}, b[3] = {0};
	sscanf(have, "%u.%u.%u", &a[0], &a[1], &a[2]);
	sscanf(want, "%u.%u.%u", &b[0], &b[1], &b[2]);
	for (int i = 0; i < 3; i++)
		if (a[i] != b[i])
			return a[i] > b[i];
	return true;
}

static char *find_cargo(void)
{
	char *c = which("cargo");
	if (c)
		return c;
	/* rustup's default place, not always on a non-login shell's PATH */
	const char *home = getenv("HOME");
	if (home) {
		char *p = xasprintf("%s/.cargo/bin/cargo", home);
		if (path_is_exec(p))
			return p;
		free(p);
	}
	return NULL;
}

/* The -I folders of BINDGEN_EXTRA_CLANG_ARGS that hold FILE. */
static char *extra_include_with(const char *file)
{
	const char *args = getenv("BINDGEN_EXTRA_CLANG_ARGS");
	if (!args)
		return NULL;
	size_t n;
	char **v = str_split(args, ' ', false, &n);
	char *found = NULL;
	for (size_t i = 0; i < n && !found; i++) {
		const char *d = NULL;
		if (str_starts(v[i], "-I") && v[i][2])
			d = v[i] + 2;
		else if (!strcmp(v[i], "-I") && i + 1 < n)
			d = v[++i];
		if (!d)
			continue;
		char *p = path_join(d, file);
		if (path_is_file(p))
			found = xstrdup(d);
		free(p);
	}
	strv_free(v);
	return found;
}

/* libclang as clang-sys looks for it: LIBCLANG_PATH, then the usual
 * folders of Debian's llvm packages. */
static char *find_libclang(void)
{
	const char *env = getenv("LIBCLANG_PATH");
	const char *dirs[] = {env, "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64",
			      "/usr/lib", "/usr/local/lib"};
	for (size_t i = 0; i < TP_ARRAY_LEN(dirs); i++) {
		if (!dirs[i] || !*dirs[i])
			continue;
		DIR *d = opendir(dirs[i]);
		if (!d)
			continue;
		struct dirent *e;
		char *found = NULL;
		while (!found && (e = readdir(d)))
			if (str_starts(e->d_name, "libclang.so") || str_starts(e->d_name, "libclang-"))
				if (strstr(e->d_name, ".so") && !strstr(e->d_name, "cpp"))
					found = path_join(dirs[i], e->d_name);
		closedir(d);
		if (found)
			return found;
	}
	/* /usr/lib/llvm-N/lib */
	DIR *d = opendir("/usr/lib");
	char *found = NULL;
	struct dirent *e;
	while (d && !found && (e = readdir(d))) {
		if (!str_starts(e->d_name, "llvm-"))
			continue;
		char *p = xasprintf("/usr/lib/%s/lib/libclang.so.1", e->d_name);
		if (path_is_file(p))
			found = p;
		else
			free(p);
	}
	if (d)
		closedir(d);
	return found;
}

bool compile_toolchain_find(struct compile_toolchain *tc)
{
	memset(tc, 0, sizeof(*tc));
	tc->cargo = find_cargo();
	if (!tc->cargo) {
		missing(tc, "cargo >= %s: not found (install Rust with rustup, https://rustup.rs, or "
			    "Debian's cargo where it is new enough)",
			COMPILE_MIN_CARGO);
	} else {
		char *argv[] = {tc->cargo, "--version", NULL};
		char *line = proc_first_line(argv, 20000);
		/* "cargo 1.95.0 (f2d3ce0bd 2026-03-21)" */
		if (line && str_starts(line, "cargo ")) {
			size_t n = strcspn(line + 6, " ");
			tc->cargo_version = xstrndup(line + 6, n);
		}
		free(line);
		if (!tc->cargo_version)
			missing(tc, "cargo >= %s: %s --version gave no version", COMPILE_MIN_CARGO, tc->cargo);
		else if (!version_at_least(tc->cargo_version, COMPILE_MIN_CARGO))
			missing(tc, "cargo >= %s: %s is %s (rustup update)", COMPILE_MIN_CARGO, tc->cargo,
				tc->cargo_version);
	}
	const char *cuda = getenv("CUDA_TOOLKIT_PATH");
	if (!cuda || !*cuda)
		cuda = "/usr/local/cuda";
	char *inc = path_join(cuda, "include");
	char *h = path_join(inc, "cuda.h");
	if (path_is_file(h)) {
		tc->cuda_include = xstrdup(inc);
	} else {
		missing(tc, "the CUDA headers: no %s (cuda-bindings runs bindgen on it; install the CUDA "
			    "toolkit from NVIDIA, package cuda-cudart-dev, or set CUDA_TOOLKIT_PATH)",
			h);
	}
	free(h);
	h = path_join(inc, "curand.h");
	if (path_is_file(h))
		tc->curand_include = xstrdup(inc);
	else if (!(tc->curand_include = extra_include_with("curand.h")))
		missing(tc, "curand.h: not in %s nor on BINDGEN_EXTRA_CLANG_ARGS (NVIDIA's package "
			    "cuda-curand-dev, or the headers of the nvidia-curand wheel from PyPI with "
			    "BINDGEN_EXTRA_CLANG_ARGS=-I<its include folder>)",
			inc);
	free(h);
	free(inc);
	tc->libclang = find_libclang();
	if (!tc->libclang)
		missing(tc, "libclang: not found (Debian's libclang1-14 or newer, or set LIBCLANG_PATH): "
			    "bindgen loads it");
	return tc->missing == NULL;
}
