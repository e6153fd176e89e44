/* The tile-level representation's vocabulary (element types, shapes,
 * padding modes) and its arena. */
#include "engine/port/tir.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *rust, *name;
	int ffi; /* FFI dtype code, -1 none */
	const char *ffi_str;
} dts[DT__COUNT] = {
	[DT_NONE] = {"?", "?", -1, NULL},
	[DT_E] = {"E", "E", -1, NULL},
	[DT_BOOL] = {"bool", "bool_", -1, NULL},
	[DT_I8] = {"i8", "int8", -1, NULL},
	[DT_I16] = {"i16", "int16", -1, NULL},
	[DT_I32] = {"i32", "int32", 3, "i32"},
	[DT_I64] = {"i64", "int64", 4, "i64"},
	[DT_U8] = {"u8", "uint8", -1, NULL},
	[DT_U16] = {"u16", "uint16", -1, NULL},
	[DT_U32] = {"u32", "uint32", -1, NULL},
	[DT_U64] = {"u64", "uint64", -1, NULL},
	[DT_F16] = {"f16", "float16", 1, "f16"},
	[DT_BF16] = {"bf16", "bfloat16", 2, "bf16"},
	[DT_F32] = {"f32", "float32", 0, "f32"},
	[DT_F64] = {"f64", "float64", -1, NULL},
	[DT_TF32] = {"tf32", "tfloat32", -1, NULL},
	[DT_F8E4M3FN] = {"f8e4m3fn", "float8_e4m3fn", 7, "f8e4m3fn"},
	[DT_F8E5M2] = {"f8e5m2", "float8_e5m2", 5, "f8e5m2"},
};

const char *tdt_rust(enum tdt d)
{
	return d < DT__COUNT ? dts[d].rust : "?";
}

const char *tdt_name(enum tdt d)
{
	return d < DT__COUNT ? dts[d].name : "?";
}

bool tdt_is_float(enum tdt d)
{
	return d == DT_E || (d >= DT_F16 && d <= DT_F8E5M2);
}

bool tdt_is_int(enum tdt d)
{
	return d >= DT_I8 && d <= DT_U64;
}

int tdt_ffi_code(enum tdt d)
{
	return d < DT__COUNT ? dts[d].ffi : -1;
}

const char *tdt_ffi_str(enum tdt d)
{
	return d < DT__COUNT ? dts[d].ffi_str : NULL;
}

enum tdt tdt_from_name(const char *name)
{
	static const struct {
		const char *s;
		enum tdt d;
	} alias[] = {
		{"bool_", DT_BOOL},     {"int1", DT_BOOL},      {"bool", DT_BOOL},
		{"fp16", DT_F16},       {"bf16", DT_BF16},      {"fp32", DT_F32},
		{"fp64", DT_F64},       {"half", DT_F16},       {"float", DT_F32},
		{"double", DT_F64},     {"float8e4nv", DT_F8E4M3FN}, {"float8e5", DT_F8E5M2},
		{"fp8e4nv", DT_F8E4M3FN}, {"fp8e5", DT_F8E5M2}, {"tf32", DT_TF32},
		{"int", DT_I32},        {"long", DT_I64},
	};
	for (size_t i = 0; i < TP_ARRAY_LEN(alias); i++)
		if (strcmp(name, alias[i].s) == 0)
			return alias[i].d;
	for (int d = DT_BOOL; d < DT__COUNT; d++)
		if (strcmp(name, dts[d].name) == 0)
			return (enum tdt)d;
	return DT_NONE;
}

bool tshape_eq(const struct tshape *a, const struct tshape *b)
{
	if (a->rank != b->rank)
		return false;
	for (int i = 0; i < a->rank; i++) {
		const struct tdim *x = &a->d[i], *y = &b->d[i];
		if ((x->sym == NULL) != (y->sym == NULL))
			return false;
		if (x->sym ? strcmp(x->sym, y->sym) != 0 : x->lit != y->lit)
			return false;
	}
	return true;
}

void tshape_list(const struct tshape *s, struct sbuf *out)
{
	for (int i = 0; i < s->rank; i++) {
		if (i)
			sb_adds(out, ", ");
		if (s->d[i].sym)
			sb_adds(out, s->d[i].sym);
		else
			sb_printf(out, "%lld", (long long)s->d[i].lit);
	}
}

void tshape_type(const struct tshape *s, struct sbuf *out)
{
	sb_adds(out, "{ [");
	tshape_list(s, out);
	sb_adds(out, "] }");
}

