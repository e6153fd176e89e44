/* diff_report.md skeleton in the reference shape (pipeline.md §1, Agent C):
 * the first line is the verdict; sections Inputs, IR Validation, Automated
 * Diff, Structural Comparison (Op | Reference | Generated | Match),
 * Checklist Diff (# | Item | Reference value | Generated value | Status |
 * Severity | Action), Root Cause Analysis, Impact Assessment (Difference |
 * Correctness impact | Performance impact | Blocking?), Verdict. What only a
 * reviewer can decide (root cause class) is left as a marked TODO. */
#include "engine/ir/irdiff.h"
#include "engine/ir/irdiff_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void md_cell(struct sbuf *o, const char *s)
{
	/* a table cell: keep it on one line and escape the column bar */
	for (; *s; s++) {
		if (*s == '|')
			sb_adds(o, "\\|");
		else if (*s == '\n')
			sb_addc(o, ' ');
		else
			sb_addc(o, *s);
	}
}

static bool count_key_op(const struct ir_op *op, int depth, void *ctx)
{
	(void)depth;
	switch (op->code) {
	case IR_OP_LOAD_PTR_TKO: case IR_OP_STORE_PTR_TKO: case IR_OP_LOAD_VIEW_TKO:
	case IR_OP_STORE_VIEW_TKO: case IR_OP_MMAF: case IR_OP_REDUCE:
	case IR_OP_MAKE_PARTITION_VIEW:
		++*(int *)ctx;
		break;
	default:
		break;
	}
	return true;
}

/* The ops validate_ir.sh calls key ops (irdiff.h). */
int irdiff_key_ops(const struct ir_module *m)
{
	int n = 0;
	for (uint32_t e = 0; e < m->nentries; e++)
		ir_walk(m->entries[e], count_key_op, &n);
	return n;
}

static void validation_row(struct sbuf *o, const char *label, const struct ir_module *m)
{
	sb_printf(o, "| %s | yes | ", label);
	for (uint32_t i = 0; i < m->nentries; i++)
		sb_printf(o, "%s@%s", i ? ", " : "", ir_symbol_name(m->entries[i]));
	bool hints = false;
	for (uint32_t i = 0; i < m->nentries; i++)
		hints |= ir_op_has(m->entries[i], "optimization_hints");
	sb_printf(o, " | %s | %d |\n", hints ? "present" : "WARN: missing", irdiff_key_ops(m));
}

/* Worst severity among findings of the entry whose rule is in `rules`. */
static int worst(const struct irdiff_result *r, int entry, const char *const *rules)
{
	size_t n;
	const struct irdiff_finding *f = irdiff_entry_findings(r, entry, &n);
	int w = -1;
	for (size_t i = 0; i < n; i++)
		for (const char *const *k = rules; *k; k++)
			if (strcmp(f[i].rule, *k) == 0 && f[i].severity <= IRDIFF_WARN &&
			    (w < 0 || (int)f[i].severity < w))
				w = (int)f[i].severity;
	return w;
}

static const char *count_of(const struct irdiff_entry *e, const char *op, bool ref, char *buf,
			    size_t cap)
{
	for (size_t i = 0; i < e->ncounts; i++)
		if (strcmp(e->counts[i].op, op) == 0) {
			snprintf(buf, cap, "%d", ref ? e->counts[i].ref : e->counts[i].gen);
			return buf;
		}
	return "-";
}

struct item {
	const char *name;
	const char *rules[5];
	const char *op; /* a count to show, or NULL */
};

