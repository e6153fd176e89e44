/* The changeset view: a six-file changeset for review (tileport review,
 * view_arg path = the repository, name = the revision), or the plan of
 * packaging a finished run (p in the pipeline view, view_arg run): the
 * files with their roles, the shape checks, what the note says about the
 * run (acceptance, geomean, IR verdict, the verdict trail), and in the
 * lower pane the selected file's diff. s opens the source view on the
 * Python reference beside kernel.rs, b the benchmark view on the note's rows, d the IR diff view
 * (or the note's IR findings when the run directory is gone), i the
 * note's IR findings. On a plan, p packages it for real.
 *
 * The lower pane is a second view of this kind (view_arg model = the
 * shared document, index = its mode, line = the file). */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/core/session.h"
#include "engine/perf/compare.h"
#include "views/changeset_int.h"

/* ---- the document ---- */

static void doc_unref(struct csv_doc *d)
{
	if (!d || --d->refs > 0)
		return;
	cs_package_result_free(&d->res);
	for (size_t i = 0; i < d->nbench; i++) {
		perf_table_free(d->bench[i]);
		free(d->bench[i]);
	}
	free(d->bench);
	free(d->dir);
	free(d->rev);
	run_model_free(d->run);
	free(d);
}

/* Read the commit, or plan the dry run, again; on failure the document
 * keeps what it had. */
static int doc_load(struct csv_doc *d, struct tp_err *err)
{
	struct cs_package_result fresh;
	if (!d->plan) {
		memset(&fresh, 0, sizeof(fresh));
		if (cs_review(d->dir, d->rev, &fresh.cs, err) < 0)
			return -1;
	} else {
		struct cs_package_opts o = {.run = d->run, .dry_run = true};
		struct tp_err perr;
		tp_err_clear(&perr);
		/* A refused plan is still shown, with its reasons; only a plan
		 * that could not be built at all fails. */
		if (cs_package(&o, &fresh, &perr) < 0 && !fresh.cs.subject) {
			*err = perr;
			cs_package_result_free(&fresh);
			return -1;
		}
	}
	cs_package_result_free(&d->res);
	d->res = fresh;
	return 0;
}

/* ---- the upper pane's items ---- */

static void add_item(struct csv *x, size_t *cap, enum csv_item_kind kind, size_t index)
{
	x->items = xgrow(x->items, cap, x->nitems + 1, sizeof(*x->items));
	x->items[x->nitems++] = (struct csv_item){(uint8_t)kind, (uint32_t)index};
}

static void add_info(struct csv *x, size_t *cap, size_t *icap, char *text)
{
	x->info = xgrow(x->info, icap, x->ninfo + 1, sizeof(*x->info));
	x->info[x->ninfo] = text;
	add_item(x, cap, CI_INFO, x->ninfo++);
}

static void clear_items(struct csv *x)
{
	for (size_t i = 0; i < x->ninfo; i++)
		free(x->info[i]);
	free(x->info);
	free(x->items);
	x->info = NULL;
	x->items = NULL;
	x->nitems = x->ninfo = 0;
}

/* Sections are numbered by their CI_SECTION index. */
enum { SEC_PROBLEMS, SEC_FILES, SEC_CHECKS, SEC_EVIDENCE, SEC_TRAIL };

