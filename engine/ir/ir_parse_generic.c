/* The generic op form `"cuda_tile.op"(operands) <{props}> ({regions}) {attrs}
 * : (types) -> types`, generic attribute values, and unknown ops in custom
 * syntax (kept as opaque text with their operand uses resolved). */
#include "engine/ir/ir_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Run fn under a local error trap: returns false (and clears the error) if
 * it failed, leaving the cursor where it was. */
static bool try_parse(struct pstate *ps, void (*fn)(struct pstate *, void *), void *ctx)
{
	jmp_buf saved;
	memcpy(&saved, &ps->fail, sizeof(saved));
	const char *at = ps->p;
	int depth = ps->depth;
	bool ok;
	if (setjmp(ps->fail) == 0) {
		fn(ps, ctx);
		ok = true;
	} else {
		ps->p = at;
		ps->depth = depth;
		tp_err_clear(ps->err);
		ok = false;
	}
	memcpy(&ps->fail, &saved, sizeof(saved));
	return ok;
}

static const struct ir_attr *enum_attr(struct pstate *ps, const struct ir_attr_def *def)
{
	ps_ws(ps);
	int64_t v;
	if (ps_int(ps, &v)) { /* the wire value, e.g. "1 : i32" */
		if (ps_accept(ps, ":"))
			ps_elem_type(ps);
		if (!ir_enum_keyword(def->ekind, (int)v))
			ps_fail(ps, ps->p, "%lld is not a %s value", (long long)v, ir_enum_name(def->ekind));
		return ir_attr_enum(ps->m, def->ekind, (int)v);
	}
	if (ps_peek(ps, '#')) { /* #cuda_tile.rounding<zero> */
		ps->p++;
		const char *s;
		if (!ps_ident(ps, &s))
			ps_expected(ps, "an attribute name");
		ps_expect(ps, "<");
	} else {
		const char *s, *at = ps->p;
		size_t n = ps_ident(ps, &s);
		if (n && ps_peek(ps, '<') && ir_enum_lookup(def->ekind, s, n) < 0) {
			ps_expect(ps, "<"); /* rounding<zero> */
		} else {
			ps->p = at;
			return ps_attr_spec(ps, &(struct ir_attr_def){def->name, IR_AK_ENUM, def->ekind,
								   -1, false, 0});
		}
	}
	const struct ir_attr *a = ps_attr_spec(ps, &(struct ir_attr_def){def->name, IR_AK_ENUM,
									 def->ekind, -1, false, 0});
	ps_expect(ps, ">");
	return a;
}

static const struct ir_attr *dense_attr(struct pstate *ps)
{
	/* <f32: ...> : type   or   dense<...> : type */
	ps_ws(ps);
	if (ps_peek(ps, '<')) {
		struct dense_pending d;
		ps_dense_begin(ps, &d);
		ps_expect(ps, ":");
		return ps_dense_finish(ps, &d, ps_type(ps));
	}
	ps_accept(ps, "#cuda_tile.dense");
	ps_expect(ps, "dense");
	const char *open = ps->p;
	size_t len;
	ps_expect(ps, "<");
	ps_balanced(ps, ">", &len);
	ps_expect(ps, ">");
	ps_expect(ps, ":");
	const struct ir_type *t = ps_type(ps);
	if (t->kind != IR_TY_TILE || !t->inner || t->inner->kind != IR_TY_ELEM)
		ps_fail(ps, open, "a dense value needs a tile type of numbers");
	/* re-read the data now that the element type is known */
	const char *after = ps->p;
	struct dense_pending d;
	memset(&d, 0, sizeof(d));
	d.elem = t->inner;
	d.at = open;
	ps->p = open + 1;
	ps_ws(ps);
	/* reuse the "<E: data>" reader by parsing the data part directly */
	struct sbuf fake = SBUF_INIT;
	sb_printf(&fake, "<%s: %.*s>", ir_elem_name(t->inner->elem), (int)len, ps->p);
	struct pstate sub = *ps;
	const char *copy = ir_strdup(ps->m, fake.buf, fake.len);
	sb_free(&fake);
	sub.buf = sub.p = sub.lc_pos = sub.lc_linestart = copy;
	sub.end = copy + strlen(copy);
	ps_dense_begin(&sub, &d);
	ps->p = after;
	return ps_dense_finish(ps, &d, t);
}

