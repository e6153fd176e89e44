/* Printing types, attribute values, dense data and strings the way the
 * official printer spells them (tile-ir-bytecode.md §10.3-§10.5). */
#include "engine/ir/ir.h"
#include "engine/ir/ir_internal.h"

#include <inttypes.h>
#include <string.h>

static void dims(struct sbuf *sb, const int64_t *d, uint32_t n, const char *sep)
{
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			sb_adds(sb, sep);
		if (d[i] == IR_DYN)
			sb_addc(sb, '?');
		else
			sb_add_int(sb, d[i]);
	}
}

/* "partition_view<tile=(" or, for a view masked without a value, the Tile
 * IR specification's qualifier: "partition_view<masked tile=(". */
static void view_head(struct sbuf *sb, const char *kind, const struct ir_type *t)
{
	sb_adds(sb, kind);
	sb_adds(sb, t->padding == IR_PAD_MASKED ? "<masked tile=(" : "<tile=(");
	dims(sb, t->shape, t->rank, "x");
}

static void view_tail(struct sbuf *sb, const struct ir_type *t)
{
	if (t->padding >= 0) {
		const char *kw = ir_enum_keyword(IR_EN_PADDING, t->padding);
		sb_adds(sb, "padding_value = ");
		sb_adds(sb, kw ? kw : "?");
		sb_adds(sb, ", ");
	}
	ir_print_type(sb, t->inner);
}

static void dim_map(struct sbuf *sb, const struct ir_type *t)
{
	if (!t->ndim_map || ir_dim_map_is_identity(t))
		return;
	sb_adds(sb, ", dim_map=[");
	for (uint32_t i = 0; i < t->ndim_map; i++) {
		if (i)
			sb_adds(sb, ", ");
		sb_add_int(sb, t->dim_map[i]);
	}
	sb_addc(sb, ']');
}

void ir_print_type(struct sbuf *sb, const struct ir_type *t)
{
	if (!t) {
		sb_adds(sb, "<<null type>>");
		return;
	}
	switch (t->kind) {
	case IR_TY_ELEM:
		sb_adds(sb, ir_elem_name(t->elem));
		break;
	case IR_TY_PTR:
		sb_adds(sb, "ptr<");
		ir_print_type(sb, t->inner);
		sb_addc(sb, '>');
		break;
	case IR_TY_TILE:
		sb_adds(sb, "tile<");
		for (uint32_t i = 0; i < t->rank; i++) {
			sb_add_int(sb, t->shape[i]);
			sb_addc(sb, 'x');
		}
		ir_print_type(sb, t->inner);
		sb_addc(sb, '>');
		break;
	case IR_TY_TENSOR_VIEW:
		sb_adds(sb, "tensor_view<");
		for (uint32_t i = 0; i < t->rank; i++) {
			dims(sb, &t->shape[i], 1, "");
			sb_addc(sb, 'x');
		}
		ir_print_type(sb, t->inner);
		if (t->rank || t->nstrides) {
			sb_adds(sb, ", strides=[");
			dims(sb, t->strides, t->nstrides, ",");
			sb_addc(sb, ']');
		}
		sb_addc(sb, '>');
		break;
	case IR_TY_PARTITION_VIEW:
		view_head(sb, "partition_view", t);
		sb_adds(sb, "), ");
		view_tail(sb, t);
		dim_map(sb, t);
		sb_addc(sb, '>');
		break;
	case IR_TY_STRIDED_VIEW:
		view_head(sb, "strided_view", t);
		sb_adds(sb, "), traversal_strides=[");
		dims(sb, t->strides, t->nstrides, ",");
		sb_adds(sb, "], ");
		view_tail(sb, t);
		dim_map(sb, t);
		sb_addc(sb, '>');
		break;
	case IR_TY_GATHER_SCATTER_VIEW:
		view_head(sb, "gather_scatter_view", t);
		sb_adds(sb, "), ");
		view_tail(sb, t);
		sb_adds(sb, ", sparse_dim=");
		sb_add_int(sb, t->sparse_dim);
		sb_addc(sb, '>');
		break;
	case IR_TY_TOKEN:
		sb_adds(sb, "token");
		break;
	case IR_TY_FUNC:
		sb_addc(sb, '(');
		for (uint32_t i = 0; i < t->nin; i++) {
			if (i)
				sb_adds(sb, ", ");
			ir_print_type(sb, t->ins[i]);
		}
		sb_adds(sb, ") -> ");
		if (t->nout == 1 && t->outs[0]->kind != IR_TY_FUNC) {
			ir_print_type(sb, t->outs[0]);
		} else {
			sb_addc(sb, '(');
			for (uint32_t i = 0; i < t->nout; i++) {
				if (i)
					sb_adds(sb, ", ");
				ir_print_type(sb, t->outs[i]);
			}
			sb_addc(sb, ')');
		}
		break;
	case IR_TY_OPAQUE:
		sb_adds(sb, t->text);
		break;
	}
}

