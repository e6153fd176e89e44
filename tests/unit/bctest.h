/* Helpers for the bytecode tests: a kernel builder over the bytecode
 * writer, decoding to canonical text through the shared model's printer
 * (ir_from_bytecode + ir_module_to_string), and the body of the printed
 * entry. */
#ifndef TILEPORT_TESTS_BCTEST_H
#define TILEPORT_TESTS_BCTEST_H

#include "engine/ir/bytecode.h"

/* A file with one entry `k` whose body the test appends op by op. */
struct bct {
	struct bc_writer *w;
	unsigned minor;
	struct sbuf body;
	struct sbuf hints;      /* tagged hints of the entry, empty = none */
	uint32_t nargs;
	uint32_t args[32];
	/* common types, registered in this order by bct_init */
	uint32_t i1, i8, i16, i32, i64, f16, f32, f64, token;
	uint32_t t_i1, t_i32, t_i64, t_f32, t_4f32, t_4i32, t_4i1, t_2x2f32;
	uint32_t p_f32, t_p_f32, t_4p_f32;
};

void bct_init(struct bct *t, unsigned minor, enum bcw_style style);
/* Add an entry argument of type ty; returns its value index. */
uint32_t bct_arg(struct bct *t, uint32_t ty);
uint32_t bct_tile(struct bct *t, uint32_t elem, unsigned rank, ...); /* dims as int */
/* Finish the file (entry `k` with the body so far) and free the builder. */
void bct_bytes(struct bct *t, struct sbuf *file);
/* Printing also requires the round trip: the text parses back into a module
 * equal to the decoded one, which prints to the same text. Off for
 * deliberately corrupted files (they decode to tables the verifier would
 * refuse, which the text parser need not accept). */
extern bool bct_roundtrip;
/* A decoded module as the model printer prints it (malloc'd), round trip
 * checked as above. */
char *bct_print(const struct bc_module *bm);
/* Decode and print: malloc'd text, or NULL with the message in err. */
char *bct_text(const void *buf, size_t len, struct tp_err *err);
/* Build, decode, print; returns the entry body lines without their 4-space
 * indent (malloc'd), or "ERROR: message" when decoding fails. */
char *bct_body(struct bct *t);
/* Only the error message (or "OK" when the file decodes). */
char *bct_error(const void *buf, size_t len);

#endif
