/* The canonical printer: module, globals, entries and ops exactly as
 * `cuda-tile-translate --cudatilebc-to-mlir` prints them (tile-ir-bytecode.md
 * §10): registry templates, custom region ops, elided terminators, two-space
 * indentation. Ops the templates cannot express (extra attributes, odd operand
 * counts, unknown ops) print in the generic form, so printing never loses
 * information. */
#include "engine/ir/ir.h"
#include "engine/ir/ir_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct pctx {
	struct sbuf *out;
	const struct ir_names *names;
	unsigned flags;
	const struct ir_names *unit_names;
};

static void indent(struct pctx *c, int n)
{
	for (int i = 0; i < n; i++)
		sb_adds(c->out, "  ");
}

static const char *vname(struct pctx *c, const struct ir_value *v)
{
	return ir_names_get(c->names, v);
}

static void value_list(struct pctx *c, struct ir_value *const *v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			sb_adds(c->out, ", ");
		sb_adds(c->out, vname(c, v[i]));
	}
}

static void type_list(struct pctx *c, struct ir_value *const *v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			sb_adds(c->out, ", ");
		ir_print_type(c->out, v[i]->type);
	}
}

static size_t tname(const char *s)
{
	size_t n = 0;
	while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
	       (s[n] >= '0' && s[n] <= '9') || s[n] == '_')
		n++;
	return n;
}

static int find_group(const struct ir_opdef *d, const char *s, size_t n)
{
	for (uint32_t i = 0; i < d->ngroups; i++)
		if (strlen(d->groups[i].name) == n && memcmp(d->groups[i].name, s, n) == 0)
			return (int)i;
	return -1;
}

static int find_result(const struct ir_opdef *d, const char *s, size_t n)
{
	for (uint32_t i = 0; i < d->nresults; i++)
		if (strlen(d->results[i].name) == n && memcmp(d->results[i].name, s, n) == 0)
			return (int)i;
	return -1;
}

/* Same split as the parser's (ir_parse_op.c); kept here to avoid a
 * dependency on the parser. */
static void result_range(const struct ir_op *op, uint32_t rdef, uint32_t *first, uint32_t *count)
{
	const struct ir_opdef *d = op->def;
	uint32_t taken = 0;
	for (uint32_t i = 0; i < d->nresults; i++) {
		uint32_t k;
		if (d->results[i].variadic) {
			uint32_t fixed_after = 0;
			for (uint32_t j = i + 1; j < d->nresults; j++)
				fixed_after += !d->results[j].variadic;
			k = op->nresults > taken + fixed_after ? op->nresults - taken - fixed_after : 0;
		} else {
			k = taken < op->nresults ? 1 : 0;
		}
		if (i == rdef) {
			*first = taken;
			*count = k;
			return;
		}
		taken += k;
	}
	*first = *count = 0;
}

static const struct ir_attr_def *find_attr(const struct ir_opdef *d, const char *s, size_t n)
{
	for (uint32_t i = 0; i < d->nattrs; i++)
		if (strlen(d->attrs[i].name) == n && memcmp(d->attrs[i].name, s, n) == 0)
			return &d->attrs[i];
	return NULL;
}

static void print_attr_spec(struct pctx *c, const struct ir_op *op, const struct ir_attr_def *ad)
{
	const struct ir_attr *a = ir_op_attr(op, ad->name);
	if (!a || ad->spec == IR_AK_UNIT)
		return;
	if (ad->spec == IR_AK_ROUNDING || ad->spec == IR_AK_OVERFLOW) {
		if (ir_attr_is_default(ad, a))
			return;
		sb_adds(c->out, ad->spec == IR_AK_ROUNDING ? "rounding<" : "overflow<");
		ir_print_attr(c->out, a);
		sb_addc(c->out, '>');
		return;
	}
	ir_print_attr(c->out, a);
}

