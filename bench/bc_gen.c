/* Generates a large Tile IR bytecode file with the test writer
 * (engine/ir/bc_write.c) for bench/bytecode.sh: N softmax-style entries as
 * cuTile Python emits them (assumes, views, a row loop with loads, two
 * reductions, exp, stores, debug locations), bytecode 13.3.
 *   bc_gen OUT N */
#include <stdio.h>
#include <stdlib.h>

#include "engine/base/files.h"
#include "engine/ir/bytecode.h"

struct gen {
	struct bc_writer *w;
	struct sbuf body;
	uint32_t v;          /* next value index */
	uint32_t nlocs;
	uint64_t locs[128];
	uint32_t line_attr;  /* subprogram for DILoc scopes */
	uint32_t file_str;
};

static void loc(struct gen *g, unsigned line)
{
	g->locs[g->nlocs++] = bcw_debug_attr(g->w, 4, BCW_LIST(g->line_attr, g->file_str, line, 4), 4);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: bc_gen OUT N\n");
		return 2;
	}
	long n = atol(argv[2]);
	struct gen g = {.w = bcw_new(3, BCW_PYTHON)};
	struct bc_writer *w = g.w;
	uint32_t f32 = bcw_scalar(w, BC_TY_F32), i32 = bcw_scalar(w, BC_TY_I32);
	uint32_t tok = bcw_scalar(w, BC_TY_TOKEN);
	uint32_t pf32 = bcw_ptr(w, f32);
	uint32_t t_pf32 = bcw_tile(w, pf32, 0, NULL), t_i32 = bcw_tile(w, i32, 0, NULL);
	uint32_t t_f32 = bcw_tile(w, f32, 0, NULL);
	uint32_t t1x16 = bcw_tile(w, f32, 2, (const int64_t[]){1, 16});
	uint32_t t1 = bcw_tile(w, f32, 1, (const int64_t[]){1});
	uint32_t t11 = bcw_tile(w, f32, 2, (const int64_t[]){1, 1});
	uint32_t tv = bcw_tensor_view(w, f32, 2, (const int64_t[]){BC_DYNAMIC, 16},
				      (const int64_t[]){16, 1});
	uint32_t pv = bcw_partition_view(w, 2, (const int32_t[]){1, 16}, tv, NULL, -1);
	uint32_t args[4] = {t_pf32, t_pf32, t_i32, t_i32};
	uint32_t sig = bcw_func_type(w, 4, args, 0, NULL);
	uint8_t c16[4] = {16, 0, 0, 0}, c0[4] = {0, 0, 0, 0};
	uint32_t k16 = bcw_constant(w, c16, 4), k0 = bcw_constant(w, c0, 4);
	uint32_t s_arch = bcw_string(w, "sm_100"), s_tma = bcw_string(w, "allow_tma");
	uint32_t s_lat = bcw_string(w, "latency");
	g.file_str = bcw_string(w, "softmax.py");
	uint32_t file = bcw_debug_attr(w, 2, BCW_LIST(g.file_str, bcw_string(w, "/src")), 2);
	uint32_t cu = bcw_debug_attr(w, 1, BCW_LIST(file), 1);
	for (long e = 0; e < n; e++) {
		char name[32];
		snprintf(name, sizeof(name), "softmax_%ld", e);
		uint32_t sname = bcw_string(w, name);
		g.line_attr = bcw_debug_attr(w, 5, BCW_LIST(file, 10, sname, sname, cu, 10), 6);
		g.nlocs = 0;
		g.locs[g.nlocs++] = g.line_attr;
		struct sbuf *b = &g.body;
		g.v = 4;
		uint32_t token = g.v++;
		BCW_V(b, 0x44, tok); loc(&g, 11);
		uint32_t a0 = g.v++;
		BCW_V(b, 0x06, t_pf32, 8, 16, 0, 0); loc(&g, 11);
		uint32_t a1 = g.v++;
		BCW_V(b, 0x06, t_pf32, 8, 16, 0, 1); loc(&g, 11);
		uint32_t rows = g.v++;
		BCW_V(b, 0x06, t_i32, 12, 1, 0, 2); loc(&g, 11);
		uint32_t tin = g.v++;
		BCW_V(b, 0x43, 1, tv, a0, 1, rows, 0); loc(&g, 12);
		uint32_t tout = g.v++;
		BCW_V(b, 0x43, 1, tv, a1, 1, rows, 0); loc(&g, 13);
		uint32_t cst16 = g.v++;
		BCW_V(b, 0x10, t_i32, k16); loc(&g, 14);
		uint32_t cst0 = g.v++;
		BCW_V(b, 0x10, t_i32, k0); loc(&g, 14);
		uint32_t bx = g.v;
		g.v += 3;
		BCW_V(b, 0x30, t_i32, t_i32, t_i32); loc(&g, 15);
		uint32_t gx = g.v;
		g.v += 3;
		BCW_V(b, 0x2E, t_i32, t_i32, t_i32); loc(&g, 15);
		/* for %iv in (bx to rows step gx): 1 region, 1 block, 1 arg, 14 ops */
		BCW_V(b, 0x29, 0, 0, 3, bx, rows, gx, 1, 1, 1, t_i32, 14); loc(&g, 16);
		uint32_t v = g.v, iv = v++;
		uint32_t pin = v++;
		BCW_V(b, 0x42, pv, tin); loc(&g, 17);
		uint32_t tile = v++;
		v++;
		BCW_V(b, 0x3E, 2, t1x16, tok, 6, 0, 1, s_arch, 10, 2, s_tma, 3, 0, s_lat, 1, i32, 3,
		      pin, 2, iv, cst0, token); loc(&g, 17);
		/* reduce max, identity -inf */
		BCW_V(b, 0x58, 1, t1, 1, 1, 2, f32);
		bcw_svarint(b, 0xFF800000);
		BCW_V(b, 1, tile, 1, 1, 2, t_f32, t_f32, 2, 0x45, t_f32, 1, v, v + 1, 0x6D, 0, 1, v + 2);
		loc(&g, 18); loc(&g, 18); loc(&g, 18);
		uint32_t mx = v++;
		uint32_t rs = v++;
		BCW_V(b, 0x5B, t11, mx); loc(&g, 18);
		uint32_t bc = v++;
		BCW_V(b, 0x0B, t1x16, rs); loc(&g, 18);
		uint32_t sub = v++;
		BCW_V(b, 0x67, t1x16, 0, 0, tile, bc); loc(&g, 19);
		uint32_t ex = v++;
		BCW_V(b, 0x17, t1x16, 5, sub); loc(&g, 19);
		BCW_V(b, 0x58, 1, t1, 1, 1, 2, f32, 0, 1, ex, 1, 1, 2, t_f32, t_f32, 2, 0x02, t_f32, 0, 0,
		      v, v + 1, 0x6D, 0, 1, v + 2);
		loc(&g, 20); loc(&g, 20); loc(&g, 20);
		uint32_t sum = v++;
		uint32_t rs2 = v++;
		BCW_V(b, 0x5B, t11, sum); loc(&g, 20);
		uint32_t bc2 = v++;
		BCW_V(b, 0x0B, t1x16, rs2); loc(&g, 20);
		uint32_t dv = v++;
		BCW_V(b, 0x14, t1x16, 0, 0, ex, bc2); loc(&g, 21);
		uint32_t pout = v++;
		BCW_V(b, 0x42, pv, tout); loc(&g, 22);
		v++;
		BCW_V(b, 0x66, 1, tok, 4, 0, dv, pout, 2, iv, cst0, token); loc(&g, 22);
		BCW_V(b, 0x11, 0, 0); loc(&g, 16);
		BCW_V(b, 0x5C, 0, 0); loc(&g, 23);
		(void)cst16;
		uint32_t list = bcw_debug_list(w, g.nlocs, g.locs);
		bcw_func(w, name, sig, list, NULL, b);
		sb_reset(b);
	}
	struct sbuf out = SBUF_INIT;
	bcw_finish(w, &out);
	struct tp_err err;
	tp_err_clear(&err);
	int rc = write_file(argv[1], out.buf, out.len, &err);
	if (rc < 0)
		fprintf(stderr, "bc_gen: %s\n", err.msg);
	sb_free(&out);
	sb_free(&g.body);
	bcw_free(w);
	return rc < 0 ? 1 : 0;
}