static const struct ir_attr *value_generic(struct pstate *ps);

static const struct ir_attr *list_generic(struct pstate *ps)
{
	const struct ir_attr *el[256];
	uint32_t n = 0;
	ps_expect(ps, "[");
	if (!ps_accept(ps, "]")) {
		do {
			if (n == 256)
				ps_fail(ps, ps->p, "too many elements");
			el[n++] = value_generic(ps);
		} while (ps_accept(ps, ","));
		ps_expect(ps, "]");
	}
	return ir_attr_array(ps->m, n, el);
}

static void number_typed(struct pstate *ps, void *out)
{
	ps_ws(ps);
	const char *at = ps->p;
	size_t len;
	ps_balanced(ps, ":,]}>) \t", &len);
	if (!len)
		ps_expected(ps, "a number");
	ps_expect(ps, ":");
	const struct ir_type *t = ps_elem_type(ps);
	const char *after = ps->p;
	ps->p = at;
	uint64_t v = ps_scalar(ps, t->elem);
	ps->p = after;
	*(const struct ir_attr **)out = ir_elem_is_float(t->elem) ? ir_attr_float(ps->m, v, t)
								   : ir_attr_int(ps->m, (int64_t)v, t);
}

static void type_attr(struct pstate *ps, void *out)
{
	*(const struct ir_attr **)out = ir_attr_type(ps->m, ps_type(ps));
}

static const struct ir_attr *value_generic(struct pstate *ps)
{
	ps_nest(ps, ps->p, "attributes");
	const struct ir_attr *a = NULL;
	const char *s;
	size_t len;
	int64_t v;
	ps_ws(ps);
	if (ps_peek(ps, '"')) {
		ps_string(ps, &s, &len);
		a = ir_attr_string(ps->m, s, len);
	} else if (ps_accept(ps, "@")) {
		if (ps_peek(ps, '"'))
			ps_string(ps, &s, &len);
		else if (!(len = ps_ident(ps, &s)))
			ps_expected(ps, "a symbol name");
		a = ir_attr_symbol(ps->m, ir_strdup(ps->m, s, len));
	} else if (ps_accept(ps, "true")) {
		a = ir_attr_bool(ps->m, true);
	} else if (ps_accept(ps, "false")) {
		a = ir_attr_bool(ps->m, false);
	} else if (ps_accept(ps, "unit")) {
		a = ir_attr_unit(ps->m);
	} else if (ps_peek(ps, '[')) {
		a = list_generic(ps);
	} else if (ps_peek_word(ps, "array")) {
		a = ps_int_array(ps);
	} else if (ps_peek_word(ps, "dense")) {
		a = dense_attr(ps);
	} else if (ps_peek(ps, '{')) {
		const char *keys[128];
		const struct ir_attr *vals[128];
		uint32_t n = 0;
		ps_expect(ps, "{");
		if (!ps_accept(ps, "}")) {
			do {
				if (n == 128)
					ps_fail(ps, ps->p, "dictionary too large");
				if (ps_peek(ps, '"'))
					ps_string(ps, &s, &len);
				else if (!(len = ps_ident(ps, &s)))
					ps_expected(ps, "a key");
				keys[n] = ir_strdup(ps->m, s, len);
				vals[n++] = ps_accept(ps, "=") ? value_generic(ps) : ir_attr_unit(ps->m);
			} while (ps_accept(ps, ","));
			ps_expect(ps, "}");
		}
		a = ir_attr_dict(ps->m, n, keys, vals);
	} else if (try_parse(ps, number_typed, &a)) {
		/* a typed number */
	} else if (ps_int(ps, &v)) {
		a = ir_attr_int(ps->m, v, NULL);
	} else if (!ps_peek(ps, '#') && ps_peek_type(ps) && try_parse(ps, type_attr, &a)) {
		/* a type */
	} else {
		s = ps_balanced(ps, ",}]>)", &len);
		if (!len)
			ps_expected(ps, "an attribute value");
		a = ir_attr_opaque(ps->m, s, len);
	}
	ps->depth--;
	return a;
}

