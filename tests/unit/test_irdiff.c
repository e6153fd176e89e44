/* irdiff: every rule fires on its crafted pair and not on its control;
 * identical and renamed modules are PASS; rows, line ranges, name matching,
 * JSON and diff_report.md shapes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/base/files.h"
#include "engine/ir/ir.h"
#include "engine/ir/irdiff.h"

static char *fixture(const char *rel)
{
	const char *top = getenv("TILEPORT_TOP");
	char *base = path_join(top && *top ? top : ".", "tests/fixtures/ir");
	char *p = path_join(base, rel);
	free(base);
	return p;
}

static struct ir_module *load(const char *path)
{
	struct tp_err err;
	struct ir_module *m = ir_module_load(path, &err);
	if (!m)
		fail_msg("%s", err.msg);
	return m;
}

static struct ir_module *reprint(const struct ir_module *m)
{
	char *t = ir_module_to_string(m, 0);
	struct tp_err err;
	struct ir_module *r = ir_text_parse("canon.mlir", t, strlen(t), &err);
	free(t);
	assert_non_null(r);
	return r;
}

static struct irdiff_result *diff(const struct ir_module *a, const struct ir_module *b)
{
	struct tp_err err;
	struct irdiff_options o = {.texts = true};
	struct irdiff_result *r = irdiff_modules(a, b, &o, &err);
	if (!r)
		fail_msg("%s", err.msg);
	return r;
}

static int sev_of(const char *s)
{
	for (int i = 0; i <= IRDIFF_NOTE; i++)
		if (strcmp(s, irdiff_severity_name((enum irdiff_severity)i)) == 0)
			return i;
	fail_msg("bad severity %s", s);
	return -1;
}

static const struct irdiff_finding *find(const struct irdiff_result *r, const char *rule,
					 int max_sev)
{
	for (size_t i = 0; i < r->nfindings; i++)
		if (strcmp(r->findings[i].rule, rule) == 0 && (int)r->findings[i].severity <= max_sev)
			return &r->findings[i];
	return NULL;
}

static void test_every_rule(void **state)
{
	(void)state;
	char *dir = fixture("rules");
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *de;
	int cases = 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strchr(de->d_name, '.'))
			continue;
		char *cd = path_join(dir, de->d_name);
		char *ep = path_join(cd, "expect"), *rp = path_join(cd, "ref.mlir"),
		     *fp = path_join(cd, "fire.mlir"), *cp = path_join(cd, "control.mlir");
		struct tp_err err;
		char *expect = read_file(ep, NULL, &err);
		assert_non_null(expect);
		char rule[64], sev[16];
		assert_int_equal(sscanf(expect, "%63s %15s", rule, sev), 2);
		int s = sev_of(sev);
		struct ir_module *ref = load(rp), *fire = load(fp);
		struct ir_module *ctl = path_is_file(cp) ? load(cp) : reprint(ref);
		struct irdiff_result *r = diff(ref, fire);
		const struct irdiff_finding *f = find(r, rule, s);
		if (!f || (int)f->severity != s)
			fail_msg("%s: %s %s did not fire", de->d_name, rule, sev);
		assert_true(f->message && *f->message);
		/* a finding points at the lines involved on some side */
		assert_true(f->ref_first || f->gen_first);
		if (s == IRDIFF_CRITICAL)
			assert_int_equal(r->verdict, IRDIFF_FAIL_FIXABLE);
		irdiff_free(r);
		r = diff(ref, ctl);
		if (find(r, rule, s))
			fail_msg("%s: control raised %s at %s or worse", de->d_name, rule, sev);
		irdiff_free(r);
		ir_module_free(ref);
		ir_module_free(fire);
		ir_module_free(ctl);
		free(expect);
		free(ep), free(rp), free(fp), free(cp), free(cd);
		cases++;
	}
	closedir(d);
	free(dir);
	assert_true(cases >= 30);
}

/* Identical and merely renamed modules differ nowhere: every row is equal
 * and no finding is raised but by the one rule that judges the generated
 * side alone (a scalar assume div_by, which memory.mlir carries). */
