/* Op syntax: the registry's printing templates read back (ps_format), the
 * custom directives, and the region ops (if, for, loop, reduce, scan).
 * Whitespace in templates is ignored when parsing; runs of optional parts
 * are accepted in any order. */
#include "engine/ir/ir_parse.h"

#include <string.h>

#define MAXT 64

void ps_result_range(const struct ir_op *op, uint32_t rdef, uint32_t *first, uint32_t *count)
{
	const struct ir_opdef *d = op->def;
	uint32_t taken = 0;
	for (uint32_t i = 0; i < d->nresults; i++) {
		uint32_t c;
		if (d->results[i].variadic) {
			uint32_t fixed_after = 0;
			for (uint32_t k = i + 1; k < d->nresults; k++)
				fixed_after += !d->results[k].variadic;
			c = op->nresults > taken + fixed_after ? op->nresults - taken - fixed_after : 0;
		} else {
			c = taken < op->nresults ? 1 : 0;
		}
		if (i == rdef) {
			*first = taken;
			*count = c;
			return;
		}
		taken += c;
	}
	*first = *count = 0;
}

static int result_def(const struct ir_opdef *d, const char *name, size_t len)
{
	for (uint32_t i = 0; i < d->nresults; i++)
		if (strlen(d->results[i].name) == len && memcmp(d->results[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

static int group_def(const struct ir_opdef *d, const char *name, size_t len)
{
	for (uint32_t i = 0; i < d->ngroups; i++)
		if (strlen(d->groups[i].name) == len && memcmp(d->groups[i].name, name, len) == 0)
			return (int)i;
	return -1;
}

static const struct ir_attr_def *attr_def(const struct ir_opdef *d, const char *name, size_t len)
{
	for (uint32_t i = 0; i < d->nattrs; i++)
		if (strlen(d->attrs[i].name) == len && memcmp(d->attrs[i].name, name, len) == 0)
			return &d->attrs[i];
	return NULL;
}

static bool tname_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static size_t tname(const char *s)
{
	size_t n = 0;
	while (tname_char(s[n]))
		n++;
	return n;
}

struct fstate {
	bool group_seen[16];
	bool attr_seen[16];
	/* no result names were written (`print_tko "x" -> token`): an optional
	 * result exists when its part of the template is in the input */
	bool unnamed_results;
};

static void set_result_type(struct ir_op *op, uint32_t i, const struct ir_type *t)
{
	if (i < op->nresults)
		op->results[i]->type = t;
}

static void parse_types_into(struct pstate *ps, struct ir_op *op, const char *name, size_t len,
			     bool first_only)
{
	const struct ir_opdef *d = op->def;
	int g = group_def(d, name, len);
	if (g >= 0) {
		uint32_t n = op->group_sizes[g];
		if (first_only && n)
			n = 1;
		for (uint32_t i = 0; i < n; i++) {
			if (i)
				ps_expect(ps, ",");
			ps_type(ps);
		}
		return;
	}
	int r = result_def(d, name, len);
	if (r < 0)
		ps_fail(ps, ps->p, "internal: template names '%.*s'", (int)len, name);
	uint32_t first, count;
	ps_result_range(op, (uint32_t)r, &first, &count);
	if (first_only || !d->results[r].variadic) {
		const struct ir_type *t = ps_type(ps);
		for (uint32_t i = 0; i < count; i++)
			set_result_type(op, first + i, t);
		return;
	}
	for (uint32_t i = 0; i < count; i++) {
		if (i)
			ps_expect(ps, ",");
		set_result_type(op, first + i, ps_type(ps));
	}
}

static void parse_group(struct pstate *ps, struct ir_op *op, int g)
{
	if (op->def->groups[g].card != IR_CARD_VARIADIC) {
		ir_op_add_operand(ps->m, op, (uint32_t)g, ps_value_use(ps));
		return;
	}
	if (!ps_peek(ps, '%'))
		return;
	for (;;) {
		ir_op_add_operand(ps->m, op, (uint32_t)g, ps_value_use(ps));
		const char *save = ps->p;
		if (ps_accept(ps, ",") && ps_peek(ps, '%'))
			continue;
		ps->p = save;
		return;
	}
}

/* Directives: the parts a template cannot say. */
static void directive(struct pstate *ps, struct ir_op *op, const char *name, size_t len)
{
	if (len == 3 && memcmp(name, "idx", 3) == 0) {
		/* index types: one when they all agree, else one per index */
		int g = ir_opdef_group(op->def, "index");
		uint32_t n = op->group_sizes[g];
		for (uint32_t i = 0; i < n; i++) {
			if (i && !ps_peek(ps, ','))
				break;
			ps_expect(ps, ",");
			ps_type(ps);
		}
	} else if (len == 8 && memcmp(name, "constant", 8) == 0) {
		struct dense_pending d;
		ps_dense_begin(ps, &d);
		ps_expect(ps, ":");
		const struct ir_type *t = ps_type(ps);
		ir_op_set_attr(ps->m, op, "value", ps_dense_finish(ps, &d, t));
		set_result_type(op, 0, t);
	} else if (len == 11 && memcmp(name, "tensor_view", 11) == 0) {
		ir_op_add_operand(ps->m, op, 0, ps_value_use(ps));
		static const char *const lists[] = {"shape", "strides"};
		for (uint32_t k = 0; k < 2; k++) {
			ps_expect(ps, ",");
			ps_expect(ps, lists[k]);
			ps_expect(ps, "=");
			ps_expect(ps, "[");
			if (!ps_accept(ps, "]")) {
				do {
					int64_t v;
					if (ps_peek(ps, '%'))
						ir_op_add_operand(ps->m, op, k + 1, ps_value_use(ps));
					else if (!ps_int(ps, &v))
						ps_expected(ps, "a size or a value");
				} while (ps_accept(ps, ","));
				ps_expect(ps, "]");
			}
		}
		ps_expect(ps, ":");
		const struct ir_type *t = ps_type(ps);
		if (ps_accept(ps, "->"))
			t = ps_type(ps);
		set_result_type(op, 0, t);
	} else {
		ps_fail(ps, ps->p, "internal: unknown directive $%.*s", (int)len, name);
	}
}

static void parse_seq(struct pstate *ps, struct ir_op *op, const char *s, const char *e,
		      struct fstate *st);

/* Does the input start with the first element of template piece [s, e)? */
static bool piece_starts(struct pstate *ps, struct ir_op *op, const char *s, const char *e)
{
	while (s < e && *s == ' ')
		s++;
	if (s >= e)
		return false;
	if (*s == '%')
		return ps_peek(ps, '%');
	if (*s == '^')
		return ps_peek_type(ps);
	if (*s == '#') {
		const struct ir_attr_def *a = attr_def(op->def, s + 1, tname(s + 1));
		return a && ps_attr_starts(ps, a);
	}
	char tok[32];
	size_t n;
	if (tname_char(*s)) {
		n = tname(s);
	} else if (s + 1 < e && s[0] == '-' && s[1] == '>') {
		n = 2;
	} else {
		n = 1;
	}
	if (n >= sizeof(tok))
		return false;
	memcpy(tok, s, n);
	tok[n] = '\0';
	return ps_peek_lit(ps, tok);
}

struct opt {
	const char *anchor, *body, *end;
	bool done;
};

/* Is the anchor of an optional part already known? *present says its value. */
static bool anchor_known(struct ir_op *op, const struct opt *o, struct fstate *st, bool *present)
{
	const char *a = o->anchor;
	size_t n = tname(a + 1);
	if (*a == '&' && st->unnamed_results)
		return false;
	if (*a == '&') {
		int r = result_def(op->def, a + 1, n);
		uint32_t first, count;
		ps_result_range(op, (uint32_t)r, &first, &count);
		*present = count > 0;
		return true;
	}
	if (*a == '%') {
		int g = group_def(op->def, a + 1, n);
		*present = op->group_sizes[g] > 0;
		return st->group_seen[g];
	}
	const struct ir_attr_def *ad = attr_def(op->def, a + 1, n);
	uint32_t idx = (uint32_t)(ad - op->def->attrs);
	const struct ir_attr *v = ir_op_attr(op, ad->name);
	*present = v && !ir_attr_is_default(ad, v);
	return st->attr_seen[idx];
}

static void take_opt(struct pstate *ps, struct ir_op *op, struct opt *o, struct fstate *st)
{
	if (o->anchor[0] == '&')
		ir_op_add_result(ps->m, op, NULL);
	parse_seq(ps, op, o->body, o->end, st);
	if (o->anchor[0] == '#') {
		const struct ir_attr_def *ad = attr_def(op->def, o->anchor + 1, tname(o->anchor + 1));
		if (ad->spec == IR_AK_UNIT)
			ir_op_set_attr(ps->m, op, ad->name, ir_attr_unit(ps->m));
		st->attr_seen[ad - op->def->attrs] = true;
	}
	o->done = true;
}

static const char *opt_run(struct pstate *ps, struct ir_op *op, const char *s, const char *e,
			   struct fstate *st)
{
	struct opt run[8];
	int n = 0;
	while (s < e && *s == '{' && n < 8) {
		const char *close = memchr(s, '}', (size_t)(e - s));
		const char *colon = memchr(s, ':', (size_t)(close - s));
		if (!close || !colon)
			ps_fail(ps, ps->p, "internal: bad template for %s", op->def->name);
		run[n++] = (struct opt){s + 1, colon + 1, close, false};
		s = close + 1;
		const char *t = s;
		while (t < e && *t == ' ')
			t++;
		if (t < e && *t == '{')
			s = t;
	}
	int i = 0;
	while (i < n) {
		bool present;
		if (anchor_known(op, &run[i], st, &present)) {
			if (present)
				parse_seq(ps, op, run[i].body, run[i].end, st);
			run[i].done = true;
			i++;
			continue;
		}
		/* a stretch of undecided parts: take whichever the input starts with */
		int j = i;
		while (j < n && !anchor_known(op, &run[j], st, &present))
			j++;
		for (bool progress = true; progress;) {
			progress = false;
			for (int k = i; k < j; k++)
				if (!run[k].done && piece_starts(ps, op, run[k].body, run[k].end)) {
					take_opt(ps, op, &run[k], st);
					progress = true;
					break;
				}
		}
		for (int k = i; k < j; k++) {
			const char *an = run[k].anchor;
			if (an[0] == '#') {
				const struct ir_attr_def *ad = attr_def(op->def, an + 1, tname(an + 1));
				st->attr_seen[ad - op->def->attrs] = true;
			} else if (an[0] == '%') {
				st->group_seen[group_def(op->def, an + 1, tname(an + 1))] = true;
			}
			run[k].done = true;
		}
		i = j;
	}
	return s;
}

static void parse_seq(struct pstate *ps, struct ir_op *op, const char *s, const char *e,
		      struct fstate *st)
{
	const struct ir_opdef *d = op->def;
	while (s < e) {
		char c = *s;
		if (c == ' ') {
			s++;
		} else if (c == '{') {
			s = opt_run(ps, op, s, e, st);
		} else if (c == '%') {
			size_t n = tname(s + 1);
			int g = group_def(d, s + 1, n);
			if (g < 0)
				ps_fail(ps, ps->p, "internal: template group %.*s", (int)n, s + 1);
			parse_group(ps, op, g);
			st->group_seen[g] = true;
			s += 1 + n;
		} else if (c == '^') {
			size_t n = tname(s + 1);
			bool first = s[1 + n] == '.' && s[2 + n] == '0';
			parse_types_into(ps, op, s + 1, n, first);
			s += 1 + n + (first ? 2 : 0);
		} else if (c == '#') {
			size_t n = tname(s + 1);
			const struct ir_attr_def *ad = attr_def(d, s + 1, n);
			if (!ad)
				ps_fail(ps, ps->p, "internal: template attribute %.*s", (int)n, s + 1);
			const struct ir_attr *a = ps_attr_spec(ps, ad);
			if (a)
				ir_op_set_attr(ps->m, op, ad->name, a);
			st->attr_seen[ad - d->attrs] = true;
			s += 1 + n;
		} else if (c == '$') {
			size_t n = tname(s + 1);
			directive(ps, op, s + 1, n);
			s += 1 + n;
		} else {
			char tok[32];
			size_t n = tname_char(c) ? tname(s) : (c == '-' && s[1] == '>') ? 2 : 1;
			if (n >= sizeof(tok))
				n = sizeof(tok) - 1;
			memcpy(tok, s, n);
			tok[n] = '\0';
			ps_expect(ps, tok);
			s += n;
		}
	}
}

static void infer_result_types(struct pstate *ps, struct ir_op *op)
{
	const struct ir_opdef *d = op->def;
	for (uint32_t r = 0; r < d->nresults; r++) {
		uint32_t first, count;
		ps_result_range(op, r, &first, &count);
		for (uint32_t i = first; i < first + count; i++) {
			if (op->results[i]->type)
				continue;
			int from = d->results[r].type_from;
			if (from >= 0) {
				struct ir_value *v = ir_op_group_value(op, d->groups[from].name);
				op->results[i]->type = v ? v->type : NULL;
			} else if (from == -2 && op->nresults) {
				op->results[i]->type = op->results[0]->type;
			}
			if (!op->results[i]->type)
				ps_fail(ps, ps->op_start, "cannot tell the type of result %u of %s", i,
					d->name);
		}
	}
}

/* Results the source names must fit the op; with none named, the op gets
 * its required results (MLIR lets a line leave unused results unnamed). */
static void check_result_count(struct pstate *ps, struct ir_op *op, struct fstate *st)
{
	const struct ir_opdef *d = op->def;
	uint32_t need = 0, opt = 0;
	bool variadic = false;
	for (uint32_t i = 0; i < d->nresults; i++) {
		if (d->results[i].variadic)
			variadic = true;
		else if (d->results[i].since > d->since)
			opt++;
		else
			need++;
	}
	if (op->nresults == 0 && !variadic) {
		for (uint32_t i = 0; i < need; i++)
			ir_op_add_result(ps->m, op, NULL);
		st->unnamed_results = opt > 0;
		return;
	}
	if (op->nresults < need || (!variadic && op->nresults > need + opt))
		ps_fail(ps, ps->op_start, "'%s' has %u result%s, the source names %u", d->name,
			need, need == 1 ? "" : "s", op->nresults);
}

void ps_format(struct pstate *ps, struct ir_op *op, const char *fmt)
{
	struct fstate st;
	memset(&st, 0, sizeof(st));
	check_result_count(ps, op, &st);
	parse_seq(ps, op, fmt, fmt + strlen(fmt), &st);
	infer_result_types(ps, op);
}

/* ---- region ops ---- */

void ps_block_braced(struct pstate *ps, struct ir_block *b, int implicit_term)
{
	ps_expect(ps, "{");
	ps_block_body(ps, b);
	uint32_t col;
	ps_linecol(ps, ps->p, &ps->close_line, &col);
	ps_expect(ps, "}");
	if (implicit_term >= 0 && (!b->nops || !b->ops[b->nops - 1]->def->terminator)) {
		struct ir_op *t = ir_op_new_code(ps->m, implicit_term);
		ir_block_append(ps->m, b, t);
	}
}

/* Make the op's results match a count the syntax gives. */
static void want_results(struct pstate *ps, struct ir_op *op, uint32_t n)
{
	if (op->nresults == 0)
		for (uint32_t i = 0; i < n; i++)
			ir_op_add_result(ps->m, op, NULL);
	if (op->nresults != n)
		ps_fail(ps, ps->op_start, "'%s' has %u results, the source names %u", op->def->name,
			n, op->nresults);
}

static uint32_t type_list(struct pstate *ps, const struct ir_type **t, uint32_t cap)
{
	uint32_t n = 0;
	do {
		if (n == cap)
			ps_fail(ps, ps->p, "too many types");
		t[n++] = ps_type(ps);
	} while (ps_accept(ps, ","));
	return n;
}

/* "(%a = %init, ...)" after iter_values: names and inits. */
static uint32_t iter_values(struct pstate *ps, struct ir_op *op, uint32_t group,
			    const char **names, uint32_t *lens)
{
	uint32_t n = 0;
	ps_expect(ps, "(");
	if (ps_accept(ps, ")"))
		return 0;
	do {
		if (n == MAXT)
			ps_fail(ps, ps->p, "too many iteration values");
		lens[n] = ps_value_def(ps, &names[n]);
		ps_expect(ps, "=");
		ir_op_add_operand(ps->m, op, group, ps_value_use(ps));
		n++;
	} while (ps_accept(ps, ","));
	ps_expect(ps, ")");
	return n;
}

static void body_with_args(struct pstate *ps, struct ir_op *op, uint32_t nargs,
			   const struct ir_type **types, const char **names, const uint32_t *lens,
			   int implicit)
{
	struct ir_block *b = ir_region_add_block(ps->m, ir_op_add_region(ps->m, op));
	struct pmark mk = ps_scope_push(ps);
	for (uint32_t i = 0; i < nargs; i++) {
		struct ir_value *v = ir_block_add_arg(ps->m, b, types[i]);
		ps_bind(ps, names[i], lens[i], 1, &b->args[v->index]);
	}
	ps_block_braced(ps, b, implicit);
	ps_scope_pop(ps, mk);
}

static void parse_for(struct pstate *ps, struct ir_op *op)
{
	const char *names[MAXT + 1];
	uint32_t lens[MAXT + 1];
	const struct ir_type *types[MAXT + 1];
	if (ps_accept(ps, "unsigned"))
		ir_op_set_attr(ps->m, op, "unsignedCmp", ir_attr_unit(ps->m));
	lens[0] = ps_value_def(ps, &names[0]);
	ps_expect(ps, "in");
	ps_expect(ps, "(");
	ir_op_add_operand(ps->m, op, 0, ps_value_use(ps));
	ps_expect(ps, "to");
	ir_op_add_operand(ps->m, op, 1, ps_value_use(ps));
	ps_expect(ps, ",");
	ps_expect(ps, "step");
	ir_op_add_operand(ps->m, op, 2, ps_value_use(ps));
	ps_expect(ps, ")");
	ps_expect(ps, ":");
	types[0] = ps_type(ps);
	uint32_t n = 0;
	if (ps_accept(ps, "iter_values")) {
		n = iter_values(ps, op, 3, names + 1, lens + 1);
		ps_expect(ps, "->");
		ps_expect(ps, "(");
		uint32_t k = type_list(ps, types + 1, MAXT);
		ps_expect(ps, ")");
		if (k != n)
			ps_fail(ps, ps->p, "for has %u iteration values but %u result types", n, k);
	}
	want_results(ps, op, n);
	for (uint32_t i = 0; i < n; i++)
		op->results[i]->type = types[1 + i];
	ps_set_loc(ps, op, ps->op_start);
	body_with_args(ps, op, n + 1, types, names, lens, IR_OP_CONTINUE);
}

static void parse_loop(struct pstate *ps, struct ir_op *op)
{
	const char *names[MAXT];
	uint32_t lens[MAXT], n = 0, nres = 0;
	const struct ir_type *iter[MAXT], *res[MAXT];
	bool has_iter = false;
	if (ps_accept(ps, "iter_values")) {
		has_iter = true;
		n = iter_values(ps, op, 0, names, lens);
	}
	if (ps_accept(ps, ":")) {
		uint32_t k = type_list(ps, has_iter ? iter : res, MAXT);
		if (has_iter) {
			if (k != n)
				ps_fail(ps, ps->p, "loop has %u iteration values but %u types", n, k);
			if (ps_accept(ps, "->"))
				nres = type_list(ps, res, MAXT);
		} else {
			nres = k;
		}
	} else if (has_iter && n) {
		ps_expected(ps, "':' and the iteration value types");
	}
	want_results(ps, op, nres);
	for (uint32_t i = 0; i < nres; i++)
		op->results[i]->type = res[i];
	ps_set_loc(ps, op, ps->op_start);
	body_with_args(ps, op, n, iter, names, lens, IR_OP_CONTINUE);
}

static void parse_if(struct pstate *ps, struct ir_op *op)
{
	ir_op_add_operand(ps->m, op, 0, ps_value_use(ps));
	const struct ir_type *res[MAXT];
	uint32_t nres = 0;
	if (ps_accept(ps, "->")) {
		ps_expect(ps, "(");
		if (!ps_accept(ps, ")")) {
			nres = type_list(ps, res, MAXT);
			ps_expect(ps, ")");
		}
	}
	want_results(ps, op, nres);
	for (uint32_t i = 0; i < nres; i++)
		op->results[i]->type = res[i];
	ps_set_loc(ps, op, ps->op_start);
	body_with_args(ps, op, 0, NULL, NULL, NULL, IR_OP_YIELD);
	if (ps_accept(ps, "else")) {
		op->loc.else_line = ps->close_line;
		body_with_args(ps, op, 0, NULL, NULL, NULL, IR_OP_YIELD);
	} else {
		ir_op_add_region(ps->m, op);
	}
}

/* reduce %x, %y dim=D [reverse=B] identities=[..] : T.. -> T.. (%a: T, ..) { } */
static void parse_reduce_scan(struct pstate *ps, struct ir_op *op, bool scan)
{
	do
		ir_op_add_operand(ps->m, op, 0, ps_value_use(ps));
	while (ps_accept(ps, ","));
	ps_expect(ps, "dim");
	ps_expect(ps, "=");
	ir_op_set_attr(ps->m, op, "dim", ir_attr_int(ps->m, ps_expect_int(ps, "a dimension"), NULL));
	if (scan) {
		ps_expect(ps, "reverse");
		ps_expect(ps, "=");
		bool r = ps_accept(ps, "true");
		if (!r)
			ps_expect(ps, "false");
		ir_op_set_attr(ps->m, op, "reverse", ir_attr_bool(ps->m, r));
	}
	ps_expect(ps, "identities");
	ps_expect(ps, "=");
	ir_op_set_attr(ps->m, op, "identities", ps_typed_array(ps));
	uint32_t n = op->noperands;
	const struct ir_type *t[MAXT];
	ps_expect(ps, ":");
	if (type_list(ps, t, MAXT) != n)
		ps_fail(ps, ps->p, "%s has %u operands but a different number of types",
			op->def->name, n);
	ps_expect(ps, "->");
	if (type_list(ps, t, MAXT) != n)
		ps_fail(ps, ps->p, "%s has %u operands but a different number of result types",
			op->def->name, n);
	want_results(ps, op, n);
	for (uint32_t i = 0; i < n; i++)
		op->results[i]->type = t[i];
	const char *names[MAXT];
	uint32_t lens[MAXT], na = 0;
	const struct ir_type *at[MAXT];
	ps_expect(ps, "(");
	if (!ps_accept(ps, ")")) {
		do {
			if (na == MAXT)
				ps_fail(ps, ps->p, "too many block arguments");
			lens[na] = ps_value_def(ps, &names[na]);
			ps_expect(ps, ":");
			at[na++] = ps_type(ps);
		} while (ps_accept(ps, ","));
		ps_expect(ps, ")");
	}
	ps_set_loc(ps, op, ps->op_start);
	body_with_args(ps, op, na, at, names, lens, -1);
}

void ps_region_op(struct pstate *ps, struct ir_op *op)
{
	switch (op->code) {
	case IR_OP_FOR:
		parse_for(ps, op);
		break;
	case IR_OP_LOOP:
		parse_loop(ps, op);
		break;
	case IR_OP_IF:
		parse_if(ps, op);
		break;
	case IR_OP_REDUCE:
		parse_reduce_scan(ps, op, false);
		break;
	case IR_OP_SCAN:
		parse_reduce_scan(ps, op, true);
		break;
	default:
		ps_fail(ps, ps->p, "internal: no custom parser for %s", op->def->name);
	}
	op->loc.close_line = ps->close_line;
}