static void directive(struct pctx *c, const struct ir_op *op, const char *s, size_t n)
{
	if (n == 3 && memcmp(s, "idx", 3) == 0) {
		uint32_t k;
		struct ir_value *const *idx = ir_op_group(op, (uint32_t)ir_opdef_group(op->def, "index"), &k);
		bool same = true;
		for (uint32_t i = 1; i < k; i++)
			same &= ir_type_equal(idx[i]->type, idx[0]->type);
		for (uint32_t i = 0; i < (same && k ? 1 : k); i++) {
			sb_adds(c->out, ", ");
			ir_print_type(c->out, idx[i]->type);
		}
	} else if (n == 8 && memcmp(s, "constant", 8) == 0) {
		const struct ir_attr *a = ir_op_attr(op, "value");
		if (a)
			ir_print_attr(c->out, a); /* "<E: data> : type" */
	} else if (n == 11 && memcmp(s, "tensor_view", 11) == 0) {
		uint32_t nb, ns, nd;
		struct ir_value *const *base = ir_op_group(op, 0, &nb);
		struct ir_value *const *shp = ir_op_group(op, 1, &ns);
		struct ir_value *const *str = ir_op_group(op, 2, &nd);
		const struct ir_type *t = op->results[0]->type;
		sb_adds(c->out, vname(c, base[0]));
		sb_adds(c->out, ", shape = [");
		uint32_t k = 0;
		for (uint32_t i = 0; i < t->rank; i++) {
			if (i)
				sb_adds(c->out, ", ");
			if (t->shape[i] == IR_DYN)
				sb_adds(c->out, vname(c, shp[k++]));
			else
				sb_add_int(c->out, t->shape[i]);
		}
		sb_adds(c->out, "], strides = [");
		k = 0;
		for (uint32_t i = 0; i < t->nstrides; i++) {
			if (i)
				sb_adds(c->out, ", ");
			if (t->strides[i] == IR_DYN)
				sb_adds(c->out, vname(c, str[k++]));
			else
				sb_add_int(c->out, t->strides[i]);
		}
		sb_adds(c->out, "] : ");
		if (ns || nd) {
			ir_print_type(c->out, ns ? shp[0]->type : str[0]->type);
			sb_adds(c->out, " -> ");
		}
		ir_print_type(c->out, t);
	}
}

static bool anchor_present(const struct ir_op *op, const char *a)
{
	size_t n = tname(a + 1);
	if (*a == '&') {
		uint32_t first, count;
		result_range(op, (uint32_t)find_result(op->def, a + 1, n), &first, &count);
		return count > 0;
	}
	if (*a == '%')
		return ir_op_group_size(op, find_group(op->def, a + 1, n)) > 0;
	const struct ir_attr_def *ad = find_attr(op->def, a + 1, n);
	const struct ir_attr *v = ad ? ir_op_attr(op, ad->name) : NULL;
	return v && !ir_attr_is_default(ad, v);
}

static void print_seq(struct pctx *c, const struct ir_op *op, const char *s, const char *e)
{
	const struct ir_opdef *d = op->def;
	while (s < e) {
		char ch = *s;
		if (ch == '{') {
			const char *close = memchr(s, '}', (size_t)(e - s));
			const char *colon = memchr(s, ':', (size_t)(close - s));
			if (anchor_present(op, s + 1))
				print_seq(c, op, colon + 1, close);
			s = close + 1;
		} else if (ch == '%') {
			size_t n = tname(s + 1);
			uint32_t k;
			struct ir_value *const *v = ir_op_group(op, (uint32_t)find_group(d, s + 1, n), &k);
			value_list(c, v, k);
			s += 1 + n;
		} else if (ch == '^') {
			size_t n = tname(s + 1);
			bool first = s[1 + n] == '.' && s[2 + n] == '0';
			int g = find_group(d, s + 1, n);
			if (g >= 0) {
				uint32_t k;
				struct ir_value *const *v = ir_op_group(op, (uint32_t)g, &k);
				type_list(c, v, first && k ? 1 : k);
			} else {
				uint32_t f, k;
				result_range(op, (uint32_t)find_result(d, s + 1, n), &f, &k);
				type_list(c, k ? op->results + f : NULL, first && k ? 1 : k);
			}
			s += 1 + n + (first ? 2 : 0);
		} else if (ch == '#') {
			size_t n = tname(s + 1);
			print_attr_spec(c, op, find_attr(d, s + 1, n));
			s += 1 + n;
		} else if (ch == '$') {
			size_t n = tname(s + 1);
			directive(c, op, s + 1, n);
			s += 1 + n;
		} else {
			sb_addc(c->out, ch);
			s++;
		}
	}
}

