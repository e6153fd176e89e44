#!/bin/sh
# An exec: driver that follows mech in stage B's chain (`mech,
# exec:partial_agent.sh`) for tests/integration/partial.sh: it writes down
# what the hand-over told it (the HAND-OVER section of $TILEPORT_PROMPT:
# the partial: and left: lines) and what kernel.rs held when it came,
# then finishes kernel.rs with the one kernel it was told is missing (a
# no-op entry, enough for the compiler) and replies as the stage.
set -u
out=$TILEPORT_RUN_DIR
seen=$out/handover_seen
mkdir -p "$seen"
sed -n '1p' "$TILEPORT_PROMPT" >"$seen/first_line"
grep '^left: ' "$TILEPORT_PROMPT" >"$seen/left"
grep '^partial: ' "$TILEPORT_PROMPT" >"$seen/partial"
grep '^unsupported: ' "$TILEPORT_PROMPT" >"$seen/unsupported"
grep -o 'pub unsafe fn [a-z_]*' "$out/kernel.rs" | sed 's/pub unsafe fn //' >"$seen/kernels_before"
# the missing kernel, named from its left: line, as the last entry of the module
k=$(sed -n 's/^left: \([A-Za-z0-9_]*\) at .*/\1/p' "$seen/left")
awk -v k="$k" '
	{ lines[NR] = $0 }
	END {
		for (i = NR; i > 0 && lines[i] != "}"; i--) {}
		for (j = 1; j < i; j++) print lines[j]
		print ""
		print "    #[cutile::entry()]"
		print "    pub unsafe fn " k "<E: ElementType, const N: i32>(y: &Tensor<E, { [-1, -1] }>) {}"
		for (j = i; j <= NR; j++) print lines[j]
	}' "$out/kernel.rs" >"$out/kernel.rs.new" && mv "$out/kernel.rs.new" "$out/kernel.rs"
grep -o 'pub unsafe fn [a-z_]*' "$out/kernel.rs" | sed 's/pub unsafe fn //' >"$seen/kernels_after"
printf '{"type":"start","driver":"partial-agent","model":"none"}\n'
printf '{"type":"text","text":"added %s to kernel.rs"}\n' "$k"
printf '{"type":"final","text":"<VALIDATOR_OUTPUT>\\n$ true\\nexit=0\\n</VALIDATOR_OUTPUT>\\nVERDICT: DEFERRED"}\n'
