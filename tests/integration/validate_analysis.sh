# tileport validate analysis: every rule of pipeline.md §4.1 fires on its own.
. "$TILEPORT_TOP/tests/integration/lib/validate.sh"

A='$OUT/reference/analysis.json'
a() { # name want python-edit [kernel]
	k=${4:-softmax}
	fresh
	if [ "$k" = bmm ]; then f="$BMM/reference/analysis.json"; else f="$OUT/reference/analysis.json"; fi
	jed "$f" "$3" || { fail "$1: mutation"; return; }
	rc=0; case "$2" in FAIL\ *) rc=1 ;; esac
	expect "$1" "$2" "$rc" analysis "$k"
}

control "analysis" "analysis softmax"
contains "PASS: analysis.json has all required fields"
contains "errors: 0, warnings: 0"
contains "tolerance: f16(atol=0.01,rtol=0.01) bf16(atol=0.02,rtol=0.02)"
control "analysis multi-variant autotune" "analysis bmm"
contains "variants: 2 (non_persistent, static_persistent)"
contains "autotune: yes"

rule "analysis.file missing" "FAIL analysis.file" "analysis softmax" 'rm "$OUT/reference/analysis.json"'
contains "FAIL: analysis.json validation failed. Re-run Agent A."
rule "analysis.file invalid" "FAIL analysis.file" "analysis softmax" \
	'printf "{\n  \"kernel_name\": \"softmax\",\n  oops\n}\n" >"$OUT/reference/analysis.json"'
contains "not valid JSON at line 3, column"
rule "analysis.file not an object" "FAIL analysis.file" "analysis softmax" 'echo "[1]" >"$OUT/reference/analysis.json"'

for f in kernel_name source launch_path pattern ops_used test_perf_configs correctness_reference correctness_tolerance; do
	a "analysis.required $f" "FAIL analysis.required" "del d['$f']"
done
a "analysis.required type" "FAIL analysis.required" "d['ops_used'] = 'ct.load'"
a "analysis.reference-backend bad" "FAIL analysis.reference-backend" "d['reference_backend'] = 'triton_tileir'"
a "analysis.reference-backend absent" "WARN analysis.reference-backend" "del d['reference_backend']"
a "analysis.reference-backend variant" "WARN analysis.reference-backend" "del d['kernel_variants'][0]['reference_backend']"
a "analysis.backend-selection absent" "WARN analysis.backend-selection" "del d['reference_backend_selection']"
a "analysis.backend-selection winner" "WARN analysis.backend-selection" "del d['reference_backend_selection']['winner']"
# the template's spelling (cutile_geomean_ms) is not the validator's (cutile_geo_mean_ms)
a "analysis.backend-selection spelling" "WARN analysis.backend-selection" \
	"s = d['reference_backend_selection']; s['cutile_geomean_ms'] = s.pop('cutile_geo_mean_ms')"
a "analysis.backend-selection per_variant" "WARN analysis.backend-selection" \
	"del d['reference_backend_selection']['per_variant']['static_persistent']" bmm
a "analysis.test-perf-configs zero" "FAIL analysis.test-perf-configs" \
	"d['test_perf_configs'] = {'Test_Softmax::test_perf': {'shapes': []}}"
