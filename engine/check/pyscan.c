/* Is the FFI symbol actually invoked by the wrapper? (validate_kernel.sh
 * check 18). Python source is tokenized, split into statements with their
 * block structure, and the statements that can run are marked: module
 * code, bodies of functions something refers to (or that are decorated),
 * minus `if False:` bodies and whatever follows an unconditional return,
 * raise, break or continue. Invocation forms are then searched in live
 * statements only, following aliases (`fn = lib.SYM`) and factories
 * (`def get(): return lib.SYM`) to a fixpoint. */
#include "engine/check/check_impl.h"

#include <stdlib.h>
#include <string.h>

enum kw {
	KW_OTHER,
	KW_DEF,
	KW_CLASS,
	KW_IF,
	KW_ELIF,
	KW_ELSE,
	KW_WHILE,
	KW_FOR,
	KW_TRY,
	KW_EXCEPT,
	KW_FINALLY,
	KW_WITH,
	KW_RETURN,
	KW_RAISE,
	KW_BREAK,
	KW_CONTINUE,
	KW_DECORATOR,
};

struct stmt {
	size_t b, e;  /* tokens of the simple statement, or the compound head */
	int parent;   /* compound statement whose body holds it; -1 = module */
	int func;     /* nearest enclosing def; -1 = none */
	enum kw kw;
	bool compound;
	bool dead_body; /* `if False:` / `while 0:` */
	bool decorated;
	bool used;      /* defs: something refers to it */
	bool live;
	bool scanned;   /* its names were counted as references */
	const char *name; /* def / class name */
	size_t name_len;
};

struct names {
	const char **s;
	size_t *n;
	size_t len, cap, ncap;
};

struct scan {
	const struct pytok *t;
	size_t nt;
	struct stmt *st;
	size_t nst, cap;
	int *tok_stmt; /* statement of each token, -1 for structure tokens */
	size_t *match; /* matching closer of each opener (within the line) */
	long *opener;  /* innermost enclosing opener of each token, -1 none */
	const char *sym;
	struct names alias, factory, literal;
};

static bool tok_is(const struct pytok *t, enum pytok_kind kind, const char *s)
{
	return t->kind == kind && t->n == strlen(s) && memcmp(t->s, s, t->n) == 0;
}

static bool op_is(const struct scan *sc, size_t i, const char *s)
{
	return i < sc->nt && tok_is(&sc->t[i], PYT_OP, s);
}

static bool name_is(const struct scan *sc, size_t i, const char *s)
{
	return i < sc->nt && tok_is(&sc->t[i], PYT_NAME, s);
}

static bool names_has(const struct names *ns, const char *s, size_t n)
{
	for (size_t i = 0; i < ns->len; i++)
		if (ns->n[i] == n && memcmp(ns->s[i], s, n) == 0)
			return true;
	return false;
}

static bool names_add(struct names *ns, const char *s, size_t n)
{
	if (names_has(ns, s, n))
		return false;
	ns->s = xgrow(ns->s, &ns->cap, ns->len + 1, sizeof(*ns->s));
	ns->n = xgrow(ns->n, &ns->ncap, ns->len + 1, sizeof(*ns->n));
	ns->s[ns->len] = s;
	ns->n[ns->len] = n;
	ns->len++;
	return true;
}

static void names_free(struct names *ns)
{
	free(ns->s);
	free(ns->n);
}

static enum kw keyword_of(const struct pytok *t)
{
	static const struct {
		const char *s;
		enum kw kw;
	} kws[] = {
		{"def", KW_DEF},       {"class", KW_CLASS},   {"if", KW_IF},
		{"elif", KW_ELIF},     {"else", KW_ELSE},     {"while", KW_WHILE},
		{"for", KW_FOR},       {"try", KW_TRY},       {"except", KW_EXCEPT},
		{"finally", KW_FINALLY}, {"with", KW_WITH},   {"return", KW_RETURN},
		{"raise", KW_RAISE},   {"break", KW_BREAK},   {"continue", KW_CONTINUE},
	};
	if (tok_is(t, PYT_OP, "@"))
		return KW_DECORATOR;
	if (t->kind != PYT_NAME)
		return KW_OTHER;
	for (size_t i = 0; i < TP_ARRAY_LEN(kws); i++)
		if (tok_is(t, PYT_NAME, kws[i].s))
			return kws[i].kw;
	return KW_OTHER;
}

static bool is_compound(enum kw kw)
{
	return kw >= KW_DEF && kw <= KW_WITH;
}

