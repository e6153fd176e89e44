/* Text parser for cuda_tile IR: cursor, errors, value scopes, and the
 * module / entry / global / block structure. Op syntax is in ir_parse_op.c
 * (registry templates and region ops) and ir_parse_generic.c (generic form,
 * unknown ops). Accepts the official printer's output, prefixed and
 * unprefixed names, cutile-rs `%n` names, `// -----` split files (each chunk
 * is another `cuda_tile.module`) and `loc(...)` suffixes. */
#include "engine/ir/ir_parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ---- value scopes ---- */

static uint64_t name_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h;
}

struct pmark ps_scope_push(struct pstate *ps)
{
	struct pmark mk = {ps->nbind, ps->scope_start};
	ps->scope_start = ps->nbind;
	return mk;
}

void ps_scope_pop(struct pstate *ps, struct pmark mk)
{
	while (ps->nbind > mk.nbind) {
		struct binding *b = &ps->bindings[--ps->nbind];
		size_t h = name_hash(b->name, b->len) & (ps->nbuckets - 1);
		ps->buckets[h] = b->next; /* bindings are LIFO: b heads its bucket */
	}
	ps->scope_start = mk.start;
}

static int lookup(struct pstate *ps, const char *name, size_t len)
{
	size_t h = name_hash(name, len) & (ps->nbuckets - 1);
	for (int i = ps->buckets[h]; i >= 0; i = ps->bindings[i].next)
		if (ps->bindings[i].len == len && memcmp(ps->bindings[i].name, name, len) == 0)
			return i;
	return -1;
}

void ps_bind(struct pstate *ps, const char *name, uint32_t len, uint32_t n, struct ir_value **vals)
{
	int old = lookup(ps, name, len);
	if (old >= 0 && (size_t)old >= ps->scope_start)
		ps_fail(ps, name - 1, "redefinition of value %%%.*s", (int)len, name);
	if (ps->nbind == ps->capbind) {
		ps->capbind = ps->capbind ? ps->capbind * 2 : 256;
		ps->bindings = xrealloc(ps->bindings, ps->capbind * sizeof(*ps->bindings));
	}
	if (ps->nbind * 2 >= ps->nbuckets) {
		/* rehash: rebuild every chain in binding order so LIFO heads hold */
		ps->nbuckets = ps->nbuckets ? ps->nbuckets * 4 : 1024;
		free(ps->buckets);
		ps->buckets = xmalloc(ps->nbuckets * sizeof(int));
		memset(ps->buckets, 0xff, ps->nbuckets * sizeof(int));
		for (size_t i = 0; i < ps->nbind; i++) {
			struct binding *b = &ps->bindings[i];
			size_t h = name_hash(b->name, b->len) & (ps->nbuckets - 1);
			b->next = ps->buckets[h];
			ps->buckets[h] = (int)i;
		}
	}
	struct binding *b = &ps->bindings[ps->nbind];
	b->name = name;
	b->len = len;
	b->n = n;
	b->vals = vals;
	size_t h = name_hash(name, len) & (ps->nbuckets - 1);
	b->next = ps->buckets[h];
	ps->buckets[h] = (int)ps->nbind++;
}

/* An entry is isolated from above: a value of the module's body has no
 * number inside it, and printing one would need a placeholder. Every use,
 * in custom, generic or opaque syntax, goes through here. */
static void refuse_outer(struct pstate *ps, int b, const char *at, const char *name, size_t len)
{
	if (b >= 0 && (size_t)b < ps->entry_from)
		ps_fail(ps, at, "%%%.*s is defined outside this entry (in the module's body); an "
			"entry can use only its own values", (int)len, name);
}

static bool name_char(char c)
{
	return ps_ident_char(c) || c == '-';
}

uint32_t ps_value_def(struct pstate *ps, const char **name)
{
	ps_ws(ps);
	if (ps->p >= ps->end || *ps->p != '%')
		ps_expected(ps, "a value name ('%...')");
	const char *s = ++ps->p;
	while (ps->p < ps->end && name_char(*ps->p))
		ps->p++;
	if (ps->p == s)
		ps_fail(ps, s - 1, "expected a value name after '%%'");
	*name = s;
	return (uint32_t)(ps->p - s);
}

