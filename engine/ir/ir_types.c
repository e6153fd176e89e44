/* Types: constructors that intern per module (so that a type is one pointer
 * within a module), structural equality across modules, small queries. */
#include "engine/ir/ir.h"
#include "engine/ir/ir_internal.h"

#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h;
}

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

/* Children are interned in the same module, so their pointers identify them. */
static uint64_t type_hash(const struct ir_type *t)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	h = mix(h, (uint64_t)t->kind);
	h = mix(h, (uint64_t)t->elem);
	h = mix(h, (uint64_t)(uintptr_t)t->inner);
	h = mix(h, t->rank);
	if (t->rank)
		h = hash_bytes(h, t->shape, t->rank * sizeof(int64_t));
	h = mix(h, t->nstrides);
	if (t->nstrides)
		h = hash_bytes(h, t->strides, t->nstrides * sizeof(int64_t));
	h = mix(h, t->ndim_map);
	if (t->ndim_map)
		h = hash_bytes(h, t->dim_map, t->ndim_map * sizeof(int32_t));
	h = mix(h, (uint64_t)(int64_t)t->padding);
	h = mix(h, (uint64_t)t->sparse_dim);
	h = mix(h, t->nin);
	h = mix(h, t->nout);
	for (uint32_t i = 0; i < t->nin; i++)
		h = mix(h, (uint64_t)(uintptr_t)t->ins[i]);
	for (uint32_t i = 0; i < t->nout; i++)
		h = mix(h, (uint64_t)(uintptr_t)t->outs[i]);
	if (t->text)
		h = hash_bytes(h, t->text, strlen(t->text));
	return h;
}

static bool arr_eq(const void *a, const void *b, size_t n)
{
	return n == 0 || memcmp(a, b, n) == 0;
}

static bool same_local(const void *have, const void *proto)
{
	const struct ir_type *a = have, *b = proto;
	if (a->kind != b->kind || a->elem != b->elem || a->inner != b->inner ||
	    a->rank != b->rank || a->nstrides != b->nstrides || a->ndim_map != b->ndim_map ||
	    a->padding != b->padding || a->sparse_dim != b->sparse_dim || a->nin != b->nin ||
	    a->nout != b->nout)
		return false;
	if (!arr_eq(a->shape, b->shape, a->rank * sizeof(int64_t)) ||
	    !arr_eq(a->strides, b->strides, a->nstrides * sizeof(int64_t)) ||
	    !arr_eq(a->dim_map, b->dim_map, a->ndim_map * sizeof(int32_t)))
		return false;
	for (uint32_t i = 0; i < a->nin; i++)
		if (a->ins[i] != b->ins[i])
			return false;
	for (uint32_t i = 0; i < a->nout; i++)
		if (a->outs[i] != b->outs[i])
			return false;
	if ((a->text == NULL) != (b->text == NULL))
		return false;
	return !a->text || strcmp(a->text, b->text) == 0;
}

void ir_types_init(struct ir_module *m)
{
	struct ir_intern *set = xcalloc(1, sizeof(*set));
	ir_intern_init(set);
	m->types = set;
}

void ir_types_free(struct ir_module *m)
{
	struct ir_intern *set = m->types;
	if (set) {
		ir_intern_free(set);
		free(set);
	}
	m->types = NULL;
}

static const struct ir_type *intern(struct ir_module *m, const struct ir_type *proto)
{
	uint64_t h = type_hash(proto);
	const struct ir_type *have = ir_intern_find(m->types, h, proto, same_local);
	if (have)
		return have;
	struct ir_type *t = ir_alloc(m, sizeof(*t));
	*t = *proto;
	if (t->rank)
		t->shape = memcpy(ir_alloc(m, t->rank * sizeof(int64_t)), proto->shape,
				  t->rank * sizeof(int64_t));
	if (t->nstrides)
		t->strides = memcpy(ir_alloc(m, t->nstrides * sizeof(int64_t)), proto->strides,
				    t->nstrides * sizeof(int64_t));
	if (t->ndim_map)
		t->dim_map = memcpy(ir_alloc(m, t->ndim_map * sizeof(int32_t)), proto->dim_map,
				    t->ndim_map * sizeof(int32_t));
	if (t->nin)
		t->ins = memcpy(ir_alloc(m, t->nin * sizeof(*t->ins)), proto->ins,
				t->nin * sizeof(*t->ins));
	if (t->nout)
		t->outs = memcpy(ir_alloc(m, t->nout * sizeof(*t->outs)), proto->outs,
				 t->nout * sizeof(*t->outs));
	if (t->text)
		t->text = ir_strdup(m, proto->text, strlen(proto->text));
	ir_intern_add(m->types, h, t);
	return t;
}

static struct ir_type proto_of(enum ir_type_kind k)
{
	struct ir_type t;
	memset(&t, 0, sizeof(t));
	t.kind = k;
	t.padding = IR_PAD_ABSENT;
	return t;
}

const struct ir_type *ir_type_elem(struct ir_module *m, enum ir_elem e)
{
	struct ir_type t = proto_of(IR_TY_ELEM);
	t.elem = e;
	return intern(m, &t);
}

const struct ir_type *ir_type_ptr(struct ir_module *m, const struct ir_type *pointee)
{
	struct ir_type t = proto_of(IR_TY_PTR);
	t.inner = pointee;
	return intern(m, &t);
}

const struct ir_type *ir_type_tile(struct ir_module *m, const struct ir_type *elem, uint32_t rank,
				   const int64_t *dims)
{
	struct ir_type t = proto_of(IR_TY_TILE);
	t.inner = elem;
	t.rank = rank;
	t.shape = dims;
	return intern(m, &t);
}

