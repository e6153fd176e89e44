/* validate_entry_pattern.sh: the #[cutile::entry] parameter forms must
 * follow the memory-op family of the structural reference IR (Rule 12):
 * view/TMA IR -> &Tensor parameters, pointer IR -> raw pointers. */
#include "engine/check/check_impl.h"

#include <stdlib.h>
#include <string.h>

enum ir_class { IR_TMA, IR_PTR, IR_MIXED, IR_UNKNOWN };

static const char *const ir_class_name[] = {"TMA", "PTR", "MIXED", "UNKNOWN"};

static enum ir_class classify_ir(const char *t)
{
	bool view = strstr(t, "load_view_tko") || strstr(t, "store_view_tko");
	bool ptr = strstr(t, "load_ptr_tko") || strstr(t, "store_ptr_tko");
	return view && ptr ? IR_MIXED : view ? IR_TMA : ptr ? IR_PTR : IR_UNKNOWN;
}

/* A raw pointer to a primitive type beside &Tensor parameters (an f32 rstd
 * or mean output) does not make the entry mixed: the reference's check
 * looks for `*mut E` only, and what that output's stores lower to is the
 * IR diff's to judge (validators.md). For pointer IR any raw pointer counts. */
static bool any_ptr(const struct rs_entry *e)
{
	return e->ptr || e->prim_ptr;
}

static const char *entry_class(const struct rs_entry *e)
{
	if (e->tensor && e->ptr)
		return "mixed";
	if (e->tensor)
		return e->prim_ptr ? "tensor, plus a raw pointer to a primitive type" : "tensor";
	return any_ptr(e) ? "ptr" : "unknown";
}

static bool has_token(const char *name, const char *tok)
{
	size_t n = strlen(tok);
	for (const char *p = name; (p = strstr(p, tok)) != NULL; p++) {
		bool start = p == name || p[-1] == '_';
		bool end = p[n] == '\0' || p[n] == '_';
		if (start && end)
			return true;
	}
	return false;
}

/* Does entry `name` serve `variant`? The full variant string, all of its
 * '_'-separated tokens, or its initials (for two or more tokens, as a whole
 * '_'-token of the name, so that "sp" does not match "transpose"). */
static bool variant_matches(const char *name, const char *variant)
{
	if (strstr(name, variant))
		return true;
	size_t n;
	char **toks = str_split(variant, '_', false, &n);
	bool all = n > 0;
	char initials[64];
	size_t ni = 0;
	for (size_t i = 0; i < n; i++) {
		all &= strstr(name, toks[i]) != NULL;
		if (ni + 1 < sizeof(initials))
			initials[ni++] = toks[i][0];
	}
	initials[ni] = '\0';
	bool hit = all || (n >= 2 && has_token(name, initials));
	strv_free(toks);
	return hit;
}

/* The same name, leading underscores aside (reference__k.mlir names `_k`). */
static bool same_name(const char *entry, const char *variant)
{
	while (*entry == '_')
		entry++;
	while (*variant == '_')
		variant++;
	return strcmp(entry, variant) == 0;
}

static void match_entry(struct ck *k, const char *rule, const char *kfile,
			const struct ck_ir *ir, enum ir_class c, const struct rs_entry *e)
{
	bool ok;
	enum check_sev bad = CHECK_FAIL;
	const char *want;
	switch (c) {
	case IR_TMA:
		ok = e->tensor && !e->ptr;
		want = "&Tensor<E,{[-1,..]}> parameters (outputs through partition_full_mut + "
		       "store_view_tko_mut)";
		break;
	case IR_PTR:
		ok = any_ptr(e) && !e->tensor;
		want = "raw *mut E parameters";
		break;
	case IR_MIXED:
		ok = any_ptr(e) && e->tensor;
		want = "&Tensor parameters plus raw pointers for the pointer-addressed arrays";
		if (any_ptr(e) || e->tensor)
			bad = CHECK_WARN;
		break;
	default:
		return;
	}
	if (ok)
		ck_add(k, CHECK_PASS, 0, rule, kfile, e->line, "entry %s (%s) matches %s IR %s",
		       e->name, entry_class(e), ir_class_name[c], tx_basename(ir->path));
	else
		ck_add(k, bad, 0, rule, kfile, e->line,
		       "entry %s has %s parameters but %s is %s IR: use %s (Rule 12)", e->name,
		       entry_class(e), tx_basename(ir->path), ir_class_name[c], want);
}