static int add_stmt(struct scan *sc, size_t b, size_t e, int parent, int func)
{
	sc->st = xgrow(sc->st, &sc->cap, sc->nst + 1, sizeof(*sc->st));
	struct stmt *s = &sc->st[sc->nst];
	memset(s, 0, sizeof(*s));
	s->b = b;
	s->e = e;
	s->parent = parent;
	s->func = func;
	size_t k = b;
	if (name_is(sc, k, "async") && k + 1 < e)
		k++;
	s->kw = keyword_of(&sc->t[k]);
	for (size_t i = b; i < e; i++)
		sc->tok_stmt[i] = (int)sc->nst;
	if ((s->kw == KW_DEF || s->kw == KW_CLASS) && k + 1 < e && sc->t[k + 1].kind == PYT_NAME) {
		s->name = sc->t[k + 1].s;
		s->name_len = sc->t[k + 1].n;
	}
	if ((s->kw == KW_IF || s->kw == KW_ELIF || s->kw == KW_WHILE) && e - k == 3 &&
	    (name_is(sc, k + 1, "False") || name_is(sc, k + 1, "None") ||
	     (sc->t[k + 1].kind == PYT_NUMBER && sc->t[k + 1].n == 1 && sc->t[k + 1].s[0] == '0')))
		s->dead_body = true;
	return (int)sc->nst++;
}

/* Split tokens [b, e) on depth-0 ';' into simple statements. */
static void add_simple(struct scan *sc, size_t b, size_t e, int parent, int func)
{
	size_t s = b;
	for (size_t i = b; i <= e; i++) {
		if (i == e || (op_is(sc, i, ";") && sc->opener[i] < 0)) {
			if (i > s)
				add_stmt(sc, s, i, parent, func);
			s = i + 1;
		}
	}
}

/* Bracket matching per logical line, and the innermost opener of each token. */
static void match_brackets(struct scan *sc)
{
	size_t cap = 0, depth = 0;
	size_t *stack = NULL;
	for (size_t i = 0; i < sc->nt; i++) {
		const struct pytok *t = &sc->t[i];
		sc->match[i] = i;
		sc->opener[i] = depth ? (long)stack[depth - 1] : -1;
		if (t->kind == PYT_NEWLINE || t->kind == PYT_END) {
			while (depth)
				sc->match[stack[--depth]] = i;
			continue;
		}
		if (t->kind != PYT_OP || t->n != 1)
			continue;
		char c = t->s[0];
		if (c == '(' || c == '[' || c == '{') {
			stack = xgrow(stack, &cap, depth + 1, sizeof(*stack));
			stack[depth++] = i;
		} else if ((c == ')' || c == ']' || c == '}') && depth) {
			sc->match[stack[--depth]] = i;
			sc->opener[i] = depth ? (long)stack[depth - 1] : -1;
		}
	}
	free(stack);
}

/* The head of a compound statement ends at its first depth-0 ':' that is
 * not a lambda's. Returns e when there is none. */
static size_t head_colon(const struct scan *sc, size_t b, size_t e)
{
	int lambdas = 0;
	for (size_t i = b; i < e; i++) {
		if (sc->opener[i] >= 0)
			continue;
		if (name_is(sc, i, "lambda"))
			lambdas++;
		else if (op_is(sc, i, ":")) {
			if (lambdas == 0)
				return i;
			lambdas--;
		}
	}
	return e;
}

static void build_statements(struct scan *sc)
{
	size_t cap = 0, depth = 0;
	int *parents = xgrow(NULL, &cap, 1, sizeof(int));
	parents[depth++] = -1;
	int last_compound = -1; /* compound whose body is expected next */
	bool decorated = false;
	size_t i = 0;
	while (i < sc->nt && sc->t[i].kind != PYT_END) {
		enum pytok_kind kind = sc->t[i].kind;
		if (kind == PYT_NEWLINE) {
			i++;
			continue;
		}
		if (kind == PYT_INDENT) {
			parents = xgrow(parents, &cap, depth + 1, sizeof(int));
			parents[depth] = last_compound >= 0 ? last_compound : parents[depth - 1];
			depth++;
			last_compound = -1;
			i++;
			continue;
		}
		if (kind == PYT_DEDENT) {
			if (depth > 1)
				depth--;
			last_compound = -1;
			i++;
			continue;
		}
		size_t e = i;
		while (e < sc->nt && sc->t[e].kind != PYT_NEWLINE && sc->t[e].kind != PYT_END &&
		       sc->t[e].kind != PYT_INDENT && sc->t[e].kind != PYT_DEDENT)
			e++;
		int parent = parents[depth - 1];
		int func = parent < 0 ? -1
				      : (sc->st[parent].kw == KW_DEF ? parent : sc->st[parent].func);
		size_t k = i + (name_is(sc, i, "async") ? 1 : 0);
		enum kw kw = k < e ? keyword_of(&sc->t[k]) : KW_OTHER;
		last_compound = -1;
		if (kw == KW_DECORATOR) {
			add_stmt(sc, i, e, parent, func);
			decorated = true;
		} else if (is_compound(kw)) {
			size_t colon = head_colon(sc, i, e);
			size_t he = colon < e ? colon + 1 : e;
			int s = add_stmt(sc, i, he, parent, func);
			sc->st[s].compound = true;
			if (decorated && (kw == KW_DEF || kw == KW_CLASS))
				sc->st[s].decorated = true;
			decorated = false;
			int body_func = kw == KW_DEF ? s : func;
			if (he < e)
				add_simple(sc, he, e, s, body_func); /* one-line body */
			else
				last_compound = s;
		} else {
			decorated = false;
			add_simple(sc, i, e, parent, func);
		}
		i = e;
	}
	free(parents);
}

