/* Op syntax: the registry's printing templates read back (ps_format), the
 * custom directives, and the region ops (if, for, loop, reduce, scan).
 * A template is read once per op kind into steps; whitespace in it is
 * ignored when parsing, and runs of optional parts are accepted in any
 * order. */
#include "engine/ir/ir_parse.h"

#include <pthread.h>
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

/* "^g": the type(s) of operand group g, or of result g; first_only: one
 * type stands for every value ("^g.0"). */
static void parse_types_into(struct pstate *ps, struct ir_op *op, bool result, uint32_t g,
			     bool first_only)
{
	const struct ir_opdef *d = op->def;
	if (!result) {
		uint32_t n = ir_op_group_size(op, g), k;
		struct ir_value *const *vals = ir_op_group(op, g, &k);
		for (uint32_t i = 0; i < (first_only && n ? 1 : n); i++) {
			if (i)
				ps_expect(ps, ",");
			ps_ws(ps);
			const char *at = ps->p;
			const struct ir_type *t = ps_type(ps);
			for (uint32_t j = first_only ? 0 : i; j < (first_only ? n : i + 1); j++)
				ps_operand_type(ps, at, vals[j], t, j, d->name, strlen(d->name));
		}
		return;
	}
	uint32_t first, count;
	ps_result_range(op, g, &first, &count);
	if (first_only || !d->results[g].variadic) {
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

enum { DIR_IDX, DIR_CONSTANT, DIR_TENSOR_VIEW };
static const char *const directive_names[] = {"idx", "constant", "tensor_view"};

/* Directives: the parts a template cannot say. */
static void directive(struct pstate *ps, struct ir_op *op, int which)
{
	if (which == DIR_IDX) {
		/* index types: one when they all agree, else one per index */
		int g = ir_opdef_group(op->def, "index");
		uint32_t n = ir_op_group_size(op, g);
		for (uint32_t i = 0; i < n; i++) {
			if (i && !ps_peek(ps, ','))
				break;
			ps_expect(ps, ",");
			ps_type(ps);
		}
	} else if (which == DIR_CONSTANT) {
		struct dense_pending d;
		ps_dense_begin(ps, &d);
		ps_expect(ps, ":");
		const struct ir_type *t = ps_type(ps);
		ir_op_set_attr(ps->m, op, "value", ps_dense_finish(ps, &d, t));
		set_result_type(op, 0, t);
	} else {
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
	}
}

/* ---- templates, read once per op kind into steps ---- */

enum step_kind { ST_GROUP, ST_TYPES, ST_ATTR, ST_DIRECTIVE, ST_LIT, ST_OPT };

struct step {
	uint8_t kind;
	uint8_t idx;     /* group, attribute or result index; directive */
	bool result;     /* ST_TYPES: of a result, not of an operand group */
	bool first_only; /* ST_TYPES: "^g.0" */
	char anchor;     /* ST_OPT: '%' group, '#' attribute, '&' result (idx) */
	uint16_t end;    /* ST_OPT: the step after its body (which starts next) */
	char lit[24];    /* ST_LIT */
};

struct tmpl {
	struct step *v;
	uint32_t n, cap;
};

static struct tmpl tmpls[IR_OP_COUNT];

_Noreturn static void bad_template(const struct ir_opdef *d, const char *what)
{
	tp_die("internal: template of %s: %s", d->name, what);
}

static struct step *add_step(struct tmpl *t, enum step_kind k)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->v = xrealloc(t->v, t->cap * sizeof(*t->v));
	}
	struct step *st = &t->v[t->n++];
	memset(st, 0, sizeof(*st));
	st->kind = (uint8_t)k;
	return st;
}

static uint8_t index_of(const struct ir_opdef *d, char kind, const char *name, size_t n)
{
	int i = -1;
	if (kind == '%')
		i = group_def(d, name, n);
	else if (kind == '&')
		i = result_def(d, name, n);
	else if (kind == '#') {
		const struct ir_attr_def *a = attr_def(d, name, n);
		i = a ? (int)(a - d->attrs) : -1;
	}
	if (i < 0 || i > 15)
		bad_template(d, "unknown name");
	return (uint8_t)i;
}

