/* Parsing attribute values of the cuda_tile text form: scalars, dense
 * data, hints, predicates, arrays and the registry's attribute specs. */
#include "engine/ir/ir_parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- scalars and dense data ---- */

static bool scalar_token(struct pstate *ps, const char **s, size_t *n)
{
	ps_ws(ps);
	const char *p = ps->p;
	if (p < ps->end && (*p == '-' || *p == '+'))
		p++;
	const char *q = p;
	while (q < ps->end && (strchr("0123456789abcdefABCDEFxX.+-", *q) || *q == 'n' ||
			       *q == 'i' || *q == 'N' || *q == 'I'))
		q++;
	/* only a sign, or nothing: not a number */
	if (q == p)
		return false;
	*s = ps->p;
	*n = (size_t)(q - ps->p);
	return true;
}

uint64_t ps_scalar(struct pstate *ps, enum ir_elem e)
{
	ps_ws(ps);
	if (ps_accept(ps, "true"))
		return 1;
	if (ps_accept(ps, "false"))
		return 0;
	const char *s;
	size_t n;
	if (!scalar_token(ps, &s, &n))
		ps_expected(ps, "a number");
	char buf[80];
	if (n >= sizeof(buf))
		ps_fail(ps, s, "number too long");
	memcpy(buf, s, n);
	buf[n] = '\0';
	bool neg = buf[0] == '-';
	const char *digits = buf + (neg || buf[0] == '+');
	bool hex = digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
	char *endp;
	errno = 0;
	if (hex || !ir_elem_is_float(e)) {
		if (!hex && strpbrk(buf, ".eEn") && !ir_elem_is_float(e))
			ps_fail(ps, s, "expected an integer for %s, found '%s'", ir_elem_name(e), buf);
		unsigned long long u = strtoull(digits, &endp, 0);
		if (*endp || errno)
			ps_fail(ps, s, "malformed number '%s'", buf);
		ps->p = s + n;
		if (hex && ir_elem_is_float(e)) { /* a float given as its bit pattern */
			int bits = ir_elem_bits(e);
			if (neg || (bits < 64 && (u >> bits)))
				ps_fail(ps, s, "0x%llx does not fit %s", u, ir_elem_name(e));
			return u;
		}
		int64_t v = neg ? -(int64_t)u : (int64_t)u;
		if (ir_elem_is_float(e))
			return ir_float_from_double(e, (double)v);
		return (uint64_t)v;
	}
	double d = strtod(buf, &endp);
	if (*endp)
		ps_fail(ps, s, "malformed number '%s'", buf);
	ps->p = s + n;
	return ir_float_from_double(e, d);
}

/* In the arena, so that an error (a longjmp) leaks nothing. */
static void dense_push(struct pstate *ps, struct dense_pending *d, uint64_t v)
{
	d->vals = ir_grow(ps->m, d->vals, &d->cap, d->n + 1, sizeof(*d->vals));
	d->vals[d->n++] = v;
}

static void dense_list(struct pstate *ps, struct dense_pending *d, enum ir_elem e)
{
	ps_nest(ps, ps->p, "dense data");
	if (ps_accept(ps, "[")) {
		d->list = true;
		if (!ps_accept(ps, "]")) {
			do
				dense_list(ps, d, e);
			while (ps_accept(ps, ","));
			ps_expect(ps, "]");
		}
	} else {
		dense_push(ps, d, ps_scalar(ps, e));
	}
	ps->depth--;
}

void ps_dense_begin(struct pstate *ps, struct dense_pending *d)
{
	memset(d, 0, sizeof(*d));
	ps_expect(ps, "<");
	d->at = ps->p;
	d->elem = ps_elem_type(ps);
	ps_expect(ps, ":");
	ps_ws(ps);
	if (ps_peek(ps, '"')) {
		const char *s;
		size_t len;
		ps_string(ps, &s, &len);
		/* "0x<hex>": the raw little-endian buffer */
		if (len < 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || (len % 2))
			ps_fail(ps, d->at, "expected a \"0x...\" hex buffer");
		size_t nb = (len - 2) / 2;
		char *bytes = ir_alloc(ps->m, nb + 1);
		for (size_t i = 0; i < nb; i++) {
			char h[3] = {s[2 + 2 * i], s[3 + 2 * i], 0};
			char *e;
			bytes[i] = (char)strtoul(h, &e, 16);
			if (*e)
				ps_fail(ps, d->at, "bad hex digit in dense buffer");
		}
		d->hex = true;
		d->hexs = bytes;
		d->hexlen = nb;
	} else {
		dense_list(ps, d, d->elem->elem);
	}
	ps_expect(ps, ">");
}

