/* Const generics the host computes. A tile dimension written as
 * arithmetic of Constants (`shape=(1, N * N)`) has no Rust spelling: a
 * type takes no const arithmetic on stable Rust (coding rule 6, R36). The
 * rule's answer is to compute it in the host code, so the entry takes the
 * value as a const generic of its own, named for what it is
 * (`N_TIMES_N`), and the launcher passes `(n * n)` beside `n`: the C ABI
 * and the Python wrapper do not change. */
#include "engine/port/lower.h"

#include <string.h>

#define MAX_DERIVED 8

static bool ident_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (!first && c >= '0' && c <= '9');
}

/* The int Constant whose Rust name is s[0..n), or -1. */
static int const_param(const struct tkernel *k, const char *s, size_t n)
{
	for (size_t i = 0; i < k->nparams; i++) {
		const struct tparam *p = &k->params[i];
		if (p->kind == TP_CONST && p->dt != DT_BOOL && strlen(p->rs) == n && !memcmp(p->rs, s, n))
			return (int)i;
	}
	return -1;
}

static const struct tderived *derived_named(const struct tentry *e, const char *s, size_t n)
{
	for (size_t i = 0; i < e->nderived; i++)
		if (strlen(e->derived[i].name) == n && !memcmp(e->derived[i].name, s, n))
			return &e->derived[i];
	return NULL;
}

static bool name_taken(const struct tkernel *k, const struct tentry *e, const char *name)
{
	for (size_t i = 0; i < k->nparams; i++)
		if (!strcmp(k->params[i].rs, name))
			return true;
	return derived_named(e, name, strlen(name)) != NULL;
}

/* A name that starts with a number (`2 * WIDTH`): WIDTH_TIMES_2 where the
 * operator commutes and there is one, else _2_TIMES_WIDTH. */
static const char *ident_first(struct lw *lw, const char *nm)
{
	if (!(nm[0] >= '0' && nm[0] <= '9'))
		return nm;
	const char *u1 = strchr(nm, '_');
	const char *u2 = u1 ? strchr(u1 + 1, '_') : NULL;
	bool commutes = u2 && !strchr(u2 + 1, '_') && (!strncmp(u1, "_TIMES_", 7) || !strncmp(u1, "_PLUS_", 6));
	if (commutes)
		return ta_printf(lw->a, "%s%.*s_%.*s", u2 + 1, (int)(u2 - u1), u1, (int)(u1 - nm), nm);
	return ta_printf(lw->a, "_%s", nm);
}

/* The operators a launcher can compute in i32 as the kernel would. */
static const struct {
	const char *rs, *word;
} ops[] = {
	{"<<", "SHL"}, {">>", "SHR"}, {"+", "PLUS"}, {"-", "MINUS"},
	{"*", "TIMES"}, {"/", "DIV"}, {"%", "MOD"},
};

const char *lw_derived_generic(struct lw *lw, const char *rs, const struct py_node *at)
{
	struct tentry *e = lw->e;
	struct sbuf name = SBUF_INIT, expr = SBUF_INIT;
	bool ok = true, any = false;
	bool used[256] = {false};
	for (const char *p = rs; ok && *p;) {
		if (*p == ' ') {
			p++;
			continue;
		}
		size_t n = 0;
		if (ident_char(*p, true)) {
			while (ident_char(p[n], false))
				n++;
			int q = const_param(lw->k, p, n);
			const struct tderived *d = q < 0 ? derived_named(e, p, n) : NULL;
			ok = q >= 0 || d;
			if (q >= 0 && q < (int)TP_ARRAY_LEN(used))
				used[q] = true;
			sb_printf(&name, "%s%.*s", name.len ? "_" : "", (int)n, p);
			if (d)
				sb_printf(&expr, "(%s)", d->expr);
			else
				sb_add(&expr, p, n);
			any = true;
		} else if (*p >= '0' && *p <= '9') {
			while (p[n] >= '0' && p[n] <= '9')
				n++;
			sb_printf(&name, "%s%.*s", name.len ? "_" : "", (int)n, p);
			sb_add(&expr, p, n);
			if (!strncmp(p + n, "i32", 3))
				n += 3;
		} else if (*p == '(' || *p == ')') {
			sb_addc(&expr, *p);
			n = 1;
		} else {
			size_t o = 0;
			while (o < TP_ARRAY_LEN(ops) && strncmp(p, ops[o].rs, strlen(ops[o].rs)) != 0)
				o++;
			ok = o < TP_ARRAY_LEN(ops);
			if (ok) {
				n = strlen(ops[o].rs);
				sb_printf(&name, "_%s", ops[o].word);
				sb_printf(&expr, " %s ", ops[o].rs);
			}
		}
		p += n;
	}
	ok &= any && name.len > 0;
	const char *out = NULL;
	if (ok) {
		/* "(N * N)": the outer parentheses go */
		const char *x = sb_str(&expr);
		size_t xn = expr.len;
		int depth = 0;
		size_t close = 0;
		for (size_t i = 0; i < xn && x[0] == '('; i++) {
			depth += x[i] == '(' ? 1 : x[i] == ')' ? -1 : 0;
			if (depth == 0) {
				close = i;
				break;
			}
		}
		const char *ex = close == xn - 1 && xn > 1 ? ta_printf(lw->a, "%.*s", (int)xn - 2, x + 1)
							   : ta_strdup(lw->a, x);
		char *nm = ta_strdup(lw->a, sb_str(&name));
		for (char *c = nm; *c; c++)
			if (*c >= 'a' && *c <= 'z')
				*c = (char)(*c - 'a' + 'A');
		nm = (char *)ident_first(lw, nm);
		for (size_t i = 0; i < e->nderived && !out; i++)
			if (!strcmp(e->derived[i].expr, ex))
				out = e->derived[i].name;
		const char *cand = nm;
		for (int k = 2; !out && name_taken(lw->k, e, cand); k++)
			cand = ta_printf(lw->a, "%s_%d", nm, k);
		if (!out && e->nderived >= MAX_DERIVED) {
			sb_free(&name);
			sb_free(&expr);
			lw_unsupported(lw, at, "more than %d tile dimensions computed from Constants",
				       MAX_DERIVED);
		}
		if (!out) {
			if (!e->derived)
				e->derived = ta_alloc(lw->a, MAX_DERIVED * sizeof(*e->derived));
			e->derived[e->nderived++] = (struct tderived){cand, ex};
			out = cand;
		}
		for (size_t i = 0; i < lw->k->nparams && i < TP_ARRAY_LEN(used); i++)
			if (used[i])
				lw_use_param(lw, (int)i);
	}
	sb_free(&name);
	sb_free(&expr);
	return out;
}