/* Steps of template text [s, e); optional parts "{X: body}" nest. */
static void compile(const struct ir_opdef *d, struct tmpl *t, const char *s, const char *e)
{
	while (s < e) {
		char c = *s;
		if (c == ' ') {
			s++;
		} else if (c == '{') {
			const char *close = memchr(s, '}', (size_t)(e - s));
			const char *colon = close ? memchr(s, ':', (size_t)(close - s)) : NULL;
			if (!colon)
				bad_template(d, "an optional part without ':' or '}'");
			size_t n = tname(s + 2);
			uint32_t at = t->n;
			struct step *o = add_step(t, ST_OPT);
			o->anchor = s[1];
			o->idx = index_of(d, s[1], s + 2, n);
			compile(d, t, colon + 1, close);
			t->v[at].end = (uint16_t)t->n;
			s = close + 1;
		} else if (c == '%' || c == '#') {
			size_t n = tname(s + 1);
			struct step *st = add_step(t, c == '%' ? ST_GROUP : ST_ATTR);
			st->idx = index_of(d, c, s + 1, n);
			s += 1 + n;
		} else if (c == '^') {
			size_t n = tname(s + 1);
			struct step *st = add_step(t, ST_TYPES);
			int g = group_def(d, s + 1, n);
			st->result = g < 0;
			st->idx = g >= 0 ? (uint8_t)g : index_of(d, '&', s + 1, n);
			st->first_only = s[1 + n] == '.' && s[2 + n] == '0';
			s += 1 + n + (st->first_only ? 2 : 0);
		} else if (c == '$') {
			size_t n = tname(s + 1);
			struct step *st = add_step(t, ST_DIRECTIVE);
			size_t k = 0;
			while (k < TP_ARRAY_LEN(directive_names) &&
			       (strlen(directive_names[k]) != n || memcmp(directive_names[k], s + 1, n)))
				k++;
			if (k == TP_ARRAY_LEN(directive_names))
				bad_template(d, "unknown directive");
			st->idx = (uint8_t)k;
			s += 1 + n;
		} else {
			size_t n = tname_char(c) ? tname(s) : (c == '-' && s[1] == '>') ? 2 : 1;
			struct step *st = add_step(t, ST_LIT);
			if (n >= sizeof(st->lit))
				bad_template(d, "a literal too long");
			memcpy(st->lit, s, n);
			s += n;
		}
	}
}

/* Every template at once, the first time any is needed: two files may be
 * parsed on two threads (ir_module_load_pair), so nothing is built lazily
 * per op kind. Region ops ('@' formats) have parsers of their own. */
static pthread_once_t tmpls_once = PTHREAD_ONCE_INIT;

static void compile_all(void)
{
	for (int c = 0; c < IR_OP_COUNT; c++) {
		const struct ir_opdef *d = ir_opdef(c);
		if (d->format[0] != '@')
			compile(d, &tmpls[c], d->format, d->format + strlen(d->format));
	}
}

void ir_text_parse_prepare(void)
{
	pthread_once(&tmpls_once, compile_all);
}

static const struct tmpl *template_of(const struct ir_opdef *d)
{
	ir_text_parse_prepare();
	return &tmpls[d->code];
}

static void run_steps(struct pstate *ps, struct ir_op *op, const struct step *v, uint32_t i,
		      uint32_t end, struct fstate *st);

/* Does the input start with the first element of the body of opt step o? */
static bool body_starts(struct pstate *ps, struct ir_op *op, const struct step *v, uint32_t o)
{
	if (o + 1 >= v[o].end)
		return false;
	const struct step *f = &v[o + 1];
	switch (f->kind) {
	case ST_GROUP: return ps_peek(ps, '%');
	case ST_TYPES: return ps_peek_type(ps);
	case ST_ATTR: return ps_attr_starts(ps, &op->def->attrs[f->idx]);
	case ST_LIT: return ps_peek_lit(ps, f->lit);
	default: return false;
	}
}

/* Is the anchor of an optional part already known? *present says its value. */
static bool anchor_known(struct ir_op *op, const struct step *o, struct fstate *st, bool *present)
{
	if (o->anchor == '&') {
		if (st->unnamed_results)
			return false;
		uint32_t first, count;
		ps_result_range(op, o->idx, &first, &count);
		*present = count > 0;
		return true;
	}
	if (o->anchor == '%') {
		*present = ir_op_group_size(op, o->idx) > 0;
		return st->group_seen[o->idx];
	}
	const struct ir_attr_def *ad = &op->def->attrs[o->idx];
	const struct ir_attr *v = ir_op_attr(op, ad->name);
	*present = v && !ir_attr_is_default(ad, v);
	return st->attr_seen[o->idx];
}

