/* engine/compile without cargo: reading cargo's and the lowering program's
 * lines, the entries of a kernel file, the specialisations and their
 * defaults, the workspace's dependencies, the scratch lib.rs, and the
 * report's round trip. The real compiler runs in
 * tests/integration/compile.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "engine/compile/compile_int.h"
#include "tests/unit/testutil.h"

static const char e0308[] =
	"{\"reason\":\"compiler-message\",\"package_id\":\"path+file:///c#tileport-check@0.0.0\","
	"\"manifest_path\":\"/c/Cargo.toml\",\"message\":{\"rendered\":\"error[E0308]: mismatched "
	"types\\n --> /r/kernel.rs:24:68\\n\",\"code\":{\"code\":\"E0308\",\"explanation\":\"..\"},"
	"\"level\":\"error\",\"message\":\"mismatched types\",\"spans\":[{\"file_name\":\"/r/kernel.rs\","
	"\"line_start\":24,\"column_start\":68,\"is_primary\":false},{\"file_name\":\"<cutile macros>\","
	"\"line_start\":1,\"column_start\":1,\"is_primary\":true,\"expansion\":{\"span\":{\"file_name\":"
	"\"/r/kernel.rs\",\"line_start\":30,\"column_start\":9,\"is_primary\":true}}}]}}";

static void cargo_error_at_the_macro_call_site(void **state)
{
	(void)state;
	struct compile_finding f;
	assert_int_equal(compile_parse_cargo_line(e0308, strlen(e0308), "/c/Cargo.toml", &f), 1);
	assert_true(f.error);
	assert_string_equal(f.code, "E0308");
	assert_string_equal(f.message, "mismatched types");
	/* the primary span is macro-generated: its expansion's call site counts */
	assert_string_equal(f.file, "/r/kernel.rs");
	assert_int_equal(f.line, 30);
	assert_int_equal(f.col, 9);
	assert_non_null(strstr(f.rendered, "--> /r/kernel.rs:24:68"));
	compile_finding_free(&f);
	/* another package's messages (a patched dependency's warnings) are not ours */
	assert_int_equal(compile_parse_cargo_line(e0308, strlen(e0308), "/other/Cargo.toml", &f), 0);
}

static void cargo_summaries_and_other_lines_are_skipped(void **state)
{
	(void)state;
	struct compile_finding f;
	const char *sum = "{\"reason\":\"compiler-message\",\"message\":{\"level\":\"error\",\"message\":"
			  "\"aborting due to 2 previous errors\",\"spans\":[]}}";
	assert_int_equal(compile_parse_cargo_line(sum, strlen(sum), NULL, &f), 0);
	const char *warns = "{\"reason\":\"compiler-message\",\"message\":{\"level\":\"warning\","
			    "\"message\":\"3 warnings emitted\",\"spans\":[]}}";
	assert_int_equal(compile_parse_cargo_line(warns, strlen(warns), NULL, &f), 0);
	const char *art = "{\"reason\":\"compiler-artifact\",\"target\":{}}";
	assert_int_equal(compile_parse_cargo_line(art, strlen(art), NULL, &f), 0);
	const char *note = "{\"reason\":\"compiler-message\",\"message\":{\"level\":\"note\","
			   "\"message\":\"x\",\"spans\":[]}}";
	assert_int_equal(compile_parse_cargo_line(note, strlen(note), NULL, &f), 0);
	assert_int_equal(compile_parse_cargo_line("   Compiling x", 14, NULL, &f), -1);
	/* wrong types everywhere: survived, nothing taken */
	const char *odd = "{\"reason\":\"compiler-message\",\"message\":{\"level\":3,\"message\":[]}}";
	assert_int_equal(compile_parse_cargo_line(odd, strlen(odd), NULL, &f), 0);
	/* a message without a place (a lint at the crate) is still a finding */
	const char *noplace = "{\"reason\":\"compiler-message\",\"message\":{\"level\":\"error\","
			      "\"message\":\"linking failed\",\"code\":null,\"spans\":[]}}";
	assert_int_equal(compile_parse_cargo_line(noplace, strlen(noplace), NULL, &f), 1);
	assert_null(f.file);
	assert_string_equal(f.code, "");
	compile_finding_free(&f);
}

