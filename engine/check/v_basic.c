/* validate_ir.sh and validate_perf_log.sh. */
#include "engine/check/check_impl.h"
#include "engine/perf/perflog.h"

#include "engine/ir/ir.h"
#include "engine/ir/irdiff.h"

#include <stdlib.h>
#include <string.h>

#define KEY_OPS "load_ptr_tko|store_ptr_tko|load_view_tko|store_view_tko|mmaf|reduce|make_partition_view"

/* Which toolchain step produces this IR file. */
static unsigned ir_step(const char *file)
{
	const char *base = tx_basename(file);
	if (str_starts(base, "generated") || strstr(file, "/generated/"))
		return CHECK_STEP_GENERATED_IR;
	return CHECK_STEP_REFERENCE_IR;
}

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

/* `entry @[a-zA-Z0-9_]*K[a-zA-Z0-9_]*`: K starts somewhere within the
 * identifier run after '@' (or right at its end). Returns the matched
 * symbol (caller frees) and its line. */
static char *find_entry(const char *text, const char *kernel, int *line)
{
	size_t klen = strlen(kernel);
	for (const char *p = text; (p = strstr(p, "entry @")) != NULL; p++) {
		const char *id = p + 7;
		size_t run = 0;
		while (ident_char(id[run]))
			run++;
		for (size_t pos = 0; pos <= run; pos++) {
			if (strncmp(id + pos, kernel, klen) == 0) {
				size_t n = pos + klen;
				while (ident_char(id[n]))
					n++;
				*line = tx_line_at(text, (size_t)(p - text));
				return xstrndup(id, n);
			}
		}
	}
	return NULL;
}

static void list_entries(struct ck *k, const char *file, const char *text)
{
	/* lines counted on from the previous entry: linear in the file */
	const char *counted = text;
	int line = 1;
	for (const char *p = text; (p = strstr(p, "entry @")) != NULL; p++) {
		const char *id = p + 7;
		size_t run = 0;
		while (ident_char(id[run]))
			run++;
		for (; counted < p; counted++)
			line += *counted == '\n';
		ck_add(k, CHECK_INFO, 0, "ir.entry", file, line,
		       "found entry @%.*s", (int)run, id);
	}
}

int check_ir(const struct check_ctx *ctx, const char *file, const char *kernel,
	     struct check_report *r, struct tp_err *err)
{
	if (!kernel)
		kernel = ctx->kernel;
	if (!file || !kernel || !*kernel) {
		tp_err_set(err, TP_EXIT_USAGE, "ir: need FILE and KERNEL");
		return -1;
	}
	struct ck k;
	char *args = xasprintf("%s %s", file, kernel);
	ck_begin(&k, ctx, r, "ir", args);
	free(args);
	unsigned step = ir_step(file);
	const struct ck_file *f = ck_load(&k, file);
	char *matched = NULL;
	size_t lines = 0, keyops = 0;
	if (!ck_nonempty(f)) {
		ck_add(&k, CHECK_FAIL, step, "ir.file", file, 0, "IR file %s",
		       f->exists ? "is empty" : "not found");
	} else {
		const char *t = f->data;
		lines = tx_lines(t, f->len);
		if (strstr(t, "cuda_tile.module"))
			ck_add(&k, CHECK_PASS, 0, "ir.module", file, 0, "contains cuda_tile.module");
		else
			ck_add(&k, CHECK_FAIL, step, "ir.module", file, 0,
			       "NOT valid MLIR format: no cuda_tile.module (dump with "
			       "CUDA_TILE_DUMP_BYTECODE, translate and canonicalize)");
		int line = 0;
		matched = find_entry(t, kernel, &line);
		if (matched) {
			ck_add(&k, CHECK_PASS, 0, "ir.entry", file, line, "entry @%s contains '%s'",
			       matched, kernel);
		} else {
			ck_add(&k, CHECK_FAIL, step, "ir.entry", file, 0,
			       "no `entry @...%s...` symbol (an alias repair may be needed)", kernel);
			list_entries(&k, file, t);
		}
		if (strstr(t, "optimization_hints"))
			ck_add(&k, CHECK_PASS, 0, "ir.hints", file, 0, "has optimization_hints");
		else
			ck_add(&k, CHECK_WARN, step, "ir.hints", file, 0, "no optimization_hints");
		static const char *const pylevel[] = {"Tile[PointerTy", "typed_const",
						      "assume_bounded(x="};
		bool py = false;
		for (size_t i = 0; i < TP_ARRAY_LEN(pylevel); i++) {
			const char *hit = strstr(t, pylevel[i]);
			if (!hit)
				continue;
			py = true;
			ck_add(&k, CHECK_FAIL, step, "ir.python-level", file,
			       tx_line_at(t, (size_t)(hit - t)),
			       "Python-level IR marker '%s': dump the CUDA Tile IR, not the "
			       "Python IR", pylevel[i]);
		}
		if (!py)
			ck_add(&k, CHECK_PASS, 0, "ir.python-level", file, 0, "no Python-level IR markers");
		keyops = tx_grep_count(t, KEY_OPS, 0);
		/* The reference greps lines, so a value named %reduce counts as an
		 * op; counted on the parsed module the number is irdiff's. */
		struct ir_module *m = ir_text_parse(file, t, f->len, NULL);
		bool parsed = m != NULL;
		if (m)
			keyops = (size_t)irdiff_key_ops(m);
		ir_module_free(m);
		if (keyops)
			ck_add(&k, CHECK_PASS, 0, "ir.key-ops", file, 0, "%zu key op%s%s", keyops,
			       keyops == 1 ? "" : "s", parsed ? "" : " (lines naming one: the file does not parse)");
		else
			ck_add(&k, CHECK_WARN, step, "ir.key-ops", file, 0,
			       "none of load/store_ptr_tko, load/store_view_tko, mmaf, reduce, "
			       "make_partition_view");
	}
	size_t fails = ck_count(&k, CHECK_FAIL);
	char *closing;
	if (fails)
		closing = xasprintf("FAIL: %zu error(s) in IR validation", fails);
	else if (ck_count(&k, CHECK_DEFERRED) && !matched)
		closing = xstrdup("");
	else
		closing = xasprintf("PASS: Valid MLIR IR matched entry @%s (%zu lines, %zu key ops)",
				    matched ? matched : "?", lines, keyops);
	free(matched);
	int rc = ck_end(&k, closing);
	free(closing);
	return rc;
}

