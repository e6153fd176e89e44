/* The IR diff view below the screen: pairing a run's IR files by variant
 * (supplements and fallbacks), the document built from engine/ir's diff
 * (header counts, finding marks, the differing tokens of a changed row as
 * cells), every laid-out line exactly as wide as the pane in every mode
 * and width, the selected op kept across a resize, next/previous critical,
 * search, and input errors that name the place. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/check/check.h"
#include "tests/unit/testutil.h"
#include "views/width.h"
#include "views/irdiff_int.h"

/* ---- pairing ---- */

static void test_pairs_by_variant(void **state)
{
	(void)state;
	char *run = tu_tmpdir();
	const char *files[] = {
		"reference/reference.mlir",        /* ignored: variants exist */
		"reference/reference_a.mlir",
		"reference/reference_a_f32.mlir",  /* a supplement of a */
		"reference/reference_b.mlir",
		"reference/reference_x_f16.mlir",  /* no reference_x.mlir: a variant */
		"reference/notes.md",
		"generated/generated_a.mlir",
		"generated/generated_a_canon.mlir", /* preferred over generated_a.mlir */
		"generated/generated_b.tileirbc",   /* the last fallback */
		"generated/generated_c.mlir",       /* no reference for c */
		"generated/generatedz.mlir",        /* not a generated_<v> name */
		"generated/fail_1_gen.mlir",
	};
	for (size_t i = 0; i < TP_ARRAY_LEN(files); i++)
		free(tu_write(run, files[i], "x"));
	struct irpair_list l;
	irpairs_of_run(run, &l);
	assert_int_equal(l.n, 4);
	assert_string_equal(l.v[0].variant, "a");
	assert_true(str_ends(l.v[0].ref, "/reference/reference_a.mlir"));
	assert_true(str_ends(l.v[0].gen, "/generated/generated_a_canon.mlir"));
	assert_string_equal(l.v[1].variant, "b");
	assert_true(str_ends(l.v[1].gen, "/generated/generated_b.tileirbc"));
	assert_string_equal(l.v[2].variant, "c");
	assert_null(l.v[2].ref);
	assert_true(str_ends(l.v[2].gen, "/generated/generated_c.mlir"));
	assert_string_equal(l.v[3].variant, "x_f16");
	assert_null(l.v[3].gen);
	irpairs_free(&l);
	remove_tree(run);
	free(run);

	run = tu_tmpdir();
	free(tu_write(run, "reference/reference.mlir", "x"));
	free(tu_write(run, "generated/generated.mlir", "x"));
	free(tu_write(run, "generated/generated_canon.mlir", "x"));
	irpairs_of_run(run, &l);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.v[0].variant, "");
	assert_true(str_ends(l.v[0].gen, "/generated/generated_canon.mlir"));
	irpairs_free(&l);
	char *want = irpairs_gen_candidates("");
	assert_string_equal(want, "generated/generated_canon.mlir, generated/generated.mlir, "
				  "generated/generated.tileirbc");
	free(want);
	remove_tree(run);
	free(run);

	irpairs_of_run("/nonexistent/run", &l);
	assert_int_equal(l.n, 0);
	irpairs_free(&l);
}

/* ---- the view, on a host that records what it is told ---- */

static char reported[1024];

static void host_report(struct view_host *h, bool error, const char *msg)
{
	(void)h, (void)error;
	snprintf(reported, sizeof(reported), "%s", msg);
}

static struct view *host_open(struct view_host *h, struct view *from, enum view_id id,
			      const struct view_arg *arg, unsigned flags)
{
	(void)h, (void)from, (void)id, (void)arg, (void)flags;
	return NULL; /* no findings pane here */
}

static struct view_host host = {.report = host_report, .open = host_open};

static char *fixture(const char *name)
{
	const char *top = getenv("TILEPORT_TOP");
	return xasprintf("%s/tests/fixtures/%s", top && *top ? top : ".", name);
}

static struct view *open_view(const char *ref, const char *gen, int width, struct tp_err *err)
{
	struct view *v = xcalloc(1, sizeof(*v));
	v->ops = &irdiff_view_ops;
	v->id = VIEW_IRDIFF;
	v->host = &host;
	v->priv = xcalloc(1, irdiff_view_ops.private_size);
	v->height = 12;
	v->width = width;
	v->dirty = xcalloc(12, 1);
	v->dirty_cap = 12;
	char *r = fixture(ref), *g = fixture(gen);
	struct view_arg arg = {.path = r, .path2 = g};
	int rc = irdiff_view_ops.open(v, &arg, err);
	free(r);
	free(g);
	if (rc < 0) {
		irdiff_view_ops.done(v);
		free(v->ref);
		free(v->priv);
		free(v->dirty);
		free(v);
		return NULL;
	}
	return v;
}

