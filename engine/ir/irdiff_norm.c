/* The normaliser: an entry becomes a list of lines that compare equal when
 * the ops are the same modulo spelling (value names, whitespace, `token = `
 * spacing, #cuda_tile. prefixes, identity dim_map, pow/fpowf, dead
 * constants). A line names each operand by what defines it, one level
 * deep, so that an inserted op does not rename the rest of the kernel.
 * A line is kept only as a 128-bit hash of its normal form, built from the
 * hashes of its parts (each type, attribute and constant printed once per
 * module): a diff of 100k-line modules would otherwise print and hold
 * every line twice more. */
#include "engine/ir/irdiff_internal.h"
#include "engine/ir/ir_internal.h"

#include <stdlib.h>
#include <string.h>

void irdiff_op_lines(const struct ir_op *op, uint32_t *first, uint32_t *last)
{
	struct nline l = {.op = op};
	*first = op ? nline_first(&l) : 0;
	*last = op ? nline_last(&l) : 0;
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

/* What a key's pointer is: its two low bits (the pointer is shifted left). */
enum { PC_TYPE, PC_ATTR, PC_DENSE, PC_NAME };

static size_t pc_slot(const struct pcache *c, uintptr_t k)
{
	return (size_t)(((uint64_t)k * 0x9e3779b97f4a7c15ULL) >> 20) & (c->cap - 1);
}

static struct pcache_slot *pc_put(struct pcache *c, uintptr_t k)
{
	size_t i = pc_slot(c, k);
	while (c->v[i].key)
		i = (i + 1) & (c->cap - 1);
	c->n++;
	return &c->v[i];
}

/* 128 bits of a text's hash: two seeds. */
static void text_words(const char *s, size_t n, uint64_t w[2])
{
	w[0] = tp_hash(s, n, 0x243f6a8885a308d3ULL);
	w[1] = tp_hash(s, n, 0x13198a2e03707344ULL);
}

/* The slot of key k, printed the first time it is asked for. */
static const struct pcache_slot *pc_get(struct pcache *c, const void *p, int how)
{
	uintptr_t k = (uintptr_t)p << 2 | (uintptr_t)how;
	for (size_t i = c->cap ? pc_slot(c, k) : 0; c->cap && c->v[i].key; i = (i + 1) & (c->cap - 1))
		if (c->v[i].key == k)
			return &c->v[i];
	if (2 * (c->n + 1) > c->cap) {
		struct pcache old = *c;
		c->cap = old.cap ? old.cap * 2 : 64;
		c->v = xcalloc(c->cap, sizeof(*c->v));
		c->n = 0;
		for (size_t i = 0; i < old.cap; i++)
			if (old.v[i].key)
				*pc_put(c, old.v[i].key) = old.v[i];
		free(old.v);
	}
	uint32_t off = (uint32_t)c->text.len;
	switch (how) {
	case PC_TYPE: irdiff_type(&c->text, p); break;
	case PC_ATTR: ir_print_attr_generic(&c->text, p); break;
	case PC_DENSE: ir_print_dense(&c->text, p); break;
	default: sb_adds(&c->text, p); break;
	}
	struct pcache_slot *sl = pc_put(c, k);
	sl->key = k;
	sl->off = off;
	sl->len = (uint32_t)(c->text.len - off);
	text_words(c->text.buf + off, sl->len, sl->word);
	return sl;
}

void irdiff_cached_type(struct sbuf *sb, struct pcache *c, const struct ir_type *t)
{
	if (!t) {
		irdiff_type(sb, t);
		return;
	}
	const struct pcache_slot *sl = pc_get(c, t, PC_TYPE);
	sb_add(sb, c->text.buf + sl->off, sl->len);
}

void irdiff_pcache_free(struct pcache *c)
{
	free(c->v);
	sb_free(&c->text);
	memset(c, 0, sizeof(*c));
}

/* ---- one op's normal form, as a hash ----
 * The normal form is a sequence of 64-bit words: each part (a name, a
 * type, an attribute, a constant) as the 128-bit hash of its text, each
 * piece of structure as a tag, counts where lengths vary. Two ops have the same
 * normal form when they are the same op modulo spelling and value names. */

enum {
	W_ATTRS = 1, W_UNIT, W_TEXT, W_GROUP, W_RESULTS, W_BLOCK, W_CST, W_DEF, W_ARG,
	W_OWNED, W_CLOSE, W_ELSE
};

struct nf {
	uint64_t a, b;
};

static void nf_word(struct nf *h, uint64_t w)
{
	const uint64_t m = 0xc6a4a7935bd1e995ULL, g = 0x9e3779b97f4a7c15ULL;
	w *= m;
	w ^= w >> 47;
	w *= m;
	h->a = (h->a ^ w) * m;
	h->b = ((h->b ^ w) + ((h->b << 23) | (h->b >> 41))) * g;
}

static void nf_end(struct nf *h, uint64_t out[2])
{
	const uint64_t m = 0xc6a4a7935bd1e995ULL;
	out[0] = (h->a ^ (h->a >> 47)) * m;
	out[0] ^= out[0] >> 47;
	out[1] = (h->b ^ (h->b >> 33)) * m;
	out[1] ^= out[1] >> 29;
}

static void nf_words(struct nf *h, const uint64_t w[2])
{
	nf_word(h, w[0]);
	nf_word(h, w[1]);
}

static void nf_text(struct nf *h, const char *s, size_t n)
{
	uint64_t w[2];
	text_words(s, n, w);
	nf_words(h, w);
}

/* Names are the registry's strings (or the module's): hashed once each. */
static void nf_name(struct nf *h, struct pcache *pc, const char *s)
{
	nf_words(h, pc_get(pc, s, PC_NAME)->word);
}

static void nf_type(struct nf *h, struct pcache *pc, const struct ir_type *t)
{
	if (t)
		nf_words(h, pc_get(pc, t, PC_TYPE)->word);
	else
		nf_word(h, 0);
}

/* An operand named by its definition (assume chains looked through). */
static void operand(struct nf *h, const struct ir_value *v, struct pcache *pc)
{
	v = irdiff_through_assume(v);
	const struct ir_op *d = ir_value_def(v);
	if (d) {
		if (d->code == IR_OP_CONSTANT) {
			const struct ir_attr *a = ir_op_attr(d, "value");
			nf_word(h, W_CST);
			if (a && a->kind == IR_ATTR_DENSE)
				nf_words(h, pc_get(pc, a, PC_DENSE)->word);
			return;
		}
		nf_word(h, W_DEF);
		nf_name(h, pc, irdiff_op_name(d));
		nf_word(h, d->nresults > 1 ? v->index + 1 : 0);
		return;
	}
	const struct ir_op *owner = ir_arg_owner(v);
	if (!owner || owner->code == IR_OP_ENTRY) {
		nf_word(h, W_ARG);
	} else {
		nf_word(h, W_OWNED);
		nf_name(h, pc, irdiff_op_name(owner));
	}
	nf_word(h, v->index);
}

static void op_norm(const struct ir_op *op, struct pcache *pc, uint64_t out[2])
{
	struct nf h = {0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL};
	nf_name(&h, pc, irdiff_op_name(op));
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
		nf_word(&h, W_ATTRS);
		nf_word(&h, n);
		for (uint32_t i = 0; i < n; i++) {
			nf_name(&h, pc, as[i]->name);
			if (as[i]->attr->kind == IR_ATTR_UNIT)
				nf_word(&h, W_UNIT);
			else
				nf_words(&h, pc_get(pc, as[i]->attr, PC_ATTR)->word);
		}
		if (as != stack)
			free(as);
	}
	if (op->code == IR_OP_UNKNOWN && ir_op_x(op)->text) {
		nf_word(&h, W_TEXT);
		for (const char *p = ir_op_x(op)->text; *p;) {
			const char *q = strchr(p, '\x01');
			size_t n = q ? (size_t)(q - p) : strlen(p);
			if (n)
				nf_text(&h, p, n);
			if (!q)
				break;
			char *end;
			unsigned long k = strtoul(q + 1, &end, 10);
			if (k < op->noperands)
				operand(&h, op->operands[k], pc);
			p = *end == '\x02' ? end + 1 : end;
		}
	} else {
		for (uint32_t g = 0, k = 0; g < op->ngroups; g++) {
			nf_word(&h, W_GROUP);
			nf_word(&h, ir_op_group_size(op, g));
			for (uint32_t i = 0; i < ir_op_group_size(op, g); i++, k++)
				operand(&h, op->operands[k], pc);
		}
	}
	nf_word(&h, W_RESULTS);
	nf_word(&h, op->nresults);
	for (uint32_t i = 0; i < op->nresults; i++)
		nf_type(&h, pc, op->results[i]->type);
	/* block arguments carry the types of loop-carried values */
	for (uint32_t r = 0; r < op->nregions; r++)
		for (uint32_t b = 0; b < ir_op_region(op, r)->nblocks; b++) {
			const struct ir_block *blk = ir_op_region(op, r)->blocks[b];
			nf_word(&h, W_BLOCK);
			nf_word(&h, blk->nargs);
			for (uint32_t i = 0; i < blk->nargs; i++)
				nf_type(&h, pc, blk->args[i]->type);
		}
	nf_end(&h, out);
}

