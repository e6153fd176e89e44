/* Float formats of every Tile IR float element type (tile-ir-bytecode.md
 * §10.5): raw bits to a double and back (round to nearest even), and a value
 * printed exactly as MLIR prints it, for the model printer.
 *
 * MLIR first tries APFloat::toString with 6 digits in exponent form and
 * keeps it when parsing it back gives the same bits; otherwise it uses
 * APFloat's shortest-safe default form if that contains a '.', and the hex
 * bit pattern as a last resort (always for inf and NaN). The decimal
 * conversion below follows APFloat's algorithm exactly (exact big-integer
 * arithmetic, truncation then round-half-up), because C's printf rounds
 * ties differently and chooses the exponent form differently (1/1024 as f32
 * is 9.765625E-4, not 0.0009765625). */
#include "engine/ir/ir.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- formats ------------------------------------------------------------ */

/* What the largest exponent field means. */
enum fkind {
	FK_IEEE,  /* inf (mantissa zero) and NaN */
	FK_FN,    /* finite, except all-ones exponent and mantissa: NaN (f8E4M3FN, f8E5M3FNU) */
	FK_E8M0,  /* powers of two only, no zero; 0xFF is NaN (f8E8M0FNU) */
	FK_NONAN, /* every pattern is a finite number (f4E2M1FN) */
};

struct ffmt {
	int ebits, mbits, bias;
	bool sign;
	enum fkind kind;
};

static bool fmt_of(enum ir_elem e, struct ffmt *f)
{
	switch (e) {
	case IR_F16: *f = (struct ffmt){5, 10, 15, true, FK_IEEE}; return true;
	case IR_BF16: *f = (struct ffmt){8, 7, 127, true, FK_IEEE}; return true;
	case IR_TF32: *f = (struct ffmt){8, 10, 127, true, FK_IEEE}; return true;
	case IR_F32: *f = (struct ffmt){8, 23, 127, true, FK_IEEE}; return true;
	case IR_F64: case IR_ELEM_NONE: /* untyped: f64 bits */
		*f = (struct ffmt){11, 52, 1023, true, FK_IEEE}; return true;
	case IR_F8E4M3FN: *f = (struct ffmt){4, 3, 7, true, FK_FN}; return true;
	case IR_F8E5M2: *f = (struct ffmt){5, 2, 15, true, FK_IEEE}; return true;
	case IR_F8E8M0FNU: *f = (struct ffmt){8, 0, 127, false, FK_E8M0}; return true;
	case IR_F4E2M1FN: *f = (struct ffmt){2, 1, 1, true, FK_NONAN}; return true;
	case IR_F8E5M3FNU: *f = (struct ffmt){5, 3, 15, false, FK_FN}; return true;
	default: return false;
	}
}

/* The largest finite value of a format. */
static double max_finite(const struct ffmt *f)
{
	int top = (1 << f->ebits) - 1 - f->bias; /* the all-ones exponent, unbiased */
	double ones = 2.0 - ldexp(1.0, -f->mbits); /* 1.11...1 */
	switch (f->kind) {
	case FK_IEEE: return ldexp(ones, top - 1);
	case FK_FN: return ldexp(ones - ldexp(1.0, -f->mbits), top);
	case FK_E8M0: return ldexp(1.0, top - 1);
	case FK_NONAN: return ldexp(ones, top);
	}
	return 0;
}

double ir_float_to_double(enum ir_elem e, uint64_t bits)
{
	if (e == IR_F64 || e == IR_ELEM_NONE) {
		double d;
		memcpy(&d, &bits, sizeof(d));
		return d;
	}
	if (e == IR_F32) {
		uint32_t b = (uint32_t)bits;
		float f;
		memcpy(&f, &b, sizeof(f));
		return f;
	}
	struct ffmt f;
	if (!fmt_of(e, &f))
		return (double)(int64_t)bits;
	uint64_t mmask = (1ULL << f.mbits) - 1, emax = (1ULL << f.ebits) - 1;
	uint64_t mant = bits & mmask, ex = (bits >> f.mbits) & emax;
	bool neg = f.sign && ((bits >> (f.mbits + f.ebits)) & 1);
	double v;
	if (f.kind == FK_E8M0) {
		if (ex == emax)
			return NAN;
		return ldexp(1.0, (int)ex - f.bias);
	}
	if (f.kind == FK_IEEE && ex == emax)
		v = mant ? NAN : INFINITY;
	else if (f.kind == FK_FN && ex == emax && mant == mmask)
		v = NAN;
	else if (ex == 0)
		v = ldexp((double)mant, 1 - f.bias - f.mbits);
	else
		v = ldexp((double)(mant | (1ULL << f.mbits)), (int)ex - f.bias - f.mbits);
	return neg ? -v : v;
}