const struct ir_attr *ps_generic_attr(struct pstate *ps, const struct ir_attr_def *def)
{
	if (!def)
		return value_generic(ps);
	ps_ws(ps);
	switch (def->spec) {
	case IR_AK_ENUM:
	case IR_AK_ROUNDING:
	case IR_AK_OVERFLOW:
		return enum_attr(ps, def);
	case IR_AK_INT: {
		int64_t v = ps_expect_int(ps, "an integer");
		if (ps_accept(ps, ":"))
			ps_elem_type(ps);
		return ir_attr_int(ps->m, v, NULL);
	}
	case IR_AK_BOOL: {
		int64_t v;
		if (ps_int(ps, &v)) {
			if (ps_accept(ps, ":"))
				ps_elem_type(ps);
			return ir_attr_bool(ps->m, v != 0);
		}
		return ps_attr_spec(ps, def);
	}
	case IR_AK_SYMBOL:
		if (ps_peek(ps, '"')) {
			const char *s;
			size_t len;
			ps_string(ps, &s, &len);
			return ir_attr_symbol(ps->m, s);
		}
		return ps_attr_spec(ps, def);
	case IR_AK_DENSE:
		return dense_attr(ps);
	case IR_AK_PREDICATE:
		return ps_predicate(ps);
	case IR_AK_HINTS:
		return ps_hints(ps);
	case IR_AK_UNIT:
		ps_accept(ps, "unit");
		return ir_attr_unit(ps->m);
	default:
		return ps_attr_spec(ps, def);
	}
}

void ps_attr_dict(struct pstate *ps, struct ir_op *op)
{
	if (ps_accept(ps, "}"))
		return;
	do {
		const char *s;
		size_t len;
		if (ps_peek(ps, '"'))
			ps_string(ps, &s, &len);
		else if (!(len = ps_ident(ps, &s)))
			ps_expected(ps, "an attribute name");
		char name[128];
		if (len >= sizeof(name))
			ps_fail(ps, s, "attribute name too long");
		memcpy(name, s, len);
		name[len] = '\0';
		const struct ir_attr_def *def = ir_opdef_attr(op->def, name);
		const struct ir_attr *a;
		if (ps_accept(ps, "="))
			a = ps_generic_attr(ps, def);
		else
			a = ir_attr_unit(ps->m);
		if (strcmp(name, "operand_segment_sizes") == 0)
			strcpy(name, "operandSegmentSizes");
		if (op->nattrs == IR_MAX_ATTRS && !ir_op_has(op, name))
			ps_fail(ps, s, "more than %u attributes on one op", IR_MAX_ATTRS);
		ir_op_set_attr(ps->m, op, name, a);
	} while (ps_accept(ps, ","));
	ps_expect(ps, "}");
}

void ir_op_drop_attr(struct ir_op *op, const char *name)
{
	for (uint32_t i = 0; i < op->nattrs; i++)
		if (strcmp(op->attrs[i].name, name) == 0) {
			memmove(op->attrs + i, op->attrs + i + 1,
				(op->nattrs - i - 1) * sizeof(*op->attrs));
			op->nattrs--;
			return;
		}
}