const struct ir_type *ir_type_tensor_view(struct ir_module *m, const struct ir_type *elem,
					  uint32_t rank, const int64_t *shape, uint32_t nstrides,
					  const int64_t *strides)
{
	struct ir_type t = proto_of(IR_TY_TENSOR_VIEW);
	t.inner = elem;
	t.rank = rank;
	t.shape = shape;
	t.nstrides = nstrides;
	t.strides = strides;
	return intern(m, &t);
}

/* dim_map of a view: given, or the identity over the tile rank. */
static void set_dim_map(struct ir_type *t, uint32_t rank, uint32_t ndim_map,
			const int32_t *dim_map, int32_t *ident)
{
	if (ndim_map && dim_map) {
		t->ndim_map = ndim_map;
		t->dim_map = dim_map;
		return;
	}
	for (uint32_t i = 0; i < rank; i++)
		ident[i] = (int32_t)i;
	t->ndim_map = rank;
	t->dim_map = ident;
}

const struct ir_type *ir_type_partition_view(struct ir_module *m, uint32_t rank,
					     const int64_t *tile, const struct ir_type *tview,
					     uint32_t ndim_map, const int32_t *dim_map, int padding)
{
	struct ir_type t = proto_of(IR_TY_PARTITION_VIEW);
	int32_t *ident = ir_alloc(m, (rank ? rank : 1) * sizeof(int32_t));
	t.rank = rank;
	t.shape = tile;
	t.inner = tview;
	t.padding = padding;
	set_dim_map(&t, rank, ndim_map, dim_map, ident);
	return intern(m, &t);
}

const struct ir_type *ir_type_strided_view(struct ir_module *m, uint32_t rank, const int64_t *tile,
					   uint32_t nstrides, const int64_t *traversal_strides,
					   const struct ir_type *tview, uint32_t ndim_map,
					   const int32_t *dim_map, int padding)
{
	struct ir_type t = proto_of(IR_TY_STRIDED_VIEW);
	int32_t *ident = ir_alloc(m, (rank ? rank : 1) * sizeof(int32_t));
	t.rank = rank;
	t.shape = tile;
	t.nstrides = nstrides;
	t.strides = traversal_strides;
	t.inner = tview;
	t.padding = padding;
	set_dim_map(&t, rank, ndim_map, dim_map, ident);
	return intern(m, &t);
}

const struct ir_type *ir_type_gather_scatter_view(struct ir_module *m, uint32_t rank,
						  const int64_t *tile, const struct ir_type *tview,
						  int64_t sparse_dim, int padding)
{
	struct ir_type t = proto_of(IR_TY_GATHER_SCATTER_VIEW);
	t.rank = rank;
	t.shape = tile;
	t.inner = tview;
	t.sparse_dim = sparse_dim;
	t.padding = padding;
	return intern(m, &t);
}

const struct ir_type *ir_type_token(struct ir_module *m)
{
	struct ir_type t = proto_of(IR_TY_TOKEN);
	return intern(m, &t);
}

const struct ir_type *ir_type_func(struct ir_module *m, uint32_t nin,
				   const struct ir_type *const *ins, uint32_t nout,
				   const struct ir_type *const *outs)
{
	struct ir_type t = proto_of(IR_TY_FUNC);
	t.nin = nin;
	t.ins = ins;
	t.nout = nout;
	t.outs = outs;
	return intern(m, &t);
}

const struct ir_type *ir_type_opaque(struct ir_module *m, const char *text)
{
	struct ir_type t = proto_of(IR_TY_OPAQUE);
	t.text = text;
	return intern(m, &t);
}

bool ir_type_equal(const struct ir_type *a, const struct ir_type *b)
{
	if (a == b)
		return true;
	if (!a || !b)
		return false;
	if (a->kind != b->kind || a->elem != b->elem || a->rank != b->rank ||
	    a->nstrides != b->nstrides || a->ndim_map != b->ndim_map || a->padding != b->padding ||
	    a->sparse_dim != b->sparse_dim || a->nin != b->nin || a->nout != b->nout)
		return false;
	if (!arr_eq(a->shape, b->shape, a->rank * sizeof(int64_t)) ||
	    !arr_eq(a->strides, b->strides, a->nstrides * sizeof(int64_t)) ||
	    !arr_eq(a->dim_map, b->dim_map, a->ndim_map * sizeof(int32_t)))
		return false;
	if ((a->inner == NULL) != (b->inner == NULL) ||
	    (a->inner && !ir_type_equal(a->inner, b->inner)))
		return false;
	for (uint32_t i = 0; i < a->nin; i++)
		if (!ir_type_equal(a->ins[i], b->ins[i]))
			return false;
	for (uint32_t i = 0; i < a->nout; i++)
		if (!ir_type_equal(a->outs[i], b->outs[i]))
			return false;
	if ((a->text == NULL) != (b->text == NULL))
		return false;
	return !a->text || strcmp(a->text, b->text) == 0;
}

bool ir_dim_map_is_identity(const struct ir_type *v)
{
	for (uint32_t i = 0; i < v->ndim_map; i++)
		if (v->dim_map[i] != (int32_t)i)
			return false;
	return true;
}

enum ir_elem ir_type_elem_of(const struct ir_type *t)
{
	while (t) {
		switch (t->kind) {
		case IR_TY_ELEM:
			return t->elem;
		case IR_TY_PTR:
		case IR_TY_TILE:
		case IR_TY_TENSOR_VIEW:
			t = t->inner;
			break;
		default:
			return IR_ELEM_NONE;
		}
	}
	return IR_ELEM_NONE;
}

bool ir_type_is_ptr_tile(const struct ir_type *t)
{
	return t && t->kind == IR_TY_TILE && t->inner && t->inner->kind == IR_TY_PTR;
}