/* ---- an entry ---- */

struct flat {
	struct nside *out;
	struct ir_names *names; /* NULL: no texts */
	struct pcache *printed;
	bool keep_dead;
	const uint32_t *uses; /* by value id - base */
	uint32_t *live;       /* the same, reads by dead ops left out (drop_dead) */
	uint32_t base, nuses;
	int untaken; /* inside a branch a constant condition does not take */
};

/* A new line of the side, held by `owner` inside `loops` for/loop ops. The
 * arrays are sized up front (irdiff_flatten counts the lines), so growing
 * here is only a fallback. */
static struct nline *push(struct nside *s, const struct ir_op *owner, int loops)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->lines = xrealloc(s->lines, s->cap * sizeof(*s->lines));
		s->owner = xrealloc(s->owner, s->cap * sizeof(*s->owner));
		s->loops = xrealloc(s->loops, s->cap * sizeof(*s->loops));
		if (s->texts)
			s->texts = xrealloc(s->texts, s->cap * sizeof(*s->texts));
	}
	if (s->texts)
		s->texts[s->n] = NULL;
	s->owner[s->n] = owner;
	s->loops[s->n] = (uint16_t)loops;
	struct nline *l = &s->lines[s->n++];
	memset(l, 0, sizeof(*l));
	return l;
}