/* Put generic operands into the registry's groups. */
static void distribute(struct pstate *ps, struct ir_op *op, struct ir_value **vals, uint32_t n,
		       const char *at)
{
	const struct ir_opdef *d = op->def;
	const struct ir_attr *seg = ir_op_attr(op, "operandSegmentSizes");
	if (seg && seg->kind != IR_ATTR_INT_ARRAY && op->code != IR_OP_UNKNOWN)
		ps_fail(ps, at, "operandSegmentSizes must be array<i32: ...>");
	if (seg && op->code != IR_OP_UNKNOWN) {
		if (seg->n != d->ngroups)
			ps_fail(ps, at, "operandSegmentSizes has %u entries, %s has %u groups", seg->n,
				d->name, d->ngroups);
		uint32_t k = 0;
		for (uint32_t g = 0; g < seg->n; g++)
			for (uint64_t i = 0; i < seg->vals[g]; i++) {
				if (k >= n)
					ps_fail(ps, at, "operandSegmentSizes exceeds the operands");
				ir_op_add_operand(ps->m, op, g, vals[k++]);
			}
		if (k != n)
			ps_fail(ps, at, "operandSegmentSizes does not cover the operands");
		ir_op_drop_attr(op, "operandSegmentSizes");
		return;
	}
	if (op->code == IR_OP_UNKNOWN || d->ngroups == 0) {
		for (uint32_t i = 0; i < n; i++)
			ir_op_add_operand(ps->m, op, 0, vals[i]);
		return;
	}
	uint32_t fixed = 0;
	int variadic = -1;
	for (uint32_t g = 0; g < d->ngroups; g++) {
		if (d->groups[g].card == IR_CARD_ONE)
			fixed++;
		else if (d->groups[g].card == IR_CARD_VARIADIC && variadic < 0)
			variadic = (int)g;
	}
	if (n < fixed)
		ps_fail(ps, at, "'%s' needs at least %u operands, found %u", d->name, fixed, n);
	uint32_t extra = n - fixed, k = 0;
	for (uint32_t g = 0; g < d->ngroups; g++) {
		uint32_t take = 1;
		if (d->groups[g].card == IR_CARD_VARIADIC)
			take = (int)g == variadic ? extra : 0;
		else if (d->groups[g].card == IR_CARD_OPTIONAL)
			take = variadic < 0 && extra ? 1 : 0;
		if (d->groups[g].card != IR_CARD_ONE)
			extra -= take;
		for (uint32_t i = 0; i < take; i++)
			ir_op_add_operand(ps->m, op, g, vals[k++]);
	}
	if (k != n)
		ps_fail(ps, at, "cannot assign the operands of '%s' to its groups (add operandSegmentSizes)",
			d->name);
}

static void generic_region(struct pstate *ps, struct ir_region *r)
{
	/* a region holds ops that hold regions: counted like the custom
	 * form's (ps_block_body), or deep input overflows the stack */
	ps_nest(ps, ps->p, "regions");
	ps_expect(ps, "{");
	struct pmark mk = ps_scope_push(ps);
	ps_ws(ps);
	while (!ps_peek(ps, '}')) {
		struct ir_block *b = ir_region_add_block(ps->m, r);
		if (ps_accept(ps, "^")) {
			const char *s;
			if (!ps_ident(ps, &s))
				ps_expected(ps, "a block label");
			if (ps_accept(ps, "(") && !ps_accept(ps, ")")) {
				do {
					const char *name;
					uint32_t len = ps_value_def(ps, &name);
					ps_expect(ps, ":");
					struct ir_value *v = ir_block_add_arg(ps->m, b, ps_type(ps));
					ps_loc_suffix(ps, NULL);
					ps_bind(ps, name, len, 1, &b->args[v->index]);
				} while (ps_accept(ps, ","));
				ps_expect(ps, ")");
			}
			ps_expect(ps, ":");
		}
		/* ops up to the next label or the closing brace */
		for (;;) {
			ps_ws(ps);
			if (ps->p >= ps->end)
				ps_expected(ps, "'}'");
			if (*ps->p == '}' || *ps->p == '^')
				break;
			/* as in the custom form: the printed text would not read back */
			if (b->nops && b->ops[b->nops - 1]->def->terminator)
				ps_fail(ps, ps->p, "an op after '%s', which ends its block",
					b->ops[b->nops - 1]->def->name);
			ps_block_body_one(ps, b);
		}
	}
	ps_expect(ps, "}");
	ps_scope_pop(ps, mk);
	ps->depth--;
}

/* module, entry and global carry structure the printer relies on: check it
 * here (and fill the defaults the custom syntax implies). */
