/* The op list of a lowered entry (`tileport translate --json` shows it):
 * the tile-level op each lowered op stands for, with its attributes, in
 * source order. The comparison of a translation with its source is
 * engine/sem's semantic check. */
#include "engine/port/inv.h"

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
