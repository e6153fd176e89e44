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
	if (++ps->depth > 100)
		ps_fail(ps, ps->p, "attribute nested too deeply");
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
		ir_op_set_attr(ps->m, op, name, a);
	} while (ps_accept(ps, ","));
	ps_expect(ps, "}");
}

static void drop_attr(struct ir_op *op, const char *name)
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
	if (seg && seg->kind == IR_ATTR_INT_ARRAY && op->code != IR_OP_UNKNOWN) {
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
		drop_attr(op, "operandSegmentSizes");
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
			ps_block_body_one(ps, b);
		}
	}
	ps_expect(ps, "}");
	ps_scope_pop(ps, mk);
}

struct ir_op *ps_generic_op(struct pstate *ps, uint32_t nres)
{
	const char *start = ps->op_start ? ps->op_start : ps->p;
	const char *at = ps->p, *name;
	size_t len;
	ps_string(ps, &name, &len);
	struct ir_op *op = ir_op_new(ps->m, name, len);
	bool top = op->code == IR_OP_MODULE;
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
		do
			generic_region(ps, ir_op_add_region(ps->m, op));
		while (ps_accept(ps, ","));
		ps_expect(ps, ")");
	}
	if (ps_accept(ps, "{"))
		ps_attr_dict(ps, op);
	ps_expect(ps, ":");
	const struct ir_type *ft = ps_type(ps);
	if (ft->kind != IR_TY_FUNC)
		ps_fail(ps, ps->p, "expected a function type '(...) -> ...' after the generic op");
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
	/* the rest of the op: to the end of the line at bracket depth 0 */
	const char *s = ps->p;
	while (s < ps->end && (*s == ' ' || *s == '\t'))
		s++;
	const char *p = s, *colon = NULL;
	char stack[128];
	int depth = 0;
	struct sbuf text = SBUF_INIT;
	if (s > ps->p)
		sb_addc(&text, ' ');
	while (p < ps->end) {
		char c = *p;
		if (depth == 0 && (c == '\n' || c == '\r'))
			break;
		if (depth == 0 && c == 'l' && p + 3 < ps->end && memcmp(p, "loc(", 4) == 0 &&
		    p > s && (p[-1] == ' ' || p[-1] == '\t'))
			break;
		if (c == '"') {
			const char *q = p + 1;
			while (q < ps->end && *q != '"' && *q != '\n')
				q += (*q == '\\' && q + 1 < ps->end) ? 2 : 1;
			q = q < ps->end ? q + 1 : q;
			sb_add(&text, p, (size_t)(q - p));
			p = q;
			continue;
		}
		if (c == '%') {
			const char *save = ps->p;
			ps->p = p;
			const char *nm;
			uint32_t nl = ps_value_def(ps, &nm);
			ps->p = save;
			const char *q = nm + nl;
			if (q < ps->end && *q == '#')
				for (q++; q < ps->end && *q >= '0' && *q <= '9'; q++)
					;
			/* resolve it if it names a value, else keep the text */
			struct ir_value *v = NULL;
			if (ps_value_lookup(ps, p, (size_t)(q - p), &v)) {
				sb_printf(&text, "\x01%u\x02", op->noperands);
				ir_op_add_operand(ps->m, op, 0, v);
			} else {
				sb_add(&text, p, (size_t)(q - p));
			}
			p = q;
			continue;
		}
		if (c == '(' || c == '[' || c == '{' || c == '<') {
			if (depth < 128)
				stack[depth] = c == '(' ? ')' : c == '[' ? ']' : c == '{' ? '}' : '>';
			depth++;
		} else if (c == '-' && p + 1 < ps->end && p[1] == '>') {
			sb_add(&text, p, 2);
			p += 2;
			continue;
		} else if (depth && depth <= 128 && c == stack[depth - 1]) {
			depth--;
		} else if (depth == 0 && c == ':') {
			colon = p;
		}
		sb_addc(&text, c);
		p++;
	}
	while (text.len && (text.buf[text.len - 1] == ' ' || text.buf[text.len - 1] == '\t'))
		text.len--;
	op->text = ir_strdup(ps->m, text.buf ? text.buf : "", text.len);
	sb_free(&text);
	ps->p = p;
	if (colon) {
		const char *save = ps->p;
		ps->p = colon + 1;
		try_parse(ps, result_types_at, op);
		ps->p = save;
	}
	for (uint32_t i = 0; i < op->nresults; i++)
		if (!op->results[i]->type)
			op->results[i]->type = ir_type_opaque(ps->m, "?");
	ps_set_loc(ps, op, ps->op_start ? ps->op_start : s);
	return op;
}
