/* The source op inventory: the vocabulary both sides are read into, the
 * Python side from its lowered entries, and the alignment of two
 * sequences with findings in the manner of the IR diff (a missing or
 * extra memory op, mma, reduction or loop is critical; attributes that
 * change results — padding, reduce kind and axis, accumulator type, a
 * dropped mask — are critical too). */
#include "engine/port/inv.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *fn, *name, *attr;
} fn_names[] = {
	{"true_div", "div", NULL}, {"divf", "div", NULL},     {"lt_tile", "cmp", "lt"},
	{"le_tile", "cmp", "le"},  {"gt_tile", "cmp", "gt"},  {"ge_tile", "cmp", "ge"},
	{"eq_tile", "cmp", "eq"},  {"ne_tile", "cmp", "ne"},  {"remf", "rem", NULL},
	{"remi", "rem", NULL},     {"pow", "pow", NULL},      {"andi", "and", NULL},
	{"ori", "or", NULL},       {"xori", "xor", NULL},     {"shli", "shl", NULL},
	{"shri", "shr", NULL},     {"noti", "not", NULL},     {"maxf", "max", NULL},
	{"max_tile", "max", NULL}, {"minf", "min", NULL},     {"min_tile", "min", NULL},
	{"negf", "neg", NULL},     {"negi", "neg", NULL},     {"absf", "abs", NULL},
	{"absi", "abs", NULL},     {"addf", "add", NULL},     {"subf", "sub", NULL},
	{"mulf", "mul", NULL},     {"fma", "fma", NULL},      {"exp", "exp", NULL},
	{"exp2", "exp2", NULL},    {"log", "log", NULL},      {"log2", "log2", NULL},
	{"sqrt", "sqrt", NULL},    {"rsqrt", "rsqrt", NULL},  {"sin", "sin", NULL},
	{"cos", "cos", NULL},      {"tan", "tan", NULL},      {"sinh", "sinh", NULL},
	{"cosh", "cosh", NULL},    {"tanh", "tanh", NULL},    {"floor", "floor", NULL},
	{"ceil", "ceil", NULL},    {"atan2", "atan2", NULL},  {"select", "select", NULL},
	{"mulhii", "mulhi", NULL},
};

const char *inv_name_for_fn(const char *fn, const char **attr)
{
	if (attr)
		*attr = NULL;
	for (size_t i = 0; i < TP_ARRAY_LEN(fn_names); i++)
		if (strcmp(fn, fn_names[i].fn) == 0) {
			if (attr)
				*attr = fn_names[i].attr;
			return fn_names[i].name;
		}
	return NULL;
}

void inv_add(struct inv_list *l, const char *op, const char *attr, int line, int col,
	     bool implicit, int depth)
{
	l->v = xgrow(l->v, &l->cap, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = (struct inv_item){xstrdup(op), xstrdup(attr ? attr : ""), line, col, implicit,
					 depth};
}

void inv_list_free(struct inv_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].op);
		free(l->v[i].attr);
	}
	free(l->v);
	free(l->entry);
	memset(l, 0, sizeof(*l));
}

static void from_block(const struct tblock *b, struct inv_list *out, int depth)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct top *op = b->ops[i];
		if (op->inv)
			inv_add(out, op->inv, op->inv_attr, op->line, op->col, op->implicit, depth);
		if (op->body)
			from_block(op->body, out, depth + 1);
		if (op->orelse)
			from_block(op->orelse, out, depth + 1);
	}
}

void inv_from_entry(const struct tkernel *k, const struct tentry *e, struct inv_list *out)
{
	(void)k;
	memset(out, 0, sizeof(*out));
	out->entry = xstrdup(e->name);
	from_block(&e->body, out, 0);
}

/* ---- alignment ---- */

static bool critical_op(const char *op)
{
	static const char *const ops[] = {"load", "store", "gather", "scatter", "mma", "reduce",
					  "for", "exp2", "exp", "rsqrt", "fma"};
	for (size_t i = 0; i < TP_ARRAY_LEN(ops); i++)
		if (strcmp(op, ops[i]) == 0)
			return true;
	return false;
}

static bool critical_attr(const char *op)
{
	return strcmp(op, "load") == 0 || strcmp(op, "reduce") == 0 || strcmp(op, "mma") == 0 ||
	       strcmp(op, "gather") == 0 || strcmp(op, "scatter") == 0;
}

