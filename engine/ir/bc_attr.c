/* Tile IR bytecode: enums (§5.3) and tagged attributes (§5.1), including
 * dictionaries and optimization hints (§5.4). */
#include "engine/ir/bc_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const en_signedness[] = {"unsigned", "signed"};
static const char *const en_overflow[] = {"none", "no_signed_wrap", "no_unsigned_wrap",
					  "no_wrap"};
static const char *const en_rounding[] = {"nearest_even", "zero", "negative_inf",
					  "positive_inf", "approx", "full",
					  "nearest_int_to_zero"};
static const char *const en_ordering[] = {"unordered", "ordered"};
static const char *const en_predicate[] = {"equal", "not_equal", "less_than",
					   "less_than_or_equal", "greater_than",
					   "greater_than_or_equal"};
static const char *const en_rmw[] = {"and", "or", "xor", "add", "addf",
				     "max", "min", "umax", "umin", "xchg"};
static const char *const en_scope[] = {"tl_blk", "device", "sys"};
static const char *const en_memord[] = {"weak", "relaxed", "acquire", "release", "acq_rel"};
static const char *const en_padding[] = {"zero", "neg_zero", "nan", "pos_inf", "neg_inf"};
static const char *const en_visibility[] = {"public", "private"};

static const struct {
	const char *name;
	const char *const *cases;
	size_t n;
} enums[BC_EN_COUNT] = {
#define E(id, nm, arr) [id] = {nm, arr, TP_ARRAY_LEN(arr)}
	E(BC_EN_SIGNEDNESS, "Signedness", en_signedness),
	E(BC_EN_OVERFLOW, "IntegerOverflow", en_overflow),
	E(BC_EN_ROUNDING, "RoundingMode", en_rounding),
	E(BC_EN_CMP_ORDERING, "ComparisonOrdering", en_ordering),
	E(BC_EN_CMP_PREDICATE, "ComparisonPredicate", en_predicate),
	E(BC_EN_RMW_MODE, "AtomicRMWMode", en_rmw),
	E(BC_EN_MEM_SCOPE, "MemoryScope", en_scope),
	E(BC_EN_MEM_ORDERING, "MemoryOrderingSemantics", en_memord),
	E(BC_EN_PADDING, "PaddingValue", en_padding),
	E(BC_EN_VISIBILITY, "SymbolVisibility", en_visibility),
#undef E
};

const char *bc_enum_name(enum bc_enum e, uint64_t value)
{
	if (e <= BC_EN_NONE || e >= BC_EN_COUNT || value >= enums[e].n)
		return NULL;
	return enums[e].cases[value];
}

uint64_t bc_read_enum(struct bc_rd *r, enum bc_enum e)
{
	size_t at = r->pos;
	uint64_t v = bc_varint(r);
	if (!bc_enum_name(e, v))
		bc_fail(r->cx, at, "invalid %s value %llu", enums[e].name, (unsigned long long)v);
	return v;
}

/* ---- tagged attributes ------------------------------------------------ */

static uint32_t typed(struct bc_rd *r, bool want_float)
{
	size_t at = r->pos;
	uint64_t t = bc_varint(r);
	bc_check_type(r->cx, t, at);
	unsigned tag = r->cx->m->types[t].tag;
	if (want_float ? !bc_tag_is_float(tag) : !bc_tag_is_int(tag))
		bc_fail(r->cx, at, "%s attribute has type %llu, which is not %s type",
			want_float ? "float" : "integer", (unsigned long long)t,
			want_float ? "a float" : "an integer");
	return (uint32_t)t;
}

static void read_int_value(struct bc_rd *r, struct bc_attr *a)
{
	unsigned bits = bc_tag_bits(r->cx->m->types[a->type].tag);
	size_t at = r->pos;
	if (bits == 1) {
		a->bits = bc_u8(r);
		if (a->bits > 1)
			bc_fail(r->cx, at, "i1 value %llu is not 0 or 1", (unsigned long long)a->bits);
		return;
	}
	a->bits = bc_varint(r);
	if (bits < 64 && a->bits >> bits)
		bc_fail(r->cx, at, "integer value %llu does not fit in i%u",
			(unsigned long long)a->bits, bits);
}

