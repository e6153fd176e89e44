/* Value names as the official MLIR printer invents them
 * (tile-ir-bytecode.md §10.2): per entry, three counters and scoped sets of
 * used names; op result-name hints; `_N` conflict suffixes; result groups. */
#include "engine/ir/ir.h"
#include "engine/ir/ir_internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vname {
	const char *base; /* "tview_3", "0", "arg0" (no '%'); NULL = not named */
	uint32_t idx, size; /* position in its result group, group size */
	char *printed;      /* "%base" or "%base#idx" */
};

struct ir_names {
	uint32_t first, cap; /* values indexed by id - first (ids are module-wide) */
	struct vname *v;
	char **owned;
	size_t nowned, capowned;
};

struct counters {
	uint32_t value, arg, conflict;
};

/* A scope's used names: a small open hash set, chained to the parent. */
struct nscope {
	struct nscope *parent;
	char **slots;
	size_t cap, n;
};

static uint64_t hstr(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

static bool scope_has(const struct nscope *s, const char *name)
{
	for (; s; s = s->parent) {
		if (!s->cap)
			continue;
		for (size_t i = hstr(name) & (s->cap - 1); s->slots[i]; i = (i + 1) & (s->cap - 1))
			if (strcmp(s->slots[i], name) == 0)
				return true;
	}
	return false;
}

static void scope_add(struct nscope *s, char *name)
{
	if ((s->n + 1) * 2 > s->cap) {
		size_t ncap = s->cap ? s->cap * 2 : 32;
		char **ns = xcalloc(ncap, sizeof(*ns));
		for (size_t i = 0; i < s->cap; i++)
			if (s->slots[i]) {
				size_t j = hstr(s->slots[i]) & (ncap - 1);
				while (ns[j])
					j = (j + 1) & (ncap - 1);
				ns[j] = s->slots[i];
			}
		free(s->slots);
		s->slots = ns;
		s->cap = ncap;
	}
	size_t i = hstr(name) & (s->cap - 1);
	while (s->slots[i])
		i = (i + 1) & (s->cap - 1);
	s->slots[i] = name;
	s->n++;
}

static char *own(struct ir_names *n, char *s)
{
	if (n->nowned == n->capowned) {
		n->capowned = n->capowned ? n->capowned * 2 : 64;
		n->owned = xrealloc(n->owned, n->capowned * sizeof(*n->owned));
	}
	n->owned[n->nowned++] = s;
	return s;
}

/* Keep letters, digits and "$._-"; space -> '_'; other bytes -> hex; a
 * leading digit gets '_'. */
static char *sanitize(const char *h)
{
	struct sbuf sb = SBUF_INIT;
	if (*h >= '0' && *h <= '9')
		sb_addc(&sb, '_');
	for (const unsigned char *p = (const unsigned char *)h; *p; p++) {
		unsigned char c = *p;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '$' || c == '.' || c == '_' || c == '-')
			sb_addc(&sb, (char)c);
		else if (c == ' ')
			sb_addc(&sb, '_');
		else
			sb_printf(&sb, "%X", c);
	}
	return sb_detach(&sb);
}

static const char *unique(struct ir_names *n, struct nscope *sc, struct counters *c, const char *hint)
{
	char *name = sanitize(hint);
	if (scope_has(sc, name)) {
		char *probe = NULL;
		do {
			free(probe);
			probe = xasprintf("%s_%u", name, c->conflict++);
		} while (scope_has(sc, probe));
		free(name);
		name = probe;
	}
	own(n, name);
	scope_add(sc, name);
	return name;
}

/* ---- result-name hints ---- */

static bool constant_hint(const struct ir_value *v, char *buf, size_t cap)
{
	const struct ir_attr *a = ir_op_attr(ir_value_def(v), "value");
	if (!a || a->kind != IR_ATTR_DENSE || !a->type || !a->type->inner)
		return snprintf(buf, cap, "cst"), true;
	enum ir_elem e = a->type->inner->elem;
	if (e == IR_I1) {
		bool all1 = true, all0 = true;
		for (uint32_t i = 0; i < a->n; i++) {
			all1 &= a->vals[i] != 0;
			all0 &= a->vals[i] == 0;
		}
		snprintf(buf, cap, "%s", all1 ? "true" : all0 ? "false" : "cst_i1");
		return true;
	}
	char val[48] = "";
	if (a->n == 1) {
		if (ir_elem_is_int(e)) {
			snprintf(val, sizeof(val), "_%" PRId64, (int64_t)a->vals[0]);
		} else {
			double d = ir_float_to_double(e, a->vals[0]);
			if (isnan(d))
				snprintf(val, sizeof(val), "_NaN");
			else if (isfinite(d) && d >= 0 && !signbit(d) && d < 18446744073709551616.0 &&
				 d == floor(d))
				snprintf(val, sizeof(val), "_%llu", (unsigned long long)d);
		}
	}
	snprintf(buf, cap, "cst%s_%s", val, ir_elem_name(e));
	return true;
}