static void close_view(struct view *v)
{
	irdiff_view_ops.done(v);
	free(v->priv);
	free(v->ref);
	free(v->dirty);
	free(v->search.pattern);
	free(v);
}

/* Screen columns of a formatted line. */
static size_t line_columns(const struct line_out *lo)
{
	size_t cols = 0;
	for (size_t i = 0; i < lo->ncells; i++) {
		const struct cell *c = &lo->cells[i];
		cols += c->width ? c->width : str_columns(lo->text.buf + c->off, c->len, 0);
	}
	return cols;
}

/* The display line of the changed reduce row ("dim=1" on the left). */
static size_t find_line(struct view *v, const char *text)
{
	struct line_out lo;
	lo_init(&lo);
	size_t at = SIZE_MAX;
	for (size_t i = 0; i < v->nlines && at == SIZE_MAX; i++) {
		view_format(v, i, &lo);
		if (strstr(sb_str(&lo.text), text))
			at = i;
	}
	lo_free(&lo);
	return at;
}

static bool has_cell(struct view *v, size_t idx, enum line_type type, const char *text)
{
	struct line_out lo;
	lo_init(&lo);
	view_format(v, idx, &lo);
	bool found = false;
	for (size_t i = 0; i < lo.ncells; i++)
		if (lo.cells[i].type == type && lo.cells[i].len == strlen(text) &&
		    !memcmp(lo.text.buf + lo.cells[i].off, text, lo.cells[i].len))
			found = true;
	lo_free(&lo);
	return found;
}

static void test_document_and_cells(void **state)
{
	(void)state;
	struct tp_err err;
	struct view *v = open_view("ir/view/fail_ref.mlir", "ir/view/fail_gen.mlir", 160, &err);
	assert_non_null(v);
	struct irv *x = v->priv;
	assert_int_equal(x->doc->verdict, IRDIFF_FAIL_FIXABLE);
	assert_int_equal(x->doc->ncritical, 2);
	assert_int_equal(x->doc->nfinds, 5);
	assert_string_equal(v->ref, "fail_ref.mlir \xe2\x86\x94 fail_gen.mlir");

	struct line_out lo;
	lo_init(&lo);
	assert_true(irdiff_view_ops.header(v, &lo));
	assert_string_equal(sb_str(&lo.text), "FAIL_FIXABLE  2 critical  1 warn  1 info  1 note");
	assert_int_equal(lo.cells[0].type, LINE_VERDICT_FAIL);
	lo_free(&lo);

	/* The reduce over another dim: marked critical, "1" and "0" highlighted. */
	size_t at = find_line(v, "dim=1");
	assert_true(at != SIZE_MAX);
	assert_true(has_cell(v, at, LINE_FINDING_CRITICAL, "C"));
	assert_true(has_cell(v, at, LINE_DIFF_DEL_HIGHLIGHT, "1"));
	assert_true(has_cell(v, at, LINE_DIFF_ADD_HIGHLIGHT, "0"));
	/* divf divides the ftof now, not the exp2: that operand is what
	 * differs; the other names differ only as the printer counts. */
	at = find_line(v, "= divf");
	assert_true(has_cell(v, at, LINE_DIFF_DEL_HIGHLIGHT, "%2"));
	assert_true(has_cell(v, at, LINE_DIFF_ADD_HIGHLIGHT, "%3"));
	assert_false(has_cell(v, at, LINE_DIFF_ADD_HIGHLIGHT, "%4"));
	assert_false(has_cell(v, at, LINE_DIFF_ADD_HIGHLIGHT, "%bcast_4"));
	/* exp2 lost flush_to_zero: only that differs. */
	at = find_line(v, "= exp2");
	assert_true(has_cell(v, at, LINE_DIFF_DEL_HIGHLIGHT, "flush_to_zero"));
	/* The extra ftof is generated only, and an INFO. */
	at = find_line(v, "= ftof");
	assert_true(has_cell(v, at, LINE_FINDING_INFO, "I"));
	assert_true(has_cell(v, at, LINE_DIFF_ADD, " > "));
	close_view(v);
}

static void test_every_line_fits(void **state)
{
	(void)state;
	struct tp_err err;
	struct view *v = open_view("ir/view/fail_ref.mlir", "ir/view/fail_gen.mlir", 80, &err);
	assert_non_null(v);
	struct irv *x = v->priv;
	struct line_out lo;
	lo_init(&lo);
	for (int mode = 0; mode < 4; mode++) {
		x->unified = mode & 1;
		x->wrap = mode & 2;
		for (int w = 30; w <= 200; w += 17) {
			v->width = w;
			irv_layout(v);
			for (size_t i = 0; i < v->nlines; i++) {
				view_format(v, i, &lo);
				size_t cols = line_columns(&lo);
				const struct irv_item *it = &x->doc->items[x->dl[i].item];
				/* side by side: two equal halves, one spare column
				 * when they cannot split the width evenly */
				if (it->kind == IV_ROW || (it->kind == IV_PAIR && !(x->unified || x->narrow)))
					assert_true(cols == (size_t)w ||
						    (cols + 1 == (size_t)w && !(x->unified || x->narrow)));
				else
					assert_true(cols >= 1);
			}
		}
	}
	lo_free(&lo);
	close_view(v);
}

