/* The normaliser: an entry becomes a list of lines that compare equal when
 * the ops are the same modulo spelling (value names, whitespace, `token = `
 * spacing, #cuda_tile. prefixes, identity dim_map, pow/fpowf, dead
 * constants). A line names each operand by what defines it, one level
 * deep, so that an inserted op does not rename the rest of the kernel.
 * The normalised text is written into one scratch buffer and kept only as
 * its hash: a diff of 100k-line modules would otherwise hold every line
 * twice more. */
#include "engine/ir/irdiff_internal.h"
#include "engine/ir/ir_internal.h"

#include <stdlib.h>
#include <string.h>

void irdiff_op_lines(const struct ir_op *op, uint32_t *first, uint32_t *last)
{
	*first = op ? op->loc.line : 0;
	*last = op ? (op->loc.end_line ? op->loc.end_line : op->loc.line) : 0;
}

void irdiff_type(struct sbuf *sb, const struct ir_type *t)
{
	if (t && (t->kind == IR_TY_PARTITION_VIEW || t->kind == IR_TY_STRIDED_VIEW) &&
	    t->ndim_map && ir_dim_map_is_identity(t)) {
		struct sbuf tmp = SBUF_INIT;
		ir_print_type(&tmp, t);
		/* the printer elides an identity dim_map: put it back before '>' */
		sb_add(sb, tmp.buf, tmp.len - 1);
		sb_adds(sb, ", dim_map=[");
		for (uint32_t i = 0; i < t->ndim_map; i++) {
			if (i)
				sb_adds(sb, ", ");
			sb_add_int(sb, t->dim_map[i]);
		}
		sb_adds(sb, "]>");
		sb_free(&tmp);
		return;
	}
	ir_print_type(sb, t);
}

/* ---- printed types and attributes, by pointer ---- */

enum { PC_TYPE, PC_ATTR, PC_DENSE }; /* low bits of a key (pointers are 8-aligned) */

static size_t pc_slot(const struct pcache *c, uintptr_t k)
{
	return (size_t)(((uint64_t)k * 0x9e3779b97f4a7c15ULL) >> 20) & (c->cap - 1);
}

static void pc_put(struct pcache *c, uintptr_t k, uint32_t off, uint32_t len)
{
	size_t i = pc_slot(c, k);
	while (c->keys[i])
		i = (i + 1) & (c->cap - 1);
	c->keys[i] = k;
	c->off[i] = off;
	c->len[i] = len;
	c->n++;
}

static bool pc_get(const struct pcache *c, uintptr_t k, struct sbuf *sb)
{
	for (size_t i = c->cap ? pc_slot(c, k) : 0; c->cap && c->keys[i]; i = (i + 1) & (c->cap - 1))
		if (c->keys[i] == k) {
			sb_add(sb, c->text.buf + c->off[i], c->len[i]);
			return true;
		}
	return false;
}

/* The first print of key k, kept; sb gets it too. */
static void pc_print(struct sbuf *sb, struct pcache *c, uintptr_t k, const void *p)
{
	if (2 * (c->n + 1) > c->cap) {
		struct pcache old = *c;
		c->cap = old.cap ? old.cap * 2 : 64;
		c->keys = xcalloc(c->cap, sizeof(*c->keys));
		c->off = xmalloc(c->cap * sizeof(*c->off));
		c->len = xmalloc(c->cap * sizeof(*c->len));
		c->n = 0;
		for (size_t i = 0; i < old.cap; i++)
			if (old.keys[i])
				pc_put(c, old.keys[i], old.off[i], old.len[i]);
		free(old.keys);
		free(old.off);
		free(old.len);
	}
	uint32_t off = (uint32_t)c->text.len;
	switch (k & 7) {
	case PC_TYPE: irdiff_type(&c->text, p); break;
	case PC_ATTR: ir_print_attr_generic(&c->text, p); break;
	default: ir_print_dense(&c->text, p); break;
	}
	pc_put(c, k, off, (uint32_t)(c->text.len - off));
	sb_add(sb, c->text.buf + off, c->text.len - off);
}

static void cached(struct sbuf *sb, struct pcache *c, const void *p, int how)
{
	uintptr_t k = (uintptr_t)p | (uintptr_t)how;
	if (!pc_get(c, k, sb))
		pc_print(sb, c, k, p);
}

void irdiff_cached_type(struct sbuf *sb, struct pcache *c, const struct ir_type *t)
{
	if (t)
		cached(sb, c, t, PC_TYPE);
	else
		irdiff_type(sb, t);
}

void irdiff_pcache_free(struct pcache *c)
{
	free(c->keys);
	free(c->off);
	free(c->len);
	sb_free(&c->text);
	memset(c, 0, sizeof(*c));
}

/* ---- one op ---- */

static const char *canon_name(const struct ir_op *op)
{
	return op->code == IR_OP_UNKNOWN ? op->name : op->def->name;
}