const char *ir_value_hint(const struct ir_value *v, char *buf, size_t cap)
{
	if (!ir_value_def(v))
		return NULL;
	const struct ir_op *op = ir_value_def(v);
	const struct ir_opdef *d = op->def;
	switch (op->code) {
	case IR_OP_IF:
	case IR_OP_LOOP:
	case IR_OP_SCAN:
		return "";
	case IR_OP_CONSTANT:
		if (v->index == 0) {
			constant_hint(v, buf, cap);
			return buf;
		}
		return "";
	case IR_OP_ASSUME: {
		if (v->index != 0)
			return "";
		char inner[128];
		const char *h = op->noperands ? ir_value_hint(op->operands[0], inner, sizeof(inner))
					      : NULL;
		if (!h)
			snprintf(buf, cap, "assume");
		else
			snprintf(buf, cap, "assume_%s", h);
		return buf;
	}
	default:
		break;
	}
	bool named_op = false;
	for (uint32_t r = 0; r < d->nresults; r++)
		if (d->results[r].hint)
			named_op = true;
	if (!named_op)
		return NULL;
	for (uint32_t r = 0; r < d->nresults; r++) {
		if (!d->results[r].hint)
			continue;
		if (d->results[r].variadic) {
			/* reduce / for: result 0 only */
			if (r == 0 && v->index == 0) {
				snprintf(buf, cap, "%s", d->results[r].hint);
				return buf;
			}
			continue;
		}
		if (r == v->index) {
			snprintf(buf, cap, "%s", d->results[r].hint);
			return buf;
		}
	}
	return "";
}

/* ---- the algorithm ---- */

/* The entry of a value of this entry, NULL for others. */
static struct vname *slot(const struct ir_names *n, const struct ir_value *v)
{
	if (!n || !v || v->id < n->first || v->id - n->first >= n->cap)
		return NULL;
	return &n->v[v->id - n->first];
}

static void set_name(struct ir_names *n, const struct ir_value *v, const char *base, uint32_t idx,
		     uint32_t size)
{
	struct vname *e = slot(n, v);
	if (!e)
		return;
	e->base = base;
	e->idx = idx;
	e->size = size;
}

static const char *number(struct ir_names *n, struct counters *c)
{
	return own(n, xasprintf("%u", c->value++));
}

static void name_op_results(struct ir_names *n, const struct ir_op *op, struct nscope *sc,
			    struct counters *c)
{
	if (!op->nresults)
		return;
	/* hinted results start groups; unnamed results join the group before */
	const char **hint = xcalloc(op->nresults, sizeof(*hint));
	char buf[160];
	for (uint32_t i = 0; i < op->nresults; i++) {
		const char *h = ir_value_hint(op->results[i], buf, sizeof(buf));
		if (h && *h)
			hint[i] = unique(n, sc, c, h);
	}
	uint32_t i = 0;
	while (i < op->nresults) {
		uint32_t j = i + 1;
		while (j < op->nresults && !hint[j])
			j++;
		const char *base = hint[i] ? hint[i] : number(n, c);
		for (uint32_t k = i; k < j; k++)
			set_name(n, op->results[k], base, k - i, j - i);
		i = j;
	}
	free(hint);
}

