/* Tile IR bytecode: printing float values the way MLIR does (§10.5).
 *
 * MLIR first tries APFloat::toString with 6 digits in exponent form and
 * keeps it when parsing it back gives the same bits; otherwise it uses
 * APFloat's shortest-safe default form if that contains a '.', and the hex
 * bit pattern as a last resort (always for inf and NaN). The decimal
 * conversion below follows APFloat's algorithm exactly (exact big-integer
 * arithmetic, truncation then round-half-up), because C's printf rounds
 * ties differently. */
#include "engine/ir/bc_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- float formats ---------------------------------------------------- */

enum nan_style { NAN_IEEE, NAN_ALL_ONES, NAN_NONE, NAN_FF };

struct fsem {
	unsigned bits, ebits, mbits;
	int bias;
	enum nan_style nan; /* IEEE: has inf and NaN at exponent all ones */
	bool is_signed;
	double maxval;
};

static bool sem_of(unsigned tag, struct fsem *s)
{
	switch (tag) {
	case BC_TY_F16: *s = (struct fsem){16, 5, 10, 15, NAN_IEEE, true, 65504.0}; break;
	case BC_TY_BF16: *s = (struct fsem){16, 8, 7, 127, NAN_IEEE, true, 0}; break;
	case BC_TY_TF32: *s = (struct fsem){19, 8, 10, 127, NAN_IEEE, true, 0}; break;
	case BC_TY_F32: *s = (struct fsem){32, 8, 23, 127, NAN_IEEE, true, 0}; break;
	case BC_TY_F64: *s = (struct fsem){64, 11, 52, 1023, NAN_IEEE, true, 0}; break;
	case BC_TY_F8E4M3FN: *s = (struct fsem){8, 4, 3, 7, NAN_ALL_ONES, true, 448.0}; break;
	case BC_TY_F8E5M2: *s = (struct fsem){8, 5, 2, 15, NAN_IEEE, true, 57344.0}; break;
	case BC_TY_F8E8M0FNU: *s = (struct fsem){8, 8, 0, 127, NAN_FF, false, 0}; break;
	case BC_TY_F4E2M1FN: *s = (struct fsem){4, 2, 1, 1, NAN_NONE, true, 6.0}; break;
	default: return false;
	}
	if (s->maxval == 0) {
		/* IEEE-style with inf: largest finite has exponent all-ones minus one */
		int emax = (1 << s->ebits) - 2 - s->bias;
		if (tag == BC_TY_F8E8M0FNU)
			emax = 254 - 127;
		s->maxval = ldexp(2.0 - ldexp(1.0, -(int)s->mbits), emax);
		if (tag == BC_TY_F8E8M0FNU)
			s->maxval = ldexp(1.0, emax);
	}
	return true;
}

enum fcat { FC_ZERO, FC_NORMAL, FC_INF, FC_NAN };

/* Value = (-1)^neg * sig * 2^exp. */
struct fval {
	enum fcat cat;
	bool neg;
	uint64_t sig;
	int exp;
};

static struct fval decode(const struct fsem *s, uint64_t bits)
{
	struct fval v = {FC_NORMAL, false, 0, 0};
	uint64_t emask = (1ull << s->ebits) - 1, mmask = (1ull << s->mbits) - 1;
	if (s->is_signed)
		v.neg = (bits >> (s->bits - 1)) & 1;
	uint64_t e = (bits >> s->mbits) & emask, m = bits & mmask;
	if (s->nan == NAN_FF) {
		if (bits == 0xff)
			v.cat = FC_NAN;
		v.sig = 1;
		v.exp = (int)e - s->bias;
		return v;
	}
	if (s->nan == NAN_IEEE && e == emask) {
		v.cat = m ? FC_NAN : FC_INF;
		return v;
	}
	if (s->nan == NAN_ALL_ONES && e == emask && m == mmask) {
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
static bool round_to(const struct fsem *s, double x, double *out)
{
	double ax = fabs(x);
	if (ax == 0) {
		*out = x;
		return true;
	}
	int e2;
	frexp(ax, &e2);
	int ue = e2 - 1;
	int emin = s->nan == NAN_FF ? -127 : 1 - s->bias;
	if (ue < emin)
		ue = emin;
	double q = ldexp(1.0, ue - (int)s->mbits);
	double r = rint(ax / q) * q;
	if (r > s->maxval)
		return false;
	*out = x < 0 ? -r : r;
	return true;
}

/* Does `text` parse back to exactly the value v of format s? */
static bool round_trips(const struct fsem *s, unsigned tag, const char *text, const struct fval *v)
{
	double orig = to_double(v);
	double back;
	if (tag == BC_TY_F64) {
		back = strtod(text, NULL);
	} else if (tag == BC_TY_F32) {
		back = (double)strtof(text, NULL);
	} else if (!round_to(s, strtod(text, NULL), &back)) {
		return false;
	}
	if (!s->is_signed && back < 0)
		return false;
	if (s->nan == NAN_FF && back == 0)
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

void bc_print_float(unsigned tag, uint64_t bits, struct sbuf *out)
{
	struct fsem s;
	if (!sem_of(tag, &s)) {
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
	if (round_trips(&s, tag, t.buf, &v)) {
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

/* Exact value as an unsigned 64-bit integer (for constant names, §10.2). */
bool bc_float_as_u64(unsigned tag, uint64_t bits, uint64_t *out, bool *is_nan)
{
	struct fsem s;
	*is_nan = false;
	if (!sem_of(tag, &s))
		return false;
	struct fval v = decode(&s, bits);
	if (v.cat == FC_NAN) {
		*is_nan = true;
		return false;
	}
	if (v.cat == FC_INF || v.neg)
		return false; /* negative zero cannot be an unsigned integer either */
	if (v.cat == FC_ZERO) {
		*out = 0;
		return true;
	}
	uint64_t sig = v.sig;
	int exp = v.exp;
	while (exp < 0) {
		if (sig & 1)
			return false;
		sig >>= 1;
		exp++;
	}
	if (exp >= 64 || (sig && exp && sig >> (64 - exp)))
		return false;
	*out = sig << exp;
	return true;
}
