#!/bin/sh
# The layering rules (docs/architecture.md, "Layers"), checked on the
# #include lines of the sources:
#   cli -> tui -> views -> engine, never back, and nothing includes cli/;
#   engine/base depends on nothing else in engine/, engine/core on base
#   only, and ir, port and perf on base, never core;
#   views never include curses (the tui layer draws) nor tui/;
#   the CLI enters the screen only through tui/tui.h;
#   a module's internal headers (*_int.h, *_impl.h, *_internal.h, *_priv.h)
#   are included only from their own directory (and by white-box tests).
set -u
cd "$(dirname "$0")/.." || exit 2
fail=0
refuse() { # WHAT GREP-OUTPUT
	if [ -n "$2" ]; then
		echo "lint: $1" >&2
		echo "$2" | sed 's/^/    /' >&2
		fail=1
	fi
}
inc() { grep -rnE "^[[:space:]]*#[[:space:]]*include[[:space:]]*$1" "$2" --include='*.c' --include='*.h'; }

refuse "engine/ must not include curses, tui/, views/ or cli/" \
	"$(inc '[<"](n?curses|ncursesw/|tui/|views/|cli/)' engine)"
refuse "engine/base/ includes nothing of engine/ but engine/base/" \
	"$(inc '"engine/' engine/base | grep -v '"engine/base/')"
refuse "engine/core/ includes nothing of engine/ but engine/core/ and engine/base/" \
	"$(inc '"engine/' engine/core | grep -v '"engine/\(core\|base\)/')"
refuse "engine/ir/, engine/port/ and engine/perf/ stand on engine/base/ only, not engine/core/" \
	"$(for d in engine/ir engine/port engine/perf; do inc '"engine/core/' $d; done)"
refuse "views/ must not include curses, tui/ or cli/" "$(inc '([<"](n?curses|ncursesw/)|"tui/|"cli/)' views)"
refuse "tui/ must not include cli/" "$(inc '"cli/' tui)"
refuse "nothing outside cli/ includes cli/" "$(inc '"cli/' tests)"
refuse "cli/ enters the screen only through tui/tui.h" "$(inc '"tui/' cli | grep -v '"tui/tui.h"')"
for h in $(find engine views tui cli -name '*_int.h' -o -name '*_impl.h' -o -name '*_internal.h' \
	-o -name '*_priv.h' | sort); do
	dir=$(dirname "$h")
	refuse "$h is internal to $dir/" \
		"$(grep -rnF "#include \"$h\"" engine views tui cli --include='*.c' --include='*.h' | grep -v "^$dir/")"
done
[ "$fail" -eq 0 ] && echo "lint: ok"
exit "$fail"
