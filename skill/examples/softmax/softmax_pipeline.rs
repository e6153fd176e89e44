// Pipeline test (stage B): compile the entry for the dumped configuration,
// f32 with TILE_SIZE 1024 for sm_100, and write its bytecode where the IR
// pair is compared: OUT/generated/generated.tileirbc. `tileport ir fmt`
// prints it as generated/generated_canon.mlir.
include!("kernel.rs");
use softmax_module::__module_ast_self;

#[test]
fn softmax_pipeline() {
    let out = std::env::var("OUT").expect("OUT: the run directory");
    let artifacts =
        cutile::compile_api::KernelCompiler::new(__module_ast_self, "softmax_module", "softmax_kernel")
            .generics(vec!["f32".to_string(), "1024".to_string()])
            .strides(&[("output", &[1024, 1]), ("input", &[1024, 1])])
            .target("sm_100")
            .compile()
            .expect("compile");
    std::fs::create_dir_all(format!("{out}/generated")).expect("generated/");
    std::fs::write(format!("{out}/generated/generated.tileirbc"), artifacts.bytecode()).expect("write");
}
