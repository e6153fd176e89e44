/* The registration edits of a workspace (pipeline.md §5): the lib.rs `mod`
 * block, the import in ops/cutile_rs/__init__.py and the cutile-rs entry
 * of the test's backend list, each written the way TileGym's own five
 * ports wrote them, and each idempotent (NULL: the file has it already).
 *
 * TileGym's tests declare their backends inside the test class
 * (`_backends = ["cutile"]`, then `if is_backend_available("tilecpp"):
 * _backends = _backends + ["tilecpp"]`, then `_perf_backends = _backends +
 * ["pytorch"]`), some at module level; the cutile-rs line goes after the
 * last line that builds the list, in the block that builds it, so that the
 * lists derived from it (the perf list) take it up as they do for the
 * existing ports. */
#include "engine/port/port_impl.h"

#include <stdlib.h>
#include <string.h>

/* ---- lib.rs ---- */

char *port_register_lib_rs(const char *text, const char *op)
{
	char *head = xasprintf("mod %s {", op);
	bool have = strstr(text, head) != NULL;
	free(head);
	if (have)
		return NULL;
	struct sbuf sb = SBUF_INIT;
	sb_adds(&sb, text);
	if (sb.len && sb.buf[sb.len - 1] != '\n')
		sb_addc(&sb, '\n');
	sb_printf(&sb, "\nmod %s {\n    include!(\"../../%s_kernel/kernel.rs\");\n"
		       "    include!(\"../../%s_kernel/ffi.rs\");\n}\n",
		  op, op, op);
	return sb_detach(&sb);
}

/* ---- ops/cutile_rs/__init__.py ---- */

static const char *line_end(const char *p)
{
	const char *e = strchr(p, '\n');
	return e ? e + 1 : p + strlen(p);
}

/* `    from . import NAME  # ...` -> NAME's extent, or false. */
static bool import_of(const char *line, const char **name, size_t *n)
{
	const char *p = line + strspn(line, " \t");
	if (strncmp(p, "from . import ", 14) != 0)
		return false;
	p += 14;
	*name = p;
	*n = strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
	return *n > 0;
}

/* Does the n-byte name sort after op? */
static bool name_after(const char *name, size_t n, const char *op)
{
	size_t ol = strlen(op);
	int c = memcmp(name, op, n < ol ? n : ol);
	return c > 0 || (c == 0 && n > ol);
}

char *port_register_init_py(const char *text, const char *op)
{
	char *imp = xasprintf("from . import %s", op);
	const char *have = strstr(text, imp);
	size_t il = strlen(imp);
	if (have && (have[il] == '\0' || have[il] == '\n' || have[il] == ' ' || have[il] == '#')) {
		free(imp);
		return NULL;
	}
	struct sbuf sb = SBUF_INIT;
	const char *guard = strstr(text, "if is_backend_available(\"cutile-rs\"):");
	if (!guard) {
		sb_adds(&sb, text);
		if (sb.len && sb.buf[sb.len - 1] != '\n')
			sb_addc(&sb, '\n');
		sb_printf(&sb, "\nif is_backend_available(\"cutile-rs\"):\n    %s  # noqa: F401\n", imp);
		free(imp);
		return sb_detach(&sb);
	}
	size_t col = 0;
	for (const char *p = guard; p > text && p[-1] != '\n'; p--)
		col++;
	/* the guard's block: its lines indented past the guard. The import
	 * goes where it sorts among the block's imports (the ports keep them
	 * in name order), with the comment they carry. */
	const char *at = NULL, *end = line_end(guard), *comment = NULL;
	size_t ind = col + 4;
	for (const char *line = end; *line; line = line_end(line)) {
		size_t li = strspn(line, " ");
		if (line[li] == '\n' || line[li] == '\0' || li <= col)
			break;
		end = line_end(line);
		const char *name;
		size_t n;
		if (!import_of(line, &name, &n))
			continue;
		ind = li;
		const char *c = strstr(line, "  #");
		if (c && c < end && !comment)
			comment = c;
		if (!at && name_after(name, n, op))
			at = line;
	}
	if (!at)
		at = end;
	sb_add(&sb, text, (size_t)(at - text));
	if (at > text && at[-1] != '\n')
		sb_addc(&sb, '\n');
	sb_printf(&sb, "%*s%s", (int)ind, "", imp);
	if (comment) {
		const char *ce = strchr(comment, '\n');
		sb_add(&sb, comment, ce ? (size_t)(ce - comment) : strlen(comment));
	} else {
		sb_adds(&sb, "  # noqa: F401");
	}
	sb_addc(&sb, '\n');
	sb_adds(&sb, at);
	free(imp);
	return sb_detach(&sb);
}