static void test_identical_and_renamed_pass(void **state)
{
	(void)state;
	char *dir = fixture("corpus");
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!str_ends(de->d_name, ".mlir"))
			continue;
		char *p = path_join(dir, de->d_name);
		struct ir_module *m = load(p), *c = reprint(m);
		const struct ir_module *pairs[2][2] = {{m, m}, {m, c}};
		for (int k = 0; k < 2; k++) {
			struct irdiff_result *r = diff(pairs[k][0], pairs[k][1]);
			for (size_t f = 0; f < r->nfindings; f++)
				if (strcmp(r->findings[f].rule, "assume-scalar-div-by") != 0)
					fail_msg("%s: %s %s", de->d_name, r->findings[f].rule,
						 r->findings[f].message);
			if (!r->nfindings)
				assert_int_equal(r->verdict, IRDIFF_PASS);
			for (size_t e = 0; e < r->nentries; e++)
				assert_int_equal(r->entries[e].nchanged + r->entries[e].nref_only +
							 r->entries[e].ngen_only, 0);
			irdiff_free(r);
		}
		ir_module_free(m);
		ir_module_free(c);
		free(p);
	}
	closedir(d);
	free(dir);
}

/* A generated scalar assume div_by is CRITICAL even when the reference
 * carries it too (the rules' fixtures); one only the reference carries is no
 * finding at all: cuTile Python's JIT may, an ahead-of-time kernel may not. */
static void test_scalar_assume_in_reference_only(void **state)
{
	(void)state;
	char *a = fixture("rules/assume-scalar-div-by-both/ref.mlir");
	char *b = fixture("rules/assume-scalar-div-by-both/control.mlir");
	struct ir_module *ref = load(a), *gen = load(b);
	struct irdiff_result *r = diff(ref, gen);
	assert_null(find(r, "assume-scalar-div-by", IRDIFF_NOTE));
	assert_int_equal(r->verdict, IRDIFF_PASS);
	irdiff_free(r);
	r = diff(ref, ref);
	const struct irdiff_finding *f = find(r, "assume-scalar-div-by", IRDIFF_CRITICAL);
	assert_non_null(f);
	assert_int_equal(r->verdict, IRDIFF_FAIL_FIXABLE);
	/* it points at the generated assume: line 13 of the fixture */
	assert_int_equal(f->gen_first, 13);
	assert_true(f->row >= 0);
	assert_int_equal(r->entries[0].rows[f->row].gen.op->code, IR_OP_ASSUME);
	irdiff_free(r);
	ir_module_free(ref);
	ir_module_free(gen);
	free(a);
	free(b);
}

/* A 0-d pointer to i32 is a pointer: its div_by is the pointer kind the
 * reference has too, no scalar assume */
static void test_pointer_to_int_is_no_scalar_assume(void **state)
{
	(void)state;
	static const char text[] =
		"cuda_tile.module @kernels {\n"
		"  entry @k(%a: tile<ptr<i32>>) {\n"
		"    %pa = assume div_by<16>, %a : tile<ptr<i32>>\n"
		"    return\n"
		"  }\n"
		"}\n";
	struct tp_err err;
	struct ir_module *m = ir_text_parse("p.mlir", text, strlen(text), &err);
	if (!m)
		fail_msg("%s", err.msg);
	struct irdiff_result *r = diff(m, m);
	for (size_t f = 0; f < r->nfindings; f++)
		fail_msg("%s %s", r->findings[f].rule, r->findings[f].message);
	assert_int_equal(r->verdict, IRDIFF_PASS);
	irdiff_free(r);
	ir_module_free(m);
}