static void brace(struct flat *f, const struct ir_op *owner, int depth, int loops,
		  enum nline_kind kind, uint32_t line)
{
	struct nline *l = push(f->out, owner, loops);
	l->depth = (uint16_t)depth;
	l->kind = (uint8_t)kind;
	l->line = line;
	struct nf h = {0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL};
	nf_word(&h, kind == NLINE_ELSE ? W_ELSE : W_CLOSE);
	nf_end(&h, l->body);
}

/* Ops without an effect: one whose results nobody reads computes nothing.
 * cuTile Python's compiler drops them, cutile's does not (a value the
 * specialisation leaves unused: an offset only a `CAUSAL` branch read). */
static bool pure(const struct ir_op *op)
{
	if (op->nregions || !op->nresults)
		return false;
	switch (op->code) {
	case IR_OP_ABSF: case IR_OP_ABSI: case IR_OP_ADDF: case IR_OP_ADDI: case IR_OP_ANDI:
	case IR_OP_ASSUME: case IR_OP_BITCAST: case IR_OP_BROADCAST: case IR_OP_CAT: case IR_OP_CEIL:
	case IR_OP_CMPF: case IR_OP_CMPI: case IR_OP_CONSTANT: case IR_OP_COS: case IR_OP_COSH:
	case IR_OP_DIVF: case IR_OP_DIVI: case IR_OP_EXP: case IR_OP_EXP2: case IR_OP_EXTI:
	case IR_OP_EXTRACT: case IR_OP_FLOOR: case IR_OP_FMA: case IR_OP_FTOF: case IR_OP_FTOI:
	case IR_OP_INT_TO_PTR: case IR_OP_IOTA: case IR_OP_ITOF: case IR_OP_LOG: case IR_OP_LOG2:
	case IR_OP_MAKE_PARTITION_VIEW: case IR_OP_MAKE_TENSOR_VIEW: case IR_OP_MAXF: case IR_OP_MAXI:
	case IR_OP_MINF: case IR_OP_MINI: case IR_OP_MULF: case IR_OP_MULHII: case IR_OP_MULI:
	case IR_OP_NEGF: case IR_OP_NEGI: case IR_OP_OFFSET: case IR_OP_ORI: case IR_OP_PERMUTE:
	case IR_OP_POW: case IR_OP_PTR_TO_INT: case IR_OP_PTR_TO_PTR: case IR_OP_REMF: case IR_OP_REMI:
	case IR_OP_RESHAPE: case IR_OP_RSQRT: case IR_OP_SELECT: case IR_OP_SHLI: case IR_OP_SHRI:
	case IR_OP_SIN: case IR_OP_SINH: case IR_OP_SQRT: case IR_OP_SUBF: case IR_OP_SUBI:
	case IR_OP_TAN: case IR_OP_TANH: case IR_OP_TRUNCI: case IR_OP_XORI: case IR_OP_ATAN2:
		return true;
	default:
		return false;
	}
}