void ps_check_structural(struct pstate *ps, struct ir_op *op, const char *at)
{
	static const char *const allowed[][4] = {
		[0] = {"sym_name", "producer", NULL, NULL},
		[1] = {"sym_name", "function_type", "optimization_hints", NULL},
		[2] = {"sym_name", "value", "alignment", "sym_visibility"},
	};
	int k = op->code == IR_OP_MODULE ? 0 : op->code == IR_OP_ENTRY ? 1 : 2;
	const char *what = op->def->name;
	for (uint32_t i = 0; i < op->nattrs; i++) {
		const char *n = op->attrs[i].name;
		bool ok = k == 2 && strcmp(n, "constant") == 0 && op->attrs[i].attr->kind == IR_ATTR_UNIT;
		for (int j = 0; j < 4 && allowed[k][j]; j++)
			ok |= strcmp(n, allowed[k][j]) == 0;
		if (!ok)
			ps_fail(ps, at, "unexpected attribute '%s' on %s", n, what);
	}
	const struct ir_attr *sym = ir_op_attr(op, "sym_name");
	if (k == 0 && !sym)
		ir_op_set_attr(ps->m, op, "sym_name", ir_attr_symbol(ps->m, "kernels"));
	else if (!sym || sym->kind != IR_ATTR_SYMBOL)
		ps_fail(ps, at, "%s needs a sym_name", what);
	const struct ir_attr *prod = ir_op_attr(op, "producer");
	if (prod && prod->kind != IR_ATTR_STRING)
		ps_fail(ps, at, "producer must be a string");
	if (op->nregions != (k == 2 ? 0u : 1u) || (k < 2 && ir_op_region(op, 0)->nblocks != 1))
		ps_fail(ps, at, "%s needs exactly one region with one block", what);
	if (op->noperands || op->nresults)
		ps_fail(ps, at, "%s takes no operands and has no results", what);
	if (k == 0 && ir_op_region(op, 0)->blocks[0]->nargs)
		ps_fail(ps, at, "a module body has no block arguments");
	if (k == 1) {
		const struct ir_attr *ft = ir_op_attr(op, "function_type");
		const struct ir_block *b = ir_op_region(op, 0)->blocks[0];
		bool ok = ft && ft->kind == IR_ATTR_TYPE && ft->type->kind == IR_TY_FUNC &&
			  ft->type->nout == 0 && ft->type->nin == b->nargs;
		for (uint32_t i = 0; ok && i < b->nargs; i++)
			ok = ir_type_equal(ft->type->ins[i], b->args[i]->type);
		if (!ok)
			ps_fail(ps, at, "entry function_type must match its block arguments, with no results");
		const struct ir_attr *h = ir_op_attr(op, "optimization_hints");
		if (h && h->kind != IR_ATTR_HINTS)
			ps_fail(ps, at, "optimization_hints must be <arch = {...}>");
	} else if (k == 2) {
		const struct ir_attr *v = ir_op_attr(op, "value");
		if (!v || v->kind != IR_ATTR_DENSE)
			ps_fail(ps, at, "global needs a dense value");
		const struct ir_attr *al = ir_op_attr(op, "alignment");
		if (!al)
			ir_op_set_attr(ps->m, op, "alignment", ir_attr_int(ps->m, 0, NULL));
		else if (al->kind != IR_ATTR_INT)
			ps_fail(ps, at, "alignment must be an integer");
		const struct ir_attr *vis = ir_op_attr(op, "sym_visibility");
		if (vis && (vis->kind != IR_ATTR_ENUM || vis->ekind != IR_EN_VISIBILITY))
			ps_fail(ps, at, "sym_visibility must be public or private");
		if (vis && vis->i == 0)
			ir_op_drop_attr(op, "sym_visibility");
	}
}