static void test_rows_and_ranges(void **state)
{
	(void)state;
	char *a = fixture("rules/reduce-axis/ref.mlir"), *b = fixture("rules/reduce-axis/fire.mlir");
	struct ir_module *ref = load(a), *gen = load(b);
	struct irdiff_result *r = diff(ref, gen);
	assert_int_equal(r->nentries, 1);
	const struct irdiff_entry *e = &r->entries[0];
	assert_int_equal(e->nchanged, 1);
	assert_int_equal(e->nref_only + e->ngen_only, 0);
	const struct irdiff_finding *f = find(r, "reduce-axis", IRDIFF_CRITICAL);
	assert_non_null(f);
	assert_true(f->row >= 0);
	const struct irdiff_row *w = &e->rows[f->row];
	assert_int_equal(w->kind, IRDIFF_ROW_CHANGED);
	assert_int_equal(w->ref.op->code, IR_OP_REDUCE);
	/* the reduce header is line 22 of the fixture on both sides */
	assert_int_equal(f->ref_first, 22);
	assert_int_equal(f->gen_first, 22);
	assert_int_equal(w->ref.first, 22);
	assert_non_null(strstr(w->ref.text, "dim=1"));
	assert_non_null(strstr(w->gen.text, "dim=0"));
	size_t nf;
	const struct irdiff_finding *ef = irdiff_entry_findings(r, 0, &nf);
	assert_ptr_equal(ef, r->findings);
	assert_int_equal(nf, r->nfindings);
	char *v = irdiff_verdict_line(r);
	assert_string_equal(v, "VERDICT: FAIL_FIXABLE (1 critical diff(s))");
	free(v);
	irdiff_free(r);
	ir_module_free(ref);
	ir_module_free(gen);
	free(a);
	free(b);
}

/* An entry whose lines repeat (an unrolled body: every copy normalises to
 * the same lines) leaves patience nothing to anchor on; it is aligned by
 * Myers and the report says so. Kernels of unique lines keep patience. */
static struct ir_module *repeated(int copies, int edit_at)
{
	struct sbuf sb = SBUF_INIT;
	sb_adds(&sb, "cuda_tile.module @m {\n  entry @k(%a: tile<16xf32>, %b: tile<16xf32>) {\n");
	for (int i = 0; i < copies; i++)
		sb_printf(&sb, "    %%s%d = addf %%a, %%b : tile<16xf32>\n"
			       "    %%t%d = %s %%s%d, %%a : tile<16xf32>\n",
			  i, i, i == edit_at ? "subf" : "mulf", i);
	sb_adds(&sb, "    return\n  }\n}\n");
	struct tp_err err;
	struct ir_module *m = ir_text_parse("rep.mlir", sb.buf, sb.len, &err);
	if (!m)
		fail_msg("%s", err.msg);
	sb_free(&sb);
	return m;
}

static void test_alignment_choice(void **state)
{
	(void)state;
	struct ir_module *ref = repeated(200, -1), *gen = repeated(200, 150);
	struct irdiff_result *r = diff(ref, gen);
	assert_true(r->entries[0].aligned_myers);
	assert_non_null(strstr(r->alignment, "Myers"));
	assert_int_equal(r->entries[0].nequal, 400);
	assert_int_equal(r->entries[0].nref_only, 1);
	assert_int_equal(r->entries[0].ngen_only, 1);
	irdiff_free(r);
	ir_module_free(ref);
	ir_module_free(gen);
	char *a = fixture("rules/reduce-axis/ref.mlir"), *b = fixture("rules/reduce-axis/fire.mlir");
	ref = load(a);
	gen = load(b);
	r = diff(ref, gen);
	assert_false(r->entries[0].aligned_myers);
	assert_string_equal(r->alignment, "libgit2 patience diff over normalised op lines");
	irdiff_free(r);
	/* rows dropped once judged: the same counts and findings, no rows */
	struct irdiff_options o = {.drop_rows = true};
	struct tp_err err;
	struct irdiff_result *kept = diff(ref, gen), *dropped = irdiff_modules(ref, gen, &o, &err);
	assert_non_null(dropped);
	assert_null(dropped->entries[0].rows);
	assert_int_equal(dropped->entries[0].nrows, kept->entries[0].nrows);
	assert_int_equal(dropped->entries[0].nchanged, kept->entries[0].nchanged);
	assert_int_equal(dropped->nfindings, kept->nfindings);
	for (size_t i = 0; i < kept->nfindings; i++) {
		assert_string_equal(dropped->findings[i].rule, kept->findings[i].rule);
		assert_int_equal(dropped->findings[i].row, kept->findings[i].row);
	}
	irdiff_free(kept);
	irdiff_free(dropped);
	ir_module_free(ref);
	ir_module_free(gen);
	free(a);
	free(b);
}

