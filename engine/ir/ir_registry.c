/* The op registry: turns the spec strings of ir_ops.def into tables once,
 * plus the element-type and enum keyword tables. A malformed spec is a
 * programming error and aborts at first use (a unit test loads every row). */
#include "engine/ir/ir.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- element types ---- */

static const struct {
	const char *name;
	int bits;
	bool is_float;
} elems[IR_ELEM_COUNT] = {
	[IR_ELEM_NONE] = {"?", 0, false},
#define IR_X(id, nm, bt, fl) [IR_##id] = {nm, bt, fl},
	IR_ELEM_LIST(IR_X)
#undef IR_X
};

const char *ir_elem_name(enum ir_elem e)
{
	return (unsigned)e < IR_ELEM_COUNT ? elems[e].name : "?";
}

enum ir_elem ir_elem_lookup(const char *s, size_t len)
{
	for (int e = 1; e < IR_ELEM_COUNT; e++)
		if (strlen(elems[e].name) == len && memcmp(elems[e].name, s, len) == 0)
			return (enum ir_elem)e;
	return IR_ELEM_NONE;
}

int ir_elem_bits(enum ir_elem e)
{
	return (unsigned)e < IR_ELEM_COUNT ? elems[e].bits : 0;
}

bool ir_elem_is_float(enum ir_elem e)
{
	return e > IR_ELEM_NONE && e < IR_ELEM_COUNT && elems[e].is_float;
}

bool ir_elem_is_int(enum ir_elem e)
{
	return e > IR_ELEM_NONE && e < IR_ELEM_COUNT && !elems[e].is_float;
}

/* ---- enums ---- */

static const char *const en_sign[] = {"unsigned", "signed", NULL};
static const char *const en_ovf[] = {"none", "no_signed_wrap", "no_unsigned_wrap", "no_wrap",
				     NULL};
static const char *const en_rnd[] = {"nearest_even", "zero", "negative_inf", "positive_inf",
				     "approx", "full", "nearest_int_to_zero", "nearest_away",
				     NULL};
static const char *const en_cord[] = {"unordered", "ordered", NULL};
static const char *const en_pred[] = {"equal", "not_equal", "less_than", "less_than_or_equal",
				      "greater_than", "greater_than_or_equal", NULL};
static const char *const en_mode[] = {"and", "or", "xor", "add", "addf", "max", "min",
				      "umax", "umin", "xchg", NULL};
static const char *const en_scope[] = {"tl_blk", "device", "sys", NULL};
static const char *const en_mem[] = {"weak", "relaxed", "acquire", "release", "acq_rel", NULL};
static const char *const en_pad[] = {"zero", "neg_zero", "nan", "pos_inf", "neg_inf", NULL};
static const char *const en_vis[] = {"public", "private", NULL};

static const struct {
	const char *name;
	const char *const *kw;
} enums[IR_EN_COUNT] = {
	[IR_EN_SIGNEDNESS] = {"signedness", en_sign},
	[IR_EN_OVERFLOW] = {"overflow", en_ovf},
	[IR_EN_ROUNDING] = {"rounding", en_rnd},
	[IR_EN_CMP_ORDERING] = {"comparison_ordering", en_cord},
	[IR_EN_CMP_PREDICATE] = {"comparison_predicate", en_pred},
	[IR_EN_RMW_MODE] = {"atomic_rmw_mode", en_mode},
	[IR_EN_MEM_SCOPE] = {"memory_scope", en_scope},
	[IR_EN_MEM_ORDERING] = {"memory_ordering_semantics", en_mem},
	[IR_EN_PADDING] = {"padding_value", en_pad},
	[IR_EN_VISIBILITY] = {"visibility", en_vis},
};

const char *ir_enum_name(enum ir_enum_kind k)
{
	return (unsigned)k < IR_EN_COUNT ? enums[k].name : "?";
}

