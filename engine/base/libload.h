/* Libraries loaded on first use. libgit2 and libcurl pull in some forty
 * shared objects (TLS, Kerberos, LDAP, SSH) whose relocations and
 * constructors cost several milliseconds at every start; most commands
 * never call them. tileport is therefore not linked against them: the
 * functions it calls are defined in libgit2_lazy.c and libcurl_lazy.c with
 * the libraries' own prototypes (from their headers, so the compiler checks
 * every one), and each forwards to the real function, looked up here on its
 * first call (docs/architecture.md, "Libraries loaded on first use"). */
#ifndef TILEPORT_BASE_LIBLOAD_H
#define TILEPORT_BASE_LIBLOAD_H

#include <stdbool.h>

/* One library: which, where pkg-config found it at build time, its soname
 * (what the linker would have recorded), and the handle once loaded. */
struct lib_lazy {
	const char *name;   /* for people: "libgit2" */
	const char *libdir; /* pkg-config --variable=libdir */
	const char *soname; /* libgit2.so.1.5 */
	void *handle;
};

/* The address of SYM in LIB, loading LIB first if it is not yet. A library
 * that cannot be loaded, or lacks SYM, is an environment error: a message
 * naming the library, the file and why on stderr, and exit 3. */
void *lib_lazy_sym(struct lib_lazy *lib, const char *sym);

/* Whether LIB has been loaded in this process (for the tests). */
bool lib_lazy_loaded(const struct lib_lazy *lib);

#endif