static const struct item checklist[] = {
	{"entry optimization_hints (num_cta_in_cga, occupancy)", {"hint-occupancy", "hint-num-cta-in-cga", "hint-arch"}, NULL},
	{"strides=[?,1] and layout (strides, tile, dim_map)", {"layout-multiset", "layout-gate"}, NULL},
	{"tile shapes (partition tiles BMxBK, BKxBN, BMxBN)", {"tile-shapes"}, NULL},
	{"f32 accumulator (MMA accumulator dtype)", {"mma-acc-type"}, "mma"},
	{"mmaf operand types", {"mma-operand-types"}, "mma"},
	{"token count (one shared make_token)", {"token-count"}, NULL},
	{"for loop step and bounds", {"for-step", "loop-hoist", "loop-sink", "loop-split"}, "for"},
	{"padding_value and masks", {"padding-value", "mask-dropped", "mask-added", "padding-dropped"}, NULL},
	{"reduce identities and axes", {"reduce-identities", "reduce-axis"}, "reduce"},
	{"flush_to_zero / rounding<approx> (FTZ)", {"ftz", "approx", "rounding-count"}, NULL},
	{"assume div_by on pointers", {"assume-ptr-div-by"}, NULL},
	{"scalar assume div_by", {"assume-scalar-div-by"}, NULL},
	{"TMA / latency hints on loads and stores", {"allow-tma", "latency"}, NULL},
	{"memory-op family and op counts", {"op-count", "op-count-arith"}, "load_view_tko"},
	{"block swizzle (L2 locality)", {"block-swizzle"}, NULL},
	{"bf16 use", {"bf16"}, NULL},
};

static void entry_sections(const struct irdiff_result *r, int ei, struct sbuf *o, int section)
{
	const struct irdiff_entry *e = &r->entries[ei];
	sb_printf(o, "\n### @%s vs @%s\n\n", e->ref_name ? e->ref_name : "(none)",
		  e->gen_name ? e->gen_name : "(none)");
	char a[16], b[16];
	if (section == 0) {
		sb_adds(o, "| Op | Reference | Generated | Match |\n|---|---|---|---|\n");
		for (size_t i = 0; i < e->ncounts; i++) {
			const struct irdiff_count *c = &e->counts[i];
			if (!c->ref && !c->gen)
				continue;
			sb_printf(o, "| %s | %d | %d | %s |\n", c->op, c->ref, c->gen,
				  c->ref == c->gen ? "MATCH" : c->gen ? "DIFFERS" : "MISSING");
		}
		sb_printf(o, "| aligned ops | %zu | %zu | %zu equal, %zu changed |\n",
			  e->nequal + e->nchanged + e->nref_only, e->nequal + e->nchanged + e->ngen_only,
			  e->nequal, e->nchanged);
		return;
	}
	sb_adds(o, "| # | Item | Reference value | Generated value | Status | Severity | Action |\n"
		   "|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < TP_ARRAY_LEN(checklist); i++) {
		const struct item *it = &checklist[i];
		int w = worst(r, ei, it->rules);
		const char *rv = it->op ? count_of(e, it->op, true, a, sizeof(a)) : "see findings";
		const char *gv = it->op ? count_of(e, it->op, false, b, sizeof(b)) : "see findings";
		const char *status = w < 0 ? "MATCH" : "DIFFERS";
		for (size_t k = 0; it->op && k < e->ncounts; k++) {
			const struct irdiff_count *c = &e->counts[k];
			if (strcmp(c->op, it->op) != 0 || c->ref == c->gen)
				continue;
			status = !c->gen ? "MISSING" : !c->ref ? "EXTRA" : "DIFFERS";
			int cw = strcmp(c->family, "critical") == 0 ? IRDIFF_CRITICAL : IRDIFF_WARN;
			if (w < 0 || cw < w)
				w = cw;
		}
		sb_printf(o, "| %zu | %s | %s | %s | %s | %s | %s |\n", i + 1, it->name, rv, gv,
			  status,
			  w < 0 ? "-" : irdiff_severity_name((enum irdiff_severity)w),
			  w == IRDIFF_CRITICAL ? "fix in kernel.rs (Agent B)"
			  : w == IRDIFF_WARN   ? "review; accept or fix"
					       : "-");
	}
}

static const char *impact_correctness(const char *rule)
{
	static const char *const c[] = {"op-count", "reduce-axis", "reduce-identities", "mask-dropped",
					"padding-value", "padding-dropped", "tile-shapes", "layout-gate",
					"mma-acc-type", "mma-operand-types", "entry-missing",
					"loop-hoist", "loop-sink", "ftz", "approx", NULL};
	for (const char *const *k = c; *k; k++)
		if (strcmp(*k, rule) == 0)
			return "possible";
	return "none expected";
}