/* Can the custom form hold everything this op carries? */
static bool custom_ok(const struct ir_op *op)
{
	const struct ir_opdef *d = op->def;
	if (op->code == IR_OP_UNKNOWN)
		return false;
	for (uint32_t i = 0; i < op->nattrs; i++) {
		const struct ir_attr_def *ad = ir_opdef_attr(d, op->attrs[i].name);
		if (!ad)
			return false;
		if (ad->spec == IR_AK_UNIT && op->attrs[i].attr->kind != IR_ATTR_UNIT)
			return false;
		if ((ad->spec == IR_AK_ENUM || ad->spec == IR_AK_ROUNDING ||
		     ad->spec == IR_AK_OVERFLOW) &&
		    (op->attrs[i].attr->kind != IR_ATTR_ENUM ||
		     op->attrs[i].attr->ekind != ad->ekind))
			return false;
	}
	for (uint32_t i = 0; i < d->nattrs; i++)
		if (!d->attrs[i].optional && d->attrs[i].since <= d->since &&
		    !ir_op_attr(op, d->attrs[i].name) && d->format[0] != '@')
			return false;
	if (op->ngroups != (d->ngroups ? d->ngroups : 1))
		return false;
	for (uint32_t g = 0; g < d->ngroups; g++) {
		uint32_t n = ir_op_group_size(op, g);
		if ((d->groups[g].card == IR_CARD_ONE && n != 1) ||
		    (d->groups[g].card == IR_CARD_OPTIONAL && n > 1))
			return false;
	}
	uint32_t need = 0, opt = 0;
	bool variadic = false;
	for (uint32_t r = 0; r < d->nresults; r++) {
		if (d->results[r].variadic)
			variadic = true;
		else if (d->results[r].since > d->since)
			opt++;
		else
			need++;
	}
	if (op->nresults < need || (!variadic && op->nresults > need + opt))
		return false;
	for (uint32_t r = 0; r < d->nresults; r++) {
		int from = d->results[r].type_from;
		uint32_t f, k;
		result_range(op, r, &f, &k);
		for (uint32_t i = f; i < f + k; i++) {
			const struct ir_type *want = NULL;
			if (from >= 0) {
				uint32_t gn;
				struct ir_value *const *gv = ir_op_group(op, (uint32_t)from, &gn);
				want = gn ? gv[0]->type : NULL;
			} else if (from == -2) {
				want = op->results[0]->type;
			}
			if (from != -1 && !ir_type_equal(want, op->results[i]->type))
				return false;
		}
	}
	if (op->nregions != d->nregions)
		return false;
	for (uint32_t r = 0; r < op->nregions; r++) {
		uint32_t nb = ir_op_region(op, r)->nblocks;
		if (nb > 1 || (nb == 0 && !(op->code == IR_OP_IF && r == 1)))
			return false;
	}
	if (op->code == IR_OP_MAKE_TENSOR_VIEW) {
		const struct ir_type *t = op->nresults ? op->results[0]->type : NULL;
		if (!t || t->kind != IR_TY_TENSOR_VIEW)
			return false;
		uint32_t dyn_s = 0, dyn_t = 0;
		for (uint32_t i = 0; i < t->rank; i++)
			dyn_s += t->shape[i] == IR_DYN;
		for (uint32_t i = 0; i < t->nstrides; i++)
			dyn_t += t->strides[i] == IR_DYN;
		if (dyn_s != ir_op_group_size(op, 1) || dyn_t != ir_op_group_size(op, 2))
			return false;
	}
	if (op->code == IR_OP_CONSTANT) {
		const struct ir_attr *v = ir_op_attr(op, "value");
		if (!v || v->kind != IR_ATTR_DENSE || !ir_type_equal(v->type, op->results[0]->type))
			return false;
	}
	if (op->code == IR_OP_FOR) {
		const struct ir_block *b = ir_op_region(op, 0)->blocks[0];
		if (b->nargs != 1 + ir_op_group_size(op, 3) || op->nresults != ir_op_group_size(op, 3))
			return false;
		for (uint32_t i = 0; i < op->nresults; i++)
			if (!ir_type_equal(b->args[1 + i]->type, op->results[i]->type))
				return false;
	}
	if (op->code == IR_OP_LOOP && ir_op_region(op, 0)->blocks[0]->nargs != ir_op_group_size(op, 0))
		return false;
	if ((op->code == IR_OP_REDUCE || op->code == IR_OP_SCAN) &&
	    (!ir_op_attr(op, "identities") || op->nresults != op->noperands))
		return false;
	return true;
}

