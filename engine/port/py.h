/* Internal to engine/port: a parser for Python source into a syntax tree.
 * It reads the whole statement and expression grammar that kernels, their
 * host code and their tests use (definitions with decorators and
 * annotations, assignments of every form, control flow, comprehensions,
 * lambdas, calls with keywords, slices), so that a kernel file parses even
 * where the translator later refuses a construct. Every node carries the
 * line and column it starts at, for `FILE:LINE:COL` messages.
 *
 * A node's children are in `kids`; what each position means is listed per
 * kind below (NULL marks an absent optional part). Names, attributes and
 * literal texts point into the source. */
#ifndef TILEPORT_PORT_PY_H
#define TILEPORT_PORT_PY_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/base/pytok.h"
#include "engine/base/util.h"

enum py_kind {
	/* expressions */
	PY_NAME,     /* s */
	PY_NUM,      /* s: the literal */
	PY_STR,      /* s: the first literal's text (quotes and prefix included) */
	PY_CONST,    /* s: True False None ... */
	PY_ATTR,     /* [0] object; s attribute */
	PY_CALL,     /* [0] callee, then arguments (PY_KEYWORD, PY_STARRED, PY_DSTAR, expr) */
	PY_KEYWORD,  /* s name; [0] value */
	PY_DSTAR,    /* **[0] */
	PY_STARRED,  /* *[0] */
	PY_SUBSCRIPT, /* [0] object, [1] index (a PY_TUPLE for a[i, j]) */
	PY_SLICE,    /* [0] lower, [1] upper, [2] step (each may be NULL) */
	PY_TUPLE,    /* elements */
	PY_LIST,     /* elements */
	PY_SET,      /* elements */
	PY_DICT,     /* key, value, key, value ... (key NULL for **value) */
	PY_BINOP,    /* op; [0] left, [1] right */
	PY_UNARY,    /* op (PYOP_NEG, PYOP_POS, PYOP_INVERT, PYOP_NOT); [0] */
	PY_BOOLOP,   /* op (PYOP_AND, PYOP_OR); operands */
	PY_COMPARE,  /* [0] left, then (PY_CMPOP, right) pairs */
	PY_CMPOP,    /* op: one comparison operator (no children) */
	PY_IFEXP,    /* [0] value if true, [1] condition, [2] value if false */
	PY_LAMBDA,   /* [0] PY_PARAMS, [1] body */
	PY_COMP,     /* op: '[' '{' '(' or ':' (dict); [0] element ([0],[1] key, value for dicts), then PY_COMPFOR */
	PY_COMPFOR,  /* [0] target, [1] iterable, then conditions */
	PY_NAMED,    /* [0] target := [1] */
	PY_AWAIT,    /* [0] */
	PY_YIELD,    /* [0] value or NULL; op 1 for `yield from` */

	/* statements */
	PY_EXPR_STMT, /* [0] */
	PY_ASSIGN,    /* targets..., value last */
	PY_AUGASSIGN, /* op; [0] target, [1] value */
	PY_ANNASSIGN, /* [0] target, [1] annotation, [2] value */
	PY_RETURN,    /* [0] value or NULL */
	PY_PASS,
	PY_BREAK,
	PY_CONTINUE,
	PY_RAISE,     /* [0] exception, [1] cause */
	PY_DEL,       /* targets */
	PY_GLOBAL,    /* PY_NAME children */
	PY_ASSERT,    /* [0] test, [1] message */
	PY_IMPORT,    /* PY_ALIAS children */
	PY_FROM,      /* s module (dots included); PY_ALIAS children (s "*" for a star) */
	PY_ALIAS,     /* s dotted name, s2 as-name (NULL) */
	PY_IF,        /* [0] test, [1] body, [2] else (a PY_BLOCK; an elif is a block holding one PY_IF) */
	PY_WHILE,     /* [0] test, [1] body, [2] else */
	PY_FOR,       /* [0] target, [1] iterable, [2] body, [3] else */
	PY_TRY,       /* [0] body, [1] else, [2] finally, then PY_EXCEPT */
	PY_EXCEPT,    /* [0] type, [1] body; s2 as-name */
	PY_WITH,      /* [0] body, then PY_WITHITEM */
	PY_WITHITEM,  /* [0] context, [1] target */
	PY_DEF,       /* s name; [0] decorators (PY_BLOCK of exprs), [1] PY_PARAMS, [2] returns, [3] body */
	PY_CLASS,     /* s name; [0] decorators, [1] bases (PY_TUPLE), [2] body */
	PY_PARAMS,    /* PY_PARAM children */
	PY_PARAM,     /* s name; [0] annotation, [1] default; op: PYP_PLAIN, PYP_STAR, PYP_DSTAR */
	PY_BLOCK,     /* statements */
};

