/* Tile IR bytecode: the layout of every public opcode (§6.4), as data.
 * Each op lists its fields in declaration (= wire) order: attributes then
 * operand groups; unit attributes appear only as flag bits. */
#include "engine/ir/bc_priv.h"

#include <string.h>

#define NB BC_NO_BIT
#define VAR_ BC_VARIADIC

/* attributes */
#define ENUM(n, e) {n, BC_F_ENUM, e, NB, 1, 0}
#define ENUMV(n, e, since, d) {n, BC_F_ENUM, e, NB, since, d}
#define OENUM(n, e, bit) {n, BC_F_ENUM, e, bit, 1, 0}
#define INT(n) {n, BC_F_INT, 0, NB, 1, 0}
#define BOOL(n) {n, BC_F_BOOL, 0, NB, 1, 0}
#define STR(n) {n, BC_F_STR, 0, NB, 1, 0}
#define I32A(n) {n, BC_F_I32ARR, 0, NB, 1, 0}
#define CONST(n) {n, BC_F_CONST, 0, NB, 1, 0}
#define AARR(n) {n, BC_F_ATTRARR, 0, NB, 1, 0}
#define HINTS(bit) {"optimization_hints", BC_F_HINTS, 0, bit, 1, 0}
#define PRED(n) {n, BC_F_PRED, 0, NB, 1, 0}
#define UNIT(n, bit) {n, BC_F_UNIT, 0, bit, 1, 0}
#define UNITV(n, bit, since) {n, BC_F_UNIT, 0, bit, since, 0}
/* operand groups */
#define ONE(n) {n, BC_F_ONE, 0, NB, 1, 0}
#define VAR(n) {n, BC_F_VAR, 0, NB, 1, 0}
#define OPT(n, bit) {n, BC_F_OPT, 0, bit, 1, 0}
#define OPTV(n, bit, since) {n, BC_F_OPT, 0, bit, since, 0}

#define MOS ENUM("memory_ordering_semantics", BC_EN_MEM_ORDERING)
#define SCOPE ENUM("memory_scope", BC_EN_MEM_SCOPE)
#define OSCOPE OENUM("memory_scope", BC_EN_MEM_SCOPE, 0)
#define RM ENUM("rounding_mode", BC_EN_ROUNDING)
#define SGN ENUM("signedness", BC_EN_SIGNEDNESS)
#define OVF ENUM("overflow", BC_EN_OVERFLOW)
#define MODE ENUM("mode", BC_EN_RMW_MODE)
#define FTZ0 UNIT("flush_to_zero", 0)

/* name, since, V, S, results, results since, flags since, regions, fields */
#define OP(nm, since, v, s, nres, flags, nreg, ...)                                  \
	{nm, since, v, s, nres, 1, flags, nreg,                                      \
	 sizeof((struct bc_field[]){__VA_ARGS__}) / sizeof(struct bc_field),          \
	 {__VA_ARGS__}}
#define OP0(nm, since, v, s, nres, flags, nreg)                                      \
	{nm, since, v, s, nres, 1, flags, nreg, 0, {{0}}}

/* Plain unary and binary ops, 13.1, one result. */
#define UN(nm) OP(nm, 1, false, false, 1, 0, 0, ONE("source"))
#define UNF(nm) OP(nm, 1, false, false, 1, 1, 0, FTZ0, ONE("source"))
#define BIN(nm) OP(nm, 1, false, false, 1, 0, 0, ONE("lhs"), ONE("rhs"))
#define BINF(nm) OP(nm, 1, false, false, 1, 1, 0, FTZ0, RM, ONE("lhs"), ONE("rhs"))
#define BINO(nm) OP(nm, 1, false, false, 1, 0, 0, OVF, ONE("lhs"), ONE("rhs"))
#define BINS(nm) OP(nm, 1, false, false, 1, 0, 0, SGN, ONE("lhs"), ONE("rhs"))
#define TERM(nm) OP(nm, 1, true, false, 0, 0, 0, VAR("operands"))
#define CAST(nm) OP(nm, 1, false, false, 1, 0, 0, ONE("source"))
#define MAXMIN(nm)                                                                   \
	OP(nm, 1, false, false, 1, 1, 0, UNIT("propagate_nan", 0),                   \
	   UNIT("flush_to_zero", 1), ONE("lhs"), ONE("rhs"))