static void print_op(struct pctx *c, const struct ir_op *op, int ind, bool regions);

bool ir_print_elides(const struct ir_op *owner, const struct ir_op *last)
{
	if (!last->def->terminator || last->noperands)
		return false;
	if (owner->code == IR_OP_FOR || owner->code == IR_OP_LOOP)
		return last->code == IR_OP_CONTINUE;
	if (owner->code == IR_OP_IF)
		return last->code == IR_OP_YIELD;
	return false;
}

static void print_block_ops(struct pctx *c, const struct ir_op *owner, const struct ir_block *b,
			    int ind)
{
	for (uint32_t i = 0; i < b->nops; i++) {
		if (i == b->nops - 1 && ir_print_elides(owner, b->ops[i]))
			break;
		print_op(c, b->ops[i], ind, true);
	}
}

static void loc_suffix(struct pctx *c, const struct ir_op *op)
{
	if ((c->flags & IR_PRINT_DEBUGINFO) && ir_op_x(op)->dbg)
		sb_printf(c->out, " %s", ir_op_x(op)->dbg);
}

/* Close a region op's body: "}" on its own line. */
static void close_body(struct pctx *c, const struct ir_op *op, int ind)
{
	indent(c, ind);
	sb_addc(c->out, '}');
	loc_suffix(c, op);
	sb_addc(c->out, '\n');
}