static void take_opt(struct pstate *ps, struct ir_op *op, const struct step *v, uint32_t o,
		     struct fstate *st)
{
	if (v[o].anchor == '&')
		ir_op_add_result(ps->m, op, NULL);
	run_steps(ps, op, v, o + 1, v[o].end, st);
	if (v[o].anchor == '#') {
		const struct ir_attr_def *ad = &op->def->attrs[v[o].idx];
		if (ad->spec == IR_AK_UNIT)
			ir_op_set_attr(ps->m, op, ad->name, ir_attr_unit(ps->m));
		st->attr_seen[v[o].idx] = true;
	}
}

/* A run of optional parts from step i; returns the step after it. Parts
 * whose anchor is not known yet are taken in whatever order they come. */
static uint32_t opt_run(struct pstate *ps, struct ir_op *op, const struct step *v, uint32_t i,
			uint32_t end, struct fstate *st)
{
	uint32_t run[8];
	bool done[8];
	int n = 0;
	for (; i < end && v[i].kind == ST_OPT && n < 8; i = v[i].end) {
		done[n] = false;
		run[n++] = i;
	}
	int k = 0;
	while (k < n) {
		bool present;
		if (anchor_known(op, &v[run[k]], st, &present)) {
			if (present)
				run_steps(ps, op, v, run[k] + 1, v[run[k]].end, st);
			done[k++] = true;
			continue;
		}
		/* a stretch of undecided parts: take whichever the input starts with */
		int j = k;
		while (j < n && !anchor_known(op, &v[run[j]], st, &present))
			j++;
		for (bool progress = true; progress;) {
			progress = false;
			for (int q = k; q < j; q++)
				if (!done[q] && body_starts(ps, op, v, run[q])) {
					take_opt(ps, op, v, run[q], st);
					done[q] = progress = true;
					break;
				}
		}
		for (int q = k; q < j; q++) {
			const struct step *o = &v[run[q]];
			if (o->anchor == '#')
				st->attr_seen[o->idx] = true;
			else if (o->anchor == '%')
				st->group_seen[o->idx] = true;
			done[q] = true;
		}
		k = j;
	}
	return i;
}

/* `{name = value, ...}` in a custom form: the op's own attributes are
 * kept; others are dropped, as cutile-ir's bytecode writer drops them
 * (its text printer shows a `rounding_mode` on maxf that the bytecode
 * of the same module does not carry). */
static void custom_attr_dict(struct pstate *ps, struct ir_op *op)
{
	ps_expect(ps, "{");
	ps_attr_dict(ps, op);
	for (uint32_t i = op->nattrs; i-- > 0;)
		if (!ir_opdef_attr(op->def, op->attrs[i].name))
			ir_op_drop_attr(op, op->attrs[i].name);
}