uint64_t ir_float_from_double(enum ir_elem e, double v)
{
	if (e == IR_F64 || e == IR_ELEM_NONE) {
		uint64_t b;
		memcpy(&b, &v, sizeof(b));
		return b;
	}
	if (e == IR_F32) {
		float f = (float)v;
		uint32_t b;
		memcpy(&b, &f, sizeof(b));
		return b;
	}
	struct ffmt f;
	if (!fmt_of(e, &f))
		return (uint64_t)(int64_t)v;
	uint64_t mmask = (1ULL << f.mbits) - 1, emax = (1ULL << f.ebits) - 1;
	uint64_t sbit = f.sign ? 1ULL << (f.mbits + f.ebits) : 0;
	uint64_t nan = f.kind == FK_IEEE ? (emax << f.mbits) | (1ULL << (f.mbits ? f.mbits - 1 : 0))
					 : (emax << f.mbits) | mmask;
	if (f.kind == FK_E8M0) {
		if (isnan(v) || v <= 0 || isinf(v))
			return 0xFF;
		int ex = (int)lrint(log2(v)) + f.bias;
		return ex < 0 ? 0 : ex > 254 ? 254 : (uint64_t)ex;
	}
	if (isnan(v))
		return f.kind == FK_NONAN ? 0 : nan;
	bool neg = signbit(v);
	double a = fabs(v);
	uint64_t maxfin = f.kind == FK_IEEE ? ((emax - 1) << f.mbits) | mmask
			  : f.kind == FK_FN ? (emax << f.mbits) | (mmask - 1)
					    : (emax << f.mbits) | mmask;
	uint64_t out;
	if (isinf(a)) {
		out = f.kind == FK_IEEE ? emax << f.mbits : f.kind == FK_FN ? nan : maxfin;
	} else {
		int ex2;
		frexp(a, &ex2); /* a = fr * 2^ex2, fr in [0.5, 1) */
		int be = ex2 - 1 + f.bias;
		if (a == 0) {
			out = 0;
		} else if (be <= 0) {
			double mant = rint(ldexp(a, f.bias - 1 + f.mbits));
			out = (uint64_t)mant; /* may carry into the first normal exponent */
		} else {
			double mant = rint(ldexp(a, f.mbits - (ex2 - 1)));
			uint64_t mi = (uint64_t)mant;
			if (mi >> (f.mbits + 1)) {
				mi >>= 1;
				be++;
			}
			out = ((uint64_t)be << f.mbits) | (mi & mmask);
		}
		if (out > maxfin)
			out = f.kind == FK_IEEE ? emax << f.mbits : f.kind == FK_FN ? nan : maxfin;
	}
	if (!f.sign)
		return out;
	return neg ? out | sbit : out;
}

/* ---- printing ----------------------------------------------------------- */

enum fcat { FC_ZERO, FC_NORMAL, FC_INF, FC_NAN };

/* Value = (-1)^neg * sig * 2^exp. */
struct fval {
	enum fcat cat;
	bool neg;
	uint64_t sig;
	int exp;
};

static struct fval decode(const struct ffmt *s, uint64_t bits)
{
	struct fval v = {FC_NORMAL, false, 0, 0};
	uint64_t emask = (1ull << s->ebits) - 1, mmask = (1ull << s->mbits) - 1;
	if (s->sign)
		v.neg = (bits >> (s->ebits + s->mbits)) & 1;
	uint64_t e = (bits >> s->mbits) & emask, m = bits & mmask;
	if (s->kind == FK_E8M0) {
		if (e == emask)
			v.cat = FC_NAN;
		v.sig = 1;
		v.exp = (int)e - s->bias;
		return v;
	}
	if (s->kind == FK_IEEE && e == emask) {
		v.cat = m ? FC_NAN : FC_INF;
		return v;
	}
	if (s->kind == FK_FN && e == emask && m == mmask) {
		v.cat = FC_NAN;
		return v;
	}
	if (e == 0) {
		if (m == 0) {
			v.cat = FC_ZERO;
			return v;
		}
		v.sig = m;
		v.exp = 1 - s->bias - (int)s->mbits;
	} else {
		v.sig = m | (1ull << s->mbits);
		v.exp = (int)e - s->bias - (int)s->mbits;
	}
	return v;
}

static double to_double(const struct fval *v)
{
	double d = v->cat == FC_ZERO ? 0.0 : ldexp((double)v->sig, v->exp);
	return v->neg ? -d : d;
}