static int elem_bytes(enum ir_elem e)
{
	int b = ir_elem_bits(e);
	return b <= 8 ? 1 : (b + 7) / 8;
}

const struct ir_attr *ps_dense_finish(struct pstate *ps, struct dense_pending *d,
				      const struct ir_type *tile)
{
	if (tile->kind != IR_TY_TILE || !tile->inner || tile->inner->kind != IR_TY_ELEM)
		ps_fail(ps, d->at, "a constant needs a tile type of numbers");
	enum ir_elem e = tile->inner->elem;
	if (e != d->elem->elem)
		ps_fail(ps, d->at, "constant element type %s does not match %s", ir_elem_name(d->elem->elem),
			ir_elem_name(e));
	uint64_t count = 1;
	for (uint32_t i = 0; i < tile->rank; i++) {
		count *= (uint64_t)tile->shape[i];
		if (count > (1u << 28))
			ps_fail(ps, d->at, "constant too large");
	}
	if (d->hex) {
		size_t eb = (size_t)elem_bytes(e);
		size_t n = d->hexlen / eb;
		if (d->hexlen % eb || (n != count && n != 1))
			ps_fail(ps, d->at, "dense buffer of %zu bytes does not fit %llu elements",
				d->hexlen, (unsigned long long)count);
		for (size_t i = 0; i < n; i++) {
			uint64_t v = 0;
			for (size_t k = 0; k < eb; k++)
				v |= (uint64_t)(unsigned char)d->hexs[i * eb + k] << (8 * k);
			int bits = ir_elem_bits(e);
			if (ir_elem_is_int(e) && bits < 64 && e != IR_I1 && (v >> (bits - 1)) & 1)
				v |= ~0ULL << bits;
			if (e == IR_I1)
				v = v != 0;
			dense_push(ps, d, v);
		}
	} else if (d->n != 1 && d->n != count) {
		ps_fail(ps, d->at, "constant has %u values, its type %llu elements", d->n,
			(unsigned long long)count);
	}
	return ir_attr_dense(ps->m, tile, d->n, d->vals);
}

/* ---- attribute values ---- */

static const struct ir_attr *hint_value(struct pstate *ps)
{
	ps_ws(ps);
	if (ps_accept(ps, "true"))
		return ir_attr_bool(ps->m, true);
	if (ps_accept(ps, "false"))
		return ir_attr_bool(ps->m, false);
	if (ps_peek(ps, '"')) {
		const char *s;
		size_t len;
		ps_string(ps, &s, &len);
		return ir_attr_string(ps->m, s, len);
	}
	const char *at = ps->p;
	int64_t v;
	if (ps_int(ps, &v)) {
		if (ps_accept(ps, ":")) { /* typed integer in generic dictionaries */
			ps_elem_type(ps);
			return ir_attr_int(ps->m, v, NULL);
		}
		ps_ws(ps);
		if (ps->p >= ps->end || *ps->p == ',' || *ps->p == '}')
			return ir_attr_int(ps->m, v, NULL);
		ps->p = at; /* the start of a float, say */
	}
	/* Real hints hold integers and booleans only; any other attribute a
	 * bytecode file carries there prints in generic syntax (a typed float,
	 * a type, an array, dense<...>), and reads back the same way. */
	const struct ir_attr *a = ps_generic_attr(ps, NULL);
	if (a->kind == IR_ATTR_OPAQUE) {
		ps->p = at;
		ps_expected(ps, "a hint value");
	}
	return a;
}

static const struct ir_attr *dict_body(struct pstate *ps, bool nested)
{
	const char *keys[128];
	const struct ir_attr *vals[128];
	uint32_t n = 0;
	ps_ws(ps);
	if (!ps_peek(ps, '}') && !ps_peek(ps, '>')) {
		do {
			const char *s;
			size_t len;
			if (ps_peek(ps, '"')) /* keys that are not identifiers print quoted */
				ps_string(ps, &s, &len);
			else if (!(len = ps_ident(ps, &s)))
				ps_expected(ps, "a hint name");
			if (n == 128)
				ps_fail(ps, s, "too many hints");
			keys[n] = ir_strdup(ps->m, s, len);
			ps_expect(ps, "=");
			if (nested) {
				ps_expect(ps, "{");
				vals[n] = dict_body(ps, false);
				ps_expect(ps, "}");
			} else {
				vals[n] = hint_value(ps);
			}
			n++;
		} while (ps_accept(ps, ","));
	}
	return nested ? ir_attr_hints(ps->m, n, keys, vals) : ir_attr_dict(ps->m, n, keys, vals);
}