/* Whether no count says a read of the op's results (counts: f->uses, or
 * f->live with the reads of dead ops taken out). */
static bool unread(const struct flat *f, const uint32_t *counts, const struct ir_op *op)
{
	for (uint32_t i = 0; i < op->nresults; i++) {
		uint32_t id = op->results[i]->id - f->base;
		if (id >= f->nuses || counts[id])
			return false;
	}
	return true;
}

static bool dead_constant(const struct flat *f, const struct ir_op *op)
{
	return !f->keep_dead && op->code == IR_OP_CONSTANT && op->nresults && unread(f, f->uses, op);
}

/* Whether nothing live reads the op's results (counts after drop_dead). */
static bool dead_op(const struct flat *f, const struct ir_op *op)
{
	return f->live && pure(op) && unread(f, f->live, op);
}

static void flatten_block(struct flat *f, const struct ir_op *owner, const struct ir_block *b,
			  int depth, int loops);

/* The value of an i1 the IR computes from constants alone: 0 or 1, or -1
 * when it depends on anything else. `a && b` with a false side is false
 * whatever the other is. */
static int const_i1(const struct ir_value *v, int depth)
{
	const struct ir_op *d = v && depth < 16 ? ir_value_def(v) : NULL;
	if (!d)
		return -1;
	if (d->code == IR_OP_CONSTANT) {
		const struct ir_attr *a = ir_op_attr(d, "value");
		if (!a || a->kind != IR_ATTR_DENSE || a->n != 1 || !a->type || !a->type->inner ||
		    a->type->inner->kind != IR_TY_ELEM || a->type->inner->elem != IR_I1)
			return -1;
		return a->vals[0] ? 1 : 0;
	}
	if ((d->code != IR_OP_ANDI && d->code != IR_OP_ORI && d->code != IR_OP_XORI) ||
	    d->noperands != 2)
		return -1;
	int x = const_i1(d->operands[0], depth + 1), y = const_i1(d->operands[1], depth + 1);
	if (d->code == IR_OP_ANDI)
		return x == 0 || y == 0 ? 0 : x == 1 && y == 1 ? 1 : -1;
	if (d->code == IR_OP_ORI)
		return x == 1 || y == 1 ? 1 : x == 0 && y == 0 ? 0 : -1;
	return x < 0 || y < 0 ? -1 : x ^ y;
}

/* An `if` on a condition known from constants: cutile writes the `if` for
 * a comparison it has already evaluated (a Constant's, `if false &&
 * EVEN_K == false`, or one its bounds decide, a loop index against the
 * loop's end), where cuTile Python's compiler drops the branch or keeps
 * it as a run-time test that never holds. The lines of the branch not
 * taken are marked (NLINE_UNTAKEN): what only they have is no difference,
 * and what the other side has live they account for. The taken region,
 * or -1. */
static int folded_branch(const struct ir_op *op)
{
	if (op->code != IR_OP_IF || !op->noperands)
		return -1;
	int c = const_i1(op->operands[0], 0);
	return c < 0 ? -1 : c ? 0 : 1;
}