void ps_operand_type(struct pstate *ps, const char *at, const struct ir_value *v,
		     const struct ir_type *written, uint32_t i, const char *op, size_t oplen)
{
	if (!v->type || ir_type_equal(v->type, written))
		return;
	sb_reset(&ps->scratch); /* freed with the parser */
	ir_print_type(&ps->scratch, v->type);
	ps_fail(ps, at, "operand %u of '%.*s' is a %.200s, not the type written for it", i + 1,
		(int)oplen, op, sb_str(&ps->scratch));
}

struct ir_value *ps_value_use(struct pstate *ps)
{
	const char *name;
	uint32_t len = ps_value_def(ps, &name);
	int64_t idx = 0;
	bool has_idx = false;
	if (ps->p < ps->end && *ps->p == '#') {
		ps->p++;
		if (!ps_int(ps, &idx) || idx < 0)
			ps_fail(ps, ps->p, "expected a result number after '#'");
		has_idx = true;
	}
	int b = lookup(ps, name, len);
	if (b < 0)
		ps_fail(ps, name - 1, "use of undefined value %%%.*s", (int)len, name);
	refuse_outer(ps, b, name - 1, name, len);
	struct binding *bd = &ps->bindings[b];
	if ((uint64_t)idx >= bd->n || (!has_idx && bd->n != 1 && bd->n != 0))
		ps_fail(ps, name - 1, "value %%%.*s has %u results; use %%%.*s#N", (int)len, name,
			bd->n, (int)len, name);
	return bd->vals[idx];
}

/* ---- blocks and ops ---- */

void ps_loc_suffix(struct pstate *ps, struct ir_op *op)
{
	ps_ws(ps);
	const char *start = ps->p;
	if (!ps_accept(ps, "loc"))
		return;
	if (!ps_peek(ps, '(')) {
		ps->p = start;
		return;
	}
	ps_skip_group(ps);
	if (op)
		ir_op_extra(ps->m, op)->dbg = ir_strdup(ps->m, start, (size_t)(ps->p - start));
}

#define MAXRES 64

static void refuse_test_dialect_at(struct pstate *ps, const char *at);

static struct ir_op *parse_op(struct pstate *ps)
{
	ps_ws(ps);
	const char *start = ps->p;
	const char *names[MAXRES];
	uint32_t lens[MAXRES], counts[MAXRES], ngroups = 0, nres = 0;
	if (ps_peek(ps, '%')) {
		do {
			if (ngroups == MAXRES)
				ps_fail(ps, ps->p, "too many results");
			lens[ngroups] = ps_value_def(ps, &names[ngroups]);
			counts[ngroups] = 1;
			if (ps_accept(ps, ":")) {
				int64_t c = ps_expect_int(ps, "a result count");
				if (c < 1 || c > MAXRES)
					ps_fail(ps, ps->p, "bad result count %lld", (long long)c);
				counts[ngroups] = (uint32_t)c;
			}
			nres += counts[ngroups++];
			if (nres > MAXRES)
				ps_fail(ps, ps->p, "too many results");
		} while (ps_accept(ps, ","));
		ps_expect(ps, "=");
	}
	ps_ws(ps);
	ps->op_start = start;
	struct ir_op *op;
	if (ps_peek(ps, '"')) {
		op = ps_generic_op(ps, nres);
	} else {
		const char *name;
		const char *at = ps->p;
		size_t len = ps_ident(ps, &name);
		if (!len)
			ps_expected(ps, "an operation name");
		const struct ir_opdef *d = ir_opdef_by_name(name, len);
		if (!d) {
			refuse_test_dialect_at(ps, at);
			op = ps_unknown_op(ps, name, len, nres);
		} else {
			if (d->code == IR_OP_MODULE || d->code == IR_OP_ENTRY || d->code == IR_OP_GLOBAL)
				ps_fail(ps, at, "'%.*s' is only valid at module level", (int)len, name);
			op = ir_op_new_def(ps->m, d, name, len);
			for (uint32_t i = 0; i < nres; i++)
				ir_op_add_result(ps->m, op, NULL);
			if (d->format[0] == '@')
				ps_region_op(ps, op);
			else
				ps_format(ps, op);
		}
	}
	if (!op->loc.end_line)
		ps_set_loc(ps, op, start);
	ps_loc_suffix(ps, op);
	ir_op_finish(ps->m, op);
	/* results become visible after the whole op, regions included */
	uint32_t k = 0;
	for (uint32_t g = 0; g < ngroups; g++) {
		ps_bind(ps, names[g], lens[g], counts[g], op->results + k);
		k += counts[g];
	}
	return op;
}