const struct ir_attr *ps_hints(struct pstate *ps)
{
	ps_ws(ps);
	ps_skip_prefix(ps, "#cuda_tile.optimization_hints");
	ps_expect(ps, "<");
	const struct ir_attr *a = dict_body(ps, true);
	ps_expect(ps, ">");
	return a;
}

const struct ir_attr *ps_predicate(struct pstate *ps)
{
	ps_ws(ps);
	ps_skip_prefix(ps, "#cuda_tile.");
	if (ps_accept(ps, "div_by")) {
		ps_expect(ps, "<");
		int64_t d = ps_expect_int(ps, "a divisor"), every = 0, along = 0;
		bool has = false;
		if (ps_accept(ps, ",")) {
			ps_expect(ps, "every");
			every = ps_expect_int(ps, "an 'every' count");
			ps_expect(ps, "along");
			along = ps_expect_int(ps, "an 'along' dimension");
			has = true;
		}
		ps_expect(ps, ">");
		return ir_attr_div_by(ps->m, d, has, every, along);
	}
	if (ps_accept(ps, "same_elements")) {
		ps_expect(ps, "<");
		int64_t v[PS_MAX_RANK];
		uint32_t n = ps_int_list(ps, v, PS_MAX_RANK, false);
		ps_expect(ps, ">");
		return ir_attr_same_elements(ps->m, n, v);
	}
	if (ps_accept(ps, "bounded")) {
		int64_t lb = 0, ub = 0;
		bool hl = false, hu = false;
		ps_expect(ps, "<");
		if (!ps_accept(ps, "?"))
			lb = ps_expect_int(ps, "a lower bound or '?'"), hl = true;
		ps_expect(ps, ",");
		if (!ps_accept(ps, "?"))
			ub = ps_expect_int(ps, "an upper bound or '?'"), hu = true;
		ps_expect(ps, ">");
		return ir_attr_bounded(ps->m, hl, lb, hu, ub);
	}
	ps_expected(ps, "an assume predicate (div_by, same_elements, bounded)");
}

/* Does the array at the cursor give its elements' types (`[0 : f32]`)?
 * cutile-ir prints a reduction's identities bare (`[-inf]`). */
bool ps_array_typed(struct pstate *ps)
{
	ps_ws(ps);
	for (const char *p = ps->p; p < ps->end && *p != ']' && *p != '\n'; p++)
		if (*p == ':')
			return true;
	return false;
}

const struct ir_attr *ps_untyped_array(struct pstate *ps, const struct ir_type *const *types,
				       uint32_t ntypes)
{
	const struct ir_attr *el[256];
	uint32_t n = 0;
	ps_expect(ps, "[");
	if (!ps_accept(ps, "]")) {
		do {
			if (n == 256 || n >= ntypes)
				ps_fail(ps, ps->p, "more identities than operands");
			const struct ir_type *t = types[n];
			uint64_t v = ps_scalar(ps, t->elem);
			el[n++] = ir_elem_is_float(t->elem) ? ir_attr_float(ps->m, v, t)
							     : ir_attr_int(ps->m, (int64_t)v, t);
		} while (ps_accept(ps, ","));
		ps_expect(ps, "]");
	}
	return ir_attr_array(ps->m, n, el);
}

const struct ir_attr *ps_typed_array(struct pstate *ps)
{
	const struct ir_attr *el[256];
	uint32_t n = 0;
	ps_expect(ps, "[");
	if (!ps_accept(ps, "]")) {
		do {
			if (n == 256)
				ps_fail(ps, ps->p, "too many elements");
			ps_ws(ps);
			const char *vstart = ps->p;
			if (!ps_accept(ps, "true") && !ps_accept(ps, "false")) {
				const char *s;
				size_t len;
				if (!scalar_token(ps, &s, &len))
					ps_expected(ps, "a value");
				ps->p = s + len;
			}
			/* the type follows the value: read it first, then the value */
			ps_expect(ps, ":");
			const struct ir_type *t = ps_elem_type(ps);
			const char *after = ps->p;
			ps->p = vstart;
			uint64_t v = ps_scalar(ps, t->elem);
			ps->p = after;
			el[n++] = ir_elem_is_float(t->elem) ? ir_attr_float(ps->m, v, t)
							     : ir_attr_int(ps->m, (int64_t)v, t);
		} while (ps_accept(ps, ","));
		ps_expect(ps, "]");
	}
	return ir_attr_array(ps->m, n, el);
}

