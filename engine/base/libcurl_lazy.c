/* libcurl loaded on first use (libload.h says why): the functions tileport
 * calls, each with curl.h's prototype and forwarded to the library. The
 * two variadic ones take their one argument by the type its option or info
 * number says (curl.h's CURLOPTTYPE_* and CURLINFO_* ranges). */
#define CURL_DISABLE_TYPECHECK /* curl.h's checking macros would rename these definitions */
#include <curl/curl.h>
#include <stdarg.h>

#include "engine/base/libload.h"

#if !defined(TP_LIBCURL_SONAME) || !defined(TP_LIBCURL_LIBDIR)
#error "the Makefile defines TP_LIBCURL_SONAME and TP_LIBCURL_LIBDIR (from pkg-config)"
#endif
_Static_assert(sizeof(TP_LIBCURL_SONAME) > 1, "no soname: the Makefile reads it with readelf (binutils)");

static struct lib_lazy libcurl = {"libcurl", TP_LIBCURL_LIBDIR, TP_LIBCURL_SONAME, NULL};

#define REAL(ret, name, params)                                                                    \
	static ret(*real) params;                                                                  \
	if (!real)                                                                                 \
		real = (ret(*) params)lib_lazy_sym(&libcurl, #name);

CURLcode curl_global_init(long flags)
{
	REAL(CURLcode, curl_global_init, (long))
	return real(flags);
}

CURL *curl_easy_init(void)
{
	REAL(CURL *, curl_easy_init, (void))
	return real();
}

CURLcode curl_easy_setopt(CURL *curl, CURLoption option, ...)
{
	REAL(CURLcode, curl_easy_setopt, (CURL *, CURLoption, ...))
	va_list ap;
	va_start(ap, option);
	CURLcode rc;
	switch ((int)option / 10000 * 10000) {
	case CURLOPTTYPE_LONG:
		rc = real(curl, option, va_arg(ap, long));
		break;
	case CURLOPTTYPE_OFF_T:
		rc = real(curl, option, va_arg(ap, curl_off_t));
		break;
	case CURLOPTTYPE_FUNCTIONPOINT:
		rc = real(curl, option, va_arg(ap, void (*)(void)));
		break;
	default: /* object, string, list and blob pointers */
		rc = real(curl, option, va_arg(ap, void *));
		break;
	}
	va_end(ap);
	return rc;
}

CURLcode curl_easy_getinfo(CURL *curl, CURLINFO info, ...)
{
	REAL(CURLcode, curl_easy_getinfo, (CURL *, CURLINFO, ...))
	va_list ap;
	va_start(ap, info);
	void *out = va_arg(ap, void *); /* every CURLINFO_* takes a pointer to its result */
	va_end(ap);
	return real(curl, info, out);
}

CURLcode curl_easy_perform(CURL *curl)
{
	REAL(CURLcode, curl_easy_perform, (CURL *))
	return real(curl);
}

void curl_easy_cleanup(CURL *curl)
{
	REAL(void, curl_easy_cleanup, (CURL *))
	real(curl);
}

const char *curl_easy_strerror(CURLcode code)
{
	REAL(const char *, curl_easy_strerror, (CURLcode))
	return real(code);
}

struct curl_slist *curl_slist_append(struct curl_slist *list, const char *s)
{
	REAL(struct curl_slist *, curl_slist_append, (struct curl_slist *, const char *))
	return real(list, s);
}

void curl_slist_free_all(struct curl_slist *list)
{
	REAL(void, curl_slist_free_all, (struct curl_slist *))
	real(list);
}

time_t curl_getdate(const char *p, const time_t *unused)
{
	REAL(time_t, curl_getdate, (const char *, const time_t *))
	return real(p, unused);
}