void ps_block_body_one(struct pstate *ps, struct ir_block *b)
{
	ir_block_append(ps->m, b, parse_op(ps));
}

bool ps_value_lookup(struct pstate *ps, const char *text, size_t len, struct ir_value **v)
{
	if (len < 2 || text[0] != '%')
		return false;
	const char *hash = memchr(text, '#', len);
	size_t nl = (hash ? (size_t)(hash - text) : len) - 1;
	int64_t idx = hash ? atoll(hash + 1) : 0;
	int b = lookup(ps, text + 1, nl);
	refuse_outer(ps, b, text, text + 1, nl);
	if (b < 0 || idx < 0 || (uint64_t)idx >= ps->bindings[b].n)
		return false;
	*v = ps->bindings[b].vals[idx];
	return true;
}

void ps_nest(struct pstate *ps, const char *at, const char *what)
{
	if (++ps->depth > PS_MAX_DEPTH)
		ps_fail(ps, at, "%s nested too deeply (more than %d levels of regions, types and "
			"attributes)", what, PS_MAX_DEPTH);
}

void ps_op_push(struct pstate *ps, struct ir_op *op)
{
	if (ps->nopstk == ps->capopstk) {
		ps->capopstk = ps->capopstk ? ps->capopstk * 2 : 256;
		ps->opstk = xrealloc(ps->opstk, ps->capopstk * sizeof(*ps->opstk));
	}
	ps->opstk[ps->nopstk++] = op;
}

/* A block's ops wait on the parser's stack until the block ends, and then
 * go into the block as one array of their number: appended one by one,
 * the array would double, and each outgrown copy stay in the arena. */
size_t ps_block_ops(struct pstate *ps)
{
	size_t base = ps->nopstk;
	ps_nest(ps, ps->p, "regions");
	for (;;) {
		ps_ws(ps);
		if (ps->p >= ps->end)
			ps_expected(ps, "'}'");
		if (*ps->p == '}')
			break;
		/* Nothing may follow a terminator: its operand list would swallow
		 * a next line's results (`return` then `%0 = ...`), so the printed
		 * text would not read back as what was parsed. */
		if (ps->nopstk > base && ps->opstk[ps->nopstk - 1]->def->terminator)
			ps_fail(ps, ps->p, "an op after '%s', which ends its block",
				ps->opstk[ps->nopstk - 1]->def->name);
		ps_op_push(ps, parse_op(ps));
	}
	ps->depth--;
	return base;
}

void ps_block_commit(struct pstate *ps, struct ir_block *b, size_t base)
{
	if (ps->nopstk == base)
		return; /* an empty block (and perhaps no stack yet) */
	ir_block_append_ops(ps->m, b, ps->opstk + base, (uint32_t)(ps->nopstk - base));
	ps->nopstk = base;
}

void ps_block_body(struct pstate *ps, struct ir_block *b)
{
	ps_block_commit(ps, b, ps_block_ops(ps));
}

/* The name after '@': an identifier or a quoted string. */
static size_t symbol_name(struct pstate *ps, const char **name, const char *what)
{
	size_t len;
	if (ps_peek(ps, '"')) {
		ps_string(ps, name, &len);
		if (!len || memchr(*name, '\0', len))
			ps_fail(ps, ps->p, "expected %s", what);
		return len;
	}
	len = ps_ident(ps, name);
	if (!len)
		ps_expected(ps, what);
	return len;
}