static const char *const pad_rust[] = {
	[PAD_UNDETERMINED] = "padding::None", [PAD_ZERO] = "padding::Zero",
	[PAD_NEG_ZERO] = "padding::NegZero",  [PAD_NAN] = "padding::Nan",
	[PAD_POS_INF] = "padding::PosInf",    [PAD_NEG_INF] = "padding::NegInf",
};

static const char *const pad_name[] = {
	[PAD_UNDETERMINED] = "UNDETERMINED", [PAD_ZERO] = "ZERO", [PAD_NEG_ZERO] = "NEG_ZERO",
	[PAD_NAN] = "NAN",                   [PAD_POS_INF] = "POS_INF", [PAD_NEG_INF] = "NEG_INF",
};

const char *tpad_rust(enum tpad p)
{
	return (unsigned)p < TP_ARRAY_LEN(pad_rust) ? pad_rust[p] : "padding::None";
}

const char *tpad_name(enum tpad p)
{
	return (unsigned)p < TP_ARRAY_LEN(pad_name) ? pad_name[p] : "?";
}

/* ---- arena ---- */

struct tarena {
	struct tarena *next;
	size_t used, cap;
	_Alignas(max_align_t) unsigned char data[];
};

struct tarena *tarena_new(void)
{
	struct tarena *a = xmalloc(sizeof(*a) + 65536);
	a->next = NULL;
	a->used = 0;
	a->cap = 65536;
	return a;
}

void tarena_free(struct tarena *a)
{
	while (a) {
		struct tarena *next = a->next;
		free(a);
		a = next;
	}
}

void *ta_alloc(struct tarena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	/* the head block stays first so that its pointer never changes; new
	 * blocks are chained behind it */
	struct tarena *b = a;
	if (b->used + n > b->cap) {
		b = a->next;
		if (!b || b->used + n > b->cap) {
			size_t cap = n > 65536 ? n : 65536;
			struct tarena *c = xmalloc(sizeof(*c) + cap);
			c->next = a->next;
			c->used = 0;
			c->cap = cap;
			a->next = c;
			b = c;
		}
	}
	void *r = b->data + b->used;
	b->used += n;
	memset(r, 0, n);
	return r;
}

char *ta_strdup(struct tarena *a, const char *s)
{
	size_t n = strlen(s);
	char *d = ta_alloc(a, n + 1);
	memcpy(d, s, n + 1);
	return d;
}

char *ta_printf(struct tarena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *h = xvasprintf(fmt, ap);
	va_end(ap);
	char *r = ta_strdup(a, h);
	free(h);
	return r;
}

struct tval *tv_new(struct tarena *a, enum tval_kind kind)
{
	struct tval *v = ta_alloc(a, sizeof(*v));
	v->kind = kind;
	v->param = -1;
	v->cparam = -1;
	return v;
}

struct tval *tv_int(struct tarena *a, const char *rs)
{
	struct tval *v = tv_new(a, TV_INT);
	v->dt = DT_I32;
	v->rs = rs;
	return v;
}

struct tval *tv_cint(struct tarena *a, int64_t value)
{
	struct tval *v = tv_new(a, TV_CINT);
	v->dt = DT_I32;
	v->known = true;
	v->ival = value;
	v->rs = ta_printf(a, "%lld", (long long)value);
	return v;
}

struct tval *tv_csym(struct tarena *a, const char *rs)
{
	struct tval *v = tv_new(a, TV_CINT);
	v->dt = DT_I32;
	v->rs = rs;
	return v;
}

struct tval *tv_cbool(struct tarena *a, bool value)
{
	struct tval *v = tv_new(a, TV_CBOOL);
	v->dt = DT_BOOL;
	v->known = true;
	v->ival = value;
	v->rs = value ? "true" : "false";
	v->ffi = v->rs;
	v->py = value ? "True" : "False";
	return v;
}

struct tval *tv_tuple(struct tarena *a, size_t n)
{
	struct tval *v = tv_new(a, TV_TUPLE);
	v->elems = ta_alloc(a, (n ? n : 1) * sizeof(*v->elems));
	v->nelems = n;
	return v;
}

struct top *top_new(struct tarena *a, enum top_kind kind, int line, int col)
{
	struct top *op = ta_alloc(a, sizeof(*op));
	op->kind = kind;
	op->line = line;
	op->col = col;
	op->param = -1;
	op->latency = -1;
	op->order[0] = -1;
	return op;
}

void tblock_add(struct tarena *a, struct tblock *b, struct top *op)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 8;
		struct top **v = ta_alloc(a, cap * sizeof(*v));
		if (b->n)
			memcpy(v, b->ops, b->n * sizeof(*v));
		b->ops = v;
		b->cap = cap;
	}
	b->ops[b->n++] = op;
}
