/* Attributes: constructors that intern per module. An attribute is
 * immutable once built, so equal attributes of one module are one object:
 * a 100k-line kernel repeats the same constants, divisors, identities and
 * enums thousands of times, and every reader that keys on the pointer (the
 * diff's printed-attribute cache) does its work once per distinct value.
 * Children (array elements, dict values) are interned first, so their
 * pointers identify them; types are interned too (ir_types.c). */
#include "engine/ir/ir.h"
#include "engine/ir/ir_internal.h"

#include <stdlib.h>
#include <string.h>

/* The most common attributes skip the hash table: one slot each. */
enum { SHARED_INT_MIN = -1, SHARED_INT_MAX = 64 };

struct attr_table {
	struct ir_intern set;
	const struct ir_attr *unit, *bools[2];
	const struct ir_attr *enums[IR_EN_COUNT][16];
	const struct ir_attr *ints[IR_ELEM_COUNT][SHARED_INT_MAX - SHARED_INT_MIN + 1];
};

void ir_attrs_init(struct ir_module *m)
{
	struct attr_table *t = xcalloc(1, sizeof(*t));
	ir_intern_init(&t->set);
	m->attrs = t;
}

void ir_attrs_free(struct ir_module *m)
{
	struct attr_table *t = m->attrs;
	if (t) {
		ir_intern_free(&t->set);
		free(t);
	}
	m->attrs = NULL;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	v *= 0xc6a4a7935bd1e995ULL;
	v ^= v >> 47;
	return (h ^ v) * 0x9e3779b97f4a7c15ULL;
}

static uint64_t attr_hash(const struct ir_attr *a)
{
	uint64_t h = mix(0x243f6a8885a308d3ULL, (uint64_t)a->kind << 8 | (uint64_t)a->ekind);
	h = mix(h, (uint64_t)a->b | (uint64_t)a->has_every << 1 | (uint64_t)a->has_lb << 2 |
			   (uint64_t)a->has_ub << 3);
	h = mix(h, a->n);
	h = mix(h, (uint64_t)(uintptr_t)a->type);
	switch (a->kind) {
	case IR_ATTR_STRING:
	case IR_ATTR_SYMBOL:
	case IR_ATTR_OPAQUE:
		return mix(h, tp_hash(a->str, a->len, 7));
	case IR_ATTR_ARRAY:
		return mix(h, tp_hash(a->elems, a->n * sizeof(*a->elems), 11));
	case IR_ATTR_DICT:
	case IR_ATTR_HINTS:
		for (uint32_t i = 0; i < a->n; i++)
			h = mix(mix(h, tp_hash(a->keys[i], strlen(a->keys[i]), 13)),
				(uint64_t)(uintptr_t)a->elems[i]);
		return h;
	case IR_ATTR_INT_ARRAY:
	case IR_ATTR_SAME_ELEMENTS:
	case IR_ATTR_DENSE:
		return mix(h, tp_hash(a->vals, a->n * sizeof(*a->vals), 17));
	case IR_ATTR_FLOAT:
		return mix(h, a->bits);
	case IR_ATTR_BOUNDED:
		return mix(mix(h, (uint64_t)a->lb), (uint64_t)a->ub);
	default:
		return mix(mix(mix(h, (uint64_t)a->i), (uint64_t)a->every), (uint64_t)a->along);
	}
}

static bool same_bytes(const void *a, const void *b, size_t n)
{
	return n == 0 || memcmp(a, b, n) == 0;
}

/* Equal within one module: children and types by pointer. */
static bool same_local(const void *have, const void *proto)
{
	const struct ir_attr *a = have, *b = proto;
	if (a->kind != b->kind || a->ekind != b->ekind || a->b != b->b ||
	    a->has_every != b->has_every || a->has_lb != b->has_lb || a->has_ub != b->has_ub ||
	    a->n != b->n || a->type != b->type)
		return false;
	switch (a->kind) {
	case IR_ATTR_STRING:
	case IR_ATTR_SYMBOL:
	case IR_ATTR_OPAQUE:
		return a->len == b->len && same_bytes(a->str, b->str, a->len);
	case IR_ATTR_ARRAY:
		return same_bytes(a->elems, b->elems, a->n * sizeof(*a->elems));
	case IR_ATTR_DICT:
	case IR_ATTR_HINTS:
		for (uint32_t i = 0; i < a->n; i++)
			if (a->elems[i] != b->elems[i] || strcmp(a->keys[i], b->keys[i]) != 0)
				return false;
		return true;
	case IR_ATTR_INT_ARRAY:
	case IR_ATTR_SAME_ELEMENTS:
	case IR_ATTR_DENSE:
		return same_bytes(a->vals, b->vals, a->n * sizeof(*a->vals));
	case IR_ATTR_FLOAT:
		return a->bits == b->bits;
	case IR_ATTR_BOUNDED:
		return a->lb == b->lb && a->ub == b->ub;
	default:
		return a->i == b->i && a->every == b->every && a->along == b->along;
	}
}

