/* The set behind a module's interned types and attributes: open addressing
 * over (hash, pointer) pairs, grown at half full. The hash is kept so that
 * a probe compares it before the caller's equality, and growing needs no
 * hashing again. The objects themselves live in the module's arena. */
#include "engine/ir/ir_internal.h"

#include <stdlib.h>

void ir_intern_init(struct ir_intern *s)
{
	s->cap = 64;
	s->n = 0;
	s->slots = xcalloc(s->cap, sizeof(*s->slots));
}

void ir_intern_free(struct ir_intern *s)
{
	free(s->slots);
	s->slots = NULL;
	s->cap = s->n = 0;
}

const void *ir_intern_find(const struct ir_intern *s, uint64_t h, const void *proto,
			   bool (*same)(const void *have, const void *proto))
{
	for (size_t i = h & (s->cap - 1); s->slots[i].obj; i = (i + 1) & (s->cap - 1))
		if (s->slots[i].hash == h && same(s->slots[i].obj, proto))
			return s->slots[i].obj;
	return NULL;
}

static void put(struct ir_intern *s, uint64_t h, const void *obj)
{
	size_t i = h & (s->cap - 1);
	while (s->slots[i].obj)
		i = (i + 1) & (s->cap - 1);
	s->slots[i].hash = h;
	s->slots[i].obj = obj;
	s->n++;
}

void ir_intern_add(struct ir_intern *s, uint64_t h, const void *obj)
{
	if ((s->n + 1) * 2 > s->cap) {
		struct ir_intern big = {s->cap * 2, 0, xcalloc(s->cap * 2, sizeof(*s->slots))};
		for (size_t k = 0; k < s->cap; k++)
			if (s->slots[k].obj)
				put(&big, s->slots[k].hash, s->slots[k].obj);
		free(s->slots);
		*s = big;
	}
	put(s, h, obj);
}
