/* libtileport_cupti.so: a CUPTI injection library. The CUDA driver loads
 * it into any process that sets CUDA_INJECTION64_PATH to its path and
 * calls InitializeInjection during cuInit, before the first context
 * exists; it records kernel, memset and memcpy activity and NVTX ranges
 * into the trace file named by $TILEPORT_TRACE (trace_format.h; a %p in
 * the name becomes the process id). The language of the program does not
 * matter: C, Rust and Python processes reach the same driver.
 *
 * Records reach the file when CUPTI hands over a full buffer, on the
 * exported tileport_cupti_flush() and at exit. The file is written as
 * NAME.partial and renamed to NAME at the first flush, so a process killed
 * before it ever flushed leaves no file that looks complete.
 *
 * NVTX ranges need NVTX_INJECTION64_PATH to name the libcupti the process
 * actually loaded (PyTorch brings its own copy; a second copy loaded by
 * path would be a second CUPTI). Unless it is set already, it is set here
 * to the file this library's libcupti resolved to, which works because
 * NVTX reads it at the process's first NVTX call, after cuInit.
 *
 * Built only when the CUDA toolkit is found (Makefile); never with the
 * sanitizers, since it is loaded into other programs. docs/gpu.md. */
#include <cupti.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/perf/trace_format.h"

/* The activity records below are CUDA 13's; the libcupti loaded at run time
 * must have the same major version (docs/gpu.md). */
#if CUPTI_API_VERSION < 130000
#error "libtileport_cupti.so needs CUPTI from CUDA 13 (CUPTI_API_VERSION >= 130000)"
#endif

#define EXPORT __attribute__((visibility("default")))

#define BUF_SIZE (8u << 20) /* per activity buffer, as NVIDIA's samples use */
#define BUF_ALIGN 8

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *out;
static char path[4096], partial[4096 + sizeof(TRACE_PARTIAL_SUFFIX)];
static int renamed, initialized;
static unsigned long long nrecords, ndropped;
static char *namebuf; /* escaped names */
static size_t namecap;

/* Callers hold the lock. */
static const char *esc(const char *s)
{
	size_t need = 2 * (s ? strlen(s) : 0) + 1;
	if (need > namecap) {
		char *p = realloc(namebuf, need);
		if (!p)
			return "?";
		namebuf = p;
		namecap = need;
	}
	return trace_escape(s ? s : "", namebuf);
}

static void error_line(const char *what, CUptiResult r)
{
	const char *msg = NULL;
	cuptiGetResultString(r, &msg);
	fprintf(stderr, "tileport_cupti: %s: %s\n", what, msg ? msg : "error");
	pthread_mutex_lock(&lock);
	if (out)
		fprintf(out, TRACE_FMT_ERROR, what, esc(msg ? msg : "error"));
	pthread_mutex_unlock(&lock);
}

static void write_record(const CUpti_Activity *rec)
{
	switch (rec->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
		const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
		fprintf(out, TRACE_FMT_KERNEL, (unsigned long long)k->start, (unsigned long long)k->end,
			k->deviceId, k->contextId, k->streamId, k->correlationId, k->graphId, k->gridX,
			k->gridY, k->gridZ, k->blockX, k->blockY, k->blockZ, esc(k->name));
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMSET: {
		const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)rec;
		fprintf(out, TRACE_FMT_MEMSET, (unsigned long long)m->start, (unsigned long long)m->end, m->deviceId,
			m->contextId, m->streamId, m->correlationId, (unsigned long long)m->bytes,
			m->value);
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY: {
		const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)rec;
		fprintf(out, TRACE_FMT_MEMCPY, (unsigned long long)m->start, (unsigned long long)m->end, m->deviceId,
			m->contextId, m->streamId, m->correlationId, (unsigned long long)m->bytes,
			(unsigned)m->copyKind);
		break;
	}
	case CUPTI_ACTIVITY_KIND_MARKER: {
		const CUpti_ActivityMarker2 *m = (const CUpti_ActivityMarker2 *)rec;
		if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_START)
			fprintf(out, TRACE_FMT_RANGE_START, m->id, (unsigned long long)m->timestamp,
				esc(m->name));
		else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_END)
			fprintf(out, TRACE_FMT_RANGE_END, m->id, (unsigned long long)m->timestamp);
		else if (m->flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS)
			fprintf(out, TRACE_FMT_MARK, (unsigned long long)m->timestamp, esc(m->name));
		break;
	}
	case CUPTI_ACTIVITY_KIND_OVERHEAD: {
		const CUpti_ActivityOverhead3 *o = (const CUpti_ActivityOverhead3 *)rec;
		fprintf(out, TRACE_FMT_OVERHEAD, (unsigned long long)o->start,
			(unsigned long long)o->end, (unsigned)o->overheadKind);
		break;
	}
	default:
		return;
	}
	nrecords++;
}

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size, size_t *max_records)
{
	void *b = NULL;
	if (posix_memalign(&b, BUF_ALIGN, BUF_SIZE))
		b = NULL;
	*buf = b;
	*size = b ? BUF_SIZE : 0;
	*max_records = 0; /* as many as fit */
}