/* ---- perf logs ---- */

static char *default_label(const char *path)
{
	const char *base = tx_basename(path);
	const char *dot = strrchr(base, '.');
	return dot && dot != base ? xstrndup(base, (size_t)(dot - base)) : xstrdup(base);
}

struct perf_counts {
	size_t sections, passed, failed, skipped;
};

static enum check_sev perf_eval(struct ck *k, const char *path, const char *label,
				const char *rule, enum check_sev missing_sev,
				struct perf_counts *pc, const char **first_fail)
{
	size_t from = k->r->nfindings;
	const unsigned step = CHECK_STEP_PERF_LOG;
#define R(own) (rule ? rule : own)
	const struct ck_file *f = ck_load(k, path);
	memset(pc, 0, sizeof(*pc));
	if (!ck_nonempty(f)) {
		ck_add(k, missing_sev, step, R("perf-log.file"), path, 0, "%s: %s", label,
		       f->exists ? "perf log is empty" : "perf log not found");
		*first_fail = f->exists ? "perf log is empty" : "perf log not found";
		return ck_verdict_since(k, from);
	}
	/* engine/perf reads the log: the reference script's counts, and the
	 * records that `tileport perf` will pair */
	struct perf_log log;
	perflog_parse(path, f->data, f->len, &log);
	pc->sections = log.sections;
	pc->passed = log.passed;
	pc->failed = log.failed;
	pc->skipped = log.skipped;
	ck_note(k, "%s: perf_sections=%zu passed=%zu failed=%zu skipped=%zu", label,
		pc->sections, pc->passed, pc->failed, pc->skipped);
	if (pc->sections == 0) {
		ck_add(k, CHECK_FAIL, step, R("perf-log.sections"), path, 0,
		       "%s: no 'Performance Test Results' section: --print-record was not "
		       "effective", label);
		if (!*first_fail)
			*first_fail = "no 'Performance Test Results' section";
	} else {
		ck_add(k, CHECK_PASS, 0, R("perf-log.sections"), path, 0,
		       "%s: %zu 'Performance Test Results' section(s)", label, pc->sections);
	}
	if (pc->failed) {
		ck_add(k, CHECK_FAIL, step, R("perf-log.failed"), path, log.first_failed_line,
		       "%s: %zu FAILED line(s)", label, pc->failed);
		if (!*first_fail)
			*first_fail = "FAILED tests in the log";
	} else {
		ck_add(k, CHECK_PASS, 0, R("perf-log.failed"), path, 0, "%s: no FAILED lines", label);
	}
	if (pc->sections && pc->sections != pc->passed)
		ck_add(k, CHECK_WARN, step, R("perf-log.balance"), path, 0,
		       "%s: %zu perf section(s) but %zu PASSED line(s)", label, pc->sections,
		       pc->passed);
	/* tileport addition (WARN): a section stage E could not pair */
	for (size_t i = 0; i < log.nrecs; i++)
		if (log.recs[i].problem && log.recs[i].outcome != PERF_OUTCOME_FAILED)
			ck_add(k, CHECK_WARN, step, R("perf-log.record"), path,
			       perf_record_problem_line(&log.recs[i]),
			       "%s: %s", label, log.recs[i].problem);
	perflog_free(&log);
#undef R
	return ck_verdict_since(k, from);
}

enum check_sev ck_nested_perf_log(struct ck *k, const char *path, const char *label,
				  const char *rule, enum check_sev missing_sev)
{
	struct perf_counts pc;
	const char *first = NULL;
	char *own = label ? NULL : default_label(path);
	enum check_sev v = perf_eval(k, path, label ? label : own, rule, missing_sev, &pc, &first);
	free(own);
	return v;
}

int check_perf_log(const struct check_ctx *ctx, const char *file, const char *label,
		   struct check_report *r, struct tp_err *err)
{
	if (!file) {
		tp_err_set(err, TP_EXIT_USAGE, "perf-log: need FILE");
		return -1;
	}
	struct ck k;
	char *lab = label ? xstrdup(label) : default_label(file);
	char *args = label ? xasprintf("%s %s", file, label) : xstrdup(file);
	ck_begin(&k, ctx, r, "perf-log", args);
	free(args);
	struct perf_counts pc;
	const char *first = NULL;
	enum check_sev v = perf_eval(&k, file, lab, NULL, CHECK_FAIL, &pc, &first);
	char *closing;
	if (v == CHECK_FAIL)
		closing = xasprintf("FAIL: %s: %s", lab, first ? first : "invalid perf log");
	else if (v == CHECK_DEFERRED && !pc.sections)
		closing = xstrdup("");
	else
		closing = xasprintf("PASS: %s: %zu perf records for %zu passed tests", lab,
				    pc.sections, pc.passed);
	int rc = ck_end(&k, closing);
	free(closing);
	free(lab);
	return rc;
}
