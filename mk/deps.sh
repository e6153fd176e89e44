#!/bin/sh
# Install the Debian packages tileport builds and tests against.
# As root: installs what is missing. Otherwise: prints the exact apt-get line.
# Usage: mk/deps.sh [check|bench]   (the tools the tests or benchmarks add)
set -u
pkgs="build-essential pkg-config libncurses-dev libgit2-dev libcjson-dev libcurl4-openssl-dev"
case "${1:-}" in
check) pkgs="$pkgs libcmocka-dev clang libclang-rt-14-dev tmux git python3 slurm-wlm munge" ;;
bench) pkgs="$pkgs hyperfine tmux less time git python3" ;;
esac
missing=""
for p in $pkgs; do
	# dpkg-query prints "install ok installed" only for fully installed packages.
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case "$st" in
	*"ok installed"*) ;;
	*) missing="$missing $p" ;;
	esac
done
[ -z "$missing" ] && exit 0
line="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" != 0 ]; then
	echo "tileport: missing Debian packages:$missing" >&2
	echo "tileport: run as root:  $line" >&2
	exit 3
fi
echo "tileport: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null 2>&1 || true
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >/dev/null || {
	echo "tileport: '$line' failed" >&2
	exit 3
}