/* ---- the test file ---- */

static size_t node_from(const struct py_module *m, const struct py_node *n)
{
	if (n->tb >= m->toks.n)
		return m->len;
	return (size_t)(m->toks.v[n->tb].s - m->src);
}

/* The offset just past the line a node ends on. */
static size_t after_line(const struct py_module *m, const struct py_node *n)
{
	size_t at = py_node_end(m, n);
	while (at < m->len && m->src[at] != '\n')
		at++;
	return at < m->len ? at + 1 : at;
}

/* Does statement s (an if/else included) bind `name`? */
static bool binds(const struct py_node *s, const char *name, int depth)
{
	if (!s || depth > 32)
		return false;
	switch (s->kind) {
	case PY_ASSIGN:
		for (size_t k = 0; k + 1 < s->nkids; k++)
			if (py_is_name(s->kids[k], name))
				return true;
		return false;
	case PY_AUGASSIGN:
	case PY_ANNASSIGN:
		return py_is_name(s->kids[0], name);
	case PY_IF:
		return binds(s->kids[1], name, depth + 1) || binds(s->kids[2], name, depth + 1);
	case PY_BLOCK:
		for (size_t k = 0; k < s->nkids; k++)
			if (binds(s->kids[k], name, depth + 1))
				return true;
		return false;
	default:
		return false;
	}
}

static bool mentions(const struct py_node *n, const char *name, int depth)
{
	if (!n || depth > 64)
		return false;
	if (n->kind == PY_NAME && py_is_name(n, name))
		return true;
	for (size_t k = 0; k < n->nkids; k++)
		if (mentions(n->kids[k], name, depth + 1))
			return true;
	return false;
}

/* One backend list: the block that builds it, its name, the last
 * statement of that block that sets it before the tests use it. */
struct blist {
	const struct py_node *block;
	char *name;
	const struct py_node *last;
	int first_use; /* line of the first test parametrised with it */
};

struct bscan {
	const struct py_module *m;
	struct blist v[16];
	size_t n;
	const struct py_node *literal; /* parametrize("backend", [...]) */
};

/* Is `a` the argnames string "backend" (alone: with several names the
 * values are tuples)? */
static bool backend_argnames(const struct py_module *m, const struct py_node *a)
{
	char *s = a && a->kind == PY_STR ? py_str_value(m, a) : NULL;
	bool yes = false;
	if (s) {
		char *p = s + strspn(s, " ");
		size_t l = strcspn(p, " ,");
		yes = l == 7 && memcmp(p, "backend", 7) == 0 && p[l + strspn(p + l, " ")] == '\0';
	}
	free(s);
	return yes;
}

static void note_list(struct bscan *b, const struct py_node *block, const struct py_node *name,
		      int line)
{
	char *nm = py_str(name);
	for (size_t i = 0; i < b->n; i++)
		if (b->v[i].block == block && strcmp(b->v[i].name, nm) == 0) {
			if (line < b->v[i].first_use)
				b->v[i].first_use = line;
			free(nm);
			return;
		}
	if (b->n == TP_ARRAY_LEN(b->v)) {
		free(nm);
		return;
	}
	b->v[b->n++] = (struct blist){.block = block, .name = nm, .first_use = line};
}

/* The tests of a block (a module or a class body): each `backend` list
 * their parametrize decorators name, resolved as Python resolves a name in
 * a decorator (the class body where it binds it, else the module). */
