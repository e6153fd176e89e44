/* ir_module_load: the one door every command and view uses to get a module
 * from a file, whatever its form (bytecode is detected by its magic). */
#include "engine/base/files.h"
#include "engine/ir/ir.h"
#include "engine/ir/ir_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static bool is_bytecode(const char *buf, size_t len)
{
	return len >= IR_BYTECODE_MAGIC_LEN &&
	       memcmp(buf, IR_BYTECODE_MAGIC, IR_BYTECODE_MAGIC_LEN) == 0;
}

struct ir_module *ir_module_from_buffer(const char *path, const char *buf, size_t len,
					struct tp_err *err)
{
	if (is_bytecode(buf, len))
		return ir_bytecode_parse(path, (const unsigned char *)buf, len, err);
	return ir_text_parse(path, buf, len, err);
}

struct ir_module *ir_module_load(const char *path, struct tp_err *err)
{
	size_t len;
	struct tp_err rerr;
	char *buf = read_file(path, &len, &rerr);
	if (!buf) {
		tp_err_set(err, TP_EXIT_USAGE, "%s", rerr.msg);
		return NULL;
	}
	/* read_file's buffer ends in a NUL: text is parsed in place, not copied,
	 * and given back as it is read */
	struct ir_module *m = is_bytecode(buf, len)
				      ? ir_bytecode_parse(path, (const unsigned char *)buf, len, err)
				      : ir_text_parse_consume(path, buf, len, err);
	free(buf);
	return m;
}

struct load_job {
	const char *path;
	struct ir_module *m;
	struct tp_err err;
};

static void *load_job_run(void *arg)
{
	struct load_job *j = arg;
	tp_err_clear(&j->err);
	j->m = ir_module_load(j->path, &j->err);
	return NULL;
}

/* The parser recurses as deep as PS_MAX_DEPTH allows: give the second
 * thread the stack the main thread usually has, whatever ulimit -s says. */
#define LOAD_THREAD_STACK (8u << 20)

/* The two parses share nothing mutable (the registry and the op templates
 * are built before the thread starts, and only read after), so the second
 * file is parsed on a thread of its own: on two cores the pair costs about
 * one parse. */
bool ir_module_load_pair(const char *path_a, const char *path_b, struct ir_module **a,
			 struct ir_module **b, struct tp_err *err)
{
	struct load_job ja = {.path = path_a}, jb = {.path = path_b};
	ir_text_parse_prepare();
	pthread_attr_t attr;
	pthread_t t;
	bool threaded = false;
	if (pthread_attr_init(&attr) == 0) {
		threaded = pthread_attr_setstacksize(&attr, LOAD_THREAD_STACK) == 0 &&
			   pthread_create(&t, &attr, load_job_run, &jb) == 0;
		pthread_attr_destroy(&attr);
	}
	load_job_run(&ja);
	if (threaded)
		pthread_join(t, NULL);
	else
		load_job_run(&jb);
	*a = *b = NULL;
	if (!ja.m || !jb.m) {
		*err = !ja.m ? ja.err : jb.err; /* the first file's problem first */
		ir_module_free(ja.m);
		ir_module_free(jb.m);
		return false;
	}
	*a = ja.m;
	*b = jb.m;
	return true;
}