static void print_custom_region_op(struct pctx *c, const struct ir_op *op, int ind, bool regions)
{
	struct sbuf *o = c->out;
	const struct ir_block *b = ir_op_region(op, 0)->blocks[0];
	uint32_t n;
	struct ir_value *const *v;
	switch (op->code) {
	case IR_OP_FOR:
		if (ir_op_has(op, "unsignedCmp"))
			sb_adds(o, " unsigned");
		sb_printf(o, " %s in (", vname(c, b->args[0]));
		sb_adds(o, vname(c, op->operands[0]));
		sb_printf(o, " to %s, step %s) : ", vname(c, op->operands[1]),
			  vname(c, op->operands[2]));
		ir_print_type(o, b->args[0]->type);
		sb_addc(o, ' ');
		v = ir_op_group(op, 3, &n);
		if (n) {
			sb_adds(o, "iter_values(");
			for (uint32_t i = 0; i < n; i++)
				sb_printf(o, "%s%s = %s", i ? ", " : "", vname(c, b->args[1 + i]),
					  vname(c, v[i]));
			sb_adds(o, ") -> (");
			type_list(c, op->results, op->nresults);
			sb_adds(o, ") ");
		}
		sb_adds(o, "{");
		break;
	case IR_OP_LOOP:
		sb_addc(o, ' ');
		if (op->noperands) {
			sb_adds(o, "iter_values(");
			for (uint32_t i = 0; i < op->noperands; i++)
				sb_printf(o, "%s%s = %s", i ? ", " : "", vname(c, b->args[i]),
					  vname(c, op->operands[i]));
			sb_adds(o, ") ");
		}
		if (op->noperands || op->nresults)
			sb_adds(o, ": ");
		if (op->noperands) {
			type_list(c, b->args, b->nargs);
			sb_addc(o, ' ');
			if (op->nresults)
				sb_adds(o, "-> ");
		}
		if (op->nresults) {
			type_list(c, op->results, op->nresults);
			sb_addc(o, ' ');
		}
		sb_addc(o, '{');
		break;
	case IR_OP_IF:
		sb_printf(o, " %s", vname(c, op->operands[0]));
		if (op->nresults) {
			sb_adds(o, " -> (");
			type_list(c, op->results, op->nresults);
			sb_addc(o, ')');
		}
		sb_adds(o, " {");
		break;
	case IR_OP_REDUCE:
	case IR_OP_SCAN:
		sb_addc(o, ' ');
		value_list(c, op->operands, op->noperands);
		sb_printf(o, " dim=%" PRId64, ir_op_attr_int(op, "dim", 0));
		if (op->code == IR_OP_SCAN)
			sb_printf(o, " reverse=%s", ir_op_attr_int(op, "reverse", 0) ? "true" : "false");
		sb_adds(o, " identities=");
		ir_print_attr(o, ir_op_attr(op, "identities"));
		sb_adds(o, " : ");
		type_list(c, op->operands, op->noperands);
		sb_adds(o, " -> ");
		type_list(c, op->results, op->nresults);
		sb_adds(o, regions ? " \n" : " ");
		if (regions)
			indent(c, ind);
		sb_addc(o, '(');
		for (uint32_t i = 0; i < b->nargs; i++) {
			sb_printf(o, "%s%s: ", i ? ", " : "", vname(c, b->args[i]));
			ir_print_type(o, b->args[i]->type);
		}
		sb_adds(o, ") {");
		break;
	default:
		break;
	}
	if (!regions)
		return;
	sb_addc(o, '\n');
	print_block_ops(c, op, b, ind + 1);
	if (op->code == IR_OP_IF && op->nregions > 1 && ir_op_region(op, 1)->nblocks) {
		indent(c, ind);
		sb_adds(o, "} else {\n");
		print_block_ops(c, op, ir_op_region(op, 1)->blocks[0], ind + 1);
	}
	close_body(c, op, ind);
}

static void print_unknown_text(struct pctx *c, const struct ir_op *op)
{
	for (const char *p = ir_op_x(op)->text; *p; p++) {
		if (*p != '\x01') {
			sb_addc(c->out, *p);
			continue;
		}
		char *end;
		unsigned long k = strtoul(p + 1, &end, 10);
		sb_adds(c->out, k < op->noperands ? vname(c, op->operands[k]) : "%<?>");
		p = *end == '\x02' ? end : end - 1;
	}
}

