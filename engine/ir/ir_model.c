/* The in-memory module: arena, op builders and accessors (types are in
 * ir_types.c, attributes in ir_attrs.c). */
#include "engine/ir/ir.h"
#include "engine/ir/ir_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ---- arena ---- */

struct ir_arena_chunk {
	struct ir_arena_chunk *next;
	size_t used, size;
	_Alignas(16) unsigned char data[];
};

struct ir_arena {
	struct ir_arena_chunk *head;
	size_t total;
};

/* Chunks are mapped, not malloc'd: they come zeroed (so allocations need no
 * memset), and once a module is large they come 1 MB at a time with their
 * pages populated in one call: a 100k-line file fills some 15 MB, and
 * faulting that in page by page cost more than building what is in it. */
#define ARENA_CHUNK (64 * 1024)
#define ARENA_BIG_CHUNK (1024 * 1024)

static struct ir_arena_chunk *chunk_new(size_t data, bool populate)
{
	size_t len = sizeof(struct ir_arena_chunk) + data;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | (populate ? MAP_POPULATE : 0), -1, 0);
	if (p == MAP_FAILED)
		tp_die("out of memory (%zu bytes)", len);
	struct ir_arena_chunk *c = p;
	c->size = data;
	c->used = 0;
	return c;
}

void *ir_alloc(struct ir_module *m, size_t n)
{
	struct ir_arena *a = m->arena;
	n = (n + 7) & ~(size_t)7;
	if (!n)
		n = 8;
	struct ir_arena_chunk *c = a->head;
	if (!c || c->size - c->used < n) {
		bool big = a->total >= 4 * ARENA_BIG_CHUNK;
		size_t chunk = (big ? ARENA_BIG_CHUNK : ARENA_CHUNK) - sizeof(*c);
		size_t sz = n > chunk / 4 ? n : chunk;
		c = chunk_new(sz, big && sz == chunk);
		if (sz == n && a->head) {
			/* a big block: keep the current chunk at the head for small ones */
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = a->head;
			a->head = c;
		}
		a->total += sz;
	}
	void *p = c->data + c->used;
	c->used += n;
	return p; /* zero: chunks are fresh mappings, never reused */
}

/* Arrays start at the size first asked for (most ops have one result, a
 * few operands) and double; the newest allocation of the arena grows in
 * place, so building one op's operands leaves no copies behind. */
void *ir_grow(struct ir_module *m, void *p, uint32_t *cap, uint32_t need, size_t size)
{
	if (need <= *cap)
		return p;
	uint32_t ncap = *cap ? *cap * 2 : need;
	while (ncap < need)
		ncap *= 2;
	struct ir_arena_chunk *c = m->arena->head;
	size_t had = ((size_t)*cap * size + 7) & ~(size_t)7;
	size_t want = ((size_t)ncap * size + 7) & ~(size_t)7;
	if (p && *cap && c && (unsigned char *)p + had == c->data + c->used &&
	    c->used - had + want <= c->size) {
		c->used += want - had;
		*cap = ncap;
		return p;
	}
	void *q = ir_alloc(m, (size_t)ncap * size);
	if (p && *cap)
		memcpy(q, p, (size_t)*cap * size);
	*cap = ncap;
	return q;
}

/* An op's arrays keep no capacity: it is the count rounded up to a power
 * of two, as they are filled one element at a time. `pre` bytes in front
 * of the array (an op's group sizes) belong to the same block and move
 * with it. Returns the array (after the prefix). */
void *ir_grow_pow2(struct ir_module *m, void *arr, uint32_t n, size_t size, size_t pre)
{
	uint32_t cap = 0;
	if (n) {
		cap = 1;
		while (cap < n)
			cap <<= 1;
	}
	if (n < cap)
		return arr;
	if (cap >= UINT32_MAX / 2)
		abort(); /* unreachable: the readers refuse such counts first */
	uint32_t ncap = cap ? cap * 2 : 1;
	unsigned char *base = arr ? (unsigned char *)arr - pre : NULL;
	size_t had = (pre + (size_t)cap * size + 7) & ~(size_t)7;
	size_t want = (pre + (size_t)ncap * size + 7) & ~(size_t)7;
	struct ir_arena_chunk *c = m->arena->head;
	if (base && c && base + had == c->data + c->used && c->used - had + want <= c->size) {
		c->used += want - had;
		return arr;
	}
	unsigned char *q = ir_alloc(m, want);
	if (base)
		memcpy(q, base, pre + (size_t)n * size);
	return q + pre;
}

const struct ir_op_extra ir_op_extra_none;

struct ir_op_extra *ir_op_extra(struct ir_module *m, struct ir_op *op)
{
	if (!op->x)
		op->x = ir_alloc(m, sizeof(*op->x));
	return op->x;
}