struct ir_op *ps_generic_op(struct pstate *ps, uint32_t nres)
{
	const char *start = ps->op_start ? ps->op_start : ps->p;
	const char *at = ps->p, *name;
	size_t len;
	ps_string(ps, &name, &len);
	struct ir_op *op = ir_op_new(ps->m, name, len);
	bool top = op->code == IR_OP_MODULE;
	if ((top && ps->level != 0) ||
	    ((op->code == IR_OP_ENTRY || op->code == IR_OP_GLOBAL) && ps->level != 1))
		ps_fail(ps, at, "'%s' is not valid here", op->def->name);
	if (!top && ps->level == 0)
		ps_fail(ps, at, "expected 'cuda_tile.module' at the top level");
	for (uint32_t i = 0; i < nres; i++)
		ir_op_add_result(ps->m, op, NULL);
	struct ir_value *vals[256];
	uint32_t n = 0;
	ps_expect(ps, "(");
	if (!ps_accept(ps, ")")) {
		do {
			if (n == 256)
				ps_fail(ps, ps->p, "too many operands");
			vals[n++] = ps_value_use(ps);
		} while (ps_accept(ps, ","));
		ps_expect(ps, ")");
	}
	if (ps_peek_lit(ps, "<{")) {
		ps_expect(ps, "<");
		ps_expect(ps, "{");
		ps_attr_dict(ps, op);
		ps_expect(ps, ">");
	}
	if (ps_accept(ps, "(")) {
		/* an entry sees none of the module's values, in either form */
		size_t outer = ps->entry_from;
		if (op->code == IR_OP_ENTRY)
			ps->entry_from = ps->nbind;
		ps->level++;
		do {
			if (op->nregions == IR_MAX_REGIONS)
				ps_fail(ps, ps->p, "more than %u regions on one op", IR_MAX_REGIONS);
			generic_region(ps, ir_op_add_region(ps->m, op));
		} while (ps_accept(ps, ","));
		ps->level--;
		ps->entry_from = outer;
		ps_expect(ps, ")");
	}
	if (ps_accept(ps, "{"))
		ps_attr_dict(ps, op);
	ps_expect(ps, ":");
	const struct ir_type *ft = ps_type(ps);
	if (ft->kind != IR_TY_FUNC)
		ps_fail(ps, ps->p, "expected a function type '(...) -> ...' after the generic op");
	if (ft->nin != n)
		ps_fail(ps, at, "'%.*s' has %u operand(s), its type lists %u", (int)len, name, n,
			ft->nin);
	for (uint32_t i = 0; i < n; i++)
		ps_operand_type(ps, at, vals[i], ft->ins[i], i, name, len);
	if (ft->nout != op->nresults) {
		if (op->nresults == 0)
			for (uint32_t i = 0; i < ft->nout; i++)
				ir_op_add_result(ps->m, op, NULL);
		else
			ps_fail(ps, at, "'%.*s' has %u result types, the source names %u", (int)len,
				name, ft->nout, op->nresults);
	}
	for (uint32_t i = 0; i < ft->nout; i++)
		op->results[i]->type = ft->outs[i];
	distribute(ps, op, vals, n, at);
	const struct ir_attr *sym = ir_op_attr(op, "sym_name");
	if (sym && sym->kind == IR_ATTR_STRING)
		ir_op_set_attr(ps->m, op, "sym_name", ir_attr_symbol(ps->m, sym->str));
	ps_set_loc(ps, op, start);
	if (op->code == IR_OP_MODULE || op->code == IR_OP_ENTRY || op->code == IR_OP_GLOBAL)
		ps_check_structural(ps, op, at);
	if (top)
		ir_module_register_unit(ps->m, op);
	return op;
}

/* ---- unknown ops in custom syntax ---- */

static void result_types_at(struct pstate *ps, void *ctx)
{
	struct ir_op *op = ctx;
	const struct ir_type *t[64];
	uint32_t n = 0;
	do {
		if (n == 64)
			ps_fail(ps, ps->p, "too many types");
		t[n++] = ps_type(ps);
	} while (ps_accept(ps, ","));
	if (ps_accept(ps, "->")) {
		n = 0;
		if (ps_accept(ps, "(")) {
			if (!ps_peek(ps, ')'))
				do
					t[n++] = ps_type(ps);
				while (n < 64 && ps_accept(ps, ","));
			ps_expect(ps, ")");
		} else {
			do
				t[n++] = ps_type(ps);
			while (n < 64 && ps_accept(ps, ","));
		}
	}
	for (uint32_t i = 0; i < op->nresults && n; i++)
		op->results[i]->type = t[i < n ? i : n - 1];
}

