#include "engine/base/libload.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine/base/util.h"

TP_NORETURN static void give_up(const struct lib_lazy *lib, const char *what, const char *why)
{
	fflush(stdout);
	fprintf(stderr,
		"tileport: cannot load %s (%s): %s\n"
		"tileport: tileport was built against %s/%s; install that library "
		"('make deps' lists the packages)\n",
		lib->name, what, why ? why : "unknown error", lib->libdir, lib->soname);
	exit(TP_EXIT_ENV);
}

static void *open_lib(const struct lib_lazy *lib)
{
	/* the file pkg-config pointed the build at first, as an rpath would;
	 * then the soname through the loader's own search, as plain linking */
	char path[4096];
	void *h = NULL;
	if (snprintf(path, sizeof path, "%s/%s", lib->libdir, lib->soname) < (int)sizeof path)
		h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
	if (!h)
		h = dlopen(lib->soname, RTLD_LAZY | RTLD_LOCAL);
	if (!h)
		give_up(lib, lib->soname, dlerror());
	return h;
}

void *lib_lazy_sym(struct lib_lazy *lib, const char *sym)
{
	if (!lib->handle)
		lib->handle = open_lib(lib);
	dlerror();
	void *p = dlsym(lib->handle, sym);
	if (!p)
		give_up(lib, sym, dlerror());
	return p;
}

bool lib_lazy_loaded(const struct lib_lazy *lib)
{
	return lib->handle != NULL;
}
