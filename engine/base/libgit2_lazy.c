/* libgit2 loaded on first use (libload.h says why): every function of
 * libgit2.def defined here and forwarded to the library. Including git2.h
 * first makes each definition a redeclaration that the compiler checks
 * against libgit2's own prototype. */
#include <git2.h>
#include <git2/sys/mempack.h>

#include "engine/base/libload.h"

#if !defined(TP_LIBGIT2_SONAME) || !defined(TP_LIBGIT2_LIBDIR)
#error "the Makefile defines TP_LIBGIT2_SONAME and TP_LIBGIT2_LIBDIR (from pkg-config)"
#endif
_Static_assert(sizeof(TP_LIBGIT2_SONAME) > 1, "no soname: the Makefile reads it with readelf (binutils)");

static struct lib_lazy libgit2 = {"libgit2", TP_LIBGIT2_LIBDIR, TP_LIBGIT2_SONAME, NULL};

/* the real function, looked up once */
#define REAL(ret, name, params)                                                                    \
	static ret(*real) params;                                                                  \
	if (!real)                                                                                 \
		real = (ret(*) params)lib_lazy_sym(&libgit2, #name);

#define FN(ret, name, params, args)                                                                \
	ret name params                                                                            \
	{                                                                                          \
		REAL(ret, name, params)                                                            \
		return real args;                                                                  \
	}
#define VFN(ret, name, params, args)                                                               \
	ret name params                                                                            \
	{                                                                                          \
		REAL(ret, name, params)                                                            \
		real args;                                                                         \
	}
#include "engine/base/libgit2.def"
#undef FN
#undef VFN
#undef REAL
