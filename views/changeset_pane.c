/* The changeset view's lower pane: the selected file's diff or the IR
 * findings the note carries (its bench rows open the benchmark view, the
 * reference beside kernel.rs the source view, instead). */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views/changeset_int.h"

static const cJSON *note_part(const struct csv *x, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(csv_cs(x->doc)->note, key);
}

void csv_pane_free(struct csv *x)
{
	free(x->lines);
	x->lines = NULL;
	x->n = 0;
}

static int fill_diff(struct csv *x, size_t file, struct tp_err *err)
{
	const struct changeset *cs = csv_cs(x->doc);
	if (file >= cs->nfiles) {
		tp_err_set(err, TP_EXIT_USAGE, "The changeset has no files");
		return -1;
	}
	x->file = file;
	x->text = cs->files[file].patch ? cs->files[file].patch : "";
	size_t cap = 0;
	for (const char *p = x->text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		x->lines = xgrow(x->lines, &cap, x->n + 1, sizeof(*x->lines));
		x->lines[x->n++] = (struct csv_text){(uint32_t)(p - x->text), (uint32_t)len};
		p += len + (nl ? 1 : 0);
	}
	return 0;
}

static size_t ir_count(const struct csv *x, size_t *checklist)
{
	const cJSON *ir = note_part(x, "ir");
	*checklist = (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ir, "checklist"));
	return *checklist + (size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ir, "findings"));
}

static int fill_ir(struct csv *x, struct tp_err *err)
{
	if (!note_part(x, "ir")) {
		tp_err_set(err, TP_EXIT_USAGE, "%s", csv_cs(x->doc)->note
			   ? "The note has no IR findings (the run had no generated/diff_report.md)"
			   : "No note: nothing recorded about the IR");
		return -1;
	}
	size_t cl;
	x->n = ir_count(x, &cl);
	if (!x->n) {
		tp_err_set(err, TP_EXIT_USAGE, "The note's IR record has no checklist rows or findings");
		return -1;
	}
	return 0;
}

int csv_pane_fill(struct view *v, enum csv_mode mode, size_t file, struct tp_err *err)
{
	struct csv *x = v->priv;
	csv_pane_free(x);
	x->mode = mode;
	int rc = mode == CM_DIFF ? fill_diff(x, file, err) : fill_ir(x, err);
	if (rc < 0) {
		csv_pane_free(x);
		view_set_lines(v, 0);
		return -1;
	}
	const struct changeset *cs = csv_cs(x->doc);
	free(v->ref);
	const char *base = mode == CM_DIFF ? strrchr(cs->files[file].path, '/') : NULL;
	v->ref = mode == CM_DIFF ? xasprintf("diff %s", base ? base + 1 : cs->files[file].path)
				 : xstrdup("IR findings (from the note)");
	view_set_lines(v, x->n);
	view_redraw(v);
	return 0;
}

/* ---- lines ---- */

static void diff_line(const struct csv *x, size_t idx, struct line_out *out)
{
	const char *s = x->text + x->lines[idx].off;
	size_t n = x->lines[idx].len;
	enum line_type t = LINE_DEFAULT;
	if (!strncmp(s, "diff ", 5) || !strncmp(s, "--- ", 4) || !strncmp(s, "+++ ", 4) ||
	    !strncmp(s, "index ", 6) || !strncmp(s, "new file", 8) || !strncmp(s, "deleted file", 12))
		t = LINE_DIFF_HEADER;
	else if (!strncmp(s, "@@", 2))
		t = LINE_DIFF_HUNK;
	else if (n && *s == '+')
		t = LINE_DIFF_ADD;
	else if (n && *s == '-')
		t = LINE_DIFF_DEL;
	lo_reset(out, t);
	lo_add(out, t, s, n);
}

static enum line_type verdict_type(const char *v)
{
	if (!v)
		return LINE_DIM;
	if (!strcmp(v, "PASS") || !strcmp(v, "DONE") || !strcmp(v, "MATCH"))
		return LINE_VERDICT_OK;
	if (strstr(v, "FAIL") || strstr(v, "LARGE") || !strcmp(v, "DIFFERS") || !strcmp(v, "CRITICAL"))
		return LINE_VERDICT_FAIL;
	return LINE_VERDICT_WARN;
}

static void ir_line(struct view *v, size_t idx, struct line_out *out)
{
	const struct csv *x = v->priv;
	const cJSON *ir = note_part(x, "ir");
	size_t cl;
	ir_count(x, &cl);
	lo_reset(out, LINE_DEFAULT);
	if (idx < cl) {
		const cJSON *r = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(ir, "checklist"), (int)idx);
		const char *st = cs_note_str(r, "status"), *sev = cs_note_str(r, "severity");
		bool match = st && !strcasecmp(st, "MATCH");
		lo_col(out, match ? LINE_DIM : verdict_type(st), 14, ALIGN_LEFT, st ? st : "-");
		lo_col(out, verdict_type(sev), 8, ALIGN_LEFT, sev ? sev : "-");
		lo_addf(out, match ? LINE_DIM : LINE_DEFAULT, "%s: %s / %s", cs_note_or(r, "item", "?"),
			cs_note_or(r, "reference", "-"),
			cs_note_or(r, "generated", "-"));
		return;
	}
	const cJSON *f = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(ir, "findings"), (int)(idx - cl));
	const char *sev = cs_note_str(f, "severity");
	lo_col(out, LINE_LABEL, 14, ALIGN_LEFT, cs_note_or(f, "rule", "?"));
	lo_col(out, verdict_type(sev), 8, ALIGN_LEFT, sev ? sev : "-");
	lo_adds(out, LINE_DEFAULT, cs_note_or(f, "message", ""));
}

void csv_pane_line(struct view *v, size_t idx, struct line_out *out)
{
	const struct csv *x = v->priv;
	switch (x->mode) {
	case CM_DIFF:
		diff_line(x, idx, out);
		break;
	case CM_IR:
		ir_line(v, idx, out);
		break;
	}
}

bool csv_pane_header(struct view *v, struct line_out *out)
{
	const struct csv *x = v->priv;
	lo_reset(out, LINE_HEADER);
	if (x->mode == CM_DIFF) {
		const struct cs_file *f = &csv_cs(x->doc)->files[x->file];
		lo_col(out, LINE_HEADER, 8, ALIGN_LEFT, cs_role_name(f->role));
		lo_addf(out, LINE_HEADER, "%c +%zu -%zu  ", f->status, f->added, f->deleted);
		lo_adds(out, LINE_DIM, cs_role_help(f->role));
		return true;
	}
	if (x->mode == CM_IR) {
		const cJSON *ir = note_part(x, "ir");
		const char *verdict = cs_note_str(ir, "verdict");
		lo_adds(out, LINE_HEADER, "IR verdict ");
		lo_adds(out, verdict_type(verdict), verdict ? verdict : "-");
		if (cs_note_str(ir, "owner"))
			lo_addf(out, LINE_HEADER, "  owner %s", cs_note_str(ir, "owner"));
		lo_addf(out, LINE_DIM, "  (%s)", cs_note_or(ir, "file", "irdiff JSON"));
		return true;
	}
	return false;
}