static void read_float_bits(struct bc_rd *r, struct bc_attr *a)
{
	unsigned bits = bc_tag_bits(r->cx->m->types[a->type].tag);
	size_t at = r->pos;
	if (bits <= 8)
		a->bits = bc_u8(r);
	else
		a->bits = (uint64_t)bc_svarint(r);
	if (bits < 64 && a->bits >> bits)
		bc_fail(r->cx, at, "float bits 0x%llx are wider than the %u-bit type",
			(unsigned long long)a->bits, bits);
}

static int key_cmp(const struct bc_module *m, uint32_t a, uint32_t b)
{
	const struct bc_slice *x = &m->strings[a], *y = &m->strings[b];
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->p, y->p, n);
	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

struct dict_ent {
	uint32_t key, orig;
};

static int ent_cmp(const void *x, const void *y, void *arg)
{
	const struct dict_ent *a = x, *b = y;
	int c = key_cmp(arg, a->key, b->key);
	if (c)
		return c;
	return a->orig < b->orig ? -1 : a->orig > b->orig;
}

/* Sort the entries by key (dictionaries print sorted) and reject duplicate
 * keys, naming the offset of the later one. */
static void sort_dict(struct bc_ctx *cx, struct bc_attr *a, const size_t *where)
{
	if (a->n < 2)
		return;
	struct dict_ent *e = xmalloc(a->n * sizeof(*e));
	for (uint32_t i = 0; i < a->n; i++)
		e[i] = (struct dict_ent){a->keys[i], i};
	qsort_r(e, a->n, sizeof(*e), ent_cmp, cx->m);
	for (uint32_t i = 1; i < a->n; i++) {
		if (key_cmp(cx->m, e[i - 1].key, e[i].key) == 0) {
			size_t at = where[e[i].orig];
			char name[128];
			snprintf(name, sizeof(name), "%s", bc_str(cx->m, e[i].key));
			free(e);
			bc_fail(cx, at, "duplicate dictionary key '%s'", name);
		}
	}
	struct bc_attr *vals = bc_alloc_array(cx->ar, a->n, sizeof(*vals));
	for (uint32_t i = 0; i < a->n; i++) {
		a->keys[i] = e[i].key;
		vals[i] = a->elems[e[i].orig];
	}
	a->elems = vals;
	free(e);
}

void bc_read_dict_payload(struct bc_rd *r, struct bc_attr *a, uint8_t kind, unsigned depth)
{
	struct bc_ctx *cx = r->cx;
	if (depth > BC_MAX_ATTR_DEPTH)
		bc_fail(cx, r->pos, "attributes nested more than %d deep", BC_MAX_ATTR_DEPTH);
	a->kind = kind;
	a->n = bc_count(r, 2, "dictionary size");
	a->keys = bc_alloc_array(cx->ar, a->n, sizeof(uint32_t));
	a->elems = bc_alloc_array(cx->ar, a->n, sizeof(struct bc_attr));
	size_t *where = a->n ? bc_alloc_array(cx->ar, a->n, sizeof(size_t)) : NULL;
	for (uint32_t i = 0; i < a->n; i++) {
		size_t at = where[i] = r->pos;
		uint64_t key = bc_varint(r);
		bc_check_string(cx, key, at);
		if (cx->m->strings[key].len == 0)
			bc_fail(cx, at, "invalid empty attribute name for DictionaryAttr element %u", i);
		a->keys[i] = (uint32_t)key;
		size_t vat = r->pos;
		bc_read_tagged(r, &a->elems[i], depth + 1);
		if (kind == BC_AT_HINTS && a->elems[i].kind != BC_AT_DICT)
			bc_fail(cx, vat, "optimization hints value for '%s' is not a dictionary",
				bc_str(cx->m, (uint32_t)key));
	}
	sort_dict(cx, a, where);
}