void irdiff_report_markdown(const struct irdiff_result *r, const char *ref_path,
			    const char *gen_path, struct sbuf *o)
{
	const char *v = irdiff_verdict_name(r->verdict);
	sb_printf(o, "VERDICT: %s\n\n# IR diff report\n", v);
	sb_printf(o, "\n## Inputs\n\n- Reference IR: `%s`\n- Generated IR: `%s`\n"
		     "- Tool: `tileport irdiff` (%s)\n", ref_path, gen_path, r->alignment);
	sb_adds(o, "\n## IR Validation\n\n| File | cuda_tile.module | entries | optimization_hints "
		   "| key ops |\n|---|---|---|---|---|\n");
	validation_row(o, "reference", r->ref);
	validation_row(o, "generated", r->gen);
	char *vl = irdiff_verdict_line(r);
	sb_printf(o, "\n## Automated Diff\n\n`tileport irdiff %s %s` (the diff_ir.sh rule set) "
		     "exited %d:\n\n    %s\n\nFindings: CRITICAL %d, WARN %d, INFO %d, NOTE %d.\n",
		  ref_path, gen_path, irdiff_exit_code(r->verdict), vl, r->ncritical, r->nwarn,
		  r->ninfo, r->nnote);
	free(vl);
	sb_adds(o, "\n## Structural Comparison\n");
	for (size_t i = 0; i < r->nentries; i++)
		entry_sections(r, (int)i, o, 0);
	sb_adds(o, "\n## Checklist Diff\n");
	for (size_t i = 0; i < r->nentries; i++)
		entry_sections(r, (int)i, o, 1);
	sb_adds(o, "\n## Root Cause Analysis\n\n");
	size_t shown = 0;
	for (size_t i = 0; i < r->nfindings; i++) {
		const struct irdiff_finding *f = &r->findings[i];
		if (f->severity > IRDIFF_WARN)
			continue;
		sb_printf(o, "- **%s** `%s` (reference lines %u-%u, generated lines %u-%u): %s. "
			     "Class: _TODO: user_code | dsl_limitation | compiler_bug | "
			     "semantic_equiv_\n", irdiff_severity_name(f->severity), f->rule,
			  f->ref_first, f->ref_last ? f->ref_last : f->ref_first, f->gen_first,
			  f->gen_last ? f->gen_last : f->gen_first, f->message);
		shown++;
	}
	if (!shown)
		sb_adds(o, "No structural difference between the reference and the generated IR "
			   "(no class applies: user_code | dsl_limitation | compiler_bug | "
			   "semantic_equiv).\n");
	sb_adds(o, "\n## Impact Assessment\n\n| Difference | Correctness impact | Performance impact "
		   "| Blocking? |\n|---|---|---|---|\n");
	for (size_t i = 0; i < r->nfindings; i++) {
		const struct irdiff_finding *f = &r->findings[i];
		if (f->severity > IRDIFF_WARN)
			continue;
		sb_printf(o, "| %s: ", f->rule);
		md_cell(o, f->message);
		sb_printf(o, " | %s | possible | %s |\n", impact_correctness(f->rule),
			  f->severity == IRDIFF_CRITICAL ? "yes" : "no");
	}
	if (!shown)
		sb_adds(o, "| none | none | none | no |\n");
	sb_printf(o, "\n## Verdict\n\nVERDICT: %s\n", v);
	if (r->verdict == IRDIFF_FAIL_FIXABLE) {
		sb_adds(o, "owner: kernel\n\n### Action Items\n\n");
		for (size_t i = 0; i < r->nfindings; i++)
			if (r->findings[i].severity == IRDIFF_CRITICAL)
				sb_printf(o, "- Fix in Agent B (kernel.rs): %s (`%s`)\n",
					  r->findings[i].message, r->findings[i].rule);
	} else if (r->verdict == IRDIFF_PASS_WITH_NOTES) {
		sb_adds(o, "\n### Known Gaps Accepted / Notes\n\n");
		for (size_t i = 0; i < r->nfindings; i++)
			if (r->findings[i].severity == IRDIFF_WARN)
				sb_printf(o, "- accepted: %s (`%s`)\n", r->findings[i].message,
					  r->findings[i].rule);
	}
}
