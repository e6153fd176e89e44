#!/bin/sh
# A scripted stage agent for the orchestrator's tests. Line N of
# $FAKE_SCENARIO is the reply of spawn N ($TILEPORT_SEQ, stable across a
# resume), written "STAGE: VERDICT [key=value]...":
#   class=host|kernel|env   owner tag written into the stage's report
#   block=ok|bad|none|noexit the <VALIDATOR_OUTPUT> block: exits 0, an exit=1,
#                           absent, or without any exit line
#   exit=N                  the agent's own exit status
#   deferred=a,b            a `deferred:` line (offline)
#   text=WORD               extra word in the reply (e.g. Traceback)
#   format=json             reply as a JSON-lines transcript with usage
#   geomean=X               stage E: the geomean_ratio line of performance.md
set -u
if [ -n "${FAKE_RANDOM_SEED:-}" ]; then
	# Random mode (property tests): any verdict of the stage, any class,
	# sometimes a broken block, decided by the seed and the spawn number.
	case $TILEPORT_STAGE in
	A) vs="PASS FAIL_FIXABLE BLOCKED" ;;
	B) vs="COMPILED FAIL_COMPILE FAIL_FIXABLE BLOCKED" ;;
	C) vs="PASS PASS_WITH_NOTES FAIL_FIXABLE FAIL_COMPILER_BUG BLOCKED" ;;
	D) vs="ALL_PASS FAIL BLOCKED" ;;
	E) vs="DONE INVESTIGATE BLOCKED" ;;
	F) vs="FIXABLE ALIGNED BLOCKED" ;;
	esac
	line=$(awk -v seed="$FAKE_RANDOM_SEED" -v seq="$TILEPORT_SEQ" -v vs="$vs" -v st="$TILEPORT_STAGE" 'BEGIN {
		srand((seed % 1000003) * 64 + seq); n = split(vs, v, " ")
		split("host kernel env none", c, " "); split("ok ok ok bad none", b, " ")
		k = rand() < 0.5 ? 1 : 1 + int(rand() * n)  # lean towards progress
		printf "%s: %s class=%s block=%s\n", st, v[k], c[1 + int(rand() * 4)], b[1 + int(rand() * 5)]
	}')
	line=$(echo "$line" | sed 's/ class=none//')
else
	scen=${FAKE_SCENARIO:?FAKE_SCENARIO is not set}
	line=$(sed -n "${TILEPORT_SEQ}p" "$scen")
fi
if [ -z "$line" ]; then
	echo "fake agent: no scenario line for spawn $TILEPORT_SEQ" >&2
	exit 9
fi
want=${line%%:*}
if [ "$want" != "$TILEPORT_STAGE" ]; then
	echo "fake agent: scenario has $want at spawn $TILEPORT_SEQ, orchestrator spawned $TILEPORT_STAGE" >&2
	exit 8
fi
# shellcheck disable=SC2086
set -- ${line#*:}
verdict=$1
shift
block=ok class= code=0 deferred= text= format=text geomean=
for kv; do
	case $kv in
	class=*) class=${kv#class=} ;;
	block=*) block=${kv#block=} ;;
	exit=*) code=${kv#exit=} ;;
	deferred=*) deferred=${kv#deferred=} ;;
	text=*) text=${kv#text=} ;;
	format=*) format=${kv#format=} ;;
	geomean=*) geomean=${kv#geomean=} ;;
	esac
done
out=$TILEPORT_RUN_DIR
mkdir -p "$out/reports" "$out/generated"
echo "$TILEPORT_SEQ $TILEPORT_STAGE$TILEPORT_ATTEMPT repair=$TILEPORT_REPAIR offline=${TILEPORT_OFFLINE:-0}" >>"$out/fake_agent.log"
case $TILEPORT_STAGE in
C) { echo "VERDICT: $verdict"; [ -n "$class" ] && echo "owner: $class"; } >"$out/generated/diff_report.md" ;;
D)
	key=fail_class
	[ "$verdict" = BLOCKED ] && key=block_class
	{ echo "VERDICT: $verdict"; echo "| Test | Config | Result |"; [ -n "$class" ] && echo "$key: $class"; } >"$out/reports/correctness.md" ;;
E)
	{
		echo "VERDICT: $verdict"
		if [ -n "$geomean" ]; then
			# one row whose ratio is the geomean, as validate agent-e wants it
			printf '## Performance Results: %s\n\n' "$TILEPORT_OP"
			echo "| Config | baseline (ms) | cutile-rs (ms) | ratio | verdict |"
			echo "|--------|---------------|----------------|-------|---------|"
			echo "| float16-1024 | 1.0000 | $geomean | ${geomean}x | PASS |"
			printf '\ngeomean_ratio=%s\n' "$geomean"
		fi
	} >"$out/reports/performance.md" ;;
F) echo "VERDICT: $verdict" >"$out/reports/perf_investigation_all_shapes.md" ;;
esac
reply=$(
	[ -n "$text" ] && echo "$text"
	[ -n "$deferred" ] && echo "deferred: $deferred"
	case $block in
	ok) printf '<VALIDATOR_OUTPUT>\n$ validate_stage %s 2>&1\nPASS\nexit=0\n</VALIDATOR_OUTPUT>\n' "$TILEPORT_STAGE" ;;
	bad) printf '<VALIDATOR_OUTPUT>\n$ validate_stage %s 2>&1\nFAIL: 1 error\nexit=1\n</VALIDATOR_OUTPUT>\n' "$TILEPORT_STAGE" ;;
	noexit) printf '<VALIDATOR_OUTPUT>\n$ validate_stage %s 2>&1\nPASS\n</VALIDATOR_OUTPUT>\n' "$TILEPORT_STAGE" ;;
	esac
	echo "VERDICT: $verdict"
)
if [ "$format" = json ]; then
	printf '{"type":"start","driver":"fake"}\n{"type":"usage","tokens_in":100,"tokens_out":20,"cost":0.01}\n'
	python3 -c 'import json,sys; print(json.dumps({"type":"final","text":sys.stdin.read()}))' <<EOF2
$reply
EOF2
else
	echo "$reply"
fi
exit "$code"