/* On CUPTI's worker thread, possibly beside application threads: short,
 * under the lock, no CUDA calls. */
static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buf, size_t size,
				      size_t valid)
{
	(void)size;
	pthread_mutex_lock(&lock);
	CUpti_Activity *rec = NULL;
	for (;;) {
		CUptiResult r = cuptiActivityGetNextRecord(buf, valid, &rec);
		if (r != CUPTI_SUCCESS) {
			if (r != CUPTI_ERROR_MAX_LIMIT_REACHED && out)
				fprintf(out, TRACE_FMT_ERROR, "cuptiActivityGetNextRecord",
					"an incomplete record");
			break;
		}
		if (out)
			write_record(rec);
	}
	size_t dropped = 0;
	if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped &&
	    out) {
		fprintf(out, TRACE_FMT_DROPPED, dropped);
		ndropped += dropped;
	}
	pthread_mutex_unlock(&lock);
	free(buf);
}

/* Everything recorded so far onto the disk. The device is not
 * synchronized here: a caller that wants its last kernels in the trace
 * synchronizes first. Safe to call more than once, from any thread. */
EXPORT void tileport_cupti_flush(void)
{
	if (!initialized)
		return;
	/* without the lock: CUPTI may call buffer_completed from here */
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	pthread_mutex_lock(&lock);
	if (out) {
		fprintf(out, TRACE_FMT_FLUSH, nrecords, ndropped);
		fflush(out);
		fsync(fileno(out));
		if (!renamed && rename(partial, path) == 0) {
			renamed = 1;
			char dir[sizeof(path)];
			snprintf(dir, sizeof(dir), "%s", path);
			char *slash = strrchr(dir, '/');
			if (slash)
				*slash = 0;
			int fd = open(slash ? dir : ".", O_RDONLY | O_DIRECTORY);
			if (fd >= 0) {
				fsync(fd);
				close(fd);
			}
		}
	}
	pthread_mutex_unlock(&lock);
}

static void at_exit(void)
{
	tileport_cupti_flush();
}

/* TILEPORT_TRACE with %p replaced by the process id. */
static int trace_path(void)
{
	const char *t = getenv(TRACE_ENV);
	if (!t || !*t)
		return -1;
	size_t o = 0;
	for (const char *s = t; *s && o + 24 < sizeof(path); s++) {
		if (s[0] == '%' && s[1] == 'p') {
			o += (size_t)snprintf(path + o, sizeof(path) - o, "%ld", (long)getpid());
			s++;
		} else {
			path[o++] = *s;
		}
	}
	path[o] = 0;
	snprintf(partial, sizeof(partial), "%s%s", path, TRACE_PARTIAL_SUFFIX);
	return 0;
}

static void nvtx_setup(void)
{
	Dl_info info;
	const char *loaded = NULL;
	if (dladdr((void *)cuptiActivityEnable, &info) && info.dli_fname)
		loaded = info.dli_fname;
	const char *set = getenv("NVTX_INJECTION64_PATH");
	if (!set && loaded) {
		setenv("NVTX_INJECTION64_PATH", loaded, 0);
		set = loaded;
	}
	fprintf(out, TRACE_FMT_META_STR, "libcupti", esc(loaded ? loaded : "?"));
	fprintf(out, TRACE_FMT_META_STR, "nvtx_injection", esc(set ? set : ""));
}

#define TRY(call)                                   \
	do {                                        \
		CUptiResult r_ = (call);            \
		if (r_ != CUPTI_SUCCESS)            \
			error_line(#call, r_);      \
	} while (0)

EXPORT int InitializeInjection(void)
{
	if (__sync_lock_test_and_set(&initialized, 1))
		return 1;
	if (trace_path() < 0) {
		fprintf(stderr, "tileport_cupti: %s is not set: nothing is recorded\n", TRACE_ENV);
		return 1;
	}
	out = fopen(partial, "w");
	if (!out) {
		fprintf(stderr, "tileport_cupti: %s: cannot create: %s\n", partial, strerror(errno));
		return 1;
	}
	static char iobuf[1 << 20];
	setvbuf(out, iobuf, _IOFBF, sizeof(iobuf));
	uint32_t api = 0;
	cuptiGetVersion(&api);
	fprintf(out, TRACE_FMT_HEADER, TRACE_MAGIC, TRACE_VERSION);
	fprintf(out, TRACE_FMT_META_NUM, "pid", (long)getpid());
	fprintf(out, TRACE_FMT_META_NUM, "cupti_api", (long)api);
	nvtx_setup();
	TRY(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
	/* CONCURRENT_KERNEL, not KERNEL: KERNEL serializes every launch */
	TRY(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
	TRY(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET));
	TRY(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY));
	TRY(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MARKER));
	TRY(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_OVERHEAD));
	atexit(at_exit);
	return 1;
}