static const struct bc_opinfo optab[BC_MAX_OPCODE + 1] = {
	[0x00] = UN("absf"),
	[0x01] = UN("absi"),
	[0x02] = BINF("addf"),
	[0x03] = BINO("addi"),
	[0x04] = BIN("andi"),
	[0x05] = OP("assert", 1, false, false, 0, 0, 0, STR("message"), ONE("condition")),
	[0x06] = OP("assume", 1, false, false, 1, 0, 0, PRED("predicate"), ONE("value")),
	[0x07] = OP("atomic_cas_tko", 1, false, true, 2, 1, 0, MOS, SCOPE, ONE("pointers"),
		    ONE("cmp"), ONE("val"), OPT("mask", 0), OPT("token", 1)),
	[0x08] = OP("atomic_rmw_tko", 1, false, true, 2, 1, 0, MOS, SCOPE, MODE,
		    ONE("pointers"), ONE("arg"), OPT("mask", 0), OPT("token", 1)),
	[0x09] = CAST("bitcast"),
	[0x0A] = TERM("break"),
	[0x0B] = CAST("broadcast"),
	[0x0C] = OP("cat", 1, false, false, 1, 0, 0, INT("dim"), ONE("lhs"), ONE("rhs")),
	[0x0D] = UN("ceil"),
	[0x0E] = OP("cmpf", 1, false, false, 1, 0, 0,
		    ENUM("comparison_predicate", BC_EN_CMP_PREDICATE),
		    ENUM("comparison_ordering", BC_EN_CMP_ORDERING), ONE("lhs"), ONE("rhs")),
	[0x0F] = OP("cmpi", 1, false, false, 1, 0, 0,
		    ENUM("comparison_predicate", BC_EN_CMP_PREDICATE), SGN, ONE("lhs"),
		    ONE("rhs")),
	[0x10] = OP("constant", 1, false, false, 1, 0, 0, CONST("value")),
	[0x11] = TERM("continue"),
	[0x12] = UN("cos"),
	[0x13] = UN("cosh"),
	[0x14] = BINF("divf"),
	[0x15] = OP("divi", 1, false, false, 1, 0, 0, SGN, ENUM("rounding", BC_EN_ROUNDING),
		    ONE("lhs"), ONE("rhs")),
	[0x17] = OP("exp", 1, false, false, 1, 0, 0,
		    ENUMV("rounding_mode", BC_EN_ROUNDING, 3, 5), ONE("source")),
	[0x18] = UNF("exp2"),
	[0x25] = OP("exti", 1, false, false, 1, 0, 0, SGN, ONE("from")),
	[0x26] = OP("extract", 1, true, false, 1, 0, 0, ONE("source"), VAR("indices")),
	[0x27] = UN("floor"),
	[0x28] = OP("fma", 1, false, false, 1, 1, 0, FTZ0, RM, ONE("lhs"), ONE("rhs"),
		    ONE("acc")),
	[0x29] = OP("for", 1, true, false, VAR_, 2, 1, UNITV("unsignedCmp", 0, 2),
		    ONE("lowerBound"), ONE("upperBound"), ONE("step"), VAR("initValues")),
	[0x2A] = OP("ftof", 1, false, false, 1, 0, 0, RM, ONE("from")),
	[0x2B] = OP("ftoi", 1, false, false, 1, 0, 0, SGN, RM, ONE("from")),
	[0x2C] = OP("get_global", 1, false, false, 1, 0, 0, STR("name")),
	[0x2D] = OP("get_index_space_shape", 1, true, false, VAR_, 0, 0, ONE("src")),
	[0x2E] = OP0("get_num_tile_blocks", 1, false, false, 3, 0, 0),
	[0x2F] = OP("get_tensor_shape", 1, true, false, VAR_, 0, 0, ONE("src")),
	[0x30] = OP0("get_tile_block_id", 1, false, false, 3, 0, 0),
	[0x32] = OP("if", 1, true, false, VAR_, 0, 2, ONE("condition")),
	[0x33] = CAST("int_to_ptr"),
	[0x3A] = OP0("iota", 1, false, false, 1, 0, 0),
	[0x3B] = OP("itof", 1, false, false, 1, 0, 0, SGN, RM, ONE("from")),
	[0x3C] = OP("join_tokens", 1, true, false, 1, 0, 0, VAR("tokens")),
	[0x3D] = OP("load_ptr_tko", 1, false, true, 2, 1, 0, MOS, OSCOPE, HINTS(1),
		    ONE("source"), OPT("mask", 2), OPT("paddingValue", 3), OPT("token", 4)),
	[0x3E] = OP("load_view_tko", 1, true, true, 2, 1, 0, MOS, OSCOPE, HINTS(1),
		    ONE("view"), VAR("index"), OPT("token", 2)),
	[0x3F] = UN("log"),
	[0x40] = UN("log2"),
	[0x41] = OP("loop", 1, true, false, VAR_, 0, 1, VAR("initValues")),
	[0x42] = OP("make_partition_view", 1, false, false, 1, 0, 0, ONE("tensor_view")),
	[0x43] = OP("make_tensor_view", 1, true, true, 1, 0, 0, ONE("base"),
		    VAR("dynamicShape"), VAR("dynamicStrides")),
	[0x44] = OP0("make_token", 1, false, false, 1, 0, 0),
	[0x45] = MAXMIN("maxf"),
	[0x46] = BINS("maxi"),
	[0x47] = MAXMIN("minf"),
	[0x48] = BINS("mini"),
	[0x49] = OP("mmaf", 1, false, false, 1, 3, 0, UNITV("fast_acc", 0, 3), ONE("lhs"),
		    ONE("rhs"), ONE("acc")),
	[0x4A] = OP("mmai", 1, false, false, 1, 0, 0,
		    ENUM("signedness_lhs", BC_EN_SIGNEDNESS),
		    ENUM("signedness_rhs", BC_EN_SIGNEDNESS), ONE("lhs"), ONE("rhs"), ONE("acc")),
	[0x4C] = BINF("mulf"),
	[0x4D] = OP("mulhii", 1, false, false, 1, 0, 0, ONE("x"), ONE("y")),
	[0x4E] = BINO("muli"),
	[0x4F] = UN("negf"),
	[0x50] = OP("negi", 1, false, false, 1, 0, 0, ENUMV("overflow", BC_EN_OVERFLOW, 2, 0),
		    ONE("source")),
	[0x51] = OP("offset", 1, false, false, 1, 0, 0, ONE("ptr"), ONE("offset")),
	[0x52] = BIN("ori"),
	[0x53] = OP("permute", 1, false, false, 1, 0, 0, I32A("permutation"), ONE("source")),
	[0x54] = OP("pow", 1, false, false, 1, 0, 0, ONE("source"), ONE("exponent")),
	[0x55] = {"print_tko", 1, true, true, 1, 2, 2, 0, 3,
		  {STR("str"), VAR("args"), OPTV("token", 0, 2)}},
	[0x56] = CAST("ptr_to_int"),
	[0x57] = CAST("ptr_to_ptr"),
	[0x58] = OP("reduce", 1, true, false, VAR_, 0, 1, INT("dim"), AARR("identities"),
		    VAR("operands")),
	[0x59] = BIN("remf"),
	[0x5A] = BINS("remi"),
	[0x5B] = CAST("reshape"),
	[0x5C] = TERM("return"),
	[0x5D] = UNF("rsqrt"),
	[0x5E] = OP("scan", 1, true, false, VAR_, 0, 1, INT("dim"), BOOL("reverse"),
		    AARR("identities"), VAR("operands")),
	[0x5F] = OP("select", 1, false, false, 1, 0, 0, ONE("cond"), ONE("val_if_true"),
		    ONE("val_if_false")),
	[0x60] = BINO("shli"),
	[0x61] = BINS("shri"),
	[0x62] = UN("sin"),
	[0x63] = UN("sinh"),
	[0x64] = OP("sqrt", 1, false, false, 1, 1, 0, FTZ0, RM, ONE("source")),
	[0x65] = OP("store_ptr_tko", 1, false, true, 1, 1, 0, MOS, OSCOPE, HINTS(1),
		    ONE("destination"), ONE("value"), OPT("mask", 2), OPT("token", 3)),
	[0x66] = OP("store_view_tko", 1, true, true, 1, 1, 0, MOS, OSCOPE, HINTS(1),
		    ONE("tile"), ONE("view"), VAR("index"), OPT("token", 2)),
	[0x67] = BINF("subf"),
	[0x68] = BINO("subi"),
	[0x69] = UN("tan"),
	[0x6A] = OP("tanh", 1, false, false, 1, 0, 0,
		    ENUMV("rounding_mode", BC_EN_ROUNDING, 2, 5), ONE("source")),
	[0x6B] = OP("trunci", 1, false, false, 1, 0, 0, OVF, ONE("from")),
	[0x6C] = BIN("xori"),
	[0x6D] = TERM("yield"),
	[0x6E] = OP("atan2", 2, false, false, 1, 0, 0, ONE("x"), ONE("y")),
	[0x6F] = OP("pack", 3, false, false, 1, 0, 0, ONE("source")),
	[0x70] = OP("unpack", 3, false, false, 1, 0, 0, ONE("source")),
	[0x71] = OP("alloca", 3, false, false, 1, 1, 0, UNIT("global", 0), INT("num_elem"),
		    INT("alignment")),
	[0x72] = OP("mmaf_scaled", 3, false, false, 1, 0, 0, ONE("lhs"), ONE("rhs"),
		    ONE("acc"), ONE("lhs_scale"), ONE("rhs_scale")),
	[0x73] = OP("make_gather_scatter_view", 3, false, false, 1, 0, 0, ONE("tensor_view")),
	[0x74] = OP("make_strided_view", 3, false, false, 1, 0, 0, ONE("tensor_view")),
	[0x75] = OP("atomic_red_view_tko", 3, true, true, 1, 1, 0, MOS, SCOPE, MODE,
		    ONE("view"), VAR("index"), ONE("value"), OPT("token", 0)),
};

const struct bc_opinfo *bc_opinfo(unsigned opcode)
{
	if (opcode > BC_MAX_OPCODE || !optab[opcode].name)
		return NULL;
	return &optab[opcode];
}

unsigned bc_max_opcode(unsigned minor)
{
	return minor <= 1 ? 0x6D : minor == 2 ? 0x6E : 0x75;
}
