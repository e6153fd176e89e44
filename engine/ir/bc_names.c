/* Tile IR bytecode: SSA value names as MLIR's printer invents them
 * (§10.2): result-name hints from the ops, `argN` for other block
 * arguments, numbers for the rest, `_N` suffixes from a conflict counter,
 * and a name scope per region whose counters start from the parent's. */
#include "engine/ir/bc_priv.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- scoped set of used names ---------------------------------------- */

struct name_node {
	struct name_node *next;
	char *name;
};

struct namer {
	const struct bc_module *m;
	const struct bc_func *f;
	struct bc_names *out;
	unsigned next_value, next_arg, next_conflict;
	struct name_node **bucket;
	size_t nbucket;
	char **log; /* names in insertion order, for popping scopes */
	size_t nlog, clog;
};

static size_t hash(const char *s)
{
	size_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static bool used(const struct namer *n, const char *s)
{
	for (struct name_node *e = n->bucket[hash(s) % n->nbucket]; e; e = e->next)
		if (strcmp(e->name, s) == 0)
			return true;
	return false;
}

static void use(struct namer *n, char *s)
{
	struct name_node *e = bc_alloc(n->out->ar, sizeof(*e));
	size_t b = hash(s) % n->nbucket;
	e->name = s;
	e->next = n->bucket[b];
	n->bucket[b] = e;
	n->log = xgrow(n->log, &n->clog, n->nlog + 1, sizeof(*n->log));
	n->log[n->nlog++] = s;
}

/* Forget the names added since `mark` (they are the most recent in their
 * chains, since scopes nest). */
static void pop_to(struct namer *n, size_t mark)
{
	while (n->nlog > mark) {
		char *s = n->log[--n->nlog];
		struct name_node **pp = &n->bucket[hash(s) % n->nbucket];
		while (*pp && (*pp)->name != s)
			pp = &(*pp)->next;
		if (*pp)
			*pp = (*pp)->next;
	}
}

/* MLIR's sanitizeIdentifier: keep letters, digits and `$._-`, a space
 * becomes `_`, other bytes their hex code; a leading digit gets `_`. */
static void sanitize(const char *in, struct sbuf *out)
{
	if (isdigit((unsigned char)in[0]))
		sb_addc(out, '_');
	for (const unsigned char *p = (const unsigned char *)in; *p; p++) {
		if (isalnum(*p) || strchr("$._-", *p))
			sb_addc(out, (char)*p);
		else if (*p == ' ')
			sb_addc(out, '_');
		else
			sb_printf(out, "%X", *p);
	}
}

static char *unique(struct namer *n, const char *hint)
{
	struct sbuf s = SBUF_INIT;
	sanitize(hint, &s);
	size_t base = s.len;
	if (used(n, s.buf)) {
		for (;;) {
			s.len = base;
			s.buf[base] = '\0';
			sb_printf(&s, "_%u", n->next_conflict++);
			if (!used(n, s.buf))
				break;
		}
	}
	char *name = bc_alloc(n->out->ar, s.len + 1);
	memcpy(name, s.buf, s.len + 1);
	sb_free(&s);
	use(n, name);
	return name;
}

static void set_name(struct namer *n, uint32_t id, const char *hint)
{
	if (!hint || !*hint) {
		char num[16];
		snprintf(num, sizeof(num), "%u", n->next_value++);
		char *c = bc_alloc(n->out->ar, strlen(num) + 1);
		memcpy(c, num, strlen(num) + 1);
		n->out->name[id] = c;
		return;
	}
	n->out->name[id] = unique(n, hint);
}

/* ---- result-name hints --------------------------------------------------- */

static bool has_name_support(unsigned opcode)
{
	switch (opcode) {
	case 0x10: case 0x43: case 0x42: case 0x74: case 0x73: case 0x0B: case 0x5B:
	case 0x58: case 0x29: case 0x06: case 0x30: case 0x2E: case 0x3E: case 0x3D:
	case 0x08: case 0x07: case 0x32: case 0x41: case 0x5E:
		return true;
	default:
		return false;
	}
}

static void constant_hint(const struct bc_module *m, const struct bc_op *op, struct sbuf *out)
{
	const struct bc_fval *v = bc_op_field(op, "value");
	struct bc_dense d;
	if (!v || !bc_dense_open(m, op->res_types[0], (uint32_t)v->v, &d))
		return;
	if (d.tag == BC_TY_I1) {
		bool any_t = false, any_f = false;
		for (uint64_t i = 0; i < (d.splat ? 1 : d.n); i++) {
			if (bc_dense_bits(&d, i))
				any_t = true;
			else
				any_f = true;
		}
		sb_adds(out, any_t && any_f ? "cst_i1" : any_t ? "true" : "false");
		return;
	}
	sb_adds(out, "cst");
	if (d.splat) {
		uint64_t b = bc_dense_bits(&d, 0);
		if (bc_tag_is_int(d.tag)) {
			sb_printf(out, "_%lld", (long long)bc_sext(b, bc_tag_bits(d.tag)));
		} else {
			uint64_t u;
			bool nan;
			if (bc_float_as_u64(d.tag, b, &u, &nan))
				sb_printf(out, "_%llu", (unsigned long long)u);
			else if (nan)
				sb_adds(out, "_NaN");
		}
	}
	sb_printf(out, "_%s", bc_scalar_name(d.tag));
}

bool bc_result_hint(const struct bc_module *m, const struct bc_func *f, const struct bc_op *op,
		    uint32_t i, struct sbuf *out)
{
	static const char *const xyz_block[3] = {"blockId_x", "blockId_y", "blockId_z"};
	static const char *const xyz_grid[3] = {"gridSize_x", "gridSize_y", "gridSize_z"};
	const char *h = NULL;
	switch (op->opcode) {
	case 0x10:
		if (i == 0)
			constant_hint(m, op, out);
		return i == 0 && out->len;
	case 0x43: h = i == 0 ? "tview" : NULL; break;
	case 0x42: h = i == 0 ? "pview" : NULL; break;
	case 0x74: h = i == 0 ? "sview" : NULL; break;
	case 0x73: h = i == 0 ? "gsview" : NULL; break;
	case 0x0B: h = i == 0 ? "bcast" : NULL; break;
	case 0x5B: h = i == 0 ? "reshape" : NULL; break;
	case 0x58: h = i == 0 ? "reduce" : NULL; break;
	case 0x29: h = i == 0 ? "for" : NULL; break;
	case 0x30: h = i < 3 ? xyz_block[i] : NULL; break;
	case 0x2E: h = i < 3 ? xyz_grid[i] : NULL; break;
	case 0x3E: h = i == 0 ? "tile" : i == 1 ? "result_token" : NULL; break;
	case 0x3D: case 0x08: case 0x07:
		h = i == 0 ? "result" : i == 1 ? "result_token" : NULL;
		break;
	case 0x06: {
		if (i != 0)
			return false;
		/* assume_ + the producer's own hint; chains of assumes repeat it */
		unsigned prefixes = 0;
		const struct bc_op *cur = op;
		for (;;) {
			uint32_t n;
			const uint32_t *val = bc_op_group(cur, "value", &n);
			const struct bc_value *v = n ? &f->values[val[0]] : NULL;
			const struct bc_op *d = v ? v->def : NULL;
			if (!d || !has_name_support(d->opcode)) {
				for (unsigned k = 0; k < prefixes; k++)
					sb_adds(out, "assume_");
				sb_adds(out, "assume");
				return true;
			}
			prefixes++;
			if (d->opcode == 0x06 && v->index == 0) {
				cur = d;
				continue;
			}
			for (unsigned k = 0; k < prefixes; k++)
				sb_adds(out, "assume_");
			bc_result_hint(m, f, d, v->index, out);
			return true;
		}
	}
	default:
		return false;
	}
	if (h)
		sb_adds(out, h);
	return h != NULL;
}

/* ---- the walk ----------------------------------------------------------- */

static void name_block(struct namer *n, const struct bc_block *b, const struct bc_op *parent);

static void name_block_args(struct namer *n, const struct bc_block *b,
			    const struct bc_op *parent)
{
	char hint[32];
	for (uint32_t i = 0; i < b->nargs; i++) {
		uint32_t id = b->first_arg + i;
		const char *h = NULL;
		if (parent && parent->opcode == 0x29) {
			if (i == 0) {
				h = "loopIdx";
			} else {
				snprintf(hint, sizeof(hint), "iterArg%u", i - 1);
				h = hint;
			}
		} else if (parent && parent->opcode == 0x58) {
			const char *side = i % 2 ? "reduce_rhs" : "reduce_lhs";
			if (b->nargs > 2)
				snprintf(hint, sizeof(hint), "%s%u", side, i / 2);
			else
				snprintf(hint, sizeof(hint), "%s", side);
			h = hint;
		}
		if (!h) {
			snprintf(hint, sizeof(hint), "arg%u", n->next_arg++);
			h = hint;
		}
		n->out->name[id] = unique(n, h);
		n->out->head[id] = id;
		n->out->gsize[id] = 1;
	}
}

static void name_results(struct namer *n, const struct bc_op *op)
{
	if (!op->nres)
		return;
	struct bc_names *o = n->out;
	uint32_t first = op->first_result;
	bool named0 = false;
	/* hinted results each start a group; the others join the one before */
	for (uint32_t i = 0; i < op->nres; i++) {
		struct sbuf h = SBUF_INIT;
		if (bc_result_hint(n->m, n->f, op, i, &h) && h.len) {
			set_name(n, first + i, h.buf);
			o->head[first + i] = first + i;
			if (i == 0)
				named0 = true;
		} else if (i == 0) {
			o->head[first] = first;
		} else {
			o->head[first + i] = o->head[first + i - 1];
		}
		sb_free(&h);
	}
	if (!named0)
		set_name(n, first, NULL);
	for (uint32_t i = 0; i < op->nres; i++) {
		uint32_t hd = o->head[first + i];
		o->gidx[first + i] = first + i - hd;
		o->gsize[hd]++;
		o->name[first + i] = o->name[hd];
	}
	for (uint32_t i = 0; i < op->nres; i++)
		o->gsize[first + i] = o->gsize[o->head[first + i]];
}

static void name_block(struct namer *n, const struct bc_block *b, const struct bc_op *parent)
{
	name_block_args(n, b, parent);
	for (uint32_t i = 0; i < b->nops; i++)
		name_results(n, &b->ops[i]);
	/* then the regions of this block's ops, each from the counters as they
	 * are now, in a scope of its own */
	unsigned nv = n->next_value, na = n->next_arg, nc = n->next_conflict;
	for (uint32_t i = 0; i < b->nops; i++) {
		const struct bc_op *op = &b->ops[i];
		for (uint32_t r = 0; r < op->nregions; r++) {
			for (uint32_t k = 0; k < op->regions[r].nblocks; k++) {
				size_t mark = n->nlog;
				n->next_value = nv;
				n->next_arg = na;
				n->next_conflict = nc;
				name_block(n, &op->regions[r].blocks[k], op);
				pop_to(n, mark);
			}
		}
	}
}

void bc_names_build(const struct bc_module *m, const struct bc_func *f, struct bc_names *out)
{
	out->ar = bc_arena_new();
	size_t nv = f->nvalues ? f->nvalues : 1;
	out->name = bc_alloc_array(out->ar, nv, sizeof(char *));
	out->head = bc_alloc_array(out->ar, nv, sizeof(uint32_t));
	out->gidx = bc_alloc_array(out->ar, nv, sizeof(uint32_t));
	out->gsize = bc_alloc_array(out->ar, nv, sizeof(uint32_t));
	struct namer n = {.m = m, .f = f, .out = out};
	n.nbucket = 1024;
	while (n.nbucket < f->nvalues)
		n.nbucket *= 2;
	n.bucket = xcalloc(n.nbucket, sizeof(*n.bucket));
	name_block(&n, &f->body, NULL);
	for (uint32_t i = 0; i < f->nvalues; i++)
		if (!out->name[i]) { /* unreachable values keep a placeholder */
			out->name[i] = "<<UNKNOWN SSA VALUE>>";
			out->head[i] = i;
			out->gsize[i] = 1;
		}
	free(n.bucket);
	free(n.log);
}

void bc_names_free(struct bc_names *n)
{
	bc_arena_free(n->ar);
	memset(n, 0, sizeof(*n));
}