static void lower_lines(void **state)
{
	(void)state;
	char *id;
	int64_t ms;
	struct compile_finding f;
	const char *ok = "{\"id\":\"generated\",\"ok\":true,\"ms\":412}";
	assert_int_equal(compile_parse_lower_line(ok, strlen(ok), &id, &ms, &f), 1);
	assert_string_equal(id, "generated");
	assert_int_equal(ms, 412);
	free(id);
	const char *bad = "{\"id\":\"generated_f32\",\"ok\":false,\"ms\":3,\"error\":\"let bindings must "
			  "have an initializer expression\\n  --> k.rs:15:8\",\"file\":\"/r/k.rs\","
			  "\"line\":15,\"column\":9}";
	assert_int_equal(compile_parse_lower_line(bad, strlen(bad), &id, &ms, &f), 0);
	assert_string_equal(f.message, "let bindings must have an initializer expression");
	assert_int_equal(f.phase, PHASE_LOWER);
	assert_int_equal(f.line, 15);
	assert_int_equal(f.col, 9);
	free(id);
	compile_finding_free(&f);
	assert_int_equal(compile_parse_lower_line("{\"ok\":true}", 11, &id, &ms, &f), -1);
	assert_null(id);
}

static const char kernel[] =
	"// a comment with #[cutile::entry] in it\n"
	"#[cutile::module]\n"
	"pub mod k_module {\n"
	"    use cutile::core::*;\n"
	"    const S: &str = \"#[cutile::entry] fn fake() {}\";\n"
	"    #[cutile::entry(optimization_hints = (sm_100 = (occupancy = 2,),))]\n"
	"    pub unsafe fn first<'a, E: ElementType, const BM: i32, const FLAG: bool>(\n"
	"        out: &Tensor<E, { [-1, -1] }>,\n"
	"        x: &Tensor<E, { [BM, -1, 4] }>,\n"
	"        p: *mut E,\n"
	"        n: i32,\n"
	"        eps: f32,\n"
	"        part: Partition<'a, E, { [BM] }>,\n"
	"    ) {\n"
	"        let c = '\\n'; /* nested /* comment */ */\n"
	"    }\n"
	"    #[cutile::entry()]\n"
	"    pub fn second(y: &mut Tensor<f32, { [-1] }>) {}\n"
	"}\n";

