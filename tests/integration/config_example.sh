#!/bin/sh
# samples/tileport.conf.example: every setting it shows, uncommented, is one
# tileport accepts as the user's config (an unknown key or a bad value would
# stop every command, naming the file and line).
. "$TILEPORT_TOP/tests/integration/lib/common.sh"
EX=$TILEPORT_TOP/samples/tileport.conf.example
export XDG_CONFIG_HOME="$T/xdg"
mkdir -p "$XDG_CONFIG_HOME/tileport" "$T/ws/src/tilegym"
# "# key = value" and "# [section]" lines lose their "# "; prose stays a comment
sed -E 's/^# (([a-z][a-z0-9_.-]*( [a-z]+ [a-z]+)? = .*)|(\[[a-z]+\])|(bind .*))$/\1/' "$EX" |
	sed "s|/home/you/TileGym|$T/ws|; s|/home/you/tileport-runs|$T/out|" >"$XDG_CONFIG_HOME/tileport/config"
n=$(grep -cE '^[a-z\[]' "$XDG_CONFIG_HOME/tileport/config")
[ "$n" -ge 20 ] && ok "the example uncommented: $n settings" || bad "only $n settings uncommented"
"$TILEPORT" runs >"$T/runs.txt" 2>&1
assert_eq "tileport accepts every setting of the example" "$?" 0
sed 's/^/    | /' "$T/runs.txt" | head -n 5
"$TILEPORT" drivers >"$T/drivers.txt" 2>&1
rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] && ok "drivers reads it (exit $rc)" || bad "drivers: exit $rc: $(head -n 2 "$T/drivers.txt")"
finish
