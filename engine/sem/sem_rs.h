/* Internal to engine/sem: Rust source as a syntax tree, for the kernels
 * cuTile Rust modules hold (and the launchers of ffi.rs): items with
 * attributes, functions with generics, statements, expressions with
 * Rust's precedence, method calls with turbofish, macros with their
 * arguments read as expressions, closures, casts and ranges. Every node
 * has its line. What is not expression or statement syntax a kernel uses
 * (match, struct literals, trait items) is skipped as balanced tokens and
 * marked, so that the evaluator can say where it stopped. */
#ifndef TILEPORT_SEM_SEM_RS_H
#define TILEPORT_SEM_SEM_RS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/base/util.h"

enum rtk { RT_IDENT, RT_INT, RT_FLOAT, RT_STR, RT_CHAR, RT_PUNCT, RT_LIFETIME, RT_END };

struct rtok {
	enum rtk kind;
	const char *s;
	uint32_t n;
	int line;
};

struct rtoks {
	struct rtok *v;
	size_t n, cap;
};

/* Tokens of a Rust source; comments dropped. Multi-character operators
 * (`::` `->` `=>` `==` `!=` `<=` `>=` `&&` `||` `..` `..=` `+=` ...) are one
 * token, except `>>` and `<<`, which stay two (generics close with them). */
void rs_lex(const char *src, size_t len, struct rtoks *out);
bool rt_is(const struct rtok *t, const char *s);

enum rn {
	RN_INT,      /* ival; s the suffix ("i32") or NULL */
	RN_FLOAT,    /* fval; s the suffix */
	RN_BOOL,     /* ival */
	RN_STR,
	RN_PATH,     /* s the last segment; kids the segments' generic args (RN_TYPE) */
	RN_CALL,     /* [0] callee, then arguments */
	RN_METHOD,   /* s name; [0] receiver, then arguments; gen: turbofish types */
	RN_FIELD,    /* s field ("0" for a tuple field); [0] */
	RN_INDEX,    /* [0] object, [1] index */
	RN_UNARY,    /* op '-' '!' '&' '*' 'm' (&mut); [0] */
	RN_BINARY,   /* op (see rs_binop); [0] [1] */
	RN_CAST,     /* [0] value; [1] RN_TYPE */
	RN_RANGE,    /* [0] lo, [1] hi (either may be NULL); op '=' inclusive */
	RN_TUPLE,
	RN_ARRAY,
	RN_REPEAT,   /* [v; n]: [0] v, [1] n */
	RN_BLOCK,    /* statements; flag: the last is the block's value */
	RN_IF,       /* [0] cond, [1] then (block), [2] else (block or if) or NULL */
	RN_FOR,      /* [0] pattern, [1] iterable, [2] body */
	RN_WHILE,    /* [0] cond, [1] body */
	RN_LOOP,     /* [0] body */
	RN_MACRO,    /* s the name; kids the arguments read as expressions */
	RN_CLOSURE,  /* [0] RN_TUPLE of parameter patterns, [1] body */
	RN_OTHER,    /* syntax the reader skips (match, a struct literal): s says what */
	/* statements */
	RN_LET,      /* [0] pattern, [1] RN_TYPE or NULL, [2] init or NULL */
	RN_ASSIGN,   /* op '=' or the compound operator; [0] place, [1] value */
	RN_EXPR,     /* [0]; flag: ended with ';' */
	RN_ITEM,     /* a nested item (use, fn): skipped */
	/* patterns */
	RN_PIDENT,   /* s; flag: mut */
	RN_PTUPLE,
	RN_PWILD,
	/* types */
	RN_TYPE,     /* s the last path segment ("Tile", "f32", "E"); kids its
		      * generic arguments (types, or RN_BLOCK/RN_ARRAY const
		      * expressions); op '&' '*' for references and pointers,
		      * '(' a tuple type, '[' an array type */
};

struct rnode {
	enum rn kind;
	int op;
	int line;
	const char *s;
	uint32_t n;
	int64_t ival;
	double fval;
	bool flag;
	struct rnode **kids;
	size_t nkids;
	struct rnode *gen; /* RN_METHOD, RN_PATH: turbofish (an RN_TYPE holding the args) */
};

/* A generic parameter of a function. */
struct rgeneric {
	const char *name;
	uint32_t n;
	bool is_const;       /* const N: i32 */
	struct rnode *type;  /* the const's type, or NULL (a type parameter) */
};

struct rparam {
	const char *name;
	uint32_t n;
	struct rnode *type;
	int line;
};

struct rfn {
	const char *name;
	uint32_t n;
	bool entry;                /* #[cutile::entry] */
	const struct rtok *attr;   /* the entry attribute's tokens */
	size_t nattr;
	struct rgeneric *generics;
	size_t ngenerics;
	struct rparam *params;
	size_t nparams;
	struct rnode *body;
	int line, end_line;
};

struct rfile {
	struct rtoks toks;
	struct rfn *fns;
	size_t nfns;
	struct sarena *arena;
	char *error;               /* the first syntax error, "LINE: expected ..." */
	int error_line;
};

/* Parse every function of the source (in modules too). A syntax error
 * leaves error set and the functions before it. */
void rs_parse(struct rfile *f, const char *src, size_t len);
void rs_file_free(struct rfile *f);

bool rn_is(const struct rnode *n, const char *s);
/* binary operators in RN_BINARY.op */
enum {
	RB_ADD = '+', RB_SUB = '-', RB_MUL = '*', RB_DIV = '/', RB_REM = '%',
	RB_AND = '&', RB_OR = '|', RB_XOR = '^', RB_SHL = 'L', RB_SHR = 'R',
	RB_EQ = '=', RB_NE = '!', RB_LT = '<', RB_LE = 'l', RB_GT = '>', RB_GE = 'g',
	RB_LAND = 'A', RB_LOR = 'O',
};

#endif
