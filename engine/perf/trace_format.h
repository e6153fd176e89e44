/* The trace file format shared by its writer (libtileport_cupti.so,
 * engine/perf/cupti/) and its reader (engine/perf/trace.h): one record a
 * line, fields separated by tabs, numbers in decimal, names last with
 * tab, newline and backslash escaped (\t \n \\). docs/formats.md,
 * "Trace files", describes every record. Header-only so that the
 * injection library needs nothing from the engine. */
#ifndef TILEPORT_PERF_TRACE_FORMAT_H
#define TILEPORT_PERF_TRACE_FORMAT_H

#include <stddef.h>

#define TRACE_MAGIC "#tileport-trace"
#define TRACE_VERSION 1

/* The first character of each record. */
#define TRACE_META 'M'       /* M key value */
#define TRACE_KERNEL 'K'     /* K start end device context stream correlation graph grid block name */
#define TRACE_MEMSET 'S'     /* S start end device context stream correlation bytes value */
#define TRACE_MEMCPY 'C'     /* C start end device context stream correlation bytes copykind */
#define TRACE_RANGE_START 'R' /* R id timestamp name */
#define TRACE_RANGE_END 'E'  /* E id timestamp */
#define TRACE_MARK 'I'       /* I timestamp name: an instantaneous marker */
#define TRACE_OVERHEAD 'O'   /* O start end overheadkind */
#define TRACE_DROPPED 'D'    /* D count: records CUPTI dropped */
#define TRACE_FLUSH 'F'      /* F records dropped: everything up to here is on disk */
#define TRACE_ERROR 'X'      /* X message: the library could not do something */

/* The lines as the library prints them (the reader's unit tests print
 * with the same formats, so writer and reader cannot drift apart). */
#define TRACE_FMT_HEADER "%s\t%d\n"                   /* TRACE_MAGIC, TRACE_VERSION */
#define TRACE_FMT_META_NUM "M\t%s\t%ld\n"
#define TRACE_FMT_META_STR "M\t%s\t%s\n"
/* start end device context stream correlation graph gridX,Y,Z blockX,Y,Z name */
#define TRACE_FMT_KERNEL "K\t%llu\t%llu\t%u\t%u\t%u\t%u\t%u\t%d,%d,%d\t%d,%d,%d\t%s\n"
/* start end device context stream correlation bytes value|copykind */
#define TRACE_FMT_MEMSET "S\t%llu\t%llu\t%u\t%u\t%u\t%u\t%llu\t%u\n"
#define TRACE_FMT_MEMCPY "C\t%llu\t%llu\t%u\t%u\t%u\t%u\t%llu\t%u\n"
#define TRACE_FMT_RANGE_START "R\t%u\t%llu\t%s\n" /* id timestamp name */
#define TRACE_FMT_RANGE_END "E\t%u\t%llu\n"        /* id timestamp */
#define TRACE_FMT_MARK "I\t%llu\t%s\n"             /* timestamp name */
#define TRACE_FMT_OVERHEAD "O\t%llu\t%llu\t%u\n"  /* start end kind */
#define TRACE_FMT_DROPPED "D\t%zu\n"
#define TRACE_FMT_FLUSH "F\t%llu\t%llu\n"          /* records dropped, so far */
#define TRACE_FMT_ERROR "X\t%s: %s\n"               /* what, why */

/* The environment: where the trace goes (a "%p" in it is replaced by the
 * process id, so that child processes, which inherit it, write their own
 * file), and the NVTX range prefix tileport bench reads. */
#define TRACE_ENV "TILEPORT_TRACE"
#define TRACE_RANGE_PREFIX "tileport:"
/* The file is written as PATH.partial and renamed to PATH on the first
 * flush: a file without the suffix was flushed at least once. */
#define TRACE_PARTIAL_SUFFIX ".partial"

/* Escape a name into out (room for 2 * strlen + 1); returns out. */
static inline char *trace_escape(const char *s, char *out)
{
	char *o = out;
	for (; s && *s; s++) {
		if (*s == '\t' || *s == '\n' || *s == '\\') {
			*o++ = '\\';
			*o++ = *s == '\t' ? 't' : *s == '\n' ? 'n' : '\\';
		} else {
			*o++ = *s;
		}
	}
	*o = 0;
	return out;
}

#endif