/* entry @name(%a: T, ...) [optimization_hints=<...>] { ... } */
static void parse_entry(struct pstate *ps, struct ir_op *unit, const char *start)
{
	ps_expect(ps, "@");
	const char *name;
	size_t nlen = symbol_name(ps, &name, "an entry name");
	struct pmark mk = ps_scope_push(ps);
	size_t outer = ps->entry_from;
	ps->entry_from = ps->nbind;
	const char *argn[256];
	uint32_t argl[256];
	const struct ir_type *argt[256];
	uint32_t nargs = 0;
	ps_expect(ps, "(");
	if (!ps_accept(ps, ")")) {
		do {
			if (nargs == 256)
				ps_fail(ps, ps->p, "too many entry arguments");
			argl[nargs] = ps_value_def(ps, &argn[nargs]);
			ps_expect(ps, ":");
			argt[nargs] = ps_type(ps);
			ps_loc_suffix(ps, NULL);
			nargs++;
		} while (ps_accept(ps, ","));
		ps_expect(ps, ")");
	}
	const struct ir_attr *hints = NULL;
	if (ps_accept(ps, "optimization_hints")) {
		ps_expect(ps, "=");
		hints = ps_hints(ps);
	}
	char *nm = xstrndup(name, nlen);
	struct ir_op *e = ir_unit_add_entry(ps->m, unit, nm,
					    ir_type_func(ps->m, nargs, argt, 0, NULL), hints);
	free(nm);
	if (ps_accept(ps, "attributes")) {
		ps_expect(ps, "{");
		ps_attr_dict(ps, e);
		ps_check_structural(ps, e, start);
	}
	struct ir_block *body = ir_entry_body(e);
	for (uint32_t i = 0; i < nargs; i++)
		ps_bind(ps, argn[i], argl[i], 1, &body->args[i]);
	ps_set_loc(ps, e, start);
	ps_expect(ps, "{");
	int level = ps->level;
	ps->level = 2;
	ps_block_body(ps, body);
	ps->level = level;
	uint32_t col;
	ps_linecol(ps, ps->p, &ir_op_extra(ps->m, e)->close_line, &col);
	ps_expect(ps, "}");
	ps_scope_pop(ps, mk);
	ps->entry_from = outer;
	ps_loc_suffix(ps, e);
}

/* global [private] [constant] @g [alignment = N] <E: data> : tile<...> */
static void parse_global(struct pstate *ps, struct ir_op *unit, const char *start)
{
	bool priv = ps_accept(ps, "private");
	ps_accept(ps, "public");
	bool cst = ps_accept(ps, "constant");
	ps_expect(ps, "@");
	const char *name;
	size_t nlen = symbol_name(ps, &name, "a global name");
	int64_t align = 0;
	if (ps_accept(ps, "alignment")) {
		ps_expect(ps, "=");
		align = ps_expect_int(ps, "an alignment");
	}
	struct dense_pending d;
	ps_dense_begin(ps, &d);
	ps_expect(ps, ":");
	const struct ir_type *t = ps_type(ps);
	const struct ir_attr *v = ps_dense_finish(ps, &d, t);
	char *nm = xstrndup(name, nlen);
	struct ir_op *g = ir_unit_add_global(ps->m, unit, nm, v, (uint64_t)align, priv, cst);
	free(nm);
	ps_set_loc(ps, g, start);
	ps_loc_suffix(ps, g);
}

/* The official round-trip tests wrap ops in functions of a test-only dialect
 * (`testing$func @f(...)`, built with TILE_IR_INCLUDE_TESTS); no tool that
 * makes kernels prints them, so they are refused by name, wherever they are
 * (an op of that name read inside a generic region would print where the
 * custom form refuses it). */
static void refuse_test_dialect_at(struct pstate *ps, const char *at)
{
	if ((size_t)(ps->end - at) > 8 && memcmp(at, "testing$", 8) == 0) {
		const char *e = at + 8;
		while (e < ps->end && ps_ident_char(*e))
			e++;
		ps_fail(ps, at,
			"'%.*s' is a function of cuda_tile's test dialect (the official round-trip "
			"tests, built with TILE_IR_INCLUDE_TESTS); kernels are 'entry' ops in a "
			"'cuda_tile.module'", (int)(e - at), at);
	}
}

static void refuse_test_dialect(struct pstate *ps)
{
	refuse_test_dialect_at(ps, ps->p);
}