static void test_resize_keeps_the_op(void **state)
{
	(void)state;
	struct tp_err err;
	struct view *v = open_view("ir/view/fail_ref.mlir", "ir/view/fail_gen.mlir", 80, &err);
	struct irv *x = v->priv;
	x->wrap = true;
	irv_layout(v);
	size_t at = find_line(v, "= ftof");
	view_select(v, at);
	uint32_t item = irv_item_of(x, v->lineno);
	for (int w = 160; w >= 40; w -= 60) {
		v->width = w;
		irdiff_view_ops.resize(v);
		assert_int_equal(irv_item_of(x, v->lineno), item);
		assert_true(v->lineno >= v->offset && v->lineno < v->offset + (size_t)v->height);
	}
	close_view(v);
}

static void test_critical_and_search(void **state)
{
	(void)state;
	struct tp_err err;
	struct view *v = open_view("ir/view/fail_ref.mlir", "ir/view/fail_gen.mlir", 120, &err);
	struct irv *x = v->priv;
	size_t reduce = find_line(v, "dim=1"), exp2 = find_line(v, "= exp2");
	assert_int_equal(irdiff_view_ops.request(v, REQ_NEXT_CRITICAL), REQ_NONE);
	assert_int_equal(v->lineno, reduce);
	assert_string_equal(reported, "CRITICAL reduce-axis: reduce over dim 1 in the reference, "
				      "dim 0 generated");
	irdiff_view_ops.request(v, REQ_NEXT_CRITICAL);
	assert_int_equal(v->lineno, exp2);
	irdiff_view_ops.request(v, REQ_NEXT_CRITICAL); /* wraps round */
	assert_int_equal(v->lineno, reduce);
	irdiff_view_ops.request(v, REQ_PREV_CRITICAL);
	assert_int_equal(v->lineno, exp2);
	/* From an op below every critical, previous goes to the last one. */
	view_select(v, v->nlines - 1);
	irdiff_view_ops.request(v, REQ_PREV_CRITICAL);
	assert_int_equal(v->lineno, exp2);

	view_set_search(v, "ftof");
	assert_true(view_find(v, false, false));
	assert_int_equal(irv_item_of(x, v->lineno), irv_item_of(x, find_line(v, "= ftof")));
	/* The next change after the top is the bounded assume only the reference has. */
	view_select(v, 0);
	irdiff_view_ops.request(v, REQ_NEXT_CHANGE);
	assert_int_equal(v->lineno, find_line(v, "bounded<0, ?>"));
	close_view(v);
}

static void test_pass_and_errors(void **state)
{
	(void)state;
	struct tp_err err;
	struct view *v = open_view("ir/view/pass_ref.mlir", "ir/view/pass_gen.mlir", 80, &err);
	assert_non_null(v);
	struct irv *x = v->priv;
	assert_int_equal(x->doc->verdict, IRDIFF_PASS);
	assert_int_equal(x->doc->nfinds, 0);
	assert_false(v->loading); /* no findings pane to open */
	reported[0] = '\0';
	irdiff_view_ops.request(v, REQ_NEXT_CRITICAL);
	assert_string_equal(reported, "No critical findings");
	close_view(v);

	/* A bytecode side has no line numbers and says what it is. */
	v = open_view("ir/view/bc_ref.mlir", "bytecode/spec11_negi_13_1.tileirbc", 100, &err);
	assert_non_null(v);
	assert_true(find_line(v, "spec11_negi_13_1.tileirbc (bytecode)") != SIZE_MAX);
	close_view(v);

	tp_err_clear(&err);
	assert_null(open_view("ir/view/pass_ref.mlir", "ir/view/nonexistent.mlir", 80, &err));
	assert_non_null(strstr(err.msg, "nonexistent.mlir"));
	assert_null(open_view("ir/view/pass_ref.mlir", "ir/view/README", 80, &err));
	assert_non_null(strstr(err.msg, "README:1:"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairs_by_variant),
		cmocka_unit_test(test_document_and_cells),
		cmocka_unit_test(test_every_line_fits),
		cmocka_unit_test(test_resize_keeps_the_op),
		cmocka_unit_test(test_critical_and_search),
		cmocka_unit_test(test_pass_and_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