/* Round a finite double to the format, nearest-even; false on overflow. */
static bool round_to(const struct ffmt *s, double x, double *out)
{
	double ax = fabs(x);
	if (ax == 0) {
		*out = x;
		return true;
	}
	int e2;
	frexp(ax, &e2);
	int ue = e2 - 1;
	int emin = s->kind == FK_E8M0 ? -127 : 1 - s->bias;
	if (ue < emin)
		ue = emin;
	double q = ldexp(1.0, ue - (int)s->mbits);
	double r = rint(ax / q) * q;
	if (r > max_finite(s))
		return false;
	*out = x < 0 ? -r : r;
	return true;
}

/* Does `text` parse back to exactly the value v of format s? */
static bool round_trips(const struct ffmt *s, enum ir_elem e, const char *text,
			const struct fval *v)
{
	double orig = to_double(v);
	double back;
	if (e == IR_F64 || e == IR_ELEM_NONE) {
		back = strtod(text, NULL);
	} else if (e == IR_F32) {
		back = (double)strtof(text, NULL);
	} else if (!round_to(s, strtod(text, NULL), &back)) {
		return false;
	}
	if (!s->sign && back < 0)
		return false;
	if (s->kind == FK_E8M0 && back == 0)
		return false;
	return back == orig && signbit(back) == signbit(orig);
}

/* ---- a small unsigned big integer (32-bit limbs, little-endian) ------ */

#define BN_LIMBS 96 /* 3072 bits: enough for f64's 5^1074 * 2^53 */

struct bn {
	uint32_t w[BN_LIMBS];
	unsigned n; /* limbs in use */
};

static void bn_set(struct bn *b, uint64_t v)
{
	b->w[0] = (uint32_t)v;
	b->w[1] = (uint32_t)(v >> 32);
	b->n = b->w[1] ? 2 : b->w[0] ? 1 : 0;
}

static void bn_mul_small(struct bn *b, uint32_t m)
{
	uint64_t carry = 0;
	for (unsigned i = 0; i < b->n; i++) {
		uint64_t t = (uint64_t)b->w[i] * m + carry;
		b->w[i] = (uint32_t)t;
		carry = t >> 32;
	}
	if (carry && b->n < BN_LIMBS)
		b->w[b->n++] = (uint32_t)carry;
}

static uint32_t bn_div_small(struct bn *b, uint32_t d)
{
	uint64_t rem = 0;
	for (unsigned i = b->n; i-- > 0;) {
		uint64_t cur = rem << 32 | b->w[i];
		b->w[i] = (uint32_t)(cur / d);
		rem = cur % d;
	}
	while (b->n && !b->w[b->n - 1])
		b->n--;
	return (uint32_t)rem;
}

static void bn_shl(struct bn *b, unsigned k)
{
	while (k >= 32 && b->n < BN_LIMBS) {
		memmove(b->w + 1, b->w, b->n * sizeof(uint32_t));
		b->w[0] = 0;
		b->n++;
		k -= 32;
	}
	if (k)
		bn_mul_small(b, 1u << k);
}

static unsigned bn_bits(const struct bn *b)
{
	if (!b->n)
		return 0;
	unsigned top = b->w[b->n - 1], bits = 0;
	while (top) {
		bits++;
		top >>= 1;
	}
	return (b->n - 1) * 32 + bits;
}

/* APFloat's AdjustToPrecision on the integer: drop whole decimal digits
 * while comfortably more than `prec` digits remain. */
static void adjust_int(struct bn *b, int *exp, unsigned prec)
{
	unsigned bits = bn_bits(b);
	unsigned required = (prec * 196 + 58) / 59;
	if (bits <= required)
		return;
	unsigned tens = (bits - required) * 59 / 196;
	*exp += (int)tens;
	while (tens >= 9) {
		bn_div_small(b, 1000000000u);
		tens -= 9;
	}
	static const uint32_t p10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
					100000000};
	if (tens)
		bn_div_small(b, p10[tens]);
}

/* Digits least significant first, as APFloat's buffer. */
struct digits {
	char d[1100];
	unsigned n;
};

static void adjust_digits(struct digits *g, int *exp, unsigned prec)
{
	if (g->n <= prec)
		return;
	unsigned first = g->n - prec;
	if (g->d[first - 1] < '5') {
		while (first < g->n && g->d[first] == '0')
			first++;
	} else {
		unsigned i = first;
		for (; i != g->n; i++) {
			if (g->d[i] == '9') {
				first++;
			} else {
				g->d[i]++;
				break;
			}
		}
		if (first == g->n) {
			*exp += (int)first;
			g->d[0] = '1';
			g->n = 1;
			return;
		}
	}
	*exp += (int)first;
	memmove(g->d, g->d + first, g->n - first);
	g->n -= first;
}