a "analysis.test-perf-configs template" "FAIL analysis.test-perf-configs" "d['test_perf_configs'] = []"
a "analysis.test-perf-configs shape" "FAIL analysis.test-perf-configs" "d['test_perf_configs'] = {'x': [1]}"
a "analysis.test-perf-configs list" "FAIL analysis.test-perf-configs" "d['test_perf_configs'] = [{'params': []}]" bmm
a "analysis.variants empty" "WARN analysis.variants" "d['kernel_variants'] = []"
a "analysis.variants absent" "WARN analysis.variants" "del d['kernel_variants']; del d['config_to_variant']"
a "analysis.variants type" "FAIL analysis.variants" "d['kernel_variants'] = {'default': {}}"
a "analysis.variant-fields name" "FAIL analysis.variant-fields" "del d['kernel_variants'][0]['variant_name']"
a "analysis.variant-fields function" "FAIL analysis.variant-fields" "del d['kernel_variants'][0]['kernel_function']"
a "analysis.variant-fields reference_ir" "FAIL analysis.variant-fields" "del d['kernel_variants'][0]['reference_ir']"
a "analysis.dispatch-condition" "WARN analysis.dispatch-condition" "del d['kernel_variants'][0]['dispatch_condition']"
a "analysis.reference-ir" "FAIL analysis.reference-ir" "d['kernel_variants'][0]['reference_ir'] = 'reference/nope.mlir'"
# as the reference: anywhere under reference/ passes; beside the structural
# IRs it warns, outside reference/ it fails
a "analysis.supplement beside the structural IRs" "WARN analysis.supplement" \
	"d['kernel_variants'][0]['reference_ir_f32_supplement'] = 'reference/reference_f32.mlir'"
a "analysis.supplement in supplements/" "" \
	"d['kernel_variants'][0]['reference_ir_f32_supplement'] = 'reference/supplements/softmax_f32.mlir'"
a "analysis.supplement outside reference/" "FAIL analysis.supplement" \
	"d['kernel_variants'][0]['reference_ir_f32_supplement'] = 'generated/reference_f32.mlir'"
a "analysis.supplement escaping reference/" "FAIL analysis.supplement" \
	"d['kernel_variants'][0]['reference_ir_f32_supplement'] = 'reference/../x_f32.mlir'"
a "analysis.autotune-keys" "WARN analysis.autotune-keys" "d['kernel_variants'][0]['autotune_configs'] = [{'num_warps': 4}]"
a "analysis.autotune config type" "FAIL analysis.autotune" "d['autotune_configs'] = ['BLOCK_M=64']"
a "analysis.autotune missing configs" "FAIL analysis.autotune" "d['launch_path'] = 'autotune'"
a "analysis.autotune per-variant configs suffice" "" \
	"d['autotune_configs'] = None; d['kernel_variants'][0]['autotune_configs'] = [{'BLOCK_M': 64}]" bmm
a "analysis.autotune-backends" "WARN analysis.autotune-backends" \
	"d['launch_path'] = 'autotune'; d['autotune_configs'] = [{'TILE_N': 1024}]; del d['autotune_backends']"
a "analysis.autotune-key" "WARN analysis.autotune-key" "del d['autotune_key']" bmm
a "analysis.autotune-backends null" "FAIL analysis.autotune-backends" "d['autotune_backends'] = None"
contains "autotune_backends is null; it must be a list of backend names"
a "analysis.autotune-backends string" "FAIL analysis.autotune-backends" "d['autotune_backends'] = 'cutile'" bmm
a "analysis.config-to-variant missing" "WARN analysis.config-to-variant" "del d['config_to_variant']"
a "analysis.config-to-variant unknown" "WARN analysis.config-to-variant" "d['config_to_variant']['4096-1024'] = 'default_f32'"
a "analysis.correctness-reference" "FAIL analysis.correctness-reference" "d['correctness_reference']['function'] = ''"
a "analysis.correctness-source" "WARN analysis.correctness-source" "del d['correctness_reference']['source']"
a "analysis.tolerance rtol" "FAIL analysis.tolerance" "del d['correctness_tolerance']['f16']['rtol']"
a "analysis.tolerance free-form key" "FAIL analysis.tolerance" "d['correctness_tolerance']['comment'] = 'from the test'"
a "analysis.tolerance none" "FAIL analysis.tolerance" "d['correctness_tolerance'] = {'source': 'x'}"
a "analysis.tolerance notes ok" "" "d['correctness_tolerance']['notes'] = 'bf16 looser'"
a "analysis.tolerance-source" "WARN analysis.tolerance-source" "del d['correctness_tolerance']['source']"
contains "errors: 0, warnings: 1"
finish