static void flatten_op(struct flat *f, const struct ir_op *owner, const struct ir_op *op, int depth,
		       int loops)
{
	struct nline *l = push(f->out, owner, loops);
	l->op = op;
	l->depth = (uint16_t)depth;
	l->dead = (uint8_t)((dead_op(f, op) ? NLINE_DEAD : 0) | (f->untaken ? NLINE_UNTAKEN : 0));
	if (f->names)
		f->out->texts[nline_index(f->out, l)] = ir_op_line(op, f->names);
	op_norm(op, f->printed, l->body);
	if (!op->nregions)
		return;
	int inner = loops + (op->code == IR_OP_FOR || op->code == IR_OP_LOOP);
	int taken = folded_branch(op);
	for (uint32_t r = 0; r < op->nregions; r++) {
		if (!ir_op_region(op, r)->nblocks)
			continue;
		if (r > 0)
			brace(f, owner, depth, loops, NLINE_ELSE, ir_op_x(op)->else_line);
		bool untaken = taken >= 0 && (uint32_t)taken != r;
		f->untaken += untaken;
		flatten_block(f, op, ir_op_region(op, r)->blocks[0], depth + 1, inner);
		f->untaken -= untaken;
	}
	brace(f, owner, depth, loops, NLINE_CLOSE, ir_op_x(op)->close_line);
}

static void flatten_block(struct flat *f, const struct ir_op *owner, const struct ir_block *b,
			  int depth, int loops)
{
	for (uint32_t i = 0; i < b->nops; i++) {
		const struct ir_op *op = b->ops[i];
		if (i == b->nops - 1 && ir_print_elides(owner, op))
			break;
		if (dead_constant(f, op))
			continue;
		flatten_op(f, owner, op, depth, loops);
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
	size_t lines; /* at most this many lines: each op, and a brace per region */
};

static bool result_span(const struct ir_op *op, int depth, void *ctx)
{
	(void)depth;
	struct span *sp = ctx;
	sp->lines += 1u + op->nregions;
	for (uint32_t i = 0; i < op->nresults; i++) {
		uint32_t id = op->results[i]->id;
		if (id < sp->lo)
			sp->lo = id;
		if (id + 1 > sp->hi)
			sp->hi = id + 1;
	}
	return true;
}

struct op_list {
	const struct ir_op **v;
	size_t n, cap;
};

static bool list_op(const struct ir_op *op, int depth, void *ctx)
{
	(void)depth;
	struct op_list *l = ctx;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 256;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = op;
	return true;
}

/* Live reads: from the last op back (a value is read after it is made),
 * each dead pure op gives back its operands' reads, so a chain nobody
 * reads is dead whole. */
static void drop_dead(struct flat *f, const struct ir_op *entry)
{
	struct op_list l = {0};
	ir_walk(entry, list_op, &l);
	uint32_t *uses = f->live;
	for (size_t i = l.n; i-- > 0;) {
		const struct ir_op *op = l.v[i];
		if (op == entry || !dead_op(f, op))
			continue;
		for (uint32_t k = 0; k < op->noperands; k++) {
			uint32_t id = op->operands[k]->id - f->base;
			if (id < f->nuses && uses[id])
				uses[id]--;
		}
	}
	free(l.v);
}

/* Index of the line closing the region op at line i (its last "}"). */
static size_t close_of(const struct nside *s, size_t i)
{
	size_t j = i + 1;
	while (j < s->n && !(s->lines[j].kind == NLINE_CLOSE && s->lines[j].depth == s->lines[i].depth))
		j++;
	return j;
}

static int cmp_hash(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : x[1] != y[1] ? (x[1] < y[1] ? -1 : 1) : 0;
}

/* The op codes of lines (a, b), sorted, as pairs of uint64 (code, 0): the
 * ops of the unbranched copy read other defs (a value the branch made in
 * the second loop), so only which ops they are compares. */
static uint64_t *body_codes(const struct nside *s, size_t a, size_t b, size_t *n)
{
	uint64_t *h = xmalloc((b > a ? b - a : 1) * 2 * sizeof(uint64_t));
	*n = 0;
	for (size_t i = a + 1; i < b; i++)
		if (s->lines[i].op) {
			h[2 * *n] = s->lines[i].op->code;
			h[2 * *n + 1] = 0;
			++*n;
		}
	qsort(h, *n, 2 * sizeof(uint64_t), cmp_hash);
	return h;
}

static bool defined_by(const struct ir_value *v, int code)
{
	const struct ir_op *d = v ? ir_value_def(irdiff_through_assume(v)) : NULL;
	return d && d->code == code;
}

/* Whether every op of the first body is one of the second's (multisets). */
static bool sub_multiset(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
	size_t j = 0;
	for (size_t i = 0; i < na; i++) {
		while (j < nb && cmp_hash(&b[2 * j], &a[2 * i]) < 0)
			j++;
		if (j == nb || cmp_hash(&b[2 * j], &a[2 * i]) != 0)
			return false;
		j++;
	}
	return true;
}

/* A loop split in two: cuTile Python's compiler turns `for j in range(lo,
 * hi)` whose body branches on `j >= x` into a loop over [lo, min(x, hi))
 * without the branch and one over [max(x, lo), hi) with it, the second
 * carrying on what the first computed. Such a pair is two `for`s in a row,
 * the first ending at a mini and the second starting at a maxi, the
 * second's carried values started from the first's results, and the first's
 * body ops all among the second's: its lines are marked and not counted
 * again. */
static void mark_split_loops(struct nside *s)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct ir_op *a = s->lines[i].op;
		if (!a || a->code != IR_OP_FOR)
			continue;
		size_t j = close_of(s, i);
		if (j + 1 >= s->n)
			continue;
		const struct ir_op *b = s->lines[j + 1].op;
		if (!b || b->code != IR_OP_FOR || s->lines[j + 1].depth != s->lines[i].depth ||
		    !a->nresults || b->noperands != 3 + a->nresults ||
		    !defined_by(a->operands[1], IR_OP_MINI) || !defined_by(b->operands[0], IR_OP_MAXI))
			continue;
		bool chained = true;
		for (uint32_t k = 0; k < a->nresults; k++)
			chained &= b->operands[3 + k] == a->results[k];
		if (!chained)
			continue;
		size_t k2 = close_of(s, j + 1), na, nb;
		uint64_t *ha = body_codes(s, i, j, &na), *hb = body_codes(s, j + 1, k2, &nb);
		bool sub = na < nb && sub_multiset(ha, na, hb, nb);
		free(ha);
		free(hb);
		if (!sub)
			continue;
		for (size_t l = i; l <= j; l++)
			s->lines[l].split_copy = 1;
		i = j;
	}
}