static void scan_block(struct bscan *b, const struct py_node *block, const struct py_node *cls_block,
		       int depth)
{
	if (!block || depth > 16)
		return;
	for (size_t k = 0; k < block->nkids; k++) {
		const struct py_node *s = block->kids[k];
		if (s->kind == PY_CLASS) {
			scan_block(b, s->kids[2], s->kids[2], depth + 1);
			continue;
		}
		if (s->kind != PY_DEF || !s->kids[0])
			continue;
		const struct py_node *decos = s->kids[0];
		for (size_t d = 0; d < decos->nkids; d++) {
			const struct py_node *c = decos->kids[d];
			if (c->kind != PY_CALL || !py_is_dotted(c->kids[0], "pytest.mark.parametrize") ||
			    !backend_argnames(b->m, py_call_param(c, 0, "argnames")))
				continue;
			const struct py_node *vals = py_call_param(c, 1, "argvalues");
			if (vals && (vals->kind == PY_LIST || vals->kind == PY_TUPLE)) {
				if (!b->literal)
					b->literal = vals;
				continue;
			}
			if (!vals || vals->kind != PY_NAME)
				continue;
			char *nm = py_str(vals);
			bool in_class = false;
			for (size_t j = 0; cls_block && j < cls_block->nkids && !in_class; j++)
				in_class = cls_block->kids[j]->line < s->line &&
					   binds(cls_block->kids[j], nm, 0);
			free(nm);
			note_list(b, in_class ? cls_block : b->m->body, vals, s->line);
		}
	}
}

/* The statement after which the cutile-rs line goes: the last one of the
 * block that sets the list before its first use. */
static void find_last(struct blist *l)
{
	for (size_t k = 0; k < l->block->nkids; k++) {
		const struct py_node *s = l->block->kids[k];
		if (s->line < l->first_use && binds(s, l->name, 0))
			l->last = s;
	}
}

/* A list built from another list of the set (`_perf_backends = _backends +
 * ["pytorch"]`) gets cutile-rs through it (unless that one is built from
 * this one in turn: then neither would get it). */
static bool derived(const struct bscan *b, const struct blist *l)
{
	for (size_t k = 0; k < l->block->nkids; k++) {
		const struct py_node *s = l->block->kids[k];
		if (!binds(s, l->name, 0))
			continue;
		for (size_t i = 0; i < b->n; i++)
			if (&b->v[i] != l && b->v[i].block == l->block && mentions(s, b->v[i].name, 0) &&
			    !mentions(b->v[i].last, l->name, 0))
				return true;
	}
	return false;
}

/* The whitespace a node's line starts with, as the file writes it. */
static char *lead(const struct py_module *m, const struct py_node *n)
{
	size_t at = node_from(m, n), from = at;
	while (from > 0 && m->src[from - 1] != '\n')
		from--;
	size_t ws = strspn(m->src + from, " \t");
	return xstrndup(m->src + from, ws < at - from ? ws : at - from);
}

/* The indentation of a block one level inside `last` (an if's body as the
 * file indents it, else one more step of the file's own). */
static char *inner_lead(const struct py_module *m, const struct py_node *block,
			const struct py_node *last, const char *outer)
{
	if (last->kind == PY_IF && last->kids[1] && last->kids[1]->nkids)
		return lead(m, last->kids[1]->kids[0]);
	if (strchr(outer, '\t'))
		return xasprintf("%s\t", outer);
	int step = 4;
	for (size_t k = 0; block && k < block->nkids; k++) {
		const struct py_node *s = block->kids[k];
		const struct py_node *body = s->kind == PY_IF	 ? s->kids[1]
					     : s->kind == PY_DEF   ? s->kids[3]
					     : s->kind == PY_CLASS ? s->kids[2]
								   : NULL;
		if (body && body->nkids && body->kids[0]->col > s->col) {
			step = body->kids[0]->col - s->col;
			break;
		}
	}
	return xasprintf("%s%*s", outer, step, "");
}

/* Does the module bind is_backend_available (a `from X import` of it)? */
static bool imports_avail(const struct py_node *body)
{
	for (size_t k = 0; k < body->nkids; k++) {
		const struct py_node *s = body->kids[k];
		if (s->kind != PY_FROM)
			continue;
		for (size_t a = 0; a < s->nkids; a++) {
			const struct py_node *al = s->kids[a];
			const char *bound = al->s2 ? al->s2 : al->s;
			size_t n = al->s2 ? al->n2 : al->n;
			if (bound && n == 20 && memcmp(bound, "is_backend_available", 20) == 0)
				return true;
		}
	}
	return false;
}

/* Where `from tilegym.backend import is_backend_available` goes: among
 * the module's tilegym imports in name order (isort's single-line style
 * of TileGym), else after the last import. */
