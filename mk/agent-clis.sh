#!/bin/sh
# The real agent CLIs the driver tests run against a loopback server:
# Claude Code and Codex from the npm registry, installed once into
# build/agent-clis/ (not globally). The versions are pinned so that a test
# run means the same thing on every machine; docs/agents.md says which
# versions the drivers accept.
# Usage: mk/agent-clis.sh [DIR]   (prints DIR/node_modules/.bin when done)
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$top/build/agent-clis}
pkgs="@anthropic-ai/claude-code@2.1.197 @openai/codex@0.171.0"
stamp="$dir/.installed"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$pkgs" ] &&
	[ -x "$dir/node_modules/.bin/claude" ] && [ -x "$dir/node_modules/.bin/codex" ]; then
	echo "$dir/node_modules/.bin"
	exit 0
fi
if ! command -v npm >/dev/null 2>&1; then
	echo "tileport: npm is missing (mk/deps.sh check installs nodejs and npm)" >&2
	exit 3
fi
mkdir -p "$dir"
echo "tileport: installing $pkgs into $dir" >&2
# shellcheck disable=SC2086
if ! npm install --prefix "$dir" --no-audit --no-fund --loglevel=error $pkgs >"$dir/npm.log" 2>&1; then
	echo "tileport: npm install failed; see $dir/npm.log" >&2
	tail -n 20 "$dir/npm.log" >&2
	exit 3
fi
echo "$pkgs" >"$stamp"
echo "$dir/node_modules/.bin"
