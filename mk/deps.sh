#!/bin/sh
# Install the Debian packages tileport builds and tests against.
# As root: installs what is missing. Otherwise: prints the exact apt-get line.
# Usage: mk/deps.sh [check|bench|gpu]   (the tools the tests or benchmarks add;
# gpu: report the CUDA toolkit pieces libtileport_cupti.so and the CUDA C
# runner need, which come from NVIDIA's repository, not Debian's)
set -u
pkgs="build-essential pkg-config libncurses-dev libgit2-dev libcjson-dev libcurl4-openssl-dev"
case "${1:-}" in
check)
	pkgs="$pkgs libcmocka-dev clang libclang-rt-14-dev tmux git python3 python3-pytest slurm-wlm munge"
	# the agent CLIs the driver tests use come from npm (mk/agent-clis.sh);
	# a machine with its own Node.js keeps it
	command -v npm >/dev/null 2>&1 || pkgs="$pkgs nodejs npm" ;;
bench) pkgs="$pkgs hyperfine tmux less time git python3" ;;
esac
if [ "${1:-}" = gpu ]; then
	# Debian's nvidia-cuda-toolkit is CUDA 11.8, whose CUPTI lacks the CUDA 13
	# activity records the library is written against: NVIDIA's packages.
	cuda=${CUDA_TOOLKIT_PATH:-/usr/local/cuda}
	rc=0
	for f in include/cupti.h include/nvtx3/nvToolsExt.h bin/nvcc; do
		if [ -e "$cuda/$f" ] || [ -e "$cuda/targets/x86_64-linux/$f" ]; then
			echo "tileport: found $cuda/$f"
		else
			echo "tileport: missing $cuda/$f" >&2
			rc=3
		fi
	done
	if [ -e "$cuda/include/cupti_version.h" ]; then
		grep -m1 '#define CUPTI_API_VERSION' "$cuda/include/cupti_version.h"
	fi
	[ $rc -eq 0 ] || echo "tileport: install CUDA 13 from NVIDIA's repository (packages" \
		"cuda-cupti-dev-13-0 cuda-nvtx-13-0 cuda-nvcc-13-0 cuda-cudart-dev-13-0), or set" \
		"CUDA_TOOLKIT_PATH" >&2
	exit $rc
fi
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