static bool is_dunder(const struct stmt *s)
{
	return s->name_len > 4 && s->name[0] == '_' && s->name[1] == '_' &&
	       s->name[s->name_len - 1] == '_' && s->name[s->name_len - 2] == '_';
}

/* Recompute liveness top-down (parents precede children in st[]). */
static void compute_live(struct scan *sc)
{
	bool *terminated = xcalloc(sc->nst + 1, sizeof(bool)); /* per parent; [nst] = module */
	for (size_t i = 0; i < sc->nst; i++) {
		struct stmt *s = &sc->st[i];
		size_t slot = s->parent < 0 ? sc->nst : (size_t)s->parent;
		bool live;
		if (s->parent < 0) {
			live = true;
		} else {
			const struct stmt *p = &sc->st[s->parent];
			live = p->live && !p->dead_body && (p->kw != KW_DEF || p->used);
		}
		if (terminated[slot])
			live = false;
		s->live = live;
		if (live && !s->compound &&
		    (s->kw == KW_RETURN || s->kw == KW_RAISE || s->kw == KW_BREAK ||
		     s->kw == KW_CONTINUE))
			terminated[slot] = true;
	}
	free(terminated);
}

/* Is statement s inside the body of statement d (or d itself)? */
static bool within(const struct scan *sc, int s, int d)
{
	for (int p = s; p >= 0; p = sc->st[p].parent)
		if (p == d)
			return true;
	return false;
}

/* Mark defs referenced from live code as used, until nothing changes. */
static void resolve_defs(struct scan *sc)
{
	size_t ndefs = 0, cap = 0;
	size_t *defs = NULL;
	for (size_t i = 0; i < sc->nst; i++) {
		struct stmt *s = &sc->st[i];
		if (s->kw != KW_DEF)
			continue;
		s->used = s->decorated || is_dunder(s);
		defs = xgrow(defs, &cap, ndefs + 1, sizeof(*defs));
		defs[ndefs++] = i;
	}
	bool changed = true;
	while (changed) {
		changed = false;
		compute_live(sc);
		for (size_t i = 0; i < sc->nst; i++) {
			struct stmt *s = &sc->st[i];
			if (!s->live || s->scanned)
				continue;
			s->scanned = true;
			for (size_t t = s->b; t < s->e; t++) {
				if (sc->t[t].kind != PYT_NAME)
					continue;
				if (t > s->b && (name_is(sc, t - 1, "def") || name_is(sc, t - 1, "class")))
					continue;
				for (size_t di = 0; di < ndefs; di++) {
					size_t d = defs[di];
					struct stmt *ds = &sc->st[d];
					if (ds->used || ds->name_len != sc->t[t].n ||
					    memcmp(ds->name, sc->t[t].s, ds->name_len) != 0 ||
					    within(sc, (int)i, (int)d))
						continue;
					ds->used = true;
					changed = true;
				}
			}
		}
	}
	compute_live(sc);
	free(defs);
}

/* Callees that only look at a name or value and never invoke it. */
static bool denied_callee(const struct pytok *t)
{
	static const char *const deny[] = {
		"hasattr", "getattr", "setattr", "print", "isinstance", "callable", "repr",
		"str", "len", "id", "type", "format", "check_rc", "warn", "warning", "info",
		"debug", "error", "exception", "critical", "log", "cdef", "assert",
	};
	if (t->kind != PYT_NAME)
		return false;
	for (size_t i = 0; i < TP_ARRAY_LEN(deny); i++)
		if (tok_is(t, PYT_NAME, deny[i]))
			return true;
	return (t->n > 5 && memcmp(t->s + t->n - 5, "Error", 5) == 0) ||
	       (t->n > 7 && memcmp(t->s + t->n - 7, "Warning", 7) == 0) ||
	       (t->n > 9 && memcmp(t->s + t->n - 9, "Exception", 9) == 0);
}

