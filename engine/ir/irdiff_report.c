/* irdiff reports: text (the reference script's table and verdict line, plus
 * findings with line ranges) and JSON. */
#include "engine/ir/irdiff.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* printf-free padding: a report of a thousand entries has tens of
 * thousands of table lines */
static void pad(struct sbuf *o, const char *s, int width, bool left)
{
	int n = (int)strlen(s);
	if (!left)
		for (int i = n; i < width; i++)
			sb_addc(o, ' ');
	sb_add(o, s, (size_t)n);
	if (left)
		for (int i = n; i < width; i++)
			sb_addc(o, ' ');
}

static void pad_int(struct sbuf *o, int v, int width, bool sign)
{
	char buf[16], *p = buf + sizeof(buf);
	unsigned u = v < 0 ? -(unsigned)v : (unsigned)v;
	*--p = '\0';
	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	else if (sign)
		*--p = '+';
	pad(o, p, width, false);
}

static void lines(char *buf, size_t cap, uint32_t a, uint32_t b)
{
	if (!a)
		snprintf(buf, cap, "-");
	else if (!b || b == a)
		snprintf(buf, cap, "%u", a);
	else
		snprintf(buf, cap, "%u-%u", a, b);
}

static const char *kind_name(enum irdiff_row_kind k)
{
	switch (k) {
	case IRDIFF_ROW_EQUAL: return "equal";
	case IRDIFF_ROW_CHANGED: return "changed";
	case IRDIFF_ROW_REF_ONLY: return "ref-only";
	case IRDIFF_ROW_GEN_ONLY: return "gen-only";
	}
	return "?";
}

static void text_rows(const struct irdiff_entry *e, struct sbuf *o)
{
	sb_adds(o, "  aligned ops (= equal, ~ changed, - reference only, + generated only):\n");
	for (size_t i = 0; i < e->nrows; i++) {
		const struct irdiff_row *w = &e->rows[i];
		char a[24], b[24];
		lines(a, sizeof(a), w->ref.present ? w->ref.first : 0, 0);
		lines(b, sizeof(b), w->gen.present ? w->gen.first : 0, 0);
		static const char mark[] = {'=', '~', '-', '+'};
		int d = w->ref.present ? w->ref.depth : w->gen.depth;
		const char *t = w->ref.present ? w->ref.text : w->gen.text;
		if (!t)
			t = "";
		sb_printf(o, "  %c %6s %6s  %*s%s\n", mark[w->kind], a, b, 2 * d, "", t);
		if (w->kind == IRDIFF_ROW_CHANGED)
			sb_printf(o, "  %c %6s %6s  %*s%s\n", ' ', "", "", 2 * d, "",
				  w->gen.text ? w->gen.text : "");
	}
}

void irdiff_report_text(const struct irdiff_result *r, const char *ref_path, const char *gen_path,
			unsigned flags, struct sbuf *o)
{
	sb_printf(o, "irdiff: %s vs %s\n", ref_path, gen_path);
	sb_printf(o, "alignment: %s\n", r->alignment);
	for (size_t i = 0; i < r->nentries; i++) {
		const struct irdiff_entry *e = &r->entries[i];
		sb_adds(o, "\nentry @");
		sb_adds(o, e->ref_name ? e->ref_name : "(none)");
		sb_adds(o, " <-> @");
		sb_adds(o, e->gen_name ? e->gen_name : "(none)");
		sb_addc(o, '\n');
		if (e->ncounts) {
			sb_printf(o, "  %-16s %5s %5s %6s  %s\n", "Op", "Ref", "Gen", "Delta", "Verdict");
			for (size_t k = 0; k < e->ncounts; k++) {
				const struct irdiff_count *c = &e->counts[k];
				if (!c->ref && !c->gen)
					continue; /* absent on both sides: nothing to compare */
				sb_adds(o, "  ");
				pad(o, c->op, 16, true);
				sb_addc(o, ' ');
				pad_int(o, c->ref, 5, false);
				sb_addc(o, ' ');
				pad_int(o, c->gen, 5, false);
				sb_addc(o, ' ');
				pad_int(o, c->gen - c->ref, 6, true);
				sb_adds(o, "  ");
				sb_adds(o, c->verdict);
				sb_addc(o, '\n');
			}
		}
		sb_adds(o, "  rows: ");
		sb_add_uint(o, e->nequal);
		sb_adds(o, " equal, ");
		sb_add_uint(o, e->nchanged);
		sb_adds(o, " changed, ");
		sb_add_uint(o, e->nref_only);
		sb_adds(o, " reference only, ");
		sb_add_uint(o, e->ngen_only);
		sb_adds(o, " generated only\n");
		if (flags & IRDIFF_TEXT_ROWS)
			text_rows(e, o);
		size_t nf;
		const struct irdiff_finding *f = irdiff_entry_findings(r, (int)i, &nf);
		sb_adds(o, nf ? "  findings:\n" : "  findings: none\n");
		for (size_t k = 0; k < nf; k++) {
			char a[24], b[24];
			lines(a, sizeof(a), f[k].ref_first, f[k].ref_last);
			lines(b, sizeof(b), f[k].gen_first, f[k].gen_last);
			sb_adds(o, "    ");
			pad(o, irdiff_severity_name(f[k].severity), 8, true);
			sb_addc(o, ' ');
			pad(o, f[k].rule, 20, true);
			sb_adds(o, " ref ");
			pad(o, a, 9, true);
			sb_adds(o, " gen ");
			pad(o, b, 9, true);
			sb_addc(o, ' ');
			sb_adds(o, f[k].message);
			sb_addc(o, '\n');
		}
	}
	size_t nf;
	const struct irdiff_finding *f = irdiff_entry_findings(r, -1, &nf);
	for (size_t k = 0; k < nf; k++)
		sb_printf(o, "\n%s %s: %s\n", irdiff_severity_name(f[k].severity), f[k].rule,
			  f[k].message);
	char *v = irdiff_verdict_line(r);
	sb_printf(o, "\n%s\n", v);
	free(v);
}