const struct ir_attr *ps_int_array(struct pstate *ps)
{
	int64_t v[PS_MAX_RANK];
	uint32_t n = 0;
	ps_ws(ps);
	if (ps_accept(ps, "array")) {
		ps_expect(ps, "<");
		ps_elem_type(ps);
		if (ps_accept(ps, ":"))
			do {
				if (n == PS_MAX_RANK)
					ps_fail(ps, ps->p, "too many values");
				v[n++] = ps_expect_int(ps, "an integer");
			} while (ps_accept(ps, ","));
		ps_expect(ps, ">");
	} else {
		n = ps_int_list(ps, v, PS_MAX_RANK, false);
	}
	return ir_attr_int_array(ps->m, n, v);
}

static int enum_kw(struct pstate *ps, enum ir_enum_kind k)
{
	const char *s, *at = ps->p;
	size_t n = ps_ident(ps, &s);
	int v = n ? ir_enum_lookup(k, s, n) : -1;
	if (v < 0) {
		ps->p = at;
		char what[96];
		snprintf(what, sizeof(what), "a %s keyword", ir_enum_name(k));
		ps_expected(ps, what);
	}
	return v;
}

bool ps_attr_starts(struct pstate *ps, const struct ir_attr_def *def)
{
	ps_ws(ps);
	const char *at = ps->p, *s;
	size_t n;
	bool ok = false;
	switch (def->spec) {
	case IR_AK_ENUM:
		n = ps_ident(ps, &s);
		ok = n && ir_enum_lookup(def->ekind, s, n) >= 0;
		break;
	case IR_AK_ROUNDING:
		ok = ps_peek_word(ps, "rounding");
		break;
	case IR_AK_OVERFLOW:
		ok = ps_peek_word(ps, "overflow");
		break;
	case IR_AK_HINTS:
		ok = ps_peek(ps, '<');
		break;
	default:
		ok = true;
	}
	ps->p = at;
	return ok;
}

const struct ir_attr *ps_attr_spec(struct pstate *ps, const struct ir_attr_def *def)
{
	ps_ws(ps);
	switch (def->spec) {
	case IR_AK_ENUM:
		return ir_attr_enum(ps->m, def->ekind, enum_kw(ps, def->ekind));
	case IR_AK_ROUNDING:
	case IR_AK_OVERFLOW: {
		const char *w = def->spec == IR_AK_ROUNDING ? "rounding" : "overflow";
		if (!ps_peek_word(ps, w))
			return NULL;
		ps_expect(ps, w);
		/* `rounding<negative_inf>`, or cutile-ir's own printing
		 * `rounding negative_inf` (its bytecode decodes as the first) */
		bool angle = ps_accept(ps, "<");
		int v = enum_kw(ps, def->ekind);
		if (angle)
			ps_expect(ps, ">");
		return ir_attr_enum(ps->m, def->ekind, v);
	}
	case IR_AK_UNIT:
		return NULL;
	case IR_AK_INT:
		return ir_attr_int(ps->m, ps_expect_int(ps, "an integer"), NULL);
	case IR_AK_BOOL:
		if (ps_accept(ps, "true"))
			return ir_attr_bool(ps->m, true);
		ps_expect(ps, "false");
		return ir_attr_bool(ps->m, false);
	case IR_AK_STRING: {
		const char *s;
		size_t len;
		if (!ps_string(ps, &s, &len))
			ps_expected(ps, "a quoted string");
		return ir_attr_string(ps->m, s, len);
	}
	case IR_AK_SYMBOL: {
		ps_expect(ps, "@");
		const char *s;
		size_t len;
		if (ps_peek(ps, '"')) {
			ps_string(ps, &s, &len);
		} else {
			len = ps_ident(ps, &s);
			if (!len)
				ps_expected(ps, "a symbol name");
		}
		return ir_attr_symbol(ps->m, ir_strdup(ps->m, s, len));
	}
	case IR_AK_INT_ARRAY:
		return ps_int_array(ps);
	case IR_AK_ATTR_ARRAY:
		return ps_typed_array(ps);
	case IR_AK_HINTS:
		return ps_hints(ps);
	case IR_AK_PREDICATE:
		return ps_predicate(ps);
	case IR_AK_TYPE:
		return ir_attr_type(ps->m, ps_type(ps));
	case IR_AK_DENSE:
		break;
	}
	ps_fail(ps, ps->p, "internal: attribute '%s' cannot be parsed here", def->name);
}