static size_t import_at(const struct py_module *m)
{
	static const char line[] = "from tilegym.backend import is_backend_available";
	const struct py_node *last = NULL, *last_tg = NULL;
	for (size_t k = 0; k < m->body->nkids; k++) {
		const struct py_node *s = m->body->kids[k];
		if (s->kind != PY_IMPORT && s->kind != PY_FROM)
			continue;
		last = s;
		char *t = py_node_text(m, s);
		bool tg = str_starts(t, "from tilegym") || str_starts(t, "import tilegym");
		bool before = tg && str_starts(t, "from tilegym") && strcmp(t, line) > 0;
		free(t);
		if (before)
			return node_from(m, s);
		if (tg)
			last_tg = s;
	}
	if (last_tg)
		return after_line(m, last_tg);
	return last ? after_line(m, last) : 0;
}

struct ins {
	size_t at;
	char *text;
};

struct insv {
	struct ins *v;
	size_t n, cap;
};

static void ins_add(struct insv *iv, size_t at, char *text)
{
	iv->v = xgrow(iv->v, &iv->cap, iv->n + 1, sizeof(*iv->v));
	iv->v[iv->n++] = (struct ins){at, text};
}

/* ---- tests that call each backend's module themselves ----
 *
 * Some tests pick the implementation per backend instead of going through
 * the dispatcher (`if backend == "cutile": fn = tilegym.ops.cutile.OP.OP`,
 * `elif backend == "tilecpp": ...`, `else: pytest.skip(...)`). With
 * cutile-rs in the list such a test would skip it; the branch a developer
 * adds calls the cutile-rs module the same way (pipeline.md rule 40). */

/* `VAR == "cutile"`: VAR's node, else NULL. */
static const struct py_node *is_cutile_test(const struct py_module *m, const struct py_node *t)
{
	if (!t || t->kind != PY_COMPARE || t->nkids != 3 || t->kids[0]->kind != PY_NAME ||
	    t->kids[1]->op != PYOP_EQ || t->kids[2]->kind != PY_STR)
		return NULL;
	char *v = py_str_value(m, t->kids[2]);
	bool yes = v && strcmp(v, "cutile") == 0;
	free(v);
	return yes ? t->kids[0] : NULL;
}

/* The if of an elif: an else block holding one if spelled `elif`. */
static const struct py_node *elif_of(const struct py_module *m, const struct py_node *ifn)
{
	const struct py_node *e = ifn->kids[2];
	if (!e || e->nkids != 1 || e->kids[0]->kind != PY_IF)
		return NULL;
	return strncmp(m->src + node_from(m, e->kids[0]), "elif", 4) == 0 ? e->kids[0] : NULL;
}

/* The cutile branch's body with its module calls pointed at the cutile-rs
 * port: `X.ops.cutile[.SUB].OP` -> `X.ops.cutile_rs.OP` (the ports are
 * flat). */