enum check_sev ck_nested_entry_pattern(struct ck *k, const char *rule)
{
	size_t from = k->r->nfindings;
#define R(own) (rule ? rule : own)
	const char *kfile = ck_out(k, "kernel.rs");
	const struct ck_file *kr = ck_load(k, kfile);
	struct ck_ir *irs;
	size_t nirs = ck_structural_irs(k, &irs);
	if (nirs == 0)
		ck_add(k, CHECK_FAIL, CHECK_STEP_REFERENCE_IR, R("entry-pattern.reference-ir"),
		       ck_out(k, "reference"), 0,
		       "no structural reference IR (reference/reference.mlir or reference_*.mlir)");
	if (!ck_nonempty(kr)) {
		/* nested in agent-b, whose own kernel-rs check already says so */
		if (!rule)
			ck_add(k, CHECK_FAIL, 0, "entry-pattern.kernel-rs", kfile, 0, "kernel.rs %s",
			       kr->exists ? "is empty" : "not found");
		return ck_verdict_since(k, from);
	}
	struct rs_entry *ents;
	size_t nents = rs_entries(kr->data, kr->len, &ents);
	if (nents == 0)
		ck_add(k, CHECK_FAIL, 0, R("entry-pattern.entries"), kfile, 0,
		       "no #[cutile::entry()] function");
	for (size_t i = 0; i < nents; i++)
		ck_add(k, CHECK_INFO, 0, R("entry-pattern.entries"), kfile, ents[i].line,
		       "entry %s: %s parameters", ents[i].name, entry_class(&ents[i]));
	for (size_t i = 0; i < nirs && nents; i++) {
		const struct ck_file *f = ck_load(k, irs[i].path);
		enum ir_class c = classify_ir(f->data ? f->data : "");
		if (c == IR_UNKNOWN) {
			ck_add(k, CHECK_WARN, 0, R("entry-pattern.ir-class"), irs[i].path, 0,
			       "neither view/TMA nor pointer loads or stores: cannot check the entry "
			       "pattern");
			continue;
		}
		ck_add(k, CHECK_INFO, 0, R("entry-pattern.ir-class"), irs[i].path, 0, "%s IR",
		       ir_class_name[c]);
		if (nirs == 1) {
			for (size_t e = 0; e < nents; e++)
				match_entry(k, R("entry-pattern.match"), kfile, &irs[i], c, &ents[e]);
			continue;
		}
		/* an entry named exactly after the variant is its entry; the looser
		 * token match would also pair `_fmha_bwd_dkdv_kernel` with the IR of
		 * `fmha_kernel` */
		bool exact = false;
		for (size_t e = 0; e < nents; e++)
			exact |= same_name(ents[e].name, irs[i].variant);
		size_t found = 0;
		for (size_t e = 0; e < nents; e++) {
			if (exact ? !same_name(ents[e].name, irs[i].variant)
				  : !variant_matches(ents[e].name, irs[i].variant))
				continue;
			found++;
			match_entry(k, R("entry-pattern.match"), kfile, &irs[i], c, &ents[e]);
		}
		if (!found)
			ck_add(k, CHECK_FAIL, 0, R("entry-pattern.variant"), kfile, 0,
			       "NOT_FOUND: no entry for variant '%s' (%s); name it after the variant",
			       irs[i].variant, tx_basename(irs[i].path));
	}
	rs_entries_free(ents, nents);
#undef R
	return ck_verdict_since(k, from);
}

int check_entry_pattern(const struct check_ctx *ctx, struct check_report *r, struct tp_err *err)
{
	char *out = check_ctx_run_dir(ctx);
	if (!out) {
		tp_err_set(err, TP_EXIT_ENV, "entry-pattern: CUTILE_KERNEL_OUT_ROOT and a kernel name "
					     "(or --run DIR) are required");
		return -1;
	}
	free(out);
	struct ck k;
	ck_begin(&k, ctx, r, "entry-pattern", ctx->kernel ? ctx->kernel : "");
	enum check_sev v = ck_nested_entry_pattern(&k, NULL);
	/* with the reference IR deferred nothing was compared: no "matches" */
	return ck_end(&k, v == CHECK_FAIL
				  ? "FAIL_FIXABLE: entry pattern mismatch with the structural reference "
				    "IR.\n  fix: view/TMA IR -> read-only &Tensor<E,{[-1,..]}> inputs and "
				    "outputs, outputs written via partition_full_mut + "
				    "store_view_tko_mut;\n       pointer IR -> raw *mut E; descriptor "
				    "arrays -> raw pointers for those arrays only (Rule 12)."
			  : v == CHECK_DEFERRED
				  ? "DEFERRED: entry pattern not compared yet: no structural reference IR "
				    "until the toolchain dumps it (reference-ir)"
				  : "OK: entry pattern matches structural reference IR");
}
