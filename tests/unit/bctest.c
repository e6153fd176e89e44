#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "tests/unit/bctest.h"

#include <stdio.h>

#include "engine/base/files.h"
#include "engine/ir/ir.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

bool bct_roundtrip = true;

void bct_init(struct bct *t, unsigned minor, enum bcw_style style)
{
	memset(t, 0, sizeof(*t));
	t->minor = minor;
	t->w = bcw_new(minor, style);
	t->i1 = bcw_scalar(t->w, BC_TY_I1);
	t->i8 = bcw_scalar(t->w, BC_TY_I8);
	t->i16 = bcw_scalar(t->w, BC_TY_I16);
	t->i32 = bcw_scalar(t->w, BC_TY_I32);
	t->i64 = bcw_scalar(t->w, BC_TY_I64);
	t->f16 = bcw_scalar(t->w, BC_TY_F16);
	t->f32 = bcw_scalar(t->w, BC_TY_F32);
	t->f64 = bcw_scalar(t->w, BC_TY_F64);
	t->token = bcw_scalar(t->w, BC_TY_TOKEN);
	t->t_i1 = bct_tile(t, t->i1, 0);
	t->t_i32 = bct_tile(t, t->i32, 0);
	t->t_i64 = bct_tile(t, t->i64, 0);
	t->t_f32 = bct_tile(t, t->f32, 0);
	t->t_4f32 = bct_tile(t, t->f32, 1, 4);
	t->t_4i32 = bct_tile(t, t->i32, 1, 4);
	t->t_4i1 = bct_tile(t, t->i1, 1, 4);
	t->t_2x2f32 = bct_tile(t, t->f32, 2, 2, 2);
	t->p_f32 = bcw_ptr(t->w, t->f32);
	t->t_p_f32 = bct_tile(t, t->p_f32, 0);
	t->t_4p_f32 = bct_tile(t, t->p_f32, 1, 4);
}

uint32_t bct_arg(struct bct *t, uint32_t ty)
{
	t->args[t->nargs] = ty;
	return t->nargs++;
}

uint32_t bct_tile(struct bct *t, uint32_t elem, unsigned rank, ...)
{
	int64_t dims[8];
	va_list ap;
	va_start(ap, rank);
	for (unsigned i = 0; i < rank && i < 8; i++)
		dims[i] = va_arg(ap, int);
	va_end(ap);
	return bcw_tile(t->w, elem, rank, dims);
}

void bct_bytes(struct bct *t, struct sbuf *file)
{
	uint32_t sig = bcw_func_type(t->w, t->nargs, t->args, 0, NULL);
	bcw_func(t->w, "k", sig, 0, t->hints.len ? &t->hints : NULL, &t->body);
	bcw_finish(t->w, file);
	bcw_free(t->w);
	t->w = NULL;
	sb_free(&t->body);
	sb_free(&t->hints);
}

/* With TILEPORT_BC_CORPUS=DIR, every file that decodes is also saved there
 * (how tests/fuzz/corpus/bytecode was made). */
static void save_to_corpus(const void *buf, size_t len)
{
	const char *dir = getenv("TILEPORT_BC_CORPUS");
	if (!dir || !*dir || !bct_roundtrip)
		return;
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++)
		h = (h ^ ((const uint8_t *)buf)[i]) * 1099511628211ull;
	char *path = xasprintf("%s/%016llx.tileirbc", dir, (unsigned long long)h);
	write_file(path, buf, len, NULL);
	free(path);
}

/* print -> parse -> equal module, and the parsed module prints the same */
static bool roundtrip_holds(const struct ir_module *m, const char *text)
{
	struct tp_err perr = {0};
	struct ir_module *back = ir_text_parse("test.mlir", text, strlen(text), &perr);
	if (!back) {
		print_error("the printed text does not parse: %s\n%s", perr.msg, text);
		return false;
	}
	bool equal = ir_module_equal(m, back);
	if (!equal)
		print_error("the printed text parses into a different module:\n%s", text);
	char *again = ir_module_to_string(back, 0);
	bool same = strcmp(again, text) == 0;
	if (!same)
		print_error("the parsed text prints differently\n--- first\n%s--- again\n%s---\n",
			    text, again);
	free(again);
	ir_module_free(back);
	return equal && same;
}

char *bct_print(const struct bc_module *bm)
{
	struct ir_module *m = ir_from_bytecode(bm, "test.tileirbc");
	char *text = ir_module_to_string(m, 0);
	bool ok = !bct_roundtrip || roundtrip_holds(m, text);
	ir_module_free(m);
	if (!ok) {
		free(text);
		fail_msg("the model printer's text does not read back");
	}
	return text;
}

char *bct_text(const void *buf, size_t len, struct tp_err *err)
{
	struct bc_module *bm = bc_decode(buf, len, "test.tileirbc", err);
	if (!bm)
		return NULL;
	save_to_corpus(buf, len);
	char *text = bct_print(bm);
	bc_module_free(bm);
	return text;
}

char *bct_body(struct bct *t)
{
	struct sbuf file = SBUF_INIT;
	struct tp_err err = {0};
	bct_bytes(t, &file);
	char *text = bct_text(file.buf, file.len, &err);
	sb_free(&file);
	if (!text)
		return xasprintf("ERROR: %s", err.msg);
	/* keep the lines between "  entry @k(...) {" and "  }"; around them
	 * only the module line, globals and the closing braces may appear */
	struct sbuf body = SBUF_INIT;
	char *p = strstr(text, "\n  entry @k(");
	p = p ? strchr(p + 1, '\n') : NULL;
	bool framed = p && str_starts(text, "cuda_tile.module @kernels ");
	while (p && p[1]) {
		char *line = p + 1;
		char *eol = strchr(line, '\n');
		if (!eol || strncmp(line, "  }\n", 4) == 0) {
			framed = framed && eol && strcmp(line, "  }\n}\n") == 0;
			break;
		}
		if (strncmp(line, "    ", 4) == 0)
			line += 4;
		else
			framed = false;
		sb_add(&body, line, (size_t)(eol - line) + 1);
		p = eol;
	}
	if (!framed) {
		sb_free(&body);
		return text; /* the whole text, so that the comparison fails and shows it */
	}
	free(text);
	return sb_detach(&body);
}

char *bct_error(const void *buf, size_t len)
{
	struct tp_err err = {0};
	char *text = bct_text(buf, len, &err);
	if (text) {
		free(text);
		return xstrdup("OK");
	}
	return xstrdup(err.msg);
}