struct ir_op *ps_unknown_op(struct pstate *ps, const char *name, size_t len, uint32_t nres)
{
	struct ir_op *op = ir_op_new(ps->m, name, len);
	for (uint32_t i = 0; i < nres; i++)
		ir_op_add_result(ps->m, op, NULL);
	/* the rest of the op: to the end of the line */
	const char *s = ps->p;
	while (s < ps->end && (*s == ' ' || *s == '\t'))
		s++;
	const char *p = s, *colon = NULL;
	char stack[128];
	int depth = 0;
	/* owned by the parser state, so that an error (a longjmp) leaks nothing */
	struct sbuf *tb = &ps->scratch;
	sb_reset(tb);
	if (s > ps->p)
		sb_addc(tb, ' ');
	while (p < ps->end) {
		char c = *p;
		/* an unknown op is one line: brackets we cannot read must not swallow
		 * the ops that follow */
		if (c == '\n' || c == '\r')
			break;
		if ((unsigned char)c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
			ps_fail(ps, p, "unexpected control character 0x%02x", (unsigned char)c);
		}
		if (depth == 0 && c == 'l' && p + 3 < ps->end && memcmp(p, "loc(", 4) == 0 &&
		    (p == s || p[-1] == ' ' || p[-1] == '\t'))
			break;
		if (c == '"') {
			const char *q = p + 1;
			while (q < ps->end && *q != '"' && *q != '\n') {
				if ((unsigned char)*q < 0x20 && *q != '\t')
					ps_fail(ps, q, "unexpected control character 0x%02x", (unsigned char)*q);
				q += (*q == '\\' && q + 1 < ps->end) ? 2 : 1;
			}
			q = q < ps->end ? q + 1 : q;
			sb_add(tb, p, (size_t)(q - p));
			p = q;
			continue;
		}
		if (c == '%') {
			const char *q = p + 1;
			while (q < ps->end && (strchr("$._-", *q) || (*q >= '0' && *q <= '9') ||
					       (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z')))
				q++;
			if (q + 1 < ps->end && *q == '#' && q[1] >= '0' && q[1] <= '9')
				for (q++; q < ps->end && *q >= '0' && *q <= '9'; q++)
					;
			/* printed names differ in length: nothing may stick to a use */
			if (q < ps->end && (*q == '#' || *q == '%' || *q == '$' || *q == '.' ||
					    *q == '_' || *q == '-' || (*q >= '0' && *q <= '9') ||
					    (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z')))
				ps_fail(ps, p, "malformed value use");
			/* a value use; names are invented again when printing, so an
			 * undefined one cannot be kept as text */
			struct ir_value *v = NULL;
			if (q == p + 1) {
				sb_addc(tb, '%');
			} else if (ps_value_lookup(ps, p, (size_t)(q - p), &v)) {
				sb_printf(tb, "\x01%u\x02", op->noperands);
				ir_op_add_operand(ps->m, op, 0, v);
			} else {
				ps_fail(ps, p, "use of undefined value %.*s", (int)(q - p), p);
			}
			p = q;
			continue;
		}
		if (c == '(' || c == '[' || c == '{' || c == '<') {
			if (depth < 128)
				stack[depth] = c == '(' ? ')' : c == '[' ? ']' : c == '{' ? '}' : '>';
			depth++;
		} else if (c == '-' && p + 1 < ps->end && p[1] == '>') {
			sb_add(tb, p, 2);
			p += 2;
			continue;
		} else if (depth && depth <= 128 && c == stack[depth - 1]) {
			depth--;
		} else if (depth == 0 && c == ':') {
			colon = p;
		}
		sb_addc(tb, c);
		p++;
	}
	/* with a bracket left open, a `loc(...)` after the op could not be told
	 * from its text once printed on the same line */
	if (depth)
		ps_fail(ps, p, "expected '%c' to close the text of '%.*s' on its line",
			depth <= 128 ? stack[depth - 1] : ')', (int)len, name);
	while (tb->len && (tb->buf[tb->len - 1] == ' ' || tb->buf[tb->len - 1] == '\t'))
		tb->len--;
	ir_op_extra(ps->m, op)->text = ir_strdup(ps->m, tb->buf ? tb->buf : "", tb->len);
	ps->p = p;
	if (colon) {
		/* read the result types inside this line only */
		const char *save = ps->p, *end = ps->end;
		ps->p = colon + 1;
		ps->end = p;
		try_parse(ps, result_types_at, op);
		ps->p = save;
		ps->end = end;
	}
	for (uint32_t i = 0; i < op->nresults; i++)
		if (!op->results[i]->type)
			op->results[i]->type = ir_type_opaque(ps->m, "!tileport.unknown");
	ps_set_loc(ps, op, ps->op_start ? ps->op_start : s);
	return op;
}