/* libgit2 is given the lines between an entry's common ends (where patience
 * aligns), which must give the rows and findings a whole entry would: pairs
 * made by random edits of a kernel (ops changed, lines copied within the
 * body and to its start, where the ends are), compared both ways. */
static const char *const body_ops[] = {"addf", "mulf", "subf", "maxf"};

static struct ir_module *random_kernel(int n, const int *ops, const int *args)
{
	struct sbuf sb = SBUF_INIT;
	sb_adds(&sb, "cuda_tile.module @m {\n  entry @k(%a: tile<16xf32>, %b: tile<16xf32>) {\n");
	for (int i = 0; i < n; i++) {
		char x[16], y[16];
		/* operands: an argument or an earlier value, named by their definition */
		int ax = args[2 * i], ay = args[2 * i + 1];
		if (ax < 0 || ax >= i)
			snprintf(x, sizeof(x), "%%a");
		else
			snprintf(x, sizeof(x), "%%v%d", ax);
		if (ay < 0 || ay >= i)
			snprintf(y, sizeof(y), "%%b");
		else
			snprintf(y, sizeof(y), "%%v%d", ay);
		sb_printf(&sb, "    %%v%d = %s %s, %s : tile<16xf32>\n", i, body_ops[ops[i] & 3], x, y);
	}
	sb_adds(&sb, "    return\n  }\n}\n");
	struct tp_err err;
	struct ir_module *m = ir_text_parse("r.mlir", sb.buf, sb.len, &err);
	if (!m)
		fail_msg("%s\n%s", err.msg, sb.buf);
	sb_free(&sb);
	return m;
}

static void test_common_ends(void **state)
{
	(void)state;
	unsigned seed = 20261205;
	int with_ends = 0; /* rounds aligned by patience with equal lines at an end */
	for (int round = 0; round < 300; round++) {
		enum { N = 90 };
		int ops[2][N], args[2][2 * N], n = 30 + rand_r(&seed) % 60;
		for (int i = 0; i < n; i++) {
			ops[0][i] = rand_r(&seed) % 4;
			/* few operands choices: lines repeat, so some are unique and some not */
			args[0][2 * i] = i - 1 - rand_r(&seed) % 3;
			args[0][2 * i + 1] = rand_r(&seed) % 4 ? -1 : i - 2;
		}
		memcpy(ops[1], ops[0], sizeof(ops[0]));
		memcpy(args[1], args[0], sizeof(args[0]));
		for (int k = rand_r(&seed) % 4; k >= 0; k--) {
			int i = rand_r(&seed) % n;
			switch (rand_r(&seed) % 3) {
			case 0: ops[1][i] = rand_r(&seed) % 4; break;   /* an op changed */
			case 1: ops[1][i] = ops[1][rand_r(&seed) % n]; /* a line copied */
				args[1][2 * i] = args[1][2 * (i / 2)];
				args[1][2 * i + 1] = args[1][2 * (i / 2) + 1];
				break;
			default: args[1][2 * i] = -1; break;            /* an operand changed */
			}
		}
		struct ir_module *a = random_kernel(n, ops[0], args[0]),
				 *b = random_kernel(n, ops[1], args[1]);
		struct irdiff_options whole = {.whole_entries = true}, ends = {0};
		struct tp_err err;
		struct irdiff_result *x = irdiff_modules(a, b, &whole, &err),
				     *y = irdiff_modules(a, b, &ends, &err);
		assert_non_null(x);
		assert_non_null(y);
		const struct irdiff_entry *ex = &x->entries[0], *ey = &y->entries[0];
		assert_int_equal(ex->nrows, ey->nrows);
		for (size_t i = 0; i < ex->nrows; i++) {
			if (ex->rows[i].kind != ey->rows[i].kind ||
			    ex->rows[i].ref.op != ey->rows[i].ref.op ||
			    ex->rows[i].gen.op != ey->rows[i].gen.op)
				fail_msg("round %d: row %zu differs", round, i);
		}
		assert_int_equal(x->nfindings, y->nfindings);
		for (size_t i = 0; i < x->nfindings; i++)
			assert_string_equal(x->findings[i].message, y->findings[i].message);
		with_ends += !ex->aligned_myers && ex->nrows &&
			     (ex->rows[0].kind == IRDIFF_ROW_EQUAL ||
			      ex->rows[ex->nrows - 1].kind == IRDIFF_ROW_EQUAL);
		irdiff_free(x);
		irdiff_free(y);
		ir_module_free(a);
		ir_module_free(b);
	}
	assert_true(with_ends > 100);
}