static void build_items(struct view *v)
{
	struct csv *x = v->priv;
	const struct changeset *cs = csv_cs(x->doc);
	clear_items(x);
	size_t cap = 0, icap = 0;
	char **problems = x->doc->res.problems;
	if (problems) {
		add_item(x, &cap, CI_SECTION, SEC_PROBLEMS);
		for (size_t i = 0; problems[i]; i++)
			add_item(x, &cap, CI_PROBLEM, i);
	}
	add_item(x, &cap, CI_SECTION, SEC_FILES);
	for (size_t i = 0; i < cs->nfiles; i++)
		add_item(x, &cap, CI_FILE, i);
	add_item(x, &cap, CI_SECTION, SEC_CHECKS);
	for (size_t i = 0; i < CS_SHAPE__COUNT; i++)
		add_item(x, &cap, CI_CHECK, i);
	add_item(x, &cap, CI_SECTION, SEC_EVIDENCE);
	const cJSON *note = cs->note;
	if (!note) {
		add_info(x, &cap, &icap, xstrdup(cs->note_problem ? cs->note_problem : "no note"));
	} else {
		const cJSON *acc = cJSON_GetObjectItemCaseSensitive(note, "accepted");
		const cJSON *g = cJSON_GetObjectItemCaseSensitive(note, "geomean_ratio");
		const cJSON *bench = cJSON_GetObjectItemCaseSensitive(note, "bench");
		const cJSON *ir = cJSON_GetObjectItemCaseSensitive(note, "ir");
		const cJSON *run = cs_note_run(note);
		const cJSON *created = cJSON_GetObjectItemCaseSensitive(run, "created");
		char when[32] = "?";
		if (cJSON_IsNumber(created))
			iso8601_utc((int64_t)created->valuedouble, when);
		add_info(x, &cap, &icap, xasprintf("run       %s %s, %s, created %s", cs_note_or(run, "op", "?"),
						   cs_note_or(run, "final", "-"), cs_note_or(run, "mode", "?"),
						   when));
		add_info(x, &cap, &icap, xasprintf("accepted  %s", cs_note_or(acc, "why", "-")));
		char geo[32] = "n/a";
		if (cJSON_IsNumber(g))
			snprintf(geo, sizeof(geo), "%.4f", g->valuedouble);
		int rows = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(bench, "rows"));
		add_info(x, &cap, &icap, xasprintf("geomean   %s  (%d bench row%s: b)", geo, rows,
						   rows == 1 ? "" : "s"));
		add_info(x, &cap, &icap, xasprintf("IR        %s  (i findings, d IR diff)",
						   cs_note_or(ir, "verdict", "none recorded")));
		add_item(x, &cap, CI_SECTION, SEC_TRAIL);
		int nt = cJSON_GetArraySize(cs_note_attempts(note));
		for (int i = 0; i < nt; i++)
			add_item(x, &cap, CI_TRAIL, (size_t)i);
	}
	view_set_lines(v, x->nitems);
	view_clamp(v);
	view_redraw(v);
}

/* ---- upper pane lines ---- */

static const char *const check_mark[] = {"\xe2\x9c\x97", "\xe2\x9c\x93"}; /* ✗ ✓ */

/* The check a file's role is judged by, for its mark. */
static int role_check(enum cs_role r)
{
	switch (r) {
	case CS_ROLE_KERNEL:
		return CS_SHAPE_KERNEL;
	case CS_ROLE_LIB:
		return CS_SHAPE_LIB_MOD;
	case CS_ROLE_IMPORT:
		return CS_SHAPE_INIT_IMPORT;
	case CS_ROLE_TEST:
		return CS_SHAPE_TEST_LINES;
	default:
		return -1;
	}
}

static void section_line(const struct csv *x, size_t sec, struct line_out *out)
{
	const struct changeset *cs = csv_cs(x->doc);
	lo_reset(out, LINE_SECTION);
	switch (sec) {
	case SEC_PROBLEMS:
		lo_addf(out, LINE_STATE_FAIL, "Packaging refused (%zu reason%s)", strv_len(x->doc->res.problems),
			strv_len(x->doc->res.problems) == 1 ? "" : "s");
		break;
	case SEC_FILES:
		lo_addf(out, LINE_SECTION, "Files (%zu)", cs->nfiles);
		break;
	case SEC_CHECKS:
		if (cs->nfailed)
			lo_addf(out, LINE_STATE_FAIL, "Shape checks: %d of %d fail", cs->nfailed, CS_SHAPE__COUNT);
		else
			lo_addf(out, LINE_SECTION, "Shape checks: all %d pass", CS_SHAPE__COUNT);
		break;
	case SEC_EVIDENCE:
		lo_adds(out, LINE_SECTION, x->doc->plan ? "Run evidence (the note it would carry)"
							: "Run evidence (" CS_NOTES_REF ")");
		break;
	default:
		lo_adds(out, LINE_SECTION, "Verdict trail");
		break;
	}
}

static void file_line(const struct csv *x, size_t i, struct line_out *out)
{
	const struct changeset *cs = csv_cs(x->doc);
	const struct cs_file *f = &cs->files[i];
	int chk = role_check(f->role);
	bool ok = f->role != CS_ROLE_OTHER && (chk < 0 || cs->checks[chk].ok);
	lo_reset(out, LINE_DEFAULT);
	lo_adds(out, ok ? LINE_STATE_OK : LINE_STATE_FAIL, check_mark[ok]);
	lo_adds(out, LINE_DEFAULT, " ");
	lo_col(out, LINE_LABEL, 8, ALIGN_LEFT, cs_role_name(f->role));
	char st[2] = {f->status, 0};
	lo_col(out, f->status == 'D' ? LINE_DIFF_DEL : LINE_DIFF_ADD, 1, ALIGN_LEFT, st);
	char counts[48];
	snprintf(counts, sizeof(counts), "+%zu -%zu", f->added, f->deleted);
	lo_col(out, LINE_DIM, 10, ALIGN_RIGHT, counts);
	lo_adds(out, LINE_DEFAULT, f->path);
}