/* MLIR's printKeywordOrString: bare when an identifier, else quoted. */
static void print_keyword(struct sbuf *sb, const char *name)
{
	bool ident = (*name >= 'a' && *name <= 'z') || (*name >= 'A' && *name <= 'Z') || *name == '_';
	for (const char *p = name; ident && *p; p++)
		ident = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			(*p >= '0' && *p <= '9') || *p == '_' || *p == '$' || *p == '.';
	if (ident)
		sb_adds(sb, name);
	else
		ir_print_string(sb, name, strlen(name));
}

void ir_print_symbol(struct sbuf *sb, const char *name)
{
	sb_addc(sb, '@');
	print_keyword(sb, name);
}

void ir_print_string(struct sbuf *sb, const char *s, size_t len)
{
	sb_addc(sb, '"');
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\\')
			sb_adds(sb, "\\\\");
		else if (c >= 0x20 && c < 0x7f && c != '"')
			sb_addc(sb, (char)c);
		else
			sb_printf(sb, "\\%02X", c);
	}
	sb_addc(sb, '"');
}

static void scalar(struct sbuf *sb, enum ir_elem e, uint64_t v)
{
	if (e == IR_I1)
		sb_adds(sb, v ? "true" : "false");
	else if (ir_elem_is_float(e))
		ir_print_float(sb, e, v);
	else
		sb_add_int(sb, (int64_t)v);
}

static void nested(struct sbuf *sb, const struct ir_attr *a, enum ir_elem e, uint32_t dim,
		   uint64_t *pos)
{
	const struct ir_type *t = a->type;
	if (dim == t->rank) {
		scalar(sb, e, a->vals[(*pos)++]);
		return;
	}
	sb_addc(sb, '[');
	for (int64_t i = 0; i < t->shape[dim]; i++) {
		if (i)
			sb_adds(sb, ", ");
		nested(sb, a, e, dim + 1, pos);
	}
	sb_addc(sb, ']');
}

static int elem_bytes(enum ir_elem e)
{
	int b = ir_elem_bits(e);
	return b <= 8 ? 1 : (b + 7) / 8;
}

static void dense_data(struct sbuf *sb, const struct ir_attr *a)
{
	enum ir_elem e = ir_type_elem_of(a->type);
	/* the elements the shape holds, unless a dimension is dynamic or the
	 * product passes what a value count can be (a bytecode file may say
	 * anything): then the values are not laid out along the shape */
	uint64_t count = 1;
	bool shaped = a->type && a->type->kind == IR_TY_TILE;
	for (uint32_t i = 0; shaped && i < a->type->rank; i++) {
		int64_t d = a->type->shape[i];
		if (d < 0 || (d && count > UINT32_MAX / (uint64_t)d))
			shaped = false;
		else
			count *= (uint64_t)d;
	}
	if (a->n == 1 || !shaped || a->n != count) {
		scalar(sb, e, a->n ? a->vals[0] : 0);
	} else if (a->n > 100) {
		sb_adds(sb, "\"0x");
		int eb = elem_bytes(e);
		for (uint32_t i = 0; i < a->n; i++)
			for (int k = 0; k < eb; k++)
				sb_printf(sb, "%02X", (unsigned)((a->vals[i] >> (8 * k)) & 0xFF));
		sb_addc(sb, '"');
	} else {
		uint64_t pos = 0;
		nested(sb, a, e, 0, &pos);
	}
}