static cJSON *range(uint32_t a, uint32_t b)
{
	cJSON *r = cJSON_CreateArray();
	cJSON_AddItemToArray(r, cJSON_CreateNumber(a));
	cJSON_AddItemToArray(r, cJSON_CreateNumber(b ? b : a));
	return r;
}

static cJSON *finding_json(const struct irdiff_finding *f)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "rule", f->rule);
	cJSON_AddStringToObject(o, "severity", irdiff_severity_name(f->severity));
	cJSON_AddItemToObject(o, "ref_lines", range(f->ref_first, f->ref_last));
	cJSON_AddItemToObject(o, "gen_lines", range(f->gen_first, f->gen_last));
	cJSON_AddStringToObject(o, "message", f->message);
	if (f->row >= 0)
		cJSON_AddNumberToObject(o, "row", f->row);
	return o;
}

static cJSON *side_json(const struct irdiff_side *s)
{
	if (!s->present)
		return cJSON_CreateNull();
	cJSON *o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "lines", range(s->first, s->last));
	if (s->text)
		cJSON_AddStringToObject(o, "text", s->text);
	cJSON_AddNumberToObject(o, "depth", s->depth);
	return o;
}

struct cJSON *irdiff_report_json(const struct irdiff_result *r, const char *ref_path,
				 const char *gen_path, bool with_rows)
{
	cJSON *root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "verdict", irdiff_verdict_name(r->verdict));
	cJSON_AddNumberToObject(root, "exit_code", irdiff_exit_code(r->verdict));
	cJSON_AddStringToObject(root, "ref", ref_path);
	cJSON_AddStringToObject(root, "gen", gen_path);
	cJSON_AddStringToObject(root, "alignment", r->alignment);
	cJSON *cnt = cJSON_AddObjectToObject(root, "counts");
	cJSON_AddNumberToObject(cnt, "critical", r->ncritical);
	cJSON_AddNumberToObject(cnt, "warn", r->nwarn);
	cJSON_AddNumberToObject(cnt, "info", r->ninfo);
	cJSON_AddNumberToObject(cnt, "note", r->nnote);
	cJSON *ents = cJSON_AddArrayToObject(root, "entries");
	for (size_t i = 0; i < r->nentries; i++) {
		const struct irdiff_entry *e = &r->entries[i];
		cJSON *o = cJSON_CreateObject();
		cJSON_AddItemToObject(o, "ref", e->ref_name ? cJSON_CreateString(e->ref_name)
							    : cJSON_CreateNull());
		cJSON_AddItemToObject(o, "gen", e->gen_name ? cJSON_CreateString(e->gen_name)
							    : cJSON_CreateNull());
		cJSON *ops = cJSON_AddArrayToObject(o, "ops");
		for (size_t k = 0; k < e->ncounts; k++) {
			cJSON *c = cJSON_CreateObject();
			cJSON_AddStringToObject(c, "op", e->counts[k].op);
			cJSON_AddStringToObject(c, "family", e->counts[k].family);
			cJSON_AddNumberToObject(c, "ref", e->counts[k].ref);
			cJSON_AddNumberToObject(c, "gen", e->counts[k].gen);
			cJSON_AddNumberToObject(c, "delta", e->counts[k].gen - e->counts[k].ref);
			cJSON_AddStringToObject(c, "verdict", e->counts[k].verdict);
			cJSON_AddItemToArray(ops, c);
		}
		cJSON *rs = cJSON_AddObjectToObject(o, "rows");
		cJSON_AddNumberToObject(rs, "equal", (double)e->nequal);
		cJSON_AddNumberToObject(rs, "changed", (double)e->nchanged);
		cJSON_AddNumberToObject(rs, "ref_only", (double)e->nref_only);
		cJSON_AddNumberToObject(rs, "gen_only", (double)e->ngen_only);
		if (with_rows) {
			cJSON *al = cJSON_AddArrayToObject(o, "aligned");
			for (size_t k = 0; k < e->nrows; k++) {
				cJSON *w = cJSON_CreateObject();
				cJSON_AddStringToObject(w, "kind", kind_name(e->rows[k].kind));
				cJSON_AddItemToObject(w, "ref", side_json(&e->rows[k].ref));
				cJSON_AddItemToObject(w, "gen", side_json(&e->rows[k].gen));
				cJSON_AddItemToArray(al, w);
			}
		}
		cJSON *fs = cJSON_AddArrayToObject(o, "findings");
		size_t nf;
		const struct irdiff_finding *f = irdiff_entry_findings(r, (int)i, &nf);
		for (size_t k = 0; k < nf; k++)
			cJSON_AddItemToArray(fs, finding_json(&f[k]));
		cJSON_AddItemToArray(ents, o);
	}
	cJSON *mf = cJSON_AddArrayToObject(root, "findings");
	size_t nf;
	const struct irdiff_finding *f = irdiff_entry_findings(r, -1, &nf);
	for (size_t k = 0; k < nf; k++)
		cJSON_AddItemToArray(mf, finding_json(&f[k]));
	return root;
}