static bool is_pykeyword(const struct pytok *t)
{
	static const char *const kws[] = {
		"False", "None", "True", "and", "as", "assert", "async", "await", "break",
		"class", "continue", "def", "del", "elif", "else", "except", "finally", "for",
		"from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or",
		"pass", "raise", "return", "try", "while", "with", "yield",
	};
	for (size_t i = 0; i < TP_ARRAY_LEN(kws); i++)
		if (tok_is(t, PYT_NAME, kws[i]))
			return true;
	return false;
}

enum form { F_NONE, F_SOURCE, F_CALL };

/* Does the call whose '(' is at index o take a single-token argument equal
 * to the symbol (or a name holding it, when names_ok)? */
static bool call_has_symbol_arg(const struct scan *sc, size_t o, bool names_ok, bool second)
{
	size_t close = sc->match[o];
	size_t arg = 0;
	for (size_t i = o + 1; i < close; i++) {
		if (sc->opener[i] != (long)o)
			continue;
		if (op_is(sc, i, ",")) {
			arg++;
			continue;
		}
		bool alone = (op_is(sc, i - 1, ",") || i - 1 == o) &&
			     (op_is(sc, i + 1, ",") || i + 1 == close);
		if (!alone || (second && arg != 1))
			continue;
		const struct pytok *t = &sc->t[i];
		if (pytok_str_equals(t, sc->sym))
			return true;
		if (names_ok && t->kind == PYT_NAME && names_has(&sc->literal, t->s, t->n))
			return true;
	}
	return false;
}

/* Classify an invocation form starting at token i (within [.., e)). */
static enum form form_at(const struct scan *sc, size_t i, size_t e, size_t *end,
			 const char **what)
{
	const struct pytok *t = &sc->t[i];
	if (tok_is(t, PYT_OP, ".") && i + 1 < e && name_is(sc, i + 1, sc->sym)) {
		*end = i + 2;
		*what = "attribute call";
	} else if (name_is(sc, i, "getattr") && op_is(sc, i + 1, "(") &&
		   call_has_symbol_arg(sc, i + 1, true, true)) {
		*end = sc->match[i + 1] + 1;
		*what = "getattr call";
	} else if (t->kind == PYT_NAME && names_has(&sc->alias, t->s, t->n) &&
		   !(i > 0 && (name_is(sc, i - 1, "def") || name_is(sc, i - 1, "class")))) {
		*end = i + 1;
		*what = "alias call";
	} else if (t->kind == PYT_NAME && names_has(&sc->factory, t->s, t->n) &&
		   op_is(sc, i + 1, "(") &&
		   !(i > 0 && (name_is(sc, i - 1, "def") || name_is(sc, i - 1, "class")))) {
		*end = sc->match[i + 1] + 1;
		*what = "factory call";
	} else if (t->kind == PYT_NAME && op_is(sc, i + 1, "(") && !denied_callee(t) &&
		   !is_pykeyword(t) &&
		   !(i > 0 && (name_is(sc, i - 1, "def") || name_is(sc, i - 1, "class"))) &&
		   call_has_symbol_arg(sc, i + 1, false, false)) {
		*end = sc->match[i + 1] + 1;
		*what = "binder call";
		return F_CALL;
	} else {
		return F_NONE;
	}
	return *end < e && op_is(sc, *end, "(") ? F_CALL : F_SOURCE;
}

/* A source handed to a call as an argument is invoked by the callee. */
static bool passed_to_call(const struct scan *sc, size_t i)
{
	long o = sc->opener[i];
	if (o <= 0 || !op_is(sc, (size_t)o, "("))
		return false;
	const struct pytok *callee = &sc->t[o - 1];
	if (callee->kind == PYT_NAME)
		return !is_pykeyword(callee) && !denied_callee(callee);
	return tok_is(callee, PYT_OP, ")") || tok_is(callee, PYT_OP, "]");
}

/* First invocation in statement s at or after token `from`; returns its
 * token or SIZE_MAX. */
static size_t first_call_in(const struct scan *sc, const struct stmt *s, const char **what)
{
	for (size_t i = s->b; i < s->e; i++) {
		size_t end;
		enum form f = form_at(sc, i, s->e, &end, what);
		if (f == F_CALL)
			return i;
		if (f == F_SOURCE && passed_to_call(sc, i)) {
			*what = "passed to a call";
			return i;
		}
	}
	return SIZE_MAX;
}