static void test_name_match(void **state)
{
	(void)state;
	assert_int_equal(irdiff_name_match("softmax", "softmax"), 100);
	assert_true(irdiff_name_match("softmax_kernel", "softmax_kernel_9f3a1c") >= 90);
	assert_true(irdiff_name_match("_static_persistent_bmm_kernel_Kt1_abc",
				      "static_persistent_bmm_kernel") >= 90);
	assert_true(irdiff_name_match("matmul_kernel", "matmul_kernel_kernel_77") >
		    irdiff_name_match("matmul_kernel", "bmm_kernel_kernel_77"));
	assert_int_equal(irdiff_name_match("softmax", "rms_norm"), 0);
	assert_int_equal(irdiff_exit_code(IRDIFF_PASS), 0);
	assert_int_equal(irdiff_exit_code(IRDIFF_PASS_WITH_NOTES), 2);
	assert_int_equal(irdiff_exit_code(IRDIFF_FAIL_FIXABLE), 1);
}

static void test_reports(void **state)
{
	(void)state;
	char *a = fixture("rules/op-count-arith/ref.mlir"), *b = fixture("rules/op-count-arith/fire.mlir");
	struct ir_module *ref = load(a), *gen = load(b);
	struct irdiff_result *r = diff(ref, gen);
	assert_int_equal(r->verdict, IRDIFF_PASS_WITH_NOTES);
	cJSON *j = irdiff_report_json(r, "ref.mlir", "gen.mlir", true);
	assert_string_equal(cJSON_GetObjectItem(j, "verdict")->valuestring, "PASS_WITH_NOTES");
	assert_int_equal(cJSON_GetObjectItem(j, "exit_code")->valueint, 2);
	cJSON *e0 = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "entries"), 0);
	assert_non_null(cJSON_GetObjectItem(e0, "aligned"));
	cJSON *f0 = cJSON_GetArrayItem(cJSON_GetObjectItem(e0, "findings"), 0);
	assert_non_null(cJSON_GetObjectItem(f0, "ref_lines"));
	cJSON_Delete(j);
	struct sbuf md = SBUF_INIT;
	irdiff_report_markdown(r, "ref.mlir", "gen.mlir", &md);
	assert_true(str_starts(md.buf, "VERDICT: PASS_WITH_NOTES\n"));
	static const char *const sections[] = {
		"## Inputs", "## IR Validation", "## Automated Diff", "## Structural Comparison",
		"| Op | Reference | Generated | Match |", "## Checklist Diff",
		"| # | Item | Reference value | Generated value | Status | Severity | Action |",
		"## Root Cause Analysis", "## Impact Assessment",
		"| Difference | Correctness impact | Performance impact | Blocking? |", "## Verdict",
		"### Known Gaps Accepted / Notes"};
	const char *at = md.buf;
	for (size_t i = 0; i < TP_ARRAY_LEN(sections); i++) {
		const char *p = strstr(at, sections[i]);
		if (!p)
			fail_msg("missing or out of order: %s", sections[i]);
		at = p;
	}
	sb_free(&md);
	struct sbuf tx = SBUF_INIT;
	irdiff_report_text(r, "ref.mlir", "gen.mlir", IRDIFF_TEXT_ROWS, &tx);
	assert_non_null(strstr(tx.buf, "WORKAROUND(-1)"));
	assert_true(str_ends(tx.buf, "VERDICT: PASS_WITH_NOTES (2 note(s))\n"));
	sb_free(&tx);
	irdiff_free(r);
	ir_module_free(ref);
	ir_module_free(gen);
	free(a);
	free(b);
}