static void check_line(const struct csv *x, size_t i, struct line_out *out)
{
	const struct cs_check *c = &csv_cs(x->doc)->checks[i];
	lo_reset(out, LINE_DEFAULT);
	lo_adds(out, c->ok ? LINE_STATE_OK : LINE_STATE_FAIL, check_mark[c->ok]);
	lo_adds(out, LINE_DEFAULT, " ");
	lo_col(out, LINE_LABEL, 11, ALIGN_LEFT, cs_shape_name((enum cs_shape)i));
	lo_adds(out, c->ok ? LINE_DEFAULT : LINE_STATE_FAIL, c->detail ? c->detail : "");
}

static enum line_type trail_type(const char *verdict, const char *action)
{
	if (!verdict || !strcmp(verdict, "-"))
		return LINE_DIM;
	if (strstr(verdict, "FAIL") || strstr(verdict, "BLOCKED"))
		return LINE_VERDICT_FAIL;
	if (action && (str_starts(action, "spawn C") || !strcmp(verdict, "INVESTIGATE")))
		return LINE_VERDICT_WARN;
	return LINE_VERDICT_OK;
}

static void trail_line(const struct csv *x, size_t i, struct line_out *out)
{
	const cJSON *t = cJSON_GetArrayItem(cs_note_attempts(csv_cs(x->doc)->note), (int)i);
	const char *verdict = cs_attempt_verdict(t), *action = cs_note_str(t, "action");
	const char *klass = cs_note_str(t, "class"), *note = cs_note_str(t, "note");
	char id[32];
	cs_attempt_label(t, id, sizeof(id));
	lo_reset(out, LINE_DEFAULT);
	lo_adds(out, LINE_DEFAULT, "  ");
	lo_col(out, LINE_LABEL, 4, ALIGN_LEFT, id);
	lo_col(out, trail_type(verdict, action), 17, ALIGN_LEFT, verdict);
	char k[32] = "";
	if (klass)
		snprintf(k, sizeof(k), "[%s]", klass);
	lo_col(out, LINE_DEFAULT, 8, ALIGN_LEFT, k);
	lo_addf(out, LINE_ROUTE, "-> %s", action ? action : "-");
	if (note)
		lo_addf(out, LINE_MANUAL, "  %s", note);
}

static void csv_line(struct view *v, size_t idx, struct line_out *out)
{
	struct csv *x = v->priv;
	if (x->pane) {
		csv_pane_line(v, idx, out);
		return;
	}
	const struct csv_item *it = &x->items[idx];
	switch (it->kind) {
	case CI_PROBLEM:
		lo_reset(out, LINE_DEFAULT);
		lo_adds(out, LINE_STATE_FAIL, "\xe2\x9c\x97 ");
		lo_adds(out, LINE_DEFAULT, x->doc->res.problems[it->index]);
		break;
	case CI_SECTION:
		section_line(x, it->index, out);
		break;
	case CI_FILE:
		file_line(x, it->index, out);
		break;
	case CI_CHECK:
		check_line(x, it->index, out);
		break;
	case CI_INFO:
		lo_reset(out, LINE_DEFAULT);
		lo_adds(out, LINE_DEFAULT, "  ");
		lo_adds(out, LINE_DEFAULT, x->info[it->index]);
		break;
	default:
		trail_line(x, it->index, out);
		break;
	}
}

/* ---- the lower pane ---- */

/* The file the selected line is about, or -1. */
static long selected_file(const struct view *v)
{
	const struct csv *x = v->priv;
	if (v->lineno >= x->nitems)
		return -1;
	const struct csv_item *it = &x->items[v->lineno];
	const struct changeset *cs = csv_cs(x->doc);
	if (it->kind == CI_FILE)
		return (long)it->index;
	if (it->kind != CI_CHECK)
		return -1;
	static const enum cs_role check_role[CS_SHAPE__COUNT] = {
		[CS_SHAPE_SIX_PATHS] = CS_ROLE_OTHER, [CS_SHAPE_NAMES] = CS_ROLE_OTHER,
		[CS_SHAPE_LIB_MOD] = CS_ROLE_LIB,     [CS_SHAPE_INIT_IMPORT] = CS_ROLE_IMPORT,
		[CS_SHAPE_TEST_LINES] = CS_ROLE_TEST, [CS_SHAPE_KERNEL] = CS_ROLE_KERNEL,
	};
	const struct cs_file *f = cs_file_of(cs, check_role[it->index]);
	return f && check_role[it->index] != CS_ROLE_OTHER ? f - cs->files : -1;
}