static bool has_source(const struct scan *sc, size_t b, size_t e)
{
	for (size_t i = b; i < e; i++) {
		size_t end;
		const char *what;
		if (form_at(sc, i, e, &end, &what) == F_SOURCE)
			return true;
	}
	return false;
}

/* Names bound by assignments and returns of symbol references. */
static void resolve_aliases(struct scan *sc)
{
	for (size_t i = 0; i < sc->nst; i++) {
		const struct stmt *s = &sc->st[i];
		if (s->compound || s->e - s->b < 3 || sc->t[s->b].kind != PYT_NAME)
			continue;
		const struct pytok *last = &sc->t[s->e - 1];
		if (pytok_str_equals(last, sc->sym) && (op_is(sc, s->e - 2, "=")))
			names_add(&sc->literal, sc->t[s->b].s, sc->t[s->b].n);
	}
	bool changed = true;
	while (changed) {
		changed = false;
		for (size_t i = 0; i < sc->nst; i++) {
			const struct stmt *s = &sc->st[i];
			if (!s->live || s->compound)
				continue;
			if (s->kw == KW_RETURN && s->func >= 0 && has_source(sc, s->b + 1, s->e)) {
				const struct stmt *d = &sc->st[s->func];
				if (d->name)
					changed |= names_add(&sc->factory, d->name, d->name_len);
				continue;
			}
			size_t eq = SIZE_MAX;
			for (size_t t = s->b; t < s->e; t++)
				if (sc->opener[t] < 0 && op_is(sc, t, "="))
					eq = t;
			if (eq == SIZE_MAX || !has_source(sc, eq + 1, s->e))
				continue;
			/* every NAME that ends a depth-0 target element */
			for (size_t t = s->b; t < eq; t++) {
				if (sc->opener[t] >= 0 || sc->t[t].kind != PYT_NAME)
					continue;
				if (op_is(sc, t + 1, ",") || op_is(sc, t + 1, "=") || op_is(sc, t + 1, ":"))
					changed |= names_add(&sc->alias, sc->t[t].s, sc->t[t].n);
			}
		}
	}
}

/* A return or raise that runs before token `call` in the same function. */
static int early_exit(const struct scan *sc, int call_stmt, size_t call, const char **kw)
{
	int func = sc->st[call_stmt].func;
	for (size_t i = 0; i < sc->nst; i++) {
		const struct stmt *s = &sc->st[i];
		if (s->b >= call)
			break;
		if ((int)i == call_stmt || !s->live || s->func != func || s->compound)
			continue;
		if (s->kw == KW_RETURN || s->kw == KW_RAISE) {
			*kw = s->kw == KW_RETURN ? "return" : "raise";
			return sc->t[s->b].line;
		}
	}
	return 0;
}

int py_live_call(const char *src, size_t len, const char *symbol, struct py_live *res,
		 struct tp_err *err)
{
	memset(res, 0, sizeof(*res));
	struct pytoks toks = {0};
	if (pytok_scan(src, len, &toks, err) < 0) {
		pytoks_free(&toks);
		return -1;
	}
	struct scan sc = {0};
	sc.t = toks.v;
	sc.nt = toks.n;
	sc.sym = symbol;
	sc.tok_stmt = xmalloc(sc.nt * sizeof(int));
	for (size_t i = 0; i < sc.nt; i++)
		sc.tok_stmt[i] = -1;
	sc.match = xmalloc(sc.nt * sizeof(size_t));
	sc.opener = xmalloc(sc.nt * sizeof(long));
	match_brackets(&sc);
	build_statements(&sc);
	resolve_defs(&sc);
	resolve_aliases(&sc);

	for (size_t i = 0; i < sc.nst && !res->call_line; i++) {
		const struct stmt *s = &sc.st[i];
		const char *what = NULL;
		size_t at = first_call_in(&sc, s, &what);
		if (at == SIZE_MAX)
			continue;
		if (!s->live) {
			if (!res->dead_line)
				res->dead_line = sc.t[at].line;
			continue;
		}
		res->call_line = sc.t[at].line;
		res->call_col = sc.t[at].col;
		res->call_form = what;
		res->early_line = early_exit(&sc, (int)i, at, &res->early_kw);
	}
	names_free(&sc.alias);
	names_free(&sc.factory);
	names_free(&sc.literal);
	free(sc.st);
	free(sc.tok_stmt);
	free(sc.match);
	free(sc.opener);
	pytoks_free(&toks);
	return 0;
}
