/* Private to engine/ir: helpers shared by the model, parser and printer. */
#ifndef TILEPORT_IR_INTERNAL_H
#define TILEPORT_IR_INTERNAL_H

#include "engine/ir/ir.h"

/* Grow an arena array to hold `need` elements (old storage stays in the arena). */
void *ir_grow(struct ir_module *m, void *p, uint32_t *cap, uint32_t need, size_t size);
/* Same for an op's arrays, whose capacity is implied by their count;
 * `pre` bytes before the array move with it. */
void *ir_grow_pow2(struct ir_module *m, void *arr, uint32_t n, size_t size, size_t pre);
size_t ir_module_arena_bytes(const struct ir_module *m);
/* ir_op_new when the caller has looked the name up already (d NULL: unknown). */
struct ir_op *ir_op_new_def(struct ir_module *m, const struct ir_opdef *d, const char *name,
			    size_t len);
/* The op's rarely used parts, allocated on first use. */
struct ir_op_extra *ir_op_extra(struct ir_module *m, struct ir_op *op);

/* Add a "module" op made elsewhere (generic form) to the module's units. */
void ir_module_register_unit(struct ir_module *m, struct ir_op *unit);

/* A module's interned objects of one kind (ir_intern.c). */
struct ir_intern {
	size_t cap, n;
	struct {
		uint64_t hash;
		const void *obj;
	} *slots;
};
void ir_intern_init(struct ir_intern *s);
void ir_intern_free(struct ir_intern *s);
/* The object with hash h that same() finds equal to proto, or NULL. */
const void *ir_intern_find(const struct ir_intern *s, uint64_t h, const void *proto,
			   bool (*same)(const void *have, const void *proto));
/* Add obj (not in the set yet) under hash h. */
void ir_intern_add(struct ir_intern *s, uint64_t h, const void *obj);

void ir_types_init(struct ir_module *m);
void ir_types_free(struct ir_module *m);
void ir_attrs_init(struct ir_module *m);
void ir_attrs_free(struct ir_module *m);

/* Printing pieces (ir_print_type.c). */
void ir_print_type(struct sbuf *sb, const struct ir_type *t);
/* An attribute as it appears in custom op syntax for a given spec. */
void ir_print_attr(struct sbuf *sb, const struct ir_attr *a);
/* Dense data "<f32: ...>" without the trailing type. */
void ir_print_dense(struct sbuf *sb, const struct ir_attr *a);
/* "@name", or @"..." when the name is not an identifier. */
void ir_print_symbol(struct sbuf *sb, const char *name);
/* "\"...\"" with LLVM escaping. */
void ir_print_string(struct sbuf *sb, const char *s, size_t len);
/* Is this attribute the registry default of `def` (so the printer elides it)? */
bool ir_attr_is_default(const struct ir_attr_def *def, const struct ir_attr *a);

/* Name hint of a value per §10.2 (NULL when its producer has no name support). */
const char *ir_value_hint(const struct ir_value *v, char *buf, size_t cap);

/* The definition list of an op's results: "%a, %b:2". */
void ir_names_results(const struct ir_names *n, const struct ir_op *op, struct sbuf *sb);
/* Attributes in generic syntax ("{a = 1, b}"), types as "(A, B) -> C". */
void ir_print_attr_generic(struct sbuf *sb, const struct ir_attr *a);

/* Does the printer leave out `last`, the final op of a block of `owner`
 * (an empty continue of for/loop, an empty yield of if)? */
bool ir_print_elides(const struct ir_op *owner, const struct ir_op *last);

/* Build the registry and the op templates now (each once per process), so
 * that threads started afterwards only read them. */
void ir_text_parse_prepare(void);

/* The text parser on a buffer with a NUL at buf[len], parsed in place. */
struct ir_module *ir_text_parse_terminated(const char *path, const char *buf, size_t len,
					   struct tp_err *err);
/* The same on a buffer the caller owns and will only free afterwards: the
 * parser gives back the pages of text it is done with (their bytes are
 * gone once it returns). */
struct ir_module *ir_text_parse_consume(const char *path, char *buf, size_t len,
					struct tp_err *err);

#endif