static struct view *upper_of(struct view *v)
{
	struct csv *x = v->priv;
	return x->pane ? v->upper : v;
}

/* Show mode in the lower pane (opening it when needed); false with the
 * reason reported when there is nothing to show. */
static bool show_pane(struct view *v, enum csv_mode mode, long file)
{
	struct view *up = upper_of(v);
	if (!up)
		return false;
	struct csv *x = up->priv;
	struct view *low = up->lower;
	if (low && low->ops == &changeset_view_ops) {
		struct csv *l = low->priv;
		if (l->mode == mode && (mode != CM_DIFF || l->file == (size_t)file))
			return true;
		struct tp_err err;
		tp_err_clear(&err);
		if (csv_pane_fill(low, mode, (size_t)(file < 0 ? 0 : file), &err) < 0) {
			view_error(v, "%s", err.msg);
			csv_pane_fill(low, l->mode == mode ? CM_DIFF : l->mode, l->file, &err);
			return false;
		}
		view_select(low, 0);
		return true;
	}
	struct view_arg arg = {.model = x->doc, .index = (int)mode, .line = file < 0 ? 0 : file};
	return up->host->open(up->host, up, VIEW_CHANGESET, &arg, OPEN_SPLIT | OPEN_NOFOCUS) != NULL;
}

static void follow_selection(struct view *v)
{
	long f = selected_file(v);
	if (f >= 0)
		show_pane(v, CM_DIFF, f);
}

/* The document was read again: the lower pane's lines point into the old
 * one, so it is filled afresh (with the selected file's diff). */
static void refill_pane(struct view *v)
{
	struct view *low = v->lower;
	if (!low || low->ops != &changeset_view_ops)
		return;
	long f = selected_file(v);
	struct tp_err err;
	tp_err_clear(&err);
	if (csv_pane_fill(low, CM_DIFF, (size_t)(f < 0 ? 0 : f), &err) < 0)
		v->host->close(v->host, low);
}

/* ---- packaging from the plan ---- */

/* The title's name for it: its branch, else its short id. */
static char *changeset_ref(const struct changeset *cs)
{
	return cs->branch ? xstrdup(cs->branch) : xstrndup(cs->commit, 7);
}

static void package_now(struct view *v, const char *reason)
{
	struct csv *x = v->priv;
	struct csv_doc *d = x->doc;
	struct cs_package_opts o = {.run = d->run, .accept = reason};
	struct cs_package_result r;
	struct tp_err err;
	tp_err_clear(&err);
	if (cs_package(&o, &r, &err) < 0) {
		view_error(v, "%s", err.msg);
		cs_package_result_free(&r);
		return;
	}
	cs_package_result_free(&d->res);
	d->res = r;
	d->plan = false; /* from now on it is the commit, read from the repository */
	free(d->dir);
	free(d->rev);
	d->dir = xstrdup(r.workdir);
	d->rev = xstrdup(r.cs.commit);
	free(v->ref);
	v->ref = changeset_ref(&d->res.cs);
	build_items(v);
	refill_pane(v);
	v->title_dirty = true;
	if (d->res.warning)
		view_error(v, "%s", d->res.warning);
	else
		view_report(v, "Packaged %s as %s %.7s (note in " CS_NOTES_REF ")", d->res.cs.op,
			    d->res.cs.branch, d->res.cs.commit);
}

static void reason_given(struct view *v, const char *answer, void *ctx)
{
	(void)ctx;
	if (!v || !answer)
		return;
	char *r = str_trim(xstrdup(answer));
	if (!*r)
		view_error(v, "Not packaged: accepting by hand needs a reason");
	else
		package_now(v, r);
	free(r);
}

static void commit_confirmed(struct view *v, const char *answer, void *ctx)
{
	(void)ctx;
	if (v && answer)
		package_now(v, NULL);
}