static void print_generic(struct pctx *c, const struct ir_op *op, int ind, bool regions)
{
	struct sbuf *o = c->out;
	char *nm = op->code != IR_OP_UNKNOWN ? xasprintf("cuda_tile.%s", ir_op_name(op))
					     : xstrdup(ir_op_name(op));
	ir_print_string(o, nm, strlen(nm));
	free(nm);
	sb_addc(o, '(');
	value_list(c, op->operands, op->noperands);
	sb_addc(o, ')');
	if (op->nregions && regions) {
		sb_adds(o, " (");
		for (uint32_t r = 0; r < op->nregions; r++) {
			sb_adds(o, r ? ", {\n" : "{\n");
			const struct ir_region *rg = ir_op_region(op, r);
			for (uint32_t bi = 0; bi < rg->nblocks; bi++) {
				const struct ir_block *b = rg->blocks[bi];
				indent(c, ind);
				sb_printf(o, "^bb%u", bi);
				if (b->nargs) {
					sb_addc(o, '(');
					for (uint32_t i = 0; i < b->nargs; i++) {
						sb_printf(o, "%s%s: ", i ? ", " : "", vname(c, b->args[i]));
						ir_print_type(o, b->args[i]->type);
					}
					sb_addc(o, ')');
				}
				sb_adds(o, ":\n");
				for (uint32_t i = 0; i < b->nops; i++)
					print_op(c, b->ops[i], ind + 1, true);
			}
			indent(c, ind);
			sb_addc(o, '}');
		}
		sb_addc(o, ')');
	}
	bool segs = false;
	for (uint32_t g = 0; g < op->def->ngroups; g++)
		segs |= op->def->groups[g].card != IR_CARD_ONE;
	if (op->nattrs || (segs && op->code != IR_OP_UNKNOWN && op->def->ngroups > 1)) {
		sb_adds(o, " {");
		uint32_t k = 0;
		for (uint32_t i = 0; i < op->nattrs; i++, k++) {
			sb_adds(o, k ? ", " : "");
			sb_adds(o, op->attrs[i].name);
			if (op->attrs[i].attr->kind != IR_ATTR_UNIT) {
				sb_adds(o, " = ");
				ir_print_attr_generic(o, op->attrs[i].attr);
			}
		}
		if (segs && op->code != IR_OP_UNKNOWN && op->def->ngroups > 1) {
			sb_adds(o, k ? ", " : "");
			sb_adds(o, "operandSegmentSizes = array<i32");
			for (uint32_t g = 0; g < op->ngroups; g++)
				sb_printf(o, "%s%u", g ? ", " : ": ", ir_op_group_size(op, g));
			sb_addc(o, '>');
		}
		sb_addc(o, '}');
	}
	sb_adds(o, " : (");
	type_list(c, op->operands, op->noperands);
	sb_adds(o, ") -> ");
	if (op->nresults == 1) {
		ir_print_type(o, op->results[0]->type);
	} else {
		sb_addc(o, '(');
		type_list(c, op->results, op->nresults);
		sb_addc(o, ')');
	}
}

static void print_op(struct pctx *c, const struct ir_op *op, int ind, bool regions)
{
	struct sbuf *o = c->out;
	indent(c, ind);
	if (op->nresults) {
		ir_names_results(c->names, op, o);
		sb_adds(o, " = ");
	}
	const char *fmt = op->def->format;
	if (op->code == IR_OP_UNKNOWN && ir_op_x(op)->text) {
		sb_adds(o, ir_op_name(op));
		print_unknown_text(c, op);
	} else if (!custom_ok(op)) {
		print_generic(c, op, ind, regions);
	} else if (fmt[0] == '@') {
		sb_adds(o, ir_op_name(op));
		print_custom_region_op(c, op, ind, regions);
		return;
	} else {
		sb_adds(o, ir_op_name(op));
		print_seq(c, op, fmt, fmt + strlen(fmt));
	}
	if (!regions)
		return;
	loc_suffix(c, op);
	sb_addc(o, '\n');
}

static void entry_header(struct pctx *c, const struct ir_op *e)
{
	struct sbuf *o = c->out;
	const struct ir_block *b = ir_entry_body(e);
	sb_adds(o, "entry ");
	ir_print_symbol(o, ir_symbol_name(e));
	sb_addc(o, '(');
	for (uint32_t i = 0; b && i < b->nargs; i++) {
		sb_printf(o, "%s%s: ", i ? ", " : "", vname(c, b->args[i]));
		ir_print_type(o, b->args[i]->type);
	}
	sb_addc(o, ')');
	const struct ir_attr *h = ir_op_attr(e, "optimization_hints");
	if (h && h->kind == IR_ATTR_HINTS && h->n) {
		sb_adds(o, " optimization_hints=");
		ir_print_attr(o, h);
	}
	sb_adds(o, " {");
}