/* APFloat::toString for a finite non-zero value (sign handled by caller). */
static void apfloat_string(const struct fval *v, unsigned semprec, unsigned prec,
			   unsigned maxpad, bool truncate_zero, struct sbuf *out)
{
	if (!prec)
		prec = 2 + semprec * 59 / 196;
	uint64_t sig = v->sig;
	int exp = v->exp;
	while (!(sig & 1)) {
		sig >>= 1;
		exp++;
	}
	struct bn b;
	bn_set(&b, sig);
	if (exp > 0) {
		bn_shl(&b, (unsigned)exp);
		exp = 0;
	} else if (exp < 0) {
		for (int k = -exp; k > 0; k -= 13)
			bn_mul_small(&b, k >= 13 ? 1220703125u : (uint32_t)pow(5, k));
	}
	adjust_int(&b, &exp, prec);
	struct digits g = {.n = 0};
	bool trail = true;
	while (b.n && g.n < sizeof(g.d)) {
		uint32_t d = bn_div_small(&b, 10);
		if (trail && !d) {
			exp++;
		} else {
			g.d[g.n++] = (char)('0' + d);
			trail = false;
		}
	}
	adjust_digits(&g, &exp, prec);
	unsigned nd = g.n;
	bool sci;
	if (!maxpad) {
		sci = true;
	} else if (exp >= 0) {
		sci = (unsigned)exp > maxpad || nd + (unsigned)exp > prec;
	} else {
		int msd = exp + (int)nd - 1;
		sci = msd >= 0 ? false : (unsigned)-msd > maxpad;
	}
	if (sci) {
		exp += (int)nd - 1;
		sb_addc(out, g.d[nd - 1]);
		sb_addc(out, '.');
		if (nd == 1 && truncate_zero)
			sb_addc(out, '0');
		else
			for (unsigned i = 1; i != nd; i++)
				sb_addc(out, g.d[nd - 1 - i]);
		if (!truncate_zero && prec > nd - 1)
			for (unsigned i = 0; i < prec - nd + 1; i++)
				sb_addc(out, '0');
		sb_addc(out, truncate_zero ? 'E' : 'e');
		sb_addc(out, exp >= 0 ? '+' : '-');
		int ae = exp < 0 ? -exp : exp;
		if (!truncate_zero && ae < 10)
			sb_addc(out, '0');
		sb_printf(out, "%d", ae);
		return;
	}
	if (exp >= 0) {
		for (unsigned i = 0; i < nd; i++)
			sb_addc(out, g.d[nd - 1 - i]);
		for (int i = 0; i < exp; i++)
			sb_addc(out, '0');
		return;
	}
	int whole = exp + (int)nd;
	unsigned i = 0;
	if (whole > 0) {
		for (; i != (unsigned)whole; i++)
			sb_addc(out, g.d[nd - i - 1]);
		sb_addc(out, '.');
	} else {
		sb_adds(out, "0.");
		for (int z = 0; z < -whole; z++)
			sb_addc(out, '0');
	}
	for (; i != nd; i++)
		sb_addc(out, g.d[nd - i - 1]);
}

static void print_hex(uint64_t bits, struct sbuf *out)
{
	sb_printf(out, "0x%llX", (unsigned long long)bits);
}

void ir_print_float(struct sbuf *out, enum ir_elem e, uint64_t bits)
{
	struct ffmt s;
	if (!fmt_of(e, &s)) {
		print_hex(bits, out);
		return;
	}
	struct fval v = decode(&s, bits);
	if (v.cat == FC_INF || v.cat == FC_NAN) {
		print_hex(bits, out);
		return;
	}
	struct sbuf t = SBUF_INIT;
	if (v.neg)
		sb_addc(&t, '-');
	if (v.cat == FC_ZERO)
		sb_adds(&t, "0.000000e+00");
	else
		apfloat_string(&v, s.mbits + 1, 6, 0, false, &t);
	if (round_trips(&s, e, t.buf, &v)) {
		sb_add(out, t.buf, t.len);
		sb_free(&t);
		return;
	}
	sb_reset(&t);
	if (v.neg)
		sb_addc(&t, '-');
	apfloat_string(&v, s.mbits + 1, 0, 3, true, &t);
	if (strchr(t.buf, '.'))
		sb_add(out, t.buf, t.len);
	else
		print_hex(bits, out);
	sb_free(&t);
}
