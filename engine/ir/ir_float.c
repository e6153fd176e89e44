/* Float formats of every Tile IR float element type: decode raw bits to a
 * double, encode a double with round-to-nearest-even, and print a value the
 * way MLIR does (tile-ir-bytecode.md §10.5). */
#include "engine/ir/ir.h"
#include "engine/ir/bytecode.h"
#include "engine/ir/ir_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum fkind { FK_IEEE, FK_FN, FK_E8M0, FK_NONAN };

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
	case IR_F8E4M3FN: *f = (struct ffmt){4, 3, 7, true, FK_FN}; return true;
	case IR_F8E5M2: *f = (struct ffmt){5, 2, 15, true, FK_IEEE}; return true;
	case IR_F8E8M0FNU: *f = (struct ffmt){8, 0, 127, false, FK_E8M0}; return true;
	case IR_F4E2M1FN: *f = (struct ffmt){2, 1, 1, true, FK_NONAN}; return true;
	case IR_F8E5M3FNU: *f = (struct ffmt){5, 3, 15, false, FK_FN}; return true;
	default: return false;
	}
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

/* Significand bits including the hidden bit. */
static int precision_bits(enum ir_elem e)
{
	switch (e) {
	case IR_F16: case IR_TF32: return 11;
	case IR_BF16: return 8;
	case IR_F32: return 24;
	case IR_F64: case IR_ELEM_NONE: return 53;
	case IR_F8E4M3FN: case IR_F8E5M3FNU: return 4;
	case IR_F8E5M2: return 3;
	case IR_F8E8M0FNU: return 1;
	case IR_F4E2M1FN: return 2;
	default: return 53;
	}
}

/* Bytecode type tag of a float element type, -1 for none (13.4 preview). */
static int bc_float_tag(enum ir_elem e)
{
	switch (e) {
	case IR_ELEM_NONE: return BC_TY_F64; /* untyped: f64 bits */
	case IR_F16: return BC_TY_F16;
	case IR_BF16: return BC_TY_BF16;
	case IR_F32: return BC_TY_F32;
	case IR_TF32: return BC_TY_TF32;
	case IR_F64: return BC_TY_F64;
	case IR_F8E4M3FN: return BC_TY_F8E4M3FN;
	case IR_F8E5M2: return BC_TY_F8E5M2;
	case IR_F8E8M0FNU: return BC_TY_F8E8M0FNU;
	case IR_F4E2M1FN: return BC_TY_F4E2M1FN;
	default: return -1;
	}
}

void ir_print_float(struct sbuf *sb, enum ir_elem e, uint64_t bits)
{
	/* APFloat's exact decimal conversion (round half up on exact digits,
	 * its own notation rules); printf differs on ties and on when to use
	 * an exponent (1/1024 as f32 is 9.765625E-4, not 0.0009765625). */
	int tag = bc_float_tag(e);
	if (tag >= 0) {
		bc_print_float((unsigned)tag, bits, sb);
		return;
	}
	double v = ir_float_to_double(e, bits);
	char buf[64];
	if (isfinite(v)) {
		snprintf(buf, sizeof(buf), "%.5e", v);
		char *ep = strchr(buf, 'e');
		if (ep) {
			memmove(ep + 1, ep, strlen(ep) + 1);
			*ep = '0';
		}
		if (ir_float_from_double(e, strtod(buf, NULL)) == bits) {
			sb_adds(sb, buf);
			return;
		}
		int digits = 2 + precision_bits(e) * 59 / 196;
		snprintf(buf, sizeof(buf), "%.*g", digits, v);
		if (strchr(buf, '.') && ir_float_from_double(e, strtod(buf, NULL)) == bits) {
			sb_adds(sb, buf);
			return;
		}
	}
	int width = e == IR_ELEM_NONE ? 16 : (ir_elem_bits(e) + 3) / 4;
	sb_printf(sb, "0x%0*llX", width, (unsigned long long)bits);
}