int ir_enum_count(enum ir_enum_kind k)
{
	if ((unsigned)k >= IR_EN_COUNT)
		return 0;
	int n = 0;
	while (enums[k].kw[n])
		n++;
	return n;
}

const char *ir_enum_keyword(enum ir_enum_kind k, int v)
{
	if (v < 0 || v >= ir_enum_count(k))
		return NULL;
	return enums[k].kw[v];
}

int ir_enum_lookup(enum ir_enum_kind k, const char *kw, size_t len)
{
	int n = ir_enum_count(k);
	for (int i = 0; i < n; i++)
		if (strlen(enums[k].kw[i]) == len && memcmp(enums[k].kw[i], kw, len) == 0)
			return i;
	return -1;
}

/* ---- op table ---- */

struct raw_row {
	const char *name;
	int bc;
	int since;
	const char *groups, *attrs, *results;
	int nregions;
	const char *format, *bcflags;
};

static const struct raw_row raw[IR_OP_COUNT] = {
#define IR_OP(id, nm, bc, since, groups, attrs, results, nregions, format, bcflags) \
	[IR_OP_##id] = {nm, bc, since, groups, attrs, results, nregions, format, bcflags},
#include "engine/ir/ir_ops.def"
#undef IR_OP
};

static struct ir_opdef defs[IR_OP_COUNT + 1];
static pthread_once_t defs_once = PTHREAD_ONCE_INIT; /* parsers may run on two threads */

/* Split a comma list into a fresh NULL-terminated vector of item strings. */
static char **items(const char *spec, size_t *n)
{
	if (!*spec) {
		*n = 0;
		char **v = xcalloc(1, sizeof(char *));
		return v;
	}
	return str_split(spec, ',', false, n);
}

/* Cut "@13x" off an item and return the version (default `dflt`). */
static uint16_t cut_since(char *s, uint16_t dflt)
{
	char *at = strchr(s, '@');
	if (!at)
		return dflt;
	*at = '\0';
	return (uint16_t)atoi(at + 1);
}

static const struct {
	const char *kind;
	enum ir_attr_spec spec;
	int ekind;
} attr_kinds[] = {
	{"rnd", IR_AK_ROUNDING, IR_EN_ROUNDING}, {"ovf", IR_AK_OVERFLOW, IR_EN_OVERFLOW},
	{"sgn", IR_AK_ENUM, IR_EN_SIGNEDNESS},   {"pred", IR_AK_ENUM, IR_EN_CMP_PREDICATE},
	{"cord", IR_AK_ENUM, IR_EN_CMP_ORDERING}, {"mode", IR_AK_ENUM, IR_EN_RMW_MODE},
	{"scope", IR_AK_ENUM, IR_EN_MEM_SCOPE},  {"mem", IR_AK_ENUM, IR_EN_MEM_ORDERING},
	{"vis", IR_AK_ENUM, IR_EN_VISIBILITY},   {"unit", IR_AK_UNIT, 0},
	{"int", IR_AK_INT, 0},                   {"bool", IR_AK_BOOL, 0},
	{"str", IR_AK_STRING, 0},                {"sym", IR_AK_SYMBOL, 0},
	{"i32arr", IR_AK_INT_ARRAY, 0},          {"dense", IR_AK_DENSE, 0},
	{"attrarr", IR_AK_ATTR_ARRAY, 0},        {"hints", IR_AK_HINTS, 0},
	{"assume", IR_AK_PREDICATE, 0},          {"type", IR_AK_TYPE, 0},
};

static void build_def(struct ir_opdef *d, int code, const struct raw_row *r)
{
	d->code = code;
	d->name = r->name;
	d->bc_opcode = r->bc;
	d->since = (uint16_t)r->since;
	d->nregions = (uint32_t)r->nregions;
	d->format = r->format;
	d->terminator = code == IR_OP_BREAK || code == IR_OP_CONTINUE || code == IR_OP_RETURN ||
			code == IR_OP_YIELD;

	size_t n;
	char **v = items(r->groups, &n);
	struct ir_group_def *g = xcalloc(n ? n : 1, sizeof(*g));
	for (size_t i = 0; i < n; i++) {
		g[i].since = cut_since(v[i], d->since);
		size_t l = strlen(v[i]);
		g[i].card = IR_CARD_ONE;
		if (l && v[i][l - 1] == '?')
			g[i].card = IR_CARD_OPTIONAL, v[i][--l] = '\0';
		else if (l && v[i][l - 1] == '*')
			g[i].card = IR_CARD_VARIADIC, v[i][--l] = '\0';
		g[i].name = xstrdup(v[i]);
	}
	d->groups = g;
	d->ngroups = (uint32_t)n;
	if (n > UINT8_MAX) /* an op record keeps the count in a byte */
		tp_die("ir_ops.def: %s has %zu operand groups", d->name, n);
	strv_free(v);

	v = items(r->attrs, &n);
	struct ir_attr_def *a = xcalloc(n ? n : 1, sizeof(*a));
	for (size_t i = 0; i < n; i++) {
		a[i].since = cut_since(v[i], d->since);
		size_t l = strlen(v[i]);
		if (l && v[i][l - 1] == '?')
			a[i].optional = true, v[i][--l] = '\0';
		char *colon = strchr(v[i], ':');
		if (!colon)
			tp_die("ir_ops.def: %s: attribute '%s' has no kind", r->name, v[i]);
		*colon = '\0';
		char *kind = colon + 1, *eq = strchr(kind, '=');
		if (eq)
			*eq = '\0';
		a[i].name = xstrdup(v[i]);
		a[i].deflt = -1;
		size_t k;
		for (k = 0; k < TP_ARRAY_LEN(attr_kinds); k++)
			if (strcmp(attr_kinds[k].kind, kind) == 0)
				break;
		if (k == TP_ARRAY_LEN(attr_kinds))
			tp_die("ir_ops.def: %s: unknown attribute kind '%s'", r->name, kind);
		a[i].spec = attr_kinds[k].spec;
		a[i].ekind = (enum ir_enum_kind)attr_kinds[k].ekind;
		if (a[i].spec == IR_AK_UNIT)
			a[i].optional = true;
		if (eq) {
			a[i].deflt = ir_enum_lookup(a[i].ekind, eq + 1, strlen(eq + 1));
			if (a[i].deflt < 0)
				tp_die("ir_ops.def: %s: bad default '%s'", r->name, eq + 1);
		}
	}
	d->attrs = a;
	d->nattrs = (uint32_t)n;
	strv_free(v);

	v = items(r->results, &n);
	struct ir_result_def *res = xcalloc(n ? n : 1, sizeof(*res));
	for (size_t i = 0; i < n; i++) {
		res[i].since = cut_since(v[i], d->since);
		size_t l = strlen(v[i]);
		if (l && v[i][l - 1] == '*')
			res[i].variadic = true, v[i][--l] = '\0';
		res[i].type_from = -1;
		char *eq = strchr(v[i], '=');
		if (eq) {
			*eq = '\0';
			if (strcmp(eq + 1, "^") == 0) {
				res[i].type_from = -2;
			} else {
				res[i].type_from = ir_opdef_group(d, eq + 1);
				if (res[i].type_from < 0)
					tp_die("ir_ops.def: %s: no group '%s'", r->name, eq + 1);
			}
		}
		char *colon = strchr(v[i], ':');
		if (colon) {
			*colon = '\0';
			res[i].hint = xstrdup(colon + 1);
		}
		res[i].name = xstrdup(v[i]);
	}
	d->results = res;
	d->nresults = (uint32_t)n;
	strv_free(v);

	v = items(r->bcflags, &n);
	const char **fl = xcalloc(n ? n : 1, sizeof(*fl));
	uint16_t *fs = xcalloc(n ? n : 1, sizeof(*fs));
	for (size_t i = 0; i < n; i++) {
		fs[i] = cut_since(v[i], d->since);
		fl[i] = xstrdup(v[i]);
		if (ir_opdef_group(d, v[i]) < 0 && !ir_opdef_attr(d, v[i]))
			tp_die("ir_ops.def: %s: flag '%s' names nothing", r->name, v[i]);
	}
	d->flags = fl;
	d->flag_since = fs;
	d->nflags = (uint32_t)n;
	strv_free(v);
}

/* Names (and the aliases "print", "fpowf") to op codes: the parser looks
 * up every op it reads. Open addressing; -1 = empty. */
static const struct {
	const char *alias;
	int code;
} aliases[] = {{"print", IR_OP_PRINT_TKO}, {"fpowf", IR_OP_POW}};
static const char *name_key[256];
static int16_t name_code[256];

static size_t name_slot(const char *name, size_t len)
{
	return (size_t)tp_hash(name, len, 0) & (TP_ARRAY_LEN(name_key) - 1);
}

static void name_put(const char *name, int code)
{
	size_t i = name_slot(name, strlen(name));
	while (name_key[i])
		i = (i + 1) & (TP_ARRAY_LEN(name_key) - 1);
	name_key[i] = name;
	name_code[i] = (int16_t)code;
}

static void defs_build(void)
{
	_Static_assert(IR_OP_COUNT + 8 < 256 / 2, "name table too small");
	for (int c = 0; c < IR_OP_COUNT; c++) {
		build_def(&defs[c], c, &raw[c]);
		name_put(defs[c].name, c);
	}
	for (size_t i = 0; i < TP_ARRAY_LEN(aliases); i++)
		name_put(aliases[i].alias, aliases[i].code);
	/* Unknown ops: one variadic operand group, printed generically. */
	static const struct ir_group_def unknown_group = {"operands", IR_CARD_VARIADIC, 0};
	defs[IR_OP_UNKNOWN] = (struct ir_opdef){
		.code = IR_OP_UNKNOWN, .name = "?", .bc_opcode = -1, .ngroups = 1,
		.groups = &unknown_group, .format = "@unknown",
	};
}

static void defs_init(void)
{
	pthread_once(&defs_once, defs_build);
}

const struct ir_opdef *ir_opdef(int code)
{
	defs_init();
	if (code < 0 || code > IR_OP_COUNT)
		code = IR_OP_UNKNOWN;
	return &defs[code];
}

const struct ir_opdef *ir_opdef_by_name(const char *name, size_t len)
{
	defs_init();
	if (len > 10 && memcmp(name, "cuda_tile.", 10) == 0)
		name += 10, len -= 10;
	for (size_t i = name_slot(name, len); name_key[i]; i = (i + 1) & (TP_ARRAY_LEN(name_key) - 1))
		if (strncmp(name_key[i], name, len) == 0 && name_key[i][len] == '\0')
			return &defs[name_code[i]];
	return NULL;
}

const struct ir_opdef *ir_opdef_by_bc(int bc_opcode)
{
	defs_init();
	for (int c = 0; c < IR_OP_COUNT; c++)
		if (defs[c].bc_opcode == bc_opcode)
			return &defs[c];
	return NULL;
}

int ir_opdef_group(const struct ir_opdef *d, const char *group)
{
	for (uint32_t i = 0; i < d->ngroups; i++)
		if (d->groups[i].name && strcmp(d->groups[i].name, group) == 0)
			return (int)i;
	return -1;
}

const struct ir_attr_def *ir_opdef_attr(const struct ir_opdef *d, const char *name)
{
	for (uint32_t i = 0; i < d->nattrs; i++)
		if (strcmp(d->attrs[i].name, name) == 0)
			return &d->attrs[i];
	return NULL;
}