void irdiff_flatten(const struct ir_op *entry, bool keep_dead, bool texts, struct pcache *printed,
		    struct nside *out)
{
	memset(out, 0, sizeof(*out));
	/* value ids are module-wide: count uses over this entry's span only */
	struct span sp = {UINT32_MAX, 0, 0};
	ir_walk(entry, result_span, &sp);
	out->cap = sp.lines ? sp.lines : 1;
	out->lines = xmalloc(out->cap * sizeof(*out->lines));
	out->owner = xmalloc(out->cap * sizeof(*out->owner));
	out->loops = xmalloc(out->cap * sizeof(*out->loops));
	if (texts)
		out->texts = xmalloc(out->cap * sizeof(*out->texts));
	uint32_t base = sp.lo < sp.hi ? sp.lo : 0, n = sp.lo < sp.hi ? sp.hi - sp.lo : 0;
	struct uses_ctx u = {xcalloc(n ? n : 1, sizeof(uint32_t)), base, n};
	ir_walk(entry, count_uses, &u);
	struct flat f = {out, texts ? ir_names_compute(entry) : NULL, printed, keep_dead, u.uses,
			 xmalloc((n ? n : 1) * sizeof(uint32_t)), base, n};
	memcpy(f.live, u.uses, n * sizeof(uint32_t));
	drop_dead(&f, entry);
	const struct ir_block *body = ir_entry_body(entry);
	if (body)
		flatten_block(&f, entry, body, 0, 0);
	mark_split_loops(out);
	if (f.names)
		ir_names_free(f.names);
	free(f.live);
	free(u.uses);
}

void irdiff_nside_free(struct nside *s)
{
	if (s->texts)
		for (size_t i = 0; i < s->n; i++)
			free(s->texts[i]);
	free(s->texts);
	free(s->lines);
	free(s->owner);
	free(s->loops);
	memset(s, 0, sizeof(*s));
}
