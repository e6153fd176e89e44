#!/bin/sh
# tileport ops on a TileGym-shaped checkout (tests/fixtures/tilegym-layout):
# every operator with a kernel, subfolders included, by name, with its test,
# its port and what the built-in translator does offline (converts, or the
# stage and FILE:LINE:COL of its refusal); no helper module; text and
# --json against golden files (TILEPORT_UPDATE_GOLDEN=1 rewrites them). On
# a real TileGym checkout when one is at hand (../shared/tilegym), skipped
# cleanly otherwise.
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
offline_env
G=$TILEPORT_TOP/tests/fixtures/ops
golden() { # NAME FILE
	if [ -n "${TILEPORT_UPDATE_GOLDEN:-}" ]; then
		cp "$2" "$G/$1"
		ok "updated $1"
	elif diff -u "$G/$1" "$2"; then
		ok "golden $1"
	else
		bad "$1 differs from tests/fixtures/ops/$1"
	fi
}
cp -R "$TILEPORT_TOP/tests/fixtures/tilegym-layout" "$T/ws"
"$TILEPORT" ops --workspace "$T/ws" >"$T/ops.txt" 2>&1
assert_eq "ops: exit 0" "$?" 0
golden ops.txt "$T/ops.txt"
(cd "$T/ws" && "$TILEPORT" ops --json) >"$T/ops.json" 2>&1
assert_eq "ops --json in the checkout: exit 0" "$?" 0
golden ops.json "$T/ops.json"
if grep -q "utils\|__init__" "$T/ops.txt"; then bad "a helper module is listed"; else ok "no helper module"; fi
(cd "$T" && "$TILEPORT" ops) >"$T/none.txt" 2>&1
assert_eq "ops without a workspace: exit 2" "$?" 2
assert_contains "ops without a workspace: what to give" "$T/none.txt" "no workspace: use --workspace DIR"

# The real checkout, when this machine has it.
TAR=$(ls "$TILEPORT_TOP"/../shared/tilegym/TileGym-*.tar.gz 2>/dev/null | head -n 1)
if [ -n "$TAR" ]; then
	mkdir -p "$T/tg" && tar xzf "$TAR" -C "$T/tg"
	TG=$(ls -d "$T"/tg/*/ | head -n 1)
	"$TILEPORT" ops --workspace "$TG" --json >"$T/tg.json" 2>&1
	assert_eq "TileGym: ops exit 0" "$?" 0
	assert_eq "TileGym: subfolder operators listed, helpers not" "$(json_get "$T/tg.json" \
		'" ".join(sorted(set(o["op"] for o in d) & {"gelu", "relu", "mhc", "utils", "__init__", "swiglu"}))')" \
		"gelu mhc relu swiglu"
	assert_eq "TileGym: the ported ones named as such" \
		"$(json_get "$T/tg.json" '" ".join(o["op"] for o in d if o["port"])')" \
		"attention_sink bmm matmul silu_and_mul swiglu"
	assert_eq "TileGym: every refusal says where" \
		"$(json_get "$T/tg.json" 'all(":" in o["offline"]["refusal"] for o in d if not o["offline"]["converts"])')" True
	# the analysis on TileGym's own test and tuner layouts
	"$TILEPORT" analyze attention --workspace "$TG" --print >"$T/att.json" 2>"$T/att.err"
	assert_eq "TileGym: analyze attention" "$?" 0
	assert_eq "TileGym: a tuner's literal configurations, every GPU's branch, once each" \
		"$(json_get "$T/att.json" '(d["launch_path"], len(d["autotune_configs"]), d["autotune_configs"][0])')" \
		"('autotune', 6, {'TILE_M': 64, 'TILE_N': 64, 'num_ctas': 1, 'occupancy': 2})"
	"$TILEPORT" analyze gemma_attention --workspace "$TG" --print >"$T/ga.json" 2>"$T/ga.err"
	assert_eq "TileGym: configurations a *configs function returns in lists" \
		"$(json_get "$T/ga.json" 'len(d["autotune_configs"])')" "5"
	# STAGE: the tuner's parameter `stage`, which forward sets to `3 if
	# is_causal else 1`: the literal both compilers specialise for (not 64)
	assert_eq "TileGym: a Constant's literal through the caller of the launching function" \
		"$(json_get "$T/ga.json" '[c.get("literal") for c in d["kernel_variants"][0]["constants"] if c["name"] == "STAGE"]')" \
		"[3]"
	"$TILEPORT" analyze mhc --workspace "$TG" --print >"$T/mhc.json" 2>"$T/mhc.err"
	assert_eq "TileGym: a sweep written as four nested loops over local tuples, one config each" \
		"$(json_get "$T/mhc.json" '(len(d["autotune_configs"]), d["autotune_configs"][0], d["autotune_configs"][-1])')" \
		"(40, {'TILE_SIZE_M': 64, 'TILE_SIZE_N': 32, 'TILE_SIZE_K': 64, 'SPLIT_K': 1, 'GROUP_SIZE_M': 8}, {'TILE_SIZE_M': 128, 'TILE_SIZE_N': 32, 'TILE_SIZE_K': 128, 'SPLIT_K': 16, 'GROUP_SIZE_M': 16})"
	assert_eq "TileGym: mhc's sinkhorn kernel: N * N a const generic of its own" \
		"$(json_get "$T/mhc.json" '[(c["name"], c["derived"]) for v in d["kernel_variants"] for c in v["constants"] if "derived" in c]')" \
		"[('N_TIMES_N', 'N * N')]"
	"$TILEPORT" analyze recurrent_gated_delta_rule --workspace "$TG" --print >"$T/rg.json" 2>"$T/rg.err"
	assert_eq "TileGym: sizes written as a comprehension over a range" \
		"$(json_get "$T/rg.json" 'd["test_perf_configs"]["T"]["shapes"]')" \
		"[128, 256, 512, 1024, 2048, 4096, 8192, 16384]"
	"$TILEPORT" analyze dropout --workspace "$TG" --print >"$T/dr.json" 2>"$T/dr.err"
	assert_eq "TileGym: a comprehension of several clauses over lists, tuples of values" \
		"$(json_get "$T/dr.json" 'd["test_perf_configs"]["m_p_inplace_dtype"]["shapes"][:2]')" \
		"[[1048576, 0.5, True, 'f32'], [1048576, 0.5, True, 'f16']]"
else
	echo "skip TileGym: no ../shared/tilegym/TileGym-*.tar.gz here"
fi
finish