/* An operand named by its definition. */
static void operand(struct sbuf *sb, const struct ir_value *v, struct pcache *pc)
{
	while (v->def && v->def->code == IR_OP_ASSUME && v->def->noperands)
		v = v->def->operands[0];
	if (v->def) {
		const struct ir_op *d = v->def;
		if (d->code == IR_OP_CONSTANT) {
			const struct ir_attr *a = ir_op_attr(d, "value");
			sb_adds(sb, "%cst");
			if (a && a->kind == IR_ATTR_DENSE)
				cached(sb, pc, a, PC_DENSE);
			return;
		}
		sb_addc(sb, '%');
		sb_adds(sb, canon_name(d));
		if (d->nresults > 1) {
			sb_addc(sb, '#');
			sb_add_uint(sb, v->index);
		}
		return;
	}
	const struct ir_op *owner = v->block && v->block->parent ? v->block->parent->parent : NULL;
	if (!owner || owner->code == IR_OP_ENTRY) {
		sb_adds(sb, "%arg");
	} else {
		sb_addc(sb, '%');
		sb_adds(sb, canon_name(owner));
		sb_adds(sb, ".a");
	}
	sb_add_uint(sb, v->index);
}

/* The normalised op, depth left out, into sb (reset first). */
static void op_norm(struct sbuf *sb, const struct ir_op *op, struct pcache *printed)
{
	sb_reset(sb);
	sb_adds(sb, canon_name(op));
	if (op->nattrs) {
		/* by name, so that attribute order is no difference; ops carry few */
		const struct ir_named_attr *stack[16];
		const struct ir_named_attr **as =
			op->nattrs <= TP_ARRAY_LEN(stack) ? stack : xmalloc(op->nattrs * sizeof(*as));
		uint32_t n = 0;
		for (uint32_t i = 0; i < op->nattrs; i++) {
			uint32_t k = n++;
			while (k && strcmp(as[k - 1]->name, op->attrs[i].name) > 0) {
				as[k] = as[k - 1];
				k--;
			}
			as[k] = &op->attrs[i];
		}
		sb_addc(sb, '{');
		for (uint32_t i = 0; i < n; i++) {
			if (i)
				sb_adds(sb, ", ");
			sb_adds(sb, as[i]->name);
			if (as[i]->attr->kind != IR_ATTR_UNIT) {
				sb_addc(sb, '=');
				cached(sb, printed, as[i]->attr, PC_ATTR);
			}
		}
		sb_addc(sb, '}');
		if (as != stack)
			free(as);
	}
	if (op->code == IR_OP_UNKNOWN && op->text) {
		for (const char *p = op->text; *p; p++) {
			if (*p != '\x01') {
				sb_addc(sb, *p);
				continue;
			}
			char *end;
			unsigned long k = strtoul(p + 1, &end, 10);
			if (k < op->noperands)
				operand(sb, op->operands[k], printed);
			p = *end == '\x02' ? end : end - 1;
		}
	} else {
		for (uint32_t g = 0, k = 0; g < op->ngroups; g++) {
			sb_adds(sb, g ? " |" : " (");
			for (uint32_t i = 0; i < op->group_sizes[g]; i++, k++) {
				sb_addc(sb, ' ');
				operand(sb, op->operands[k], printed);
			}
		}
		sb_adds(sb, " )");
	}
	sb_adds(sb, " :");
	for (uint32_t i = 0; i < op->nresults; i++) {
		sb_addc(sb, ' ');
		irdiff_cached_type(sb, printed, op->results[i]->type);
	}
	/* block arguments carry the types of loop-carried values */
	for (uint32_t r = 0; r < op->nregions; r++)
		for (uint32_t b = 0; b < op->regions[r]->nblocks; b++) {
			const struct ir_block *blk = op->regions[r]->blocks[b];
			sb_adds(sb, " ^(");
			for (uint32_t i = 0; i < blk->nargs; i++) {
				sb_addc(sb, ' ');
				irdiff_cached_type(sb, printed, blk->args[i]->type);
			}
			sb_adds(sb, " )");
		}
}

/* 128 bits in one pass: tp_hash's block mixing feeds two accumulators that
 * fold it in differently (multiply, and rotate-xor-multiply). */
static void hash_text(const char *s, size_t n, uint64_t h[2])
{
	const uint64_t m = 0xc6a4a7935bd1e995ULL, g = 0x9e3779b97f4a7c15ULL;
	uint64_t a = 0x243f6a8885a308d3ULL ^ (n * m), b = 0x13198a2e03707344ULL ^ (n * g);
	for (;; s += 8) {
		uint64_t k = 0;
		size_t take = n < 8 ? n : 8;
		memcpy(&k, s, take);
		n -= take;
		k *= m;
		k ^= k >> 47;
		k *= m;
		a = (a ^ k) * m;
		b = (b ^ k) + ((b << 23) | (b >> 41));
		b *= g;
		if (!n)
			break;
	}
	a ^= a >> 47;
	a *= m;
	a ^= a >> 47;
	b ^= b >> 33;
	b *= m;
	b ^= b >> 29;
	h[0] = a;
	h[1] = b;
}