static bool is_typed_kind(uint8_t k)
{
	return k == BC_AT_INT || k == BC_AT_FLOAT || k == BC_AT_BOOL || k == BC_AT_STRING ||
	       k == BC_AT_DENSE;
}

static void read_predicate_payload(struct bc_rd *r, struct bc_attr *a)
{
	struct bc_ctx *cx = r->cx;
	size_t at;
	switch (a->kind) {
	case BC_AT_DIVBY:
		a->bits = bc_varint(r);
		at = r->pos;
		a->flags = bc_u8(r);
		if (a->flags & ~3u)
			bc_fail(cx, at, "div_by flags 0x%x have undefined bits", a->flags);
		if (a->flags & 1)
			a->a = bc_svarint(r);
		if (a->flags & 2)
			a->b = bc_svarint(r);
		break;
	case BC_AT_SAME:
		a->n = bc_count(r, 8, "same_elements length");
		a->values = bc_alloc_array(cx->ar, a->n, sizeof(int64_t));
		for (uint32_t i = 0; i < a->n; i++) {
			at = r->pos;
			a->values[i] = (int64_t)bc_u64(r);
			if (a->values[i] == INT64_MIN || a->values[i] == INT64_MAX)
				bc_fail(cx, at, "array contains unsupported value %lld",
					(long long)a->values[i]);
		}
		break;
	case BC_AT_BOUNDED:
		at = r->pos;
		a->flags = bc_u8(r);
		if (a->flags & ~3u)
			bc_fail(cx, at, "bounded flags 0x%x have undefined bits", a->flags);
		if (a->flags & 1)
			a->a = bc_svarint(r);
		if (a->flags & 2)
			a->b = bc_svarint(r);
		break;
	default:
		break;
	}
}

void bc_read_tagged(struct bc_rd *r, struct bc_attr *a, unsigned depth)
{
	struct bc_ctx *cx = r->cx;
	size_t at = r->pos;
	uint64_t tag = bc_varint(r);
	a->kind = (uint8_t)tag;
	switch (tag) {
	case BC_AT_INT:
		a->type = typed(r, false);
		read_int_value(r, a);
		break;
	case BC_AT_FLOAT:
		a->type = typed(r, true);
		read_float_bits(r, a);
		break;
	case BC_AT_BOOL:
		a->bits = bc_u8(r) != 0;
		break;
	case BC_AT_TYPE: {
		size_t tat = r->pos;
		uint64_t t = bc_varint(r);
		bc_check_type(cx, t, tat);
		a->type = (uint32_t)t;
		break;
	}
	case BC_AT_STRING: {
		size_t sat = r->pos;
		uint64_t s = bc_varint(r);
		bc_check_string(cx, s, sat);
		a->index = (uint32_t)s;
		break;
	}
	case BC_AT_ARRAY:
		a->n = bc_count(r, 2, "attribute array size");
		a->elems = bc_alloc_array(cx->ar, a->n, sizeof(struct bc_attr));
		for (uint32_t i = 0; i < a->n; i++) {
			size_t eat = r->pos;
			bc_read_tagged(r, &a->elems[i], depth + 1);
			if (!is_typed_kind(a->elems[i].kind))
				bc_fail(cx, eat, "attribute array element %u is not a typed attribute", i);
		}
		break;
	case BC_AT_DENSE: {
		size_t dat = r->pos;
		uint64_t t = bc_varint(r);
		uint64_t c = bc_varint(r);
		bc_check_dense(cx, t, c, dat);
		a->type = (uint32_t)t;
		a->index = (uint32_t)c;
		break;
	}
	case BC_AT_DIVBY:
	case BC_AT_SAME:
	case BC_AT_BOUNDED:
		read_predicate_payload(r, a);
		break;
	case BC_AT_DICT:
	case BC_AT_HINTS:
		bc_read_dict_payload(r, a, (uint8_t)tag, depth + 1);
		break;
	default:
		bc_fail(cx, at, "unsupported AttributeTag %llu", (unsigned long long)tag);
	}
}