enum py_op {
	PYOP_NONE,
	PYOP_ADD, PYOP_SUB, PYOP_MUL, PYOP_MATMUL, PYOP_DIV, PYOP_FLOORDIV, PYOP_MOD, PYOP_POW,
	PYOP_LSHIFT, PYOP_RSHIFT, PYOP_BITAND, PYOP_BITOR, PYOP_BITXOR,
	PYOP_NEG, PYOP_POS, PYOP_INVERT, PYOP_NOT,
	PYOP_AND, PYOP_OR,
	PYOP_LT, PYOP_LE, PYOP_GT, PYOP_GE, PYOP_EQ, PYOP_NE,
	PYOP_IN, PYOP_NOT_IN, PYOP_IS, PYOP_IS_NOT,
};

enum { PYP_PLAIN, PYP_STAR, PYP_DSTAR };

struct py_node {
	enum py_kind kind;
	int op;
	int line, col;   /* where the node starts, 1-based */
	size_t tb, te;   /* its tokens: [tb, te) in the module's token list */
	const char *s;   /* see the kinds; not NUL-terminated: use n */
	size_t n;
	const char *s2;
	size_t n2;
	bool is_async;   /* async def / for / with */
	struct py_node **kids;
	size_t nkids;
};

struct py_arena;

struct py_module {
	char *path;      /* as given, for messages */
	char *src;       /* the source, NUL-terminated */
	size_t len;
	struct pytoks toks;
	struct py_node *body; /* PY_BLOCK */
	struct py_arena *arena;
};

/* Parse `src` (copied). On a syntax error: -1 with "PATH:LINE:COL: what"
 * in err; code TP_EXIT_USAGE for bad Python, TP_EXIT_FAILED with an
 * "unsupported:" message for valid Python the parser does not read
 * (`match`). m is usable (and must be freed) either way. */
int py_parse(struct py_module *m, const char *path, const char *src, size_t len,
	     struct tp_err *err);
/* Read and parse a file; a missing file is TP_EXIT_USAGE. */
int py_parse_file(struct py_module *m, const char *path, struct tp_err *err);
void py_module_free(struct py_module *m);

/* Helpers over the tree. */
bool py_is_name(const struct py_node *n, const char *name);
/* The last line a node spans. */
int py_end_line(const struct py_module *m, const struct py_node *n);
/* Does the node spell the dotted name (`ct.load`, `tl.math.exp`)? */
bool py_is_dotted(const struct py_node *n, const char *dotted);
/* The dotted name an attribute chain spells ("a.b.c"), or NULL when it is
 * not one; caller frees. */
char *py_dotted(const struct py_node *n);
/* NUL-terminated copies of s / s2; caller frees. */
char *py_str(const struct py_node *n);
/* The value of a string literal (adjacent parts joined, simple escapes
 * decoded; f-strings keep their braces); caller frees. NULL for others. */
char *py_str_value(const struct py_module *m, const struct py_node *n);
/* Integer and float values of PY_NUM (and of a negated one). */
bool py_int_value(const struct py_node *n, long long *v);
bool py_float_value(const struct py_node *n, double *v);
/* The keyword argument `name` of a call, or NULL. */
const struct py_node *py_call_kw(const struct py_node *call, const char *name);
/* The i-th positional argument of a call (0-based, after the callee), or
 * NULL. */
const struct py_node *py_call_arg(const struct py_node *call, size_t i);
size_t py_call_nargs(const struct py_node *call);
/* Positional argument i, else keyword `name`. */
const struct py_node *py_call_param(const struct py_node *call, size_t i, const char *name);
/* The byte offset just past a node's last token. */
size_t py_node_end(const struct py_module *m, const struct py_node *n);
/* The source text a node spans, exactly; caller frees. */
char *py_node_text(const struct py_module *m, const struct py_node *n);
const char *py_op_text(int op);
/* The tree as an S-expression, "(call (attr (name ct) load) ...)", for
 * tests and --json dumps; caller frees. */
char *py_dump(const struct py_node *n);

#endif