/* ---- an entry ---- */

struct flat {
	struct nside *out;
	struct ir_names *names; /* NULL: no texts */
	struct pcache *printed;
	struct sbuf scratch;
	bool keep_dead;
	const uint32_t *uses; /* by value id - base */
	uint32_t base, nuses;
};

static struct nline *push(struct nside *s)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->lines = xrealloc(s->lines, s->cap * sizeof(*s->lines));
	}
	struct nline *l = &s->lines[s->n++];
	memset(l, 0, sizeof(*l));
	return l;
}

static void brace(struct flat *f, int depth, int loop_depth, const char *text, uint32_t line)
{
	struct nline *l = push(f->out);
	l->depth = depth;
	l->loop_depth = loop_depth;
	l->first = l->last = line;
	l->text = text;
	hash_text(text, strlen(text), l->body);
	l->name = "}";
}

static bool dead_constant(const struct flat *f, const struct ir_op *op)
{
	if (f->keep_dead || op->code != IR_OP_CONSTANT || !op->nresults)
		return false;
	uint32_t id = op->results[0]->id - f->base;
	return id < f->nuses && f->uses[id] == 0;
}

static void flatten_block(struct flat *f, const struct ir_op *owner, const struct ir_block *b,
			  int depth, int loop_depth);

static void flatten_op(struct flat *f, const struct ir_op *op, int depth, int loop_depth)
{
	struct nline *l = push(f->out);
	l->op = op;
	l->depth = depth;
	l->loop_depth = loop_depth;
	irdiff_op_lines(op, &l->first, &l->last);
	if (f->names)
		l->text = ir_op_line(op, f->names);
	op_norm(&f->scratch, op, f->printed);
	hash_text(f->scratch.buf, f->scratch.len, l->body);
	l->name = canon_name(op);
	if (!op->nregions)
		return;
	int inner = loop_depth + (op->code == IR_OP_FOR || op->code == IR_OP_LOOP);
	for (uint32_t r = 0; r < op->nregions; r++) {
		if (!op->regions[r]->nblocks)
			continue;
		if (r > 0)
			brace(f, depth, loop_depth, "} else {", op->loc.else_line);
		flatten_block(f, op, op->regions[r]->blocks[0], depth + 1, inner);
	}
	brace(f, depth, loop_depth, "}", op->loc.close_line);
}

static void flatten_block(struct flat *f, const struct ir_op *owner, const struct ir_block *b,
			  int depth, int loop_depth)
{
	for (uint32_t i = 0; i < b->nops; i++) {
		const struct ir_op *op = b->ops[i];
		if (i == b->nops - 1 && ir_print_elides(owner, op))
			break;
		if (dead_constant(f, op))
			continue;
		flatten_op(f, op, depth, loop_depth);
	}
}

struct uses_ctx {
	uint32_t *uses;
	uint32_t base, n;
};

static bool count_uses(const struct ir_op *op, int depth, void *ctx)
{
	(void)depth;
	struct uses_ctx *u = ctx;
	for (uint32_t i = 0; i < op->noperands; i++)
		if (op->operands[i]->id - u->base < u->n)
			u->uses[op->operands[i]->id - u->base]++;
	return true;
}

struct span {
	uint32_t lo, hi;
};

static bool result_span(const struct ir_op *op, int depth, void *ctx)
{
	(void)depth;
	struct span *sp = ctx;
	for (uint32_t i = 0; i < op->nresults; i++) {
		uint32_t id = op->results[i]->id;
		if (id < sp->lo)
			sp->lo = id;
		if (id + 1 > sp->hi)
			sp->hi = id + 1;
	}
	return true;
}

void irdiff_flatten(const struct ir_op *entry, bool keep_dead, bool texts, struct pcache *printed,
		    struct nside *out)
{
	memset(out, 0, sizeof(*out));
	/* value ids are module-wide: count uses over this entry's span only */
	struct span sp = {UINT32_MAX, 0};
	ir_walk(entry, result_span, &sp);
	uint32_t base = sp.lo < sp.hi ? sp.lo : 0, n = sp.lo < sp.hi ? sp.hi - sp.lo : 0;
	struct uses_ctx u = {xcalloc(n ? n : 1, sizeof(uint32_t)), base, n};
	ir_walk(entry, count_uses, &u);
	struct flat f = {out, texts ? ir_names_compute(entry) : NULL, printed, SBUF_INIT, keep_dead,
			 u.uses, base, n};
	const struct ir_block *body = ir_entry_body(entry);
	if (body)
		flatten_block(&f, entry, body, 0, 0);
	if (f.names)
		ir_names_free(f.names);
	sb_free(&f.scratch);
	free(u.uses);
}

void irdiff_nside_free(struct nside *s)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->lines[i].op)
			free((char *)s->lines[i].text);
	free(s->lines);
	memset(s, 0, sizeof(*s));
}