/* A file of many kernels is read whole, but once a top-level item is done
 * nothing reads its text again: value names die with the entry that bound
 * them, type spellings are kept by copy, later messages point later. So
 * the loader's buffer gives its pages back as the parse goes, and a large
 * file does not stay in memory beside the model built from it. Not while
 * module-level values are bound (their names point into the text). */
static void release_consumed(struct pstate *ps)
{
	if (!ps->consume || ps->nbind)
		return;
	uint32_t line, col;
	ps_linecol(ps, ps->p, &line, &col);
	ps->lc_floor = ps->lc_pos;
	ps->lc_floor_line = ps->lc_line;
	ps->lc_floor_linestart = ps->lc_linestart;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)ps->released + page - 1) & ~(page - 1);
	uintptr_t hi = (uintptr_t)ps->lc_floor_linestart & ~(page - 1);
	if (hi >= lo + 64 * page && madvise((void *)lo, hi - lo, MADV_DONTNEED) == 0)
		ps->released = (const char *)hi;
}

/* The items of a unit body up to its closing brace. */
static void unit_items(struct pstate *ps, struct ir_op *unit)
{
	for (;;) {
		release_consumed(ps);
		ps_ws(ps);
		if (ps->p >= ps->end || *ps->p == '}')
			return;
		refuse_test_dialect(ps);
		const char *start = ps->p;
		if (ps_accept(ps, "entry") || ps_accept(ps, "cuda_tile.entry"))
			parse_entry(ps, unit, start);
		else if (ps_accept(ps, "global") || ps_accept(ps, "cuda_tile.global"))
			parse_global(ps, unit, start);
		else if (ps_peek(ps, '"') || ps_peek(ps, '%') || ps_ident_start(*ps->p))
			ps_block_body_one(ps, ir_unit_body(unit)); /* kept like any op */
		else
			ps_expected(ps, "'entry' or 'global'");
	}
}

static void parse_unit(struct pstate *ps, const char *start)
{
	const char *name = "kernels";
	char *nm = NULL;
	if (ps_accept(ps, "@")) {
		const char *s;
		size_t n = symbol_name(ps, &s, "a module name");
		name = nm = xstrndup(s, n);
	}
	struct ir_op *u = ir_module_add_unit(ps->m, name, NULL);
	free(nm);
	if (ps_accept(ps, "attributes")) {
		ps_expect(ps, "{");
		ps_attr_dict(ps, u);
		ps_check_structural(ps, u, start);
	}
	ps_set_loc(ps, u, start);
	ps_expect(ps, "{");
	ps->level = 1;
	/* a module's values are its own (the printer names them per module, so
	 * the next module may well use the same names) */
	struct pmark mk = ps_scope_push(ps);
	unit_items(ps, u);
	ps_scope_pop(ps, mk);
	ps->level = 0;
	ps_expect(ps, "}");
	ps_loc_suffix(ps, u);
	ps->implicit_unit = NULL;
}