static void *copy(struct ir_module *m, const void *p, size_t n)
{
	void *q = ir_alloc(m, n ? n : 1);
	if (n)
		memcpy(q, p, n);
	return q;
}

/* The module's copy of the attribute `proto` describes (whose arrays may be
 * the caller's), made the first time it is asked for. */
static const struct ir_attr *intern(struct ir_module *m, const struct ir_attr *proto)
{
	struct attr_table *t = m->attrs;
	uint64_t h = attr_hash(proto);
	const struct ir_attr *have = ir_intern_find(&t->set, h, proto, same_local);
	if (have)
		return have;
	struct ir_attr *a = ir_alloc(m, sizeof(*a));
	*a = *proto;
	switch (a->kind) {
	case IR_ATTR_STRING:
	case IR_ATTR_SYMBOL:
	case IR_ATTR_OPAQUE:
		a->str = ir_strdup(m, proto->str, proto->len);
		break;
	case IR_ATTR_ARRAY:
		a->elems = copy(m, proto->elems, a->n * sizeof(*a->elems));
		break;
	case IR_ATTR_DICT:
	case IR_ATTR_HINTS: {
		const char **ks = ir_alloc(m, (a->n ? a->n : 1) * sizeof(*ks));
		for (uint32_t k = 0; k < a->n; k++)
			ks[k] = ir_strdup(m, proto->keys[k], strlen(proto->keys[k]));
		a->keys = ks;
		a->elems = copy(m, proto->elems, a->n * sizeof(*a->elems));
		break;
	}
	case IR_ATTR_INT_ARRAY:
	case IR_ATTR_SAME_ELEMENTS:
	case IR_ATTR_DENSE:
		a->vals = copy(m, proto->vals, a->n * sizeof(*a->vals));
		break;
	default:
		break;
	}
	ir_intern_add(&t->set, h, a);
	return a;
}

static struct ir_attr proto_of(enum ir_attr_kind k)
{
	struct ir_attr a;
	memset(&a, 0, sizeof(a));
	a.kind = k;
	return a;
}

const struct ir_attr *ir_attr_unit(struct ir_module *m)
{
	struct attr_table *t = m->attrs;
	if (!t->unit) {
		struct ir_attr a = proto_of(IR_ATTR_UNIT);
		t->unit = intern(m, &a);
	}
	return t->unit;
}

const struct ir_attr *ir_attr_bool(struct ir_module *m, bool v)
{
	struct attr_table *t = m->attrs;
	if (!t->bools[v]) {
		struct ir_attr a = proto_of(IR_ATTR_BOOL);
		a.b = v;
		a.i = v;
		t->bools[v] = intern(m, &a);
	}
	return t->bools[v];
}

const struct ir_attr *ir_attr_int(struct ir_module *m, int64_t v, const struct ir_type *elem)
{
	const struct ir_attr **slot = NULL;
	struct attr_table *t = m->attrs;
	if (v >= SHARED_INT_MIN && v <= SHARED_INT_MAX && (!elem || elem->kind == IR_TY_ELEM))
		slot = &t->ints[elem ? elem->elem : IR_ELEM_NONE][v - SHARED_INT_MIN];
	if (slot && *slot)
		return *slot;
	struct ir_attr a = proto_of(IR_ATTR_INT);
	a.i = v;
	a.type = elem;
	const struct ir_attr *r = intern(m, &a);
	if (slot)
		*slot = r;
	return r;
}

const struct ir_attr *ir_attr_float(struct ir_module *m, uint64_t bits, const struct ir_type *elem)
{
	struct ir_attr a = proto_of(IR_ATTR_FLOAT);
	a.bits = bits;
	a.type = elem;
	return intern(m, &a);
}

static const struct ir_attr *text_attr(struct ir_module *m, enum ir_attr_kind k, const char *s,
				       size_t len)
{
	struct ir_attr a = proto_of(k);
	a.str = s ? s : "";
	a.len = s ? len : 0;
	return intern(m, &a);
}

const struct ir_attr *ir_attr_string(struct ir_module *m, const char *s, size_t len)
{
	return text_attr(m, IR_ATTR_STRING, s, len);
}

const struct ir_attr *ir_attr_symbol(struct ir_module *m, const char *name)
{
	return text_attr(m, IR_ATTR_SYMBOL, name, strlen(name));
}

const struct ir_attr *ir_attr_opaque(struct ir_module *m, const char *text, size_t len)
{
	return text_attr(m, IR_ATTR_OPAQUE, text, len);
}

const struct ir_attr *ir_attr_type(struct ir_module *m, const struct ir_type *ty)
{
	struct ir_attr a = proto_of(IR_ATTR_TYPE);
	a.type = ty;
	return intern(m, &a);
}

const struct ir_attr *ir_attr_enum(struct ir_module *m, enum ir_enum_kind k, int v)
{
	struct attr_table *t = m->attrs;
	const struct ir_attr **slot =
		(unsigned)k < IR_EN_COUNT && v >= 0 && v < 16 ? &t->enums[k][v] : NULL;
	if (slot && *slot)
		return *slot;
	struct ir_attr a = proto_of(IR_ATTR_ENUM);
	a.ekind = k;
	a.i = v;
	const struct ir_attr *r = intern(m, &a);
	if (slot)
		*slot = r;
	return r;
}