/* exp(x) written as exp2(x * log2(e)) on one side is no op-count
 * difference but a note, its multiply included; a bounds assert one side
 * carries has its row in the counts. */
static const struct irdiff_count *count_of(const struct irdiff_result *r, const char *op)
{
	for (size_t i = 0; i < r->entries[0].ncounts; i++)
		if (!strcmp(r->entries[0].counts[i].op, op))
			return &r->entries[0].counts[i];
	fail_msg("no count row for %s", op);
	return NULL;
}

static void test_exp_as_exp2_and_asserts(void **state)
{
	(void)state;
	char *a = fixture("rules/op-count-exp/ref.mlir"), *b = fixture("rules/op-count-exp/fire.mlir");
	struct ir_module *ref = load(a), *gen = load(b);
	struct irdiff_result *r = diff(ref, gen);
	for (size_t i = 0; i < r->nfindings; i++)
		if (r->findings[i].severity < IRDIFF_INFO)
			fail_msg("%s %s", r->findings[i].rule, r->findings[i].message);
	assert_int_equal(r->verdict, IRDIFF_PASS);
	assert_string_equal(count_of(r, "exp")->verdict, "EQUIV(-1)");
	assert_string_equal(count_of(r, "exp2")->verdict, "EQUIV(+1)");
	assert_string_equal(count_of(r, "mulf")->verdict, "EQUIV(+1)");
	assert_non_null(find(r, "op-count-exp", IRDIFF_INFO));
	irdiff_free(r);
	/* exp2 of x alone is not exp of x: still a critical count */
	char *c = fixture("rules/op-count/fire.mlir"), *d = fixture("rules/op-count/ref.mlir");
	struct ir_module *m1 = load(c), *m2 = load(d);
	r = diff(m2, m1);
	assert_non_null(find(r, "op-count", IRDIFF_CRITICAL));
	irdiff_free(r);
	ir_module_free(m1);
	ir_module_free(m2);
	free(c);
	free(d);
	ir_module_free(ref);
	ir_module_free(gen);
	free(a);
	free(b);
	a = fixture("rules/op-count-assert/ref.mlir");
	b = fixture("rules/op-count-assert/fire.mlir");
	ref = load(a);
	gen = load(b);
	r = diff(ref, gen);
	const struct irdiff_count *k = count_of(r, "assert");
	assert_int_equal(k->ref, 0);
	assert_int_equal(k->gen, 1);
	assert_string_equal(k->verdict, "INFO(+1)");
	const struct irdiff_finding *f = find(r, "op-count-assert", IRDIFF_INFO);
	assert_non_null(f);
	assert_true(f->gen_first > 0);
	irdiff_free(r);
	ir_module_free(ref);
	ir_module_free(gen);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_rule),
		cmocka_unit_test(test_identical_and_renamed_pass),
		cmocka_unit_test(test_scalar_assume_in_reference_only),
		cmocka_unit_test(test_pointer_to_int_is_no_scalar_assume),
		cmocka_unit_test(test_rows_and_ranges),
		cmocka_unit_test(test_name_match),
		cmocka_unit_test(test_alignment_choice),
		cmocka_unit_test(test_common_ends),
		cmocka_unit_test(test_reports),
		cmocka_unit_test(test_exp_as_exp2_and_asserts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