static void name_region(struct ir_names *n, const struct ir_region *r, struct counters c,
			struct nscope *parent)
{
	struct nscope sc = {parent, NULL, 0, 0};
	const struct ir_op *owner = r->parent;
	for (uint32_t bi = 0; bi < r->nblocks; bi++) {
		const struct ir_block *b = r->blocks[bi];
		bool *done = xcalloc(b->nargs ? b->nargs : 1, sizeof(bool));
		if (owner && bi == 0) {
			for (uint32_t i = 0; i < b->nargs; i++) {
				char h[64];
				h[0] = '\0';
				if (owner->code == IR_OP_FOR) {
					if (i == 0)
						snprintf(h, sizeof(h), "loopIdx");
					else
						snprintf(h, sizeof(h), "iterArg%u", i - 1);
				} else if (owner->code == IR_OP_REDUCE) {
					const char *lr = i % 2 ? "reduce_rhs" : "reduce_lhs";
					if (b->nargs > 2)
						snprintf(h, sizeof(h), "%s%u", lr, i / 2);
					else
						snprintf(h, sizeof(h), "%s", lr);
				}
				if (h[0]) {
					set_name(n, b->args[i], unique(n, &sc, &c, h), 0, 1);
					done[i] = true;
				}
			}
		}
		for (uint32_t i = 0; i < b->nargs; i++) {
			if (done[i])
				continue;
			if (bi == 0) {
				char h[32];
				snprintf(h, sizeof(h), "arg%u", c.arg++);
				set_name(n, b->args[i], unique(n, &sc, &c, h), 0, 1);
			} else {
				set_name(n, b->args[i], number(n, &c), 0, 1);
			}
		}
		free(done);
		for (uint32_t i = 0; i < b->nops; i++)
			name_op_results(n, b->ops[i], &sc, &c);
	}
	for (uint32_t bi = 0; bi < r->nblocks; bi++) {
		const struct ir_block *b = r->blocks[bi];
		for (uint32_t i = 0; i < b->nops; i++)
			for (uint32_t k = 0; k < b->ops[i]->nregions; k++)
				name_region(n, ir_op_region(b->ops[i], k), c, &sc);
	}
	free(sc.slots);
}

struct id_range {
	uint32_t lo, hi; /* [lo, hi) */
};

static void widen_range(struct id_range *r, uint32_t id)
{
	if (r->hi == 0 || id < r->lo)
		r->lo = id;
	if (id + 1 > r->hi)
		r->hi = id + 1;
}

/* The span of value ids in an entry: arrays sized by it stay linear in the
 * entry, not in the module (ids count across all entries). */
static bool id_span(const struct ir_op *op, int depth, void *ctx)
{
	(void)depth;
	struct id_range *m = ctx;
	for (uint32_t i = 0; i < op->nresults; i++)
		widen_range(m, op->results[i]->id);
	for (uint32_t r = 0; r < op->nregions; r++)
		for (uint32_t b = 0; b < ir_op_region(op, r)->nblocks; b++) {
			const struct ir_block *blk = ir_op_region(op, r)->blocks[b];
			for (uint32_t i = 0; i < blk->nargs; i++)
				widen_range(m, blk->args[i]->id);
		}
	return true;
}

struct ir_names *ir_names_compute(const struct ir_op *entry)
{
	struct ir_names *n = xcalloc(1, sizeof(*n));
	struct id_range m = {0, 0};
	if (entry)
		ir_walk(entry, id_span, &m);
	n->first = m.lo;
	n->cap = m.hi - m.lo;
	n->v = xcalloc(n->cap ? n->cap : 1, sizeof(*n->v));
	if (!entry)
		return n;
	/* the op itself is named in its parent's context: counters start at 0 */
	struct counters c = {0, 0, 0};
	struct nscope top = {NULL, NULL, 0, 0};
	name_op_results(n, entry, &top, &c);
	for (uint32_t r = 0; r < entry->nregions; r++)
		name_region(n, ir_op_region(entry, r), c, &top);
	free(top.slots);
	return n;
}

const char *ir_names_get(const struct ir_names *cn, const struct ir_value *v)
{
	struct ir_names *n = (struct ir_names *)cn;
	struct vname *e = slot(n, v);
	if (!e || !e->base)
		return "%<?>";
	if (!e->printed) {
		if (e->size > 1)
			e->printed = xasprintf("%%%s#%u", e->base, e->idx);
		else
			e->printed = xasprintf("%%%s", e->base);
	}
	return e->printed;
}

/* The definition list of an op's results: "%a, %b:2". */
void ir_names_results(const struct ir_names *n, const struct ir_op *op, struct sbuf *sb)
{
	uint32_t i = 0;
	while (i < op->nresults) {
		const struct ir_value *v = op->results[i];
		const struct vname *e = slot(n, v);
		if (i)
			sb_adds(sb, ", ");
		if (!e || !e->base) {
			sb_adds(sb, "%<?>");
			i++;
			continue;
		}
		sb_addc(sb, '%');
		sb_adds(sb, e->base);
		if (e->size > 1) {
			sb_addc(sb, ':');
			sb_add_uint(sb, e->size);
		}
		i += e->size ? e->size : 1;
	}
}

void ir_names_free(struct ir_names *n)
{
	if (!n)
		return;
	for (uint32_t i = 0; i < n->cap; i++)
		free(n->v[i].printed);
	free(n->v);
	for (size_t i = 0; i < n->nowned; i++)
		free(n->owned[i]);
	free(n->owned);
	free(n);
}