static void global_line(struct pctx *c, const struct ir_op *g)
{
	struct sbuf *o = c->out;
	sb_adds(o, "global ");
	if (ir_op_attr_int(g, "sym_visibility", 0) == 1)
		sb_adds(o, "private ");
	if (ir_op_has(g, "constant"))
		sb_adds(o, " constant");
	sb_addc(o, ' ');
	ir_print_symbol(o, ir_symbol_name(g));
	int64_t al = ir_op_attr_int(g, "alignment", 0);
	if (al)
		sb_printf(o, " alignment = %" PRId64, al);
	const struct ir_attr *v = ir_op_attr(g, "value");
	if (v && v->kind == IR_ATTR_DENSE) {
		sb_addc(o, ' ');
		ir_print_attr(o, v);
	}
}

static void print_unit_item(struct pctx *c, const struct ir_op *op)
{
	if (op->code == IR_OP_ENTRY) {
		struct ir_names *names = ir_names_compute(op);
		c->names = names;
		indent(c, 1);
		entry_header(c, op);
		sb_addc(c->out, '\n');
		const struct ir_block *b = ir_entry_body(op);
		if (b)
			print_block_ops(c, op, b, 2);
		close_body(c, op, 1);
		c->names = NULL;
		ir_names_free(names);
	} else if (op->code == IR_OP_GLOBAL) {
		indent(c, 1);
		global_line(c, op);
		loc_suffix(c, op);
		sb_addc(c->out, '\n');
	} else {
		/* other ops at module level share the module's naming scope */
		c->names = c->unit_names;
		print_op(c, op, 1, true);
		c->names = NULL;
	}
}

void ir_print_module(const struct ir_module *m, struct sbuf *out, unsigned flags)
{
	struct pctx c = {out, NULL, flags, NULL};
	for (uint32_t u = 0; u < m->nunits; u++) {
		const struct ir_op *unit = m->units[u];
		if (u)
			sb_adds(out, "// -----\n");
		sb_adds(out, "cuda_tile.module ");
		ir_print_symbol(out, ir_symbol_name(unit));
		const struct ir_attr *prod = ir_op_attr(unit, "producer");
		if (prod && prod->kind == IR_ATTR_STRING) {
			sb_adds(out, " attributes {producer = ");
			ir_print_string(out, prod->str, prod->len);
			sb_addc(out, '}');
		}
		sb_adds(out, " {\n");
		const struct ir_block *b = ir_unit_body(unit);
		struct ir_names *un = ir_names_compute(unit);
		c.unit_names = un;
		for (uint32_t i = 0; b && i < b->nops; i++)
			print_unit_item(&c, b->ops[i]);
		c.unit_names = NULL;
		ir_names_free(un);
		sb_addc(out, '}');
		loc_suffix(&c, unit);
		sb_addc(out, '\n');
	}
	if (flags & IR_PRINT_DEBUGINFO)
		for (uint32_t i = 0; i < m->naliases; i++)
			sb_printf(out, "%s\n", m->aliases[i]);
}

char *ir_module_to_string(const struct ir_module *m, unsigned flags)
{
	struct sbuf sb = SBUF_INIT;
	ir_print_module(m, &sb, flags);
	return sb_detach(&sb);
}

char *ir_op_line(const struct ir_op *op, const struct ir_names *names)
{
	struct sbuf sb = SBUF_INIT;
	struct pctx c = {&sb, names, 0, NULL};
	if (op->code == IR_OP_ENTRY)
		entry_header(&c, op);
	else if (op->code == IR_OP_GLOBAL)
		global_line(&c, op);
	else if (op->code == IR_OP_MODULE)
	{
		sb_adds(&sb, "cuda_tile.module ");
		ir_print_symbol(&sb, ir_symbol_name(op));
		sb_adds(&sb, " {");
	}
	else
		print_op(&c, op, 0, false);
	return sb_detach(&sb);
}