static void signatures(void **state)
{
	(void)state;
	struct rs_sig *s;
	size_t n;
	struct tp_err err = {0};
	assert_int_equal(rs_sigs_read("k.rs", kernel, strlen(kernel), &s, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(s[0].module, "k_module");
	assert_string_equal(s[0].name, "first");
	assert_int_equal(s[0].line, 7);
	assert_int_equal(s[0].ngen, 3); /* the lifetime is not a generic argument */
	assert_int_equal(s[0].gen[0].kind, RSG_TYPE);
	assert_string_equal(s[0].gen[1].name, "BM");
	assert_string_equal(s[0].gen[2].type, "bool");
	assert_int_equal(s[0].npar, 6);
	assert_int_equal(s[0].par[0].kind, RSP_TENSOR);
	assert_int_equal(s[0].par[0].rank, 2);
	assert_int_equal(s[0].par[1].rank, 3);
	assert_int_equal(s[0].par[2].kind, RSP_PTR);
	assert_int_equal(s[0].par[3].kind, RSP_SCALAR);
	assert_int_equal(s[0].par[4].kind, RSP_SCALAR);
	assert_int_equal(s[0].par[5].kind, RSP_OTHER);
	assert_string_equal(s[1].name, "second");
	assert_int_equal(s[1].ngen, 0);
	assert_int_equal(s[1].par[0].kind, RSP_TENSOR);
	assert_int_equal(s[1].par[0].rank, 1);
	rs_sigs_free(s, n);
}

static void signatures_of_bad_input(void **state)
{
	(void)state;
	struct rs_sig *s;
	size_t n;
	struct tp_err err = {0};
	const char *plain = "fn main() {}\n";
	assert_int_equal(rs_sigs_read("p.rs", plain, strlen(plain), &s, &n, &err), -1);
	assert_int_equal(err.code, TP_EXIT_USAGE);
	assert_string_equal(err.msg, "p.rs:1:1: expected a #[cutile::module] with a body");
	const char *open = "#[cutile::module]\nmod m {\n  let s = \"never closed\n";
	assert_int_equal(rs_sigs_read("o.rs", open, strlen(open), &s, &n, &err), -1);
	assert_string_equal(err.msg, "o.rs:3:11: expected the end of this literal or comment");
	const char *noparams = "#[cutile::module]\nmod m {\n  #[cutile::entry()]\n  fn f<T>;\n}\n";
	assert_int_equal(rs_sigs_read("n.rs", noparams, strlen(noparams), &s, &n, &err), -1);
	assert_string_equal(err.msg, "n.rs:4:6: expected the parameters of f");
}

static void specialisation_defaults_and_analysis(void **state)
{
	struct rs_sig *s;
	size_t n, ns;
	struct tp_err err = {0};
	assert_int_equal(rs_sigs_read("k.rs", kernel, strlen(kernel), &s, &n, &err), 0);
	struct compile_spec *sp;
	/* no analysis: one dtype, the defaults, said so */
	assert_int_equal(compile_specs_for(s, 1, NULL, NULL, NULL, &sp, &ns, &err), 0);
	assert_int_equal(ns, 1);
	char *g = strv_join(sp[0].generics, ",");
	assert_string_equal(g, "f16,64,false");
	free(g);
	assert_string_equal(sp[0].label, "generated");
	assert_true(sp[0].primary);
	assert_int_equal(sp[0].ntensors, 2);
	assert_int_equal(sp[0].tensors[0].strides[0], 1024);
	assert_int_equal(sp[0].tensors[0].strides[1], 1);
	/* a shape nobody gave: strides only, no divisibility assumed */
	assert_true(sp[0].tensors[0].shape[0] < 0);
	assert_non_null(strstr(sp[0].why, "default const generics"));
	assert_non_null(strstr(sp[0].why, "no divisibility assumed"));
	char *sc = strv_join(sp[0].scalars, ";");
	assert_string_equal(sc, "p=16"); /* the pointer's alignment; n's value is unknown */
	free(sc);
	compile_specs_free(sp, ns);
	/* the analysis names a specialisation and the dtypes */
	char *an = tu_write(*state, "analysis.json",
			    "{\"launch\": {\"dtypes\": [\"bf16\", \"f32\"]},\n"
			    " \"kernel_variants\": [{\"rust_entry\": \"first\", \"variant_name\": \"a\","
			    " \"constants\": [{\"name\": \"FLAG\", \"value\": \"flag = True\"}]},"
			    " {\"rust_entry\": \"second\", \"variant_name\": \"b\"}],\n"
			    " \"specializations\": [{\"entry\": \"first\", \"dtype\": \"bf16\","
			    " \"generics\": {\"BM\": 128}, \"tensors\": {\"out\": {\"shape\": [4096, 512]}},"
			    " \"scalars\": {\"n\": 4096}}]}\n");
	assert_int_equal(compile_specs_for(s, n, an, NULL, NULL, &sp, &ns, &err), 0);
	assert_int_equal(ns, 4);
	g = strv_join(sp[0].generics, ",");
	assert_string_equal(g, "bf16,128,true");
	free(g);
	assert_string_equal(sp[0].label, "generated_a");
	assert_string_equal(sp[1].label, "supplements/generated_a_f32");
	assert_string_equal(sp[2].label, "generated_b");
	assert_int_equal(sp[0].tensors[0].shape[1], 512);
	assert_int_equal(sp[0].tensors[0].strides[0], 512);
	sc = strv_join(sp[0].scalars, ";");
	assert_string_equal(sc, "p=16;n=4096");
	free(sc);
	compile_specs_free(sp, ns);
	/* --generics: for one entry, and the wrong count refused */
	char *ov[] = {"first=f32,32,false", NULL};
	assert_int_equal(compile_specs_for(s, 1, NULL, NULL, ov, &sp, &ns, &err), 0);
	g = strv_join(sp[0].generics, ",");
	assert_string_equal(g, "f32,32,false");
	free(g);
	compile_specs_free(sp, ns);
	char *bad[] = {"1,2", NULL};
	assert_int_equal(compile_specs_for(s, 1, NULL, NULL, bad, &sp, &ns, &err), -1);
	assert_string_equal(err.msg, "--generics 1,2: first takes 3 generic arguments, 2 given");
	free(an);
	rs_sigs_free(s, n);
}

/* A Constant the translator renamed (`D` is `D_`: cutile's own impls take
 * the name) still gets the analysis's value, which names it as the source */
static void specialisation_of_a_renamed_constant(void **state)
{
	struct rs_sig *s;
	size_t n, ns;
	struct tp_err err = {0};
	const char *kernel = "#[cutile::module]\nmod m {\n  #[cutile::entry()]\n"
			     "  fn k<E: ElementType, const D_: i32>(x: &Tensor<E, { [-1] }>) {}\n}\n";
	assert_int_equal(rs_sigs_read("k.rs", kernel, strlen(kernel), &s, &n, &err), 0);
	char *an = tu_write(*state, "analysis.json",
			    "{\"kernel_variants\": [{\"rust_entry\": \"k\", \"variant_name\": \"k\","
			    " \"constants\": [{\"name\": \"D\", \"value\": \"D = 256\"}]}]}\n");
	struct compile_spec *sp;
	assert_int_equal(compile_specs_for(s, n, an, NULL, NULL, &sp, &ns, &err), 0);
	char *g = strv_join(sp[0].generics, ",");
	assert_string_equal(g, "f16,256");
	free(g);
	compile_specs_free(sp, ns);
	free(an);
	rs_sigs_free(s, n);
}

/* Where the analysis gives no literal, the value refir.json beside it says
 * the reference was compiled with (a flag 0, not the default 64), also for
 * a Constant the translator renamed D_. */
static void specialisation_of_the_reference(void **state)
{
	struct rs_sig *s;
	size_t n, ns;
	struct tp_err err = {0};
	const char *kernel = "#[cutile::module]\nmod m {\n  #[cutile::entry()]\n"
			     "  fn k<E: ElementType, const IS_SWISH: i32, const D_: i32, const T: i32>"
			     "(x: &Tensor<E, { [-1] }>) {}\n}\n";
	assert_int_equal(rs_sigs_read("k.rs", kernel, strlen(kernel), &s, &n, &err), 0);
	char *an = tu_write(*state, "analysis.json",
			    "{\"kernel_variants\": [{\"rust_entry\": \"k\", \"variant_name\": \"k\","
			    " \"reference_ir\": \"reference/reference.mlir\", \"constants\": ["
			    "{\"name\": \"IS_SWISH\", \"value\": \"?\"}, {\"name\": \"D\", \"value\": \"?\"},"
			    " {\"name\": \"T\", \"value\": \"T = 32\"}]}]}\n");
	char *ref = tu_write(*state, "refir.json",
			     "{\"kernels\": [{\"kernel\": \"k\", \"name\": \"reference\", \"args\": "
			     "{\"IS_SWISH\": \"const 0\", \"D\": \"const 128\", \"T\": \"const 64\"}}]}\n");
	struct compile_spec *sp;
	assert_int_equal(compile_specs_for(s, n, an, NULL, NULL, &sp, &ns, &err), 0);
	char *g = strv_join(sp[0].generics, ",");
	/* the analysis's literal stands where it has one (T) */
	assert_string_equal(g, "f16,0,128,32");
	free(g);
	compile_specs_free(sp, ns);
	free(an);
	free(ref);
	rs_sigs_free(s, n);
}

/* A generic the launcher computes (a tile of N * N): its value from the
 * others' as the analysis says, whatever they are. */
static void specialisation_derived_generic(void **state)
{
	const char *k = "#[cutile::module]\nmod m {\n    use cutile::core::*;\n"
			"    #[cutile::entry()]\n"
			"    pub unsafe fn sq<E: ElementType, const N: i32, const B: i32, const N_TIMES_N: i32,"
			" const ODD: i32>(y: &Tensor<E, { [-1, -1] }>) {}\n}\n";
	struct rs_sig *s;
	size_t n, ns;
	struct tp_err err = {0};
	assert_int_equal(rs_sigs_read("k.rs", k, strlen(k), &s, &n, &err), 0);
	char *an = tu_write(*state, "analysis.json",
			    "{\"kernel_variants\": [{\"rust_entry\": \"sq\", \"constants\": ["
			    "{\"name\": \"N\", \"value\": \"N = 8\"}, {\"name\": \"B\", \"value\": \"b\"},"
			    "{\"name\": \"N_TIMES_N\", \"value\": \"N * N\", \"derived\": \"(N + B) * N - (1 << 2)\"},"
			    "{\"name\": \"ODD\", \"value\": \"N ^ 2\", \"derived\": \"N ^ 2\"}]}]}\n");
	struct compile_spec *sp;
	assert_int_equal(compile_specs_for(s, n, an, NULL, NULL, &sp, &ns, &err), 0);
	char *g = strv_join(sp[0].generics, ",");
	/* B defaults to 64; (8 + 64) * 8 - 4; what it cannot compute: 64, said so */
	assert_string_equal(g, "f16,8,64,572,64");
	free(g);
	assert_non_null(strstr(sp[0].why, "default const generics"));
	compile_specs_free(sp, ns);
	free(an);
	rs_sigs_free(s, n);
}

static void workspace_dependencies(void **state)
{
	struct ws_deps d;
	struct tp_err err = {0};
	char *ws = xasprintf("%s/ws", (char *)*state);
	/* no crate: the default pins, said so */
	assert_int_equal(compile_ws_deps(ws, &d, &err), 0);
	assert_non_null(strstr(d.deps, "cutile = \"=0.2.0\""));
	assert_non_null(strstr(d.from, "default pins"));
	compile_ws_deps_free(&d);
	char *toml = tu_write(ws, "src/tilegym/ops/cutile_rs/cutile_kernels/Cargo.toml",
			      "[package]\nname = \"k\"\nedition = \"2024\"\n\n[dependencies]\n"
			      "# pinned\ncutile = \"=0.2.0\"\nhalf = \"2\"\n\n[patch.crates-io]\n"
			      "cutile = { git = \"x\" }\n");
	assert_int_equal(compile_ws_deps(ws, &d, &err), 0);
	assert_string_equal(d.cutile_line, "cutile = \"=0.2.0\"");
	assert_string_equal(d.edition, "2024");
	assert_non_null(strstr(d.deps, "half = \"2\""));
	assert_non_null(strstr(d.patch, "[patch.crates-io]\ncutile = { git = \"x\" }"));
	char *m = compile_manifest("tileport-check", &d, false, d.deps);
	assert_non_null(strstr(m, "[lib]\npath = \"src/lib.rs\""));
	assert_non_null(strstr(m, "[patch.crates-io]"));
	assert_non_null(strstr(m, "[workspace]"));
	free(m);
	compile_ws_deps_free(&d);
	free(tu_write(ws, "src/tilegym/ops/cutile_rs/cutile_kernels/Cargo.toml",
		      "[package]\nname = \"k\"\n\n[dependencies]\nhalf = \"2\"\n"));
	assert_int_equal(compile_ws_deps(ws, &d, &err), -1);
	assert_int_equal(err.code, TP_EXIT_USAGE);
	char *want = xasprintf("%s:4: expected a `cutile = \"=VERSION\"` dependency", toml);
	assert_non_null(strstr(err.msg, want));
	free(want);
	free(toml);
	free(ws);
}

static void scratch_lib_rs(void **state)
{
	(void)state;
	char *lib = compile_lib_rs("softmax", "/w/ffi_util.rs", "/r/kernel.rs", "/r/\"q\".rs");
	assert_non_null(strstr(lib, "#[path = \"/w/ffi_util.rs\"]\nmod ffi_util;"));
	assert_non_null(strstr(lib, "pub mod softmax {\n    include!(\"/r/kernel.rs\");\n"));
	assert_non_null(strstr(lib, "include!(\"/r/\\\"q\\\".rs\");"));
	free(lib);
	const char *ws_lib = "#[path = \"../../ffi_util.rs\"]\nmod ffi_util;\n"
			     "// include!(\"../commented.rs\");\n"
			     "mod matmul {\n    include!(\"../../matmul_kernel/kernel.rs\");\n}\n"
			     "mod abs { include!(\"/abs/k.rs\"); }\n";
	char *abs = compile_lib_rs_absolute(ws_lib, "/w/crate/src");
	assert_string_equal(abs, "#[path = \"/w/crate/src/../../ffi_util.rs\"]\nmod ffi_util;\n"
				 "// include!(\"../commented.rs\");\n"
				 "mod matmul {\n    include!(\"/w/crate/src/../../matmul_kernel/kernel.rs\");\n}\n"
				 "mod abs { include!(\"/abs/k.rs\"); }\n");
	free(abs);
}

static void report_round_trip(void **state)
{
	struct compile_result r = {0};
	r.checked = true;
	r.errors = 1;
	r.check_ms = 812;
	r.nf = 1;
	r.f = xcalloc(1, sizeof(*r.f));
	r.f[0] = (struct compile_finding){.phase = PHASE_LOWER, .error = true, .in_op = true,
					  .file = xstrdup("/run/kernel.rs"), .line = 4, .col = 2,
					  .code = xstrdup(""), .message = xstrdup("m"),
					  .spec = xstrdup("generated")};
	r.nout = 1;
	r.out = xcalloc(1, sizeof(*r.out));
	r.out[0] = (struct compile_output){.label = xstrdup("generated"), .entry = xstrdup("e"),
					   .variant = xstrdup(""), .dtype = xstrdup("f16"),
					   .primary = true, .mlir = xstrdup("/run/generated/generated.mlir"),
					   .bytecode = xstrdup("/run/generated/generated.tileirbc"),
					   .generics = xstrdup("f16, 64")};
	char *json = compile_result_json(&r, "/run");
	assert_non_null(strstr(json, "\"file\":\t\"kernel.rs\""));
	assert_non_null(strstr(json, "\"mlir\":\t\"generated/generated.mlir\""));
	char *path = tu_write(*state, "compile.json", json);
	struct compile_result back;
	struct tp_err err = {0};
	assert_int_equal(compile_report_load(path, &back, &err), 0);
	assert_int_equal(back.nf, 1);
	assert_int_equal(back.f[0].phase, PHASE_LOWER);
	assert_string_equal(back.f[0].file, "kernel.rs");
	assert_int_equal(back.f[0].line, 4);
	assert_string_equal(back.out[0].generics, "f16, 64");
	assert_int_equal(back.check_ms, 812);
	compile_result_free(&back);
	free(path);
	path = tu_write(*state, "bad.json", "[1, 2]\n");
	assert_int_equal(compile_report_load(path, &back, &err), -1);
	assert_non_null(strstr(err.msg, "bad.json:1:1: expected a JSON object"));
	free(path);
	free(json);
	compile_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cargo_error_at_the_macro_call_site),
		cmocka_unit_test(cargo_summaries_and_other_lines_are_skipped),
		cmocka_unit_test(lower_lines),
		cmocka_unit_test(signatures),
		cmocka_unit_test(signatures_of_bad_input),
		TU_DIR_TEST(specialisation_defaults_and_analysis),
		TU_DIR_TEST(specialisation_of_a_renamed_constant),
		TU_DIR_TEST(specialisation_derived_generic),
		TU_DIR_TEST(specialisation_of_the_reference),
		TU_DIR_TEST(workspace_dependencies),
		cmocka_unit_test(scratch_lib_rs),
		TU_DIR_TEST(report_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