void ir_print_dense(struct sbuf *sb, const struct ir_attr *a)
{
	sb_addc(sb, '<');
	sb_adds(sb, ir_elem_name(ir_type_elem_of(a->type)));
	sb_adds(sb, ": ");
	dense_data(sb, a);
	sb_addc(sb, '>');
}

static void hint_value(struct sbuf *sb, const struct ir_attr *v)
{
	switch (v->kind) {
	case IR_ATTR_INT:
		sb_add_int(sb, v->i);
		break;
	case IR_ATTR_BOOL:
		sb_adds(sb, v->b ? "true" : "false");
		break;
	default:
		ir_print_attr_generic(sb, v);
	}
}

static void dict(struct sbuf *sb, const struct ir_attr *a, bool nested_dicts)
{
	for (uint32_t i = 0; i < a->n; i++) {
		if (i)
			sb_adds(sb, ", ");
		print_keyword(sb, a->keys[i]);
		sb_adds(sb, " = ");
		if (nested_dicts && a->elems[i]->kind == IR_ATTR_DICT) {
			sb_addc(sb, '{');
			dict(sb, a->elems[i], false);
			sb_addc(sb, '}');
		} else {
			hint_value(sb, a->elems[i]);
		}
	}
}

static void typed_value(struct sbuf *sb, const struct ir_attr *e)
{
	if (e->kind == IR_ATTR_FLOAT)
		ir_print_float(sb, e->type ? e->type->elem : IR_ELEM_NONE, e->bits);
	else if (e->kind == IR_ATTR_INT && e->type && e->type->elem == IR_I1)
		sb_adds(sb, e->i ? "true" : "false");
	else if (e->kind == IR_ATTR_INT)
		sb_add_int(sb, e->i);
	else
		ir_print_attr_generic(sb, e);
	if ((e->kind == IR_ATTR_FLOAT || e->kind == IR_ATTR_INT) && e->type) {
		sb_adds(sb, " : ");
		ir_print_type(sb, e->type);
	}
}

static void int_list(struct sbuf *sb, const struct ir_attr *a)
{
	sb_addc(sb, '[');
	for (uint32_t i = 0; i < a->n; i++) {
		if (i)
			sb_adds(sb, ", ");
		sb_add_int(sb, (int64_t)a->vals[i]);
	}
	sb_addc(sb, ']');
}

/* An attribute in either spelling: the custom syntax of op templates, or
 * the generic form's (`#cuda_tile.` prefixes, typed numbers, `array<i64:
 * ..>`, `dense<..>`). One switch, so a new kind is spelled in both. */