static void run_steps(struct pstate *ps, struct ir_op *op, const struct step *v, uint32_t i,
		      uint32_t end, struct fstate *st)
{
	while (i < end) {
		const struct step *t = &v[i];
		switch (t->kind) {
		case ST_OPT:
			i = opt_run(ps, op, v, i, end, st);
			continue;
		case ST_GROUP:
			parse_group(ps, op, t->idx);
			st->group_seen[t->idx] = true;
			break;
		case ST_TYPES:
			parse_types_into(ps, op, t->result, t->idx, t->first_only);
			break;
		case ST_ATTR: {
			const struct ir_attr_def *ad = &op->def->attrs[t->idx];
			const struct ir_attr *a = ps_attr_spec(ps, ad);
			if (a)
				ir_op_set_attr(ps->m, op, ad->name, a);
			st->attr_seen[t->idx] = true;
			break;
		}
		case ST_DIRECTIVE:
			directive(ps, op, t->idx);
			break;
		default:
			/* cutile-ir prints an attribute dictionary before the
			 * types (`maxf %a, %b {rounding_mode = 0} : T`) */
			ps_ws(ps);
			if (t->lit[0] == ':' && !t->lit[1] && ps_peek(ps, '{'))
				custom_attr_dict(ps, op);
			/* most literals are one punctuation character */
			ps_ws(ps);
			if (!t->lit[1] && !ps_ident_start(t->lit[0]) && ps->p < ps->end &&
			    *ps->p == t->lit[0])
				ps->p++;
			else
				ps_expect(ps, t->lit);
			break;
		}
		i++;
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

/* `load_ptr_tko weak %p, %v`: one optional operand after the source reads
 * as the mask in the template, but a padding without a mask (cuTile Python
 * writes that for an unchecked gather) has the element type, not i1. The
 * groups are consecutive, so moving it is only their sizes. */
static void padding_not_mask(struct ir_op *op)
{
	if (op->code != IR_OP_LOAD_PTR_TKO || op->ngroups < 3 || ir_op_group_size(op, 1) != 1 ||
	    ir_op_group_size(op, 2) != 0)
		return;
	const struct ir_type *t = op->operands[1]->type;
	const struct ir_type *el = t && t->kind == IR_TY_TILE ? t->inner : NULL;
	if (!el || el->kind != IR_TY_ELEM || el->elem == IR_I1)
		return;
	uint32_t *sizes = (uint32_t *)(void *)((char *)op->operands - ir_op_group_prefix(op));
	sizes[1] = 0;
	sizes[2] = 1;
}

void ps_format(struct pstate *ps, struct ir_op *op)
{
	struct fstate st;
	memset(&st, 0, sizeof(st));
	check_result_count(ps, op, &st);
	const struct tmpl *t = template_of(op->def);
	run_steps(ps, op, t->v, 0, t->n, &st);
	infer_result_types(ps, op);
	padding_not_mask(op);
}

/* ---- region ops ---- */

/* A block's ops up to its closing brace, the `{` already read. */
static void block_rest(struct pstate *ps, struct ir_block *b, int implicit_term)
{
	size_t base = ps_block_ops(ps);
	uint32_t col;
	ps_linecol(ps, ps->p, &ps->close_line, &col);
	ps_expect(ps, "}");
	if (implicit_term >= 0 && (ps->nopstk == base ? !b->nops || !b->ops[b->nops - 1]->def->terminator
						       : !ps->opstk[ps->nopstk - 1]->def->terminator))
		ps_op_push(ps, ir_op_new_code(ps->m, implicit_term));
	ps_block_commit(ps, b, base);
}

void ps_block_braced(struct pstate *ps, struct ir_block *b, int implicit_term)
{
	ps_expect(ps, "{");
	block_rest(ps, b, implicit_term);
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

/* opened: the `{` (and a block label) were read already. */
static void body_with_args_at(struct pstate *ps, struct ir_op *op, uint32_t nargs,
			      const struct ir_type **types, const char **names,
			      const uint32_t *lens, int implicit, bool opened)
{
	struct ir_block *b = ir_region_add_block(ps->m, ir_op_add_region(ps->m, op));
	struct pmark mk = ps_scope_push(ps);
	for (uint32_t i = 0; i < nargs; i++) {
		struct ir_value *v = ir_block_add_arg(ps->m, b, types[i]);
		ps_bind(ps, names[i], lens[i], 1, &b->args[v->index]);
	}
	if (opened)
		block_rest(ps, b, implicit);
	else
		ps_block_braced(ps, b, implicit);
	ps_scope_pop(ps, mk);
}

static void body_with_args(struct pstate *ps, struct ir_op *op, uint32_t nargs,
			   const struct ir_type **types, const char **names, const uint32_t *lens,
			   int implicit)
{
	body_with_args_at(ps, op, nargs, types, names, lens, implicit, false);
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
		ir_op_extra(ps->m, op)->else_line = ps->close_line;
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
	/* bare identities (cutile-ir's printing) take the operands' element
	 * types, which follow: read them first, then come back */
	const char *ids = NULL;
	if (ps_array_typed(ps)) {
		ir_op_set_attr(ps->m, op, "identities", ps_typed_array(ps));
	} else {
		ids = ps->p;
		while (ps->p < ps->end && *ps->p != ']')
			ps->p++;
		ps_expect(ps, "]");
	}
	uint32_t n = op->noperands;
	const struct ir_type *t[MAXT];
	ps_expect(ps, ":");
	if (type_list(ps, t, MAXT) != n)
		ps_fail(ps, ps->p, "%s has %u operands but a different number of types",
			op->def->name, n);
	if (ids) {
		const char *after = ps->p;
		const struct ir_type *et[MAXT];
		for (uint32_t i = 0; i < n; i++)
			et[i] = t[i]->kind == IR_TY_TILE && t[i]->inner ? t[i]->inner : t[i];
		ps->p = ids;
		ir_op_set_attr(ps->m, op, "identities", ps_untyped_array(ps, et, n));
		ps->p = after;
	}
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
	/* `(%a: T, ..) { ops }`, or cutile-ir's `{ ^bb0(%a: T, ..): ops }` */
	bool labelled = ps_accept(ps, "{");
	if (labelled) {
		const char *label;
		ps_expect(ps, "^");
		if (!ps_ident(ps, &label))
			ps_expected(ps, "a block label");
	}
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
	if (labelled)
		ps_expect(ps, ":");
	ps_set_loc(ps, op, ps->op_start);
	body_with_args_at(ps, op, na, at, names, lens, -1, labelled);
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
	ir_op_extra(ps->m, op)->close_line = ps->close_line;
}