const struct ir_attr *ir_attr_array(struct ir_module *m, uint32_t n,
				    const struct ir_attr *const *elems)
{
	struct ir_attr a = proto_of(IR_ATTR_ARRAY);
	a.n = n;
	a.elems = elems;
	return intern(m, &a);
}

/* int64 values as the uint64 words the model keeps, in `buf` when they fit. */
static const uint64_t *as_words(uint32_t n, const int64_t *v, uint64_t *buf, size_t cap,
				uint64_t **heap)
{
	uint64_t *w = n <= cap ? buf : (*heap = xmalloc(n * sizeof(*w)));
	for (uint32_t i = 0; i < n; i++)
		w[i] = (uint64_t)v[i];
	return w;
}

static const struct ir_attr *ints_attr(struct ir_module *m, enum ir_attr_kind k, uint32_t n,
				       const int64_t *v)
{
	uint64_t buf[16], *heap = NULL;
	struct ir_attr a = proto_of(k);
	a.n = n;
	a.vals = as_words(n, v, buf, TP_ARRAY_LEN(buf), &heap);
	const struct ir_attr *r = intern(m, &a);
	free(heap);
	return r;
}

const struct ir_attr *ir_attr_int_array(struct ir_module *m, uint32_t n, const int64_t *v)
{
	return ints_attr(m, IR_ATTR_INT_ARRAY, n, v);
}

const struct ir_attr *ir_attr_same_elements(struct ir_module *m, uint32_t n, const int64_t *v)
{
	return ints_attr(m, IR_ATTR_SAME_ELEMENTS, n, v);
}

/* Keys sorted byte-wise, a repeated key keeping its last value. */
static const struct ir_attr *dict_like(struct ir_module *m, enum ir_attr_kind k, uint32_t n,
				       const char *const *keys, const struct ir_attr *const *vals)
{
	const char **ks = xmalloc((n ? n : 1) * sizeof(*ks));
	const struct ir_attr **vs = xmalloc((n ? n : 1) * sizeof(*vs));
	uint32_t cnt = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t j = 0;
		int c = 1;
		while (j < cnt && (c = strcmp(ks[j], keys[i])) < 0)
			j++;
		if (j < cnt && c == 0) {
			vs[j] = vals[i];
			continue;
		}
		memmove(ks + j + 1, ks + j, (cnt - j) * sizeof(*ks));
		memmove(vs + j + 1, vs + j, (cnt - j) * sizeof(*vs));
		ks[j] = keys[i];
		vs[j] = vals[i];
		cnt++;
	}
	struct ir_attr a = proto_of(k);
	a.n = cnt;
	a.keys = ks;
	a.elems = vs;
	const struct ir_attr *r = intern(m, &a);
	free(ks);
	free(vs);
	return r;
}

const struct ir_attr *ir_attr_dict(struct ir_module *m, uint32_t n, const char *const *keys,
				   const struct ir_attr *const *vals)
{
	return dict_like(m, IR_ATTR_DICT, n, keys, vals);
}

const struct ir_attr *ir_attr_hints(struct ir_module *m, uint32_t n, const char *const *keys,
				    const struct ir_attr *const *dicts)
{
	return dict_like(m, IR_ATTR_HINTS, n, keys, dicts);
}

const struct ir_attr *ir_attr_dense(struct ir_module *m, const struct ir_type *tile, uint32_t n,
				    const uint64_t *vals)
{
	struct ir_attr a = proto_of(IR_ATTR_DENSE);
	a.type = tile;
	a.n = n;
	a.vals = vals;
	return intern(m, &a);
}

const struct ir_attr *ir_attr_div_by(struct ir_module *m, int64_t divisor, bool has_every,
				     int64_t every, int64_t along)
{
	struct ir_attr a = proto_of(IR_ATTR_DIV_BY);
	a.i = divisor;
	a.has_every = has_every;
	a.every = has_every ? every : 0;
	a.along = has_every ? along : 0;
	return intern(m, &a);
}

const struct ir_attr *ir_attr_bounded(struct ir_module *m, bool has_lb, int64_t lb, bool has_ub,
				      int64_t ub)
{
	struct ir_attr a = proto_of(IR_ATTR_BOUNDED);
	a.has_lb = has_lb;
	a.has_ub = has_ub;
	a.lb = has_lb ? lb : 0;
	a.ub = has_ub ? ub : 0;
	return intern(m, &a);
}

const struct ir_attr *ir_dict_get(const struct ir_attr *dict, const char *key)
{
	if (!dict || (dict->kind != IR_ATTR_DICT && dict->kind != IR_ATTR_HINTS))
		return NULL;
	for (uint32_t i = 0; i < dict->n; i++)
		if (strcmp(dict->keys[i], key) == 0)
			return dict->elems[i];
	return NULL;
}