static void top_level(struct pstate *ps, int depth)
{
	for (;;) {
		ps_ws(ps);
		if (ps->p >= ps->end)
			return;
		const char *start = ps->p;
		if (*ps->p == '}' && depth > 0)
			return;
		refuse_test_dialect(ps);
		if (*ps->p == '#') {
			/* "#loc1 = loc(...)" / "#di_file = #cuda_tile.di_file<...>" */
			const char *nl = memchr(ps->p, '\n', (size_t)(ps->end - ps->p));
			const char *e = nl ? nl : ps->end;
			size_t len = (size_t)(e - ps->p);
			while (len && (ps->p[len - 1] == '\r' || ps->p[len - 1] == ' '))
				len--;
			struct ir_module *m = ps->m;
			m->aliases = ir_grow(m, m->aliases, &m->aliases_cap, m->naliases + 1,
					     sizeof(*m->aliases));
			m->aliases[m->naliases++] = ir_strdup(m, ps->p, len);
			ps->p = e;
		} else if (ps_accept(ps, "cuda_tile.module")) {
			parse_unit(ps, start);
		} else if (ps_peek_word(ps, "module")) {
			/* a builtin `module { ... }` wrapper around the units */
			ps_expect(ps, "module");
			if (ps_accept(ps, "@")) {
				const char *s;
				ps_ident(ps, &s);
			}
			if (ps_accept(ps, "attributes")) {
				size_t len;
				ps_balanced(ps, "{", &len);
				ps_expect(ps, "{");
				ps_balanced(ps, "}", &len);
				ps_expect(ps, "}");
			}
			ps_expect(ps, "{");
			ps_nest(ps, start, "modules");
			top_level(ps, depth + 1);
			ps->depth--;
			ps_expect(ps, "}");
			ps_loc_suffix(ps, NULL);
		} else if (ps_peek(ps, '"')) {
			ps->op_start = ps->p;
			struct ir_op *op = ps_generic_op(ps, 0);
			ps_loc_suffix(ps, op);
			if (op->code != IR_OP_MODULE)
				ps_fail(ps, start, "expected 'cuda_tile.module' at the top level");
		} else if (ps_peek_word(ps, "entry") || ps_peek_word(ps, "cuda_tile.entry") ||
			   ps_peek_word(ps, "global") || ps_peek_word(ps, "cuda_tile.global")) {
			/* entries without a module around them: give them one */
			if (!ps->implicit_unit)
				ps->implicit_unit = ir_module_add_unit(ps->m, "kernels", NULL);
			ps->level = 1;
			if (ps_accept(ps, "entry") || ps_accept(ps, "cuda_tile.entry"))
				parse_entry(ps, ps->implicit_unit, start);
			else if (ps_accept(ps, "global") || ps_accept(ps, "cuda_tile.global"))
				parse_global(ps, ps->implicit_unit, start);
			ps->level = 0;
		} else {
			ps_expected(ps, "'cuda_tile.module'");
		}
	}
}

static struct ir_module *text_parse(const char *path, const char *buf, size_t len, bool consume,
				    struct tp_err *err)
{
	struct pstate *ps = xcalloc(1, sizeof(*ps));
	ps->m = ir_module_new(path, IR_SRC_TEXT);
	ps->path = path ? path : "<input>";
	ps->err = err;
	ps->consume = consume;
	ps->buf = ps->p = ps->lc_pos = ps->lc_linestart = ps->released = buf;
	ps->end = buf + len;
	ps->lc_line = 1;
	ps->nbuckets = 1024;
	ps->buckets = xmalloc(ps->nbuckets * sizeof(int));
	memset(ps->buckets, 0xff, ps->nbuckets * sizeof(int));
	struct ir_module *m = ps->m;
	if (setjmp(ps->fail)) {
		ir_module_free(ps->m);
		m = NULL;
	} else if (memchr(buf, '\0', len)) {
		/* text never holds NUL bytes; refusing them keeps every string C-safe */
		ps_fail(ps, (const char *)memchr(buf, '\0', len), "unexpected NUL byte");
	} else {
		top_level(ps, 0);
		if (ps->m->nunits == 0)
			ps_fail(ps, ps->p, "expected 'cuda_tile.module', found end of file");
	}
	free(ps->bindings);
	free(ps->buckets);
	free(ps->types);
	free(ps->opstk);
	while (ps->tchunks) {
		struct tchunk *c = ps->tchunks;
		ps->tchunks = c->next;
		free(c);
	}
	sb_free(&ps->scratch);
	free(ps);
	return m;
}

struct ir_module *ir_text_parse_terminated(const char *path, const char *buf, size_t len,
					   struct tp_err *err)
{
	return text_parse(path, buf, len, false, err);
}

struct ir_module *ir_text_parse_consume(const char *path, char *buf, size_t len,
					struct tp_err *err)
{
	return text_parse(path, buf, len, true, err);
}

struct ir_module *ir_text_parse(const char *path, const char *buf, size_t len, struct tp_err *err)
{
	/* the parser looks one byte past a token: give it a terminated copy,
	 * freed once the module is built (the model keeps no pointer into it) */
	char *copy = xmalloc(len + 1);
	memcpy(copy, buf, len);
	copy[len] = '\0';
	struct ir_module *m = ir_text_parse_terminated(path, copy, len, err);
	free(copy);
	return m;
}