static void finding(struct inv_match *m, enum inv_sev sev, const char *rule, int py, int rs,
		    char *msg)
{
	m->findings = xrealloc(m->findings, (m->nfindings + 1) * sizeof(*m->findings));
	m->findings[m->nfindings++] = (struct inv_finding){sev, xstrdup(rule), msg, py, rs};
	if (sev == INV_CRITICAL)
		m->ncritical++;
	else if (sev == INV_WARN)
		m->nwarn++;
	else
		m->ninfo++;
}

static void pair(struct inv_match *m, size_t py, size_t rs, bool differs)
{
	m->pairs = xrealloc(m->pairs, (m->npairs + 1) * sizeof(*m->pairs));
	m->pairs[m->npairs++] = (struct inv_pair){py, rs, differs};
}

static char *describe(const struct inv_item *it)
{
	return *it->attr ? xasprintf("%s (%s)", it->op, it->attr) : xstrdup(it->op);
}

#define INV_MAX 2000

void inv_compare(const struct inv_list *py, const struct inv_list *rs, struct inv_match *out)
{
	memset(out, 0, sizeof(*out));
	size_t n = py->n < INV_MAX ? py->n : INV_MAX, m = rs->n < INV_MAX ? rs->n : INV_MAX;
	/* longest common subsequence over op names */
	uint16_t *dp = xcalloc((n + 1) * (m + 1), sizeof(*dp));
#define DP(i, j) dp[(size_t)(i) * (m + 1) + (j)]
	for (size_t i = n; i-- > 0;)
		for (size_t j = m; j-- > 0;)
			DP(i, j) = strcmp(py->v[i].op, rs->v[j].op) == 0
					   ? (uint16_t)(DP(i + 1, j + 1) + 1)
					   : (DP(i + 1, j) >= DP(i, j + 1) ? DP(i + 1, j) : DP(i, j + 1));
	size_t i = 0, j = 0;
	while (i < n || j < m) {
		if (i < n && j < m && strcmp(py->v[i].op, rs->v[j].op) == 0 &&
		    DP(i, j) == DP(i + 1, j + 1) + 1) {
			bool differs = strcmp(py->v[i].attr, rs->v[j].attr) != 0;
			pair(out, i, j, differs);
			if (differs)
				finding(out, critical_attr(py->v[i].op) ? INV_CRITICAL : INV_WARN,
					"inventory.attr", py->v[i].line, rs->v[j].line,
					xasprintf("%s: %s in the source, %s in the Rust", py->v[i].op,
						  *py->v[i].attr ? py->v[i].attr : "(none)",
						  *rs->v[j].attr ? rs->v[j].attr : "(none)"));
			i++;
			j++;
		} else if (i < n && (j >= m || DP(i + 1, j) >= DP(i, j + 1))) {
			pair(out, i, SIZE_MAX, true);
			char *d = describe(&py->v[i]);
			if (py->v[i].implicit)
				finding(out, INV_INFO, "inventory.implicit", py->v[i].line, 0,
					xasprintf("%s, which the translation adds, is not in the Rust", d));
			else
				finding(out, critical_op(py->v[i].op) ? INV_CRITICAL : INV_WARN,
					"inventory.missing", py->v[i].line, 0,
					xasprintf("%s has no counterpart in the Rust", d));
			free(d);
			i++;
		} else {
			pair(out, SIZE_MAX, j, true);
			char *d = describe(&rs->v[j]);
			finding(out, critical_op(rs->v[j].op) ? INV_CRITICAL : INV_WARN, "inventory.extra",
				0, rs->v[j].line, xasprintf("%s has no counterpart in the source", d));
			free(d);
			j++;
		}
	}
#undef DP
	free(dp);
}

void inv_match_free(struct inv_match *m)
{
	for (size_t i = 0; i < m->nfindings; i++) {
		free(m->findings[i].rule);
		free(m->findings[i].message);
	}
	free(m->findings);
	free(m->pairs);
	memset(m, 0, sizeof(*m));
}

const char *inv_sev_name(enum inv_sev s)
{
	return s == INV_CRITICAL ? "CRITICAL" : s == INV_WARN ? "WARN" : "INFO";
}