static char *ported_body(const char *body, const char *op)
{
	static const char ident[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
	static const char head[] = ".ops.cutile.";
	struct sbuf sb = SBUF_INIT;
	size_t ol = strlen(op);
	const char *p = body;
	for (const char *hit; (hit = strstr(p, head)) != NULL;) {
		/* the dotted components after it, up to the one naming OP */
		const char *c = hit + strlen(head), *at = NULL;
		for (size_t l; (l = strspn(c, ident)) > 0; c += l + 1) {
			if (l == ol && memcmp(c, op, ol) == 0) {
				at = c;
				break;
			}
			if (c[l] != '.')
				break;
		}
		sb_add(&sb, p, (size_t)(hit - p));
		if (at) {
			sb_adds(&sb, ".ops.cutile_rs.");
			p = at;
		} else {
			sb_adds(&sb, head);
			p = hit + strlen(head);
		}
	}
	sb_adds(&sb, p);
	return sb_detach(&sb);
}

static void add_branches(const struct py_module *m, const struct py_node *n, const char *op,
			 struct insv *iv, int depth)
{
	if (!n || depth > 64)
		return;
	const struct py_node *var = n->kind == PY_IF ? is_cutile_test(m, n->kids[0]) : NULL;
	if (var && n->kids[1] && n->kids[1]->nkids) {
		const struct py_node *body = n->kids[1];
		/* from the line after the `if ...:` header to the end of the body */
		size_t from = node_from(m, body->kids[0]);
		while (from > 0 && m->src[from - 1] != '\n')
			from--;
		size_t head_end = node_from(m, n->kids[0]);
		while (head_end < m->len && m->src[head_end] != '\n')
			head_end++;
		if (head_end < from)
			from = head_end + 1;
		size_t to = after_line(m, body->kids[body->nkids - 1]);
		char *text = xstrndup(m->src + from, to - from);
		/* the chain's last branch that is not the final else */
		const struct py_node *last = n, *next;
		while ((next = elif_of(m, last)) != NULL)
			last = next;
		const struct py_node *lb = last->kids[1];
		if (strstr(text, ".ops.cutile.") && lb && lb->nkids) {
			char *indent = lead(m, n), *ported = ported_body(text, op);
			ins_add(iv, after_line(m, lb->kids[lb->nkids - 1]),
				xasprintf("%s%selif %.*s == \"cutile-rs\":\n%s", text[0] == '\n' ? "\n" : "",
					  indent, (int)var->n, var->s, ported));
			free(ported);
			free(indent);
		}
		free(text);
	}
	for (size_t k = 0; k < n->nkids; k++)
		add_branches(m, n->kids[k], op, iv, depth + 1);
}

static int ins_cmp(const void *a, const void *b)
{
	const struct ins *x = a, *y = b;
	return x->at < y->at ? -1 : x->at > y->at;
}

char *port_register_test_py(const char *text, const char *path, struct tp_err *err)
{
	if (strstr(text, "cutile-rs") || strstr(text, "cutile_rs"))
		return NULL;
	struct py_module m;
	if (py_parse(&m, path, text, strlen(text), err) < 0) {
		py_module_free(&m);
		return NULL;
	}
	struct bscan b = {.m = &m};
	scan_block(&b, m.body, NULL, 0);
	struct insv iv = {0};
	for (size_t i = 0; i < b.n; i++)
		find_last(&b.v[i]);
	for (size_t i = 0; i < b.n; i++) {
		const struct blist *l = &b.v[i];
		if (!l->last || derived(&b, l))
			continue;
		char *outer = lead(&m, l->last), *inner = inner_lead(&m, l->block, l->last, outer);
		ins_add(&iv, after_line(&m, l->last),
			xasprintf("%sif is_backend_available(\"cutile-rs\"):\n%s%s = %s + [\"cutile-rs\"]\n",
				  outer, inner, l->name, l->name));
		free(outer);
		free(inner);
	}
	if (iv.n == 0) {
		const struct py_node *at = b.literal ? b.literal : m.body;
		if (b.literal)
			tp_err_set(err, TP_EXIT_FAILED,
				   "%s:%d:%d: unsupported: a backend list written inside "
				   "pytest.mark.parametrize (name it, as TileGym's tests do: "
				   "_backends = [...])",
				   path, at->line, at->col);
		else
			tp_err_set(err, TP_EXIT_FAILED,
				   "%s:1:1: unsupported: a test without a backend list "
				   "(pytest.mark.parametrize(\"backend\", NAME), NAME set in the test "
				   "class or the module)",
				   path);
		for (size_t i = 0; i < b.n; i++)
			free(b.v[i].name);
		py_module_free(&m);
		return NULL;
	}
	/* the operator: tests/ops/[SUB/]test_OP.py */
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char *op = str_starts(base, "test_") ? xstrdup(base + 5) : xstrdup(base);
	if (str_ends(op, ".py"))
		op[strlen(op) - 3] = '\0';
	add_branches(&m, m.body, op, &iv, 0);
	free(op);
	if (!imports_avail(m.body))
		ins_add(&iv, import_at(&m), xstrdup("from tilegym.backend import is_backend_available\n"));
	qsort(iv.v, iv.n, sizeof(*iv.v), ins_cmp);
	struct sbuf sb = SBUF_INIT;
	size_t at = 0;
	for (size_t i = 0; i < iv.n; i++) {
		sb_add(&sb, text + at, iv.v[i].at - at);
		sb_adds(&sb, iv.v[i].text);
		at = iv.v[i].at;
		free(iv.v[i].text);
	}
	free(iv.v);
	sb_adds(&sb, text + at);
	for (size_t i = 0; i < b.n; i++)
		free(b.v[i].name);
	py_module_free(&m);
	return sb_detach(&sb);
}