static void request_package(struct view *v)
{
	struct csv *x = v->priv;
	struct csv_doc *d = x->doc;
	const struct cs_package_result *r = &d->res;
	if (!d->plan) {
		view_error(v, "This changeset is committed (%.7s); p packages a run from its pipeline view",
			   r->cs.commit);
		return;
	}
	size_t np = strv_len(r->problems);
	if (np > (r->needs_reason ? 1u : 0u)) {
		view_error(v, "Packaging refused: %s%s", r->problems[r->needs_reason && np > 1 ? 1 : 0],
			   np > 1 ? " (and more, listed above)" : "");
		return;
	}
	char *q = r->needs_reason ? xasprintf("The run is not accepted by its state; reason to accept it "
					       "by hand: ")
				  : xasprintf("Commit %zu files on %s? ", r->cs.nfiles, r->cs.branch);
	if (r->needs_reason)
		v->host->prompt(v->host, v, q, reason_given, NULL);
	else
		v->host->confirm(v->host, v, q, commit_confirmed, NULL);
	free(q);
}

/* ---- requests ---- */

static void open_irdiff(struct view *v)
{
	struct csv *x = v->priv;
	const char *run = cs_note_str(cJSON_GetObjectItemCaseSensitive(csv_cs(x->doc)->note, "run"), "run_dir");
	if (run && path_is_dir(run)) {
		struct view_arg arg = {.path = run};
		v->host->open(v->host, upper_of(v), VIEW_IRDIFF, &arg, 0);
		return;
	}
	if (show_pane(v, CM_IR, -1))
		view_report(v, "%s: the note's IR findings are below",
			    run ? "The run's directory is not here" : "The note names no run directory");
}

/* The source view, below, on the commit's kernel.rs beside the op's Python
 * reference in the parent tree: the semantic check's links and marks (with
 * the commit's ffi.rs as the launcher), as from a run's stage B. */
static void open_source(struct view *v)
{
	const struct changeset *cs = csv_cs(((struct csv *)v->priv)->doc);
	const struct cs_file *k = cs_file_of(cs, CS_ROLE_KERNEL);
	if (!cs->reference) {
		view_error(v, "No Python reference for %s in the parent tree (looked for %s.py in "
			      "src/tilegym/ops/cutile/ and ops/triton/, in the test's subfolder)",
			   cs->op ? cs->op : "the op", cs->op ? cs->op : "OP");
		return;
	}
	if (!k || !k->new_text) {
		view_error(v, "The changeset has no kernel.rs to show beside the reference");
		return;
	}
	const struct cs_file *ffi = cs_file_of(cs, CS_ROLE_FFI);
	struct src_texts t = {cs->reference_path, cs->reference, k->path, k->new_text,
			      ffi && ffi->new_text ? ffi->new_text : NULL};
	struct view_arg arg = {.model = &t};
	v->host->open(v->host, upper_of(v), VIEW_SOURCE, &arg, OPEN_SPLIT);
}

/* The benchmark view, below, on the note's rows. */
static void open_bench(struct view *v)
{
	struct csv_doc *d = ((struct csv *)v->priv)->doc;
	struct perf_table *t = xcalloc(1, sizeof(*t));
	struct tp_err err;
	tp_err_clear(&err);
	if (cs_note_bench_table(csv_cs(d)->note, t, &err) < 0) {
		perf_table_free(t);
		free(t);
		view_error(v, "%s", err.msg);
		return;
	}
	d->bench = xgrow(d->bench, &d->capbench, d->nbench + 1, sizeof(*d->bench));
	d->bench[d->nbench++] = t;
	struct view_arg arg = {.model = t};
	v->host->open(v->host, upper_of(v), VIEW_BENCH, &arg, OPEN_SPLIT);
}

static enum request csv_request(struct view *v, enum request req)
{
	struct csv *x = v->priv;
	switch (req) {
	case REQ_SHOW_SOURCE:
		open_source(v);
		return REQ_NONE;
	case REQ_SHOW_BENCH:
		open_bench(v);
		return REQ_NONE;
	case REQ_SHOW_FINDINGS:
		show_pane(v, CM_IR, -1);
		return REQ_NONE;
	case REQ_VIEW_IRDIFF:
		open_irdiff(v);
		return REQ_NONE;
	case REQ_PACKAGE:
		if (x->pane)
			request_package(upper_of(v));
		else
			request_package(v);
		return REQ_NONE;
	case REQ_ENTER:
		if (!x->pane && selected_file(v) >= 0) {
			follow_selection(v);
			return REQ_VIEW_NEXT;
		}
		return x->pane ? REQ_NONE : REQ_ENTER;
	case REQ_REFRESH: {
		if (x->pane)
			return REQ_NONE;
		struct tp_err err;
		tp_err_clear(&err);
		if (doc_load(x->doc, &err) < 0)
			view_error(v, "%s", err.msg);
		build_items(v);
		refill_pane(v);
		return REQ_NONE;
	}
	default:
		return req;
	}
}