static void print_attr(struct sbuf *sb, const struct ir_attr *a, bool generic)
{
	switch (a->kind) {
	case IR_ATTR_UNIT:
		if (generic)
			sb_adds(sb, "unit");
		break;
	case IR_ATTR_BOOL:
		sb_adds(sb, a->b ? "true" : "false");
		break;
	case IR_ATTR_INT:
		if (generic)
			typed_value(sb, a);
		else
			sb_add_int(sb, a->i);
		break;
	case IR_ATTR_FLOAT:
		if (generic)
			typed_value(sb, a);
		else
			ir_print_float(sb, a->type ? a->type->elem : IR_ELEM_NONE, a->bits);
		break;
	case IR_ATTR_STRING:
		ir_print_string(sb, a->str, a->len);
		break;
	case IR_ATTR_SYMBOL:
		ir_print_symbol(sb, a->str);
		break;
	case IR_ATTR_TYPE:
		ir_print_type(sb, a->type);
		break;
	case IR_ATTR_ENUM: {
		const char *kw = ir_enum_keyword(a->ekind, (int)a->i);
		if (generic) {
			sb_adds(sb, "#cuda_tile.");
			sb_adds(sb, ir_enum_name(a->ekind));
			sb_addc(sb, '<');
		}
		sb_adds(sb, kw ? kw : "?");
		if (generic)
			sb_addc(sb, '>');
		break;
	}
	case IR_ATTR_ARRAY:
		sb_addc(sb, '[');
		for (uint32_t i = 0; i < a->n; i++) {
			if (i)
				sb_adds(sb, ", ");
			if (generic)
				print_attr(sb, a->elems[i], true);
			else
				typed_value(sb, a->elems[i]);
		}
		sb_addc(sb, ']');
		break;
	case IR_ATTR_INT_ARRAY:
		if (generic) {
			sb_adds(sb, "array<i64");
			for (uint32_t i = 0; i < a->n; i++) {
				sb_adds(sb, i ? ", " : ": ");
				sb_add_int(sb, (int64_t)a->vals[i]);
			}
			sb_addc(sb, '>');
		} else {
			int_list(sb, a);
		}
		break;
	case IR_ATTR_SAME_ELEMENTS:
		sb_adds(sb, generic ? "#cuda_tile.same_elements<" : "same_elements<");
		int_list(sb, a);
		sb_addc(sb, '>');
		break;
	case IR_ATTR_DICT:
		sb_addc(sb, '{');
		if (!generic) {
			dict(sb, a, false);
		} else {
			for (uint32_t i = 0; i < a->n; i++) {
				if (i)
					sb_adds(sb, ", ");
				print_keyword(sb, a->keys[i]);
				if (a->elems[i]->kind != IR_ATTR_UNIT) {
					sb_adds(sb, " = ");
					print_attr(sb, a->elems[i], true);
				}
			}
		}
		sb_addc(sb, '}');
		break;
	case IR_ATTR_HINTS:
		if (generic)
			sb_adds(sb, "#cuda_tile.optimization_hints");
		sb_addc(sb, '<');
		dict(sb, a, true);
		sb_addc(sb, '>');
		break;
	case IR_ATTR_DENSE:
		if (generic) {
			sb_adds(sb, "dense<");
			dense_data(sb, a);
			sb_adds(sb, ">");
		} else {
			ir_print_dense(sb, a);
		}
		sb_adds(sb, " : ");
		ir_print_type(sb, a->type);
		break;
	case IR_ATTR_DIV_BY:
		sb_adds(sb, generic ? "#cuda_tile.div_by<" : "div_by<");
		sb_add_int(sb, a->i);
		if (a->has_every) {
			sb_adds(sb, ", every ");
			sb_add_int(sb, a->every);
			sb_adds(sb, " along ");
			sb_add_int(sb, a->along);
		}
		sb_addc(sb, '>');
		break;
	case IR_ATTR_BOUNDED:
		sb_adds(sb, generic ? "#cuda_tile.bounded<" : "bounded<");
		if (a->has_lb)
			sb_add_int(sb, a->lb);
		else
			sb_addc(sb, '?');
		sb_adds(sb, ", ");
		if (a->has_ub)
			sb_add_int(sb, a->ub);
		else
			sb_addc(sb, '?');
		sb_addc(sb, '>');
		break;
	case IR_ATTR_OPAQUE:
		sb_add(sb, a->str, a->len);
		break;
	}
}

void ir_print_attr(struct sbuf *sb, const struct ir_attr *a)
{
	print_attr(sb, a, false);
}

void ir_print_attr_generic(struct sbuf *sb, const struct ir_attr *a)
{
	print_attr(sb, a, true);
}

bool ir_attr_is_default(const struct ir_attr_def *def, const struct ir_attr *a)
{
	return def && a && def->deflt >= 0 && a->kind == IR_ATTR_ENUM && a->i == def->deflt;
}