const char *ir_strdup(struct ir_module *m, const char *s, size_t len)
{
	char *p = ir_alloc(m, len + 1);
	if (len)
		memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

size_t ir_module_arena_bytes(const struct ir_module *m)
{
	return m->arena->total;
}

/* ---- module ---- */

struct ir_module *ir_module_new(const char *path, enum ir_source_kind src)
{
	struct ir_module *m = xcalloc(1, sizeof(*m));
	m->arena = xcalloc(1, sizeof(*m->arena));
	m->source = src;
	m->path = ir_strdup(m, path ? path : "", path ? strlen(path) : 0);
	ir_types_init(m);
	ir_attrs_init(m);
	return m;
}

void ir_module_free(struct ir_module *m)
{
	if (!m)
		return;
	ir_types_free(m);
	ir_attrs_free(m);
	struct ir_arena_chunk *c = m->arena->head;
	while (c) {
		struct ir_arena_chunk *n = c->next;
		munmap(c, sizeof(*c) + c->size);
		c = n;
	}
	free(m->arena);
	free(m);
}

/* ---- ops ---- */

static struct ir_op *op_alloc(struct ir_module *m, const struct ir_opdef *d, const char *name,
			      size_t len)
{
	struct ir_op *op = ir_alloc(m, sizeof(*op));
	op->def = d;
	op->code = (uint16_t)d->code;
	/* the registry's own spelling needs no copy; aliases and unknown ops do */
	if (d->code == IR_OP_UNKNOWN || strncmp(d->name, name, len) != 0 || d->name[len] != '\0')
		ir_op_extra(m, op)->name = ir_strdup(m, name, len);
	op->ngroups = (uint8_t)(d->ngroups ? d->ngroups : 1);
	return op;
}

struct ir_op *ir_op_new(struct ir_module *m, const char *name, size_t len)
{
	return ir_op_new_def(m, ir_opdef_by_name(name, len), name, len);
}

struct ir_op *ir_op_new_def(struct ir_module *m, const struct ir_opdef *d, const char *name,
			    size_t len)
{
	if (!d)
		return op_alloc(m, ir_opdef(IR_OP_UNKNOWN), name, len);
	if (len > 10 && memcmp(name, "cuda_tile.", 10) == 0)
		name += 10, len -= 10;
	return op_alloc(m, d, name, len);
}

struct ir_op *ir_op_new_code(struct ir_module *m, int code)
{
	const struct ir_opdef *d = ir_opdef(code);
	return op_alloc(m, d, d->name, strlen(d->name));
}

void ir_op_add_operand(struct ir_module *m, struct ir_op *op, uint32_t group, struct ir_value *v)
{
	if (group >= op->ngroups)
		group = op->ngroups - 1u;
	size_t pre = ir_op_group_prefix(op);
	op->operands = ir_grow_pow2(m, op->operands, op->noperands, sizeof(*op->operands), pre);
	uint32_t *sizes = pre ? (uint32_t *)(void *)((char *)op->operands - pre) : NULL;
	uint32_t pos = op->noperands;
	if (sizes) {
		pos = 0;
		for (uint32_t g = 0; g <= group; g++)
			pos += sizes[g];
		sizes[group]++;
	}
	memmove(op->operands + pos + 1, op->operands + pos,
		(op->noperands - pos) * sizeof(*op->operands));
	op->operands[pos] = v;
	op->noperands++;
}

static struct ir_value *value_new(struct ir_module *m, const struct ir_type *t)
{
	struct ir_value *v = ir_alloc(m, sizeof(*v));
	v->type = t;
	v->id = m->nvalues++;
	return v;
}

struct ir_value *ir_op_add_result(struct ir_module *m, struct ir_op *op, const struct ir_type *t)
{
	struct ir_value *v = value_new(m, t);
	v->owner_ = op;
	v->index = op->nresults;
	op->results = ir_grow_pow2(m, op->results, op->nresults, sizeof(*op->results), 0);
	op->results[op->nresults++] = v;
	return v;
}

void ir_op_set_attr(struct ir_module *m, struct ir_op *op, const char *name, const struct ir_attr *a)
{
	for (uint32_t i = 0; i < op->nattrs; i++)
		if (strcmp(op->attrs[i].name, name) == 0) {
			op->attrs[i].attr = a;
			return;
		}
	if (op->nattrs == IR_MAX_ATTRS)
		abort(); /* the readers refuse more first */
	op->attrs = ir_grow_pow2(m, op->attrs, op->nattrs, sizeof(*op->attrs), 0);
	/* the registry's attribute names live as long as the program */
	const struct ir_attr_def *d = ir_opdef_attr(op->def, name);
	op->attrs[op->nattrs].name = d ? d->name : ir_strdup(m, name, strlen(name));
	op->attrs[op->nattrs].attr = a;
	op->nattrs++;
}

struct ir_region *ir_op_add_region(struct ir_module *m, struct ir_op *op)
{
	struct ir_region *r = ir_alloc(m, sizeof(*r));
	r->parent = op;
	if (op->nregions == IR_MAX_REGIONS)
		abort(); /* the readers refuse more first */
	struct ir_op_extra *x = ir_op_extra(m, op);
	x->regions = ir_grow_pow2(m, x->regions, op->nregions, sizeof(*x->regions), 0);
	x->regions[op->nregions++] = r;
	return r;
}

struct ir_block *ir_region_add_block(struct ir_module *m, struct ir_region *r)
{
	struct ir_block *b = ir_alloc(m, sizeof(*b));
	b->parent = r;
	r->blocks = ir_grow(m, r->blocks, &r->blocks_cap, r->nblocks + 1, sizeof(*r->blocks));
	r->blocks[r->nblocks++] = b;
	return b;
}

struct ir_value *ir_block_add_arg(struct ir_module *m, struct ir_block *b, const struct ir_type *t)
{
	struct ir_value *v = value_new(m, t);
	v->owner_ = b;
	v->is_arg = 1;
	v->index = b->nargs;
	b->args = ir_grow(m, b->args, &b->args_cap, b->nargs + 1, sizeof(*b->args));
	b->args[b->nargs++] = v;
	return v;
}

static void op_placed(struct ir_module *m, struct ir_op *op);

void ir_block_append(struct ir_module *m, struct ir_block *b, struct ir_op *op)
{
	b->ops = ir_grow(m, b->ops, &b->ops_cap, b->nops + 1, sizeof(*b->ops));
	b->ops[b->nops++] = op;
	op_placed(m, op);
}

void ir_block_append_ops(struct ir_module *m, struct ir_block *b, struct ir_op *const *ops,
			 uint32_t n)
{
	if (!n)
		return;
	if (b->nops + n > b->ops_cap) {
		struct ir_op **q = ir_alloc(m, (size_t)(b->nops + n) * sizeof(*q));
		if (b->nops)
			memcpy(q, b->ops, b->nops * sizeof(*q));
		b->ops = q;
		b->ops_cap = b->nops + n;
	}
	for (uint32_t i = 0; i < n; i++) {
		b->ops[b->nops++] = ops[i];
		op_placed(m, ops[i]);
	}
}

/* Entry/global bookkeeping of an op just put into a block. */
static void op_placed(struct ir_module *m, struct ir_op *op)
{
	if (op->code == IR_OP_ENTRY) {
		m->entries = ir_grow(m, m->entries, &m->entries_cap, m->nentries + 1,
				     sizeof(*m->entries));
		m->entries[m->nentries++] = op;
	} else if (op->code == IR_OP_GLOBAL) {
		m->globals = ir_grow(m, m->globals, &m->globals_cap, m->nglobals + 1,
				     sizeof(*m->globals));
		m->globals[m->nglobals++] = op;
	}
}

void ir_op_finish(struct ir_module *m, struct ir_op *op)
{
	const struct ir_opdef *d = op->def;
	for (uint32_t i = 0; i < d->nattrs; i++) {
		const struct ir_attr_def *a = &d->attrs[i];
		if (a->deflt >= 0 && !ir_op_attr(op, a->name))
			ir_op_set_attr(m, op, a->name, ir_attr_enum(m, a->ekind, a->deflt));
	}
}

struct ir_op *ir_module_add_unit(struct ir_module *m, const char *name, const char *producer)
{
	struct ir_op *u = ir_op_new_code(m, IR_OP_MODULE);
	ir_op_set_attr(m, u, "sym_name", ir_attr_symbol(m, name ? name : "kernels"));
	if (producer)
		ir_op_set_attr(m, u, "producer", ir_attr_string(m, producer, strlen(producer)));
	ir_region_add_block(m, ir_op_add_region(m, u));
	ir_module_register_unit(m, u);
	return u;
}

void ir_module_register_unit(struct ir_module *m, struct ir_op *unit)
{
	m->units = ir_grow(m, m->units, &m->units_cap, m->nunits + 1, sizeof(*m->units));
	m->units[m->nunits++] = unit;
}

struct ir_block *ir_unit_body(const struct ir_op *unit)
{
	if (!unit || unit->nregions < 1 || ir_op_region(unit, 0)->nblocks < 1)
		return NULL;
	return ir_op_region(unit, 0)->blocks[0];
}

struct ir_block *ir_entry_body(const struct ir_op *entry)
{
	return ir_unit_body(entry);
}

struct ir_op *ir_unit_add_entry(struct ir_module *m, struct ir_op *unit, const char *name,
				const struct ir_type *fn_type, const struct ir_attr *hints)
{
	struct ir_op *e = ir_op_new_code(m, IR_OP_ENTRY);
	ir_op_set_attr(m, e, "sym_name", ir_attr_symbol(m, name));
	if (fn_type)
		ir_op_set_attr(m, e, "function_type", ir_attr_type(m, fn_type));
	if (hints)
		ir_op_set_attr(m, e, "optimization_hints", hints);
	struct ir_block *b = ir_region_add_block(m, ir_op_add_region(m, e));
	if (fn_type && fn_type->kind == IR_TY_FUNC)
		for (uint32_t i = 0; i < fn_type->nin; i++)
			ir_block_add_arg(m, b, fn_type->ins[i]);
	if (unit)
		ir_block_append(m, ir_unit_body(unit), e);
	return e;
}

struct ir_op *ir_unit_add_global(struct ir_module *m, struct ir_op *unit, const char *name,
				 const struct ir_attr *value, uint64_t alignment, bool is_private,
				 bool is_constant)
{
	struct ir_op *g = ir_op_new_code(m, IR_OP_GLOBAL);
	ir_op_set_attr(m, g, "sym_name", ir_attr_symbol(m, name));
	if (value)
		ir_op_set_attr(m, g, "value", value);
	ir_op_set_attr(m, g, "alignment", ir_attr_int(m, (int64_t)alignment, NULL));
	if (is_private)
		ir_op_set_attr(m, g, "sym_visibility", ir_attr_enum(m, IR_EN_VISIBILITY, 1));
	if (is_constant)
		ir_op_set_attr(m, g, "constant", ir_attr_unit(m));
	if (unit)
		ir_block_append(m, ir_unit_body(unit), g);
	return g;
}

const char *ir_symbol_name(const struct ir_op *op)
{
	const struct ir_attr *a = ir_op_attr(op, "sym_name");
	if (a && (a->kind == IR_ATTR_SYMBOL || a->kind == IR_ATTR_STRING))
		return a->str;
	return "";
}

const struct ir_op *ir_module_find_entry(const struct ir_module *m, const char *name)
{
	for (uint32_t i = 0; i < m->nentries; i++)
		if (strcmp(ir_symbol_name(m->entries[i]), name) == 0)
			return m->entries[i];
	return NULL;
}

/* ---- accessors ---- */

const struct ir_attr *ir_op_attr(const struct ir_op *op, const char *name)
{
	for (uint32_t i = 0; i < op->nattrs; i++)
		if (strcmp(op->attrs[i].name, name) == 0)
			return op->attrs[i].attr;
	return NULL;
}

bool ir_op_has(const struct ir_op *op, const char *name)
{
	return ir_op_attr(op, name) != NULL;
}

int64_t ir_op_attr_int(const struct ir_op *op, const char *name, int64_t dflt)
{
	const struct ir_attr *a = ir_op_attr(op, name);
	if (a && (a->kind == IR_ATTR_ENUM || a->kind == IR_ATTR_INT || a->kind == IR_ATTR_BOOL))
		return a->i;
	return dflt;
}

struct ir_value *const *ir_op_group(const struct ir_op *op, uint32_t group, uint32_t *n)
{
	if (group >= op->ngroups) {
		*n = 0;
		return NULL;
	}
	uint32_t pos = 0;
	for (uint32_t g = 0; g < group; g++)
		pos += ir_op_group_size(op, g);
	*n = ir_op_group_size(op, group);
	return *n ? op->operands + pos : NULL;
}

struct ir_value *ir_op_group_value(const struct ir_op *op, const char *group)
{
	int g = ir_opdef_group(op->def, group);
	if (g < 0)
		return NULL;
	uint32_t n;
	struct ir_value *const *v = ir_op_group(op, (uint32_t)g, &n);
	return n ? v[0] : NULL;
}

static bool walk(const struct ir_op *op, int depth, ir_walk_fn fn, void *ctx)
{
	if (!fn(op, depth, ctx))
		return true;
	for (uint32_t r = 0; r < op->nregions; r++)
		for (uint32_t b = 0; b < ir_op_region(op, r)->nblocks; b++) {
			const struct ir_block *blk = ir_op_region(op, r)->blocks[b];
			for (uint32_t i = 0; i < blk->nops; i++)
				walk(blk->ops[i], depth + 1, fn, ctx);
		}
	return true;
}

void ir_walk(const struct ir_op *op, ir_walk_fn fn, void *ctx)
{
	walk(op, 0, fn, ctx);
}