/* ---- ops ---- */

static int csv_open(struct view *v, const struct view_arg *arg, struct tp_err *err)
{
	struct csv *x = v->priv;
	if (arg->model) {
		x->doc = arg->model;
		x->doc->refs++;
		x->pane = true;
		return csv_pane_fill(v, (enum csv_mode)arg->index, (size_t)(arg->line > 0 ? arg->line : 0), err);
	}
	if (!arg->path && !arg->run) {
		tp_err_set(err, TP_EXIT_USAGE, "changeset view: no repository or run given");
		return -1;
	}
	struct csv_doc *d = xcalloc(1, sizeof(*d));
	d->refs = 1;
	x->doc = d;
	if (arg->run) {
		d->plan = true;
		d->run = run_model_ref(arg->run);
	} else {
		d->dir = xstrdup(arg->path);
		d->rev = arg->name ? xstrdup(arg->name) : NULL;
	}
	if (doc_load(d, err) < 0)
		return -1; /* csv_done frees the document */
	const struct changeset *cs = csv_cs(d);
	v->ref = changeset_ref(cs);
	build_items(v);
	/* Start on the first file; its diff opens below once on screen. */
	for (size_t i = 0; i < x->nitems; i++)
		if (x->items[i].kind == CI_FILE) {
			v->lineno = i;
			break;
		}
	x->pane_pending = cs->nfiles > 0;
	v->loading = x->pane_pending;
	return 0;
}

static bool csv_pump(struct view *v, int64_t budget_ms)
{
	(void)budget_ms;
	struct csv *x = v->priv;
	if (x->pane_pending) {
		x->pane_pending = false;
		follow_selection(v);
	}
	return false;
}

static void csv_select(struct view *v)
{
	struct csv *x = v->priv;
	if (!x->pane && !x->pane_pending)
		follow_selection(v);
}

/* The commit: id, subject, author and date (the title says the state). */
static bool csv_header(struct view *v, struct line_out *out)
{
	struct csv *x = v->priv;
	if (x->pane)
		return csv_pane_header(v, out);
	const struct changeset *cs = csv_cs(x->doc);
	lo_reset(out, LINE_HEADER);
	lo_addf(out, LINE_HEADER, "%.7s ", cs->commit);
	lo_adds(out, LINE_HEADER, cs->subject ? cs->subject : "");
	if (x->doc->plan) {
		lo_addf(out, LINE_DIM, "  dry run on %.7s: nothing written", *cs->parent ? cs->parent : "(no parent)");
		return true;
	}
	char when[32];
	time_t t = (time_t)cs->time;
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
	lo_addf(out, LINE_DIM, "  %s  %s", cs->author ? cs->author : "?", when);
	return true;
}

static void csv_title(struct view *v, struct sbuf *out)
{
	struct csv *x = v->priv;
	if (x->pane)
		return;
	const struct changeset *cs = csv_cs(x->doc);
	const struct cs_package_result *r = &x->doc->res;
	if (x->doc->plan && r->needs_reason && strv_len(r->problems) == 1)
		sb_adds(out, "dry run: p accepts by hand and commits");
	else if (x->doc->plan && r->problems)
		sb_printf(out, "dry run: refused (%zu)", strv_len(r->problems));
	else if (x->doc->plan)
		sb_adds(out, "dry run: p commits");
	else if (cs->nfailed)
		sb_printf(out, "%d of %d checks fail", cs->nfailed, CS_SHAPE__COUNT);
	else
		sb_printf(out, "all %d checks pass", CS_SHAPE__COUNT);
}

static void csv_done(struct view *v)
{
	struct csv *x = v->priv;
	clear_items(x);
	csv_pane_free(x);
	doc_unref(x->doc);
}

const struct view_ops changeset_view_ops = {
	.type = "changeset",
	.private_size = sizeof(struct csv),
	.open = csv_open,
	.line = csv_line,
	.request = csv_request,
	.select = csv_select,
	.header = csv_header,
	.title = csv_title,
	.pump = csv_pump,
	.done = csv_done,
};
