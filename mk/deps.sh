#!/usr/bin/env bash
# Makes sure the Debian packages the suite builds and runs with are installed.
# As root it installs what is missing (apt-get update first); otherwise it prints the
# exact apt-get line and fails, so that `make` never half-builds on a bare machine.
set -euo pipefail

PKGS=(gcc g++ make pkg-config libaio-dev liburing-dev libhwloc-dev hwloc libjson-c-dev
      libisal-dev libcmocka-dev libnuma-dev zlib1g-dev gnuplot-nox xz-utils
      ca-certificates util-linux libxml2-utils)

missing=()
for p in "${PKGS[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[[ "$st" == "install ok installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

line="apt-get install -y ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
	echo "deps: missing Debian packages: ${missing[*]}" >&2
	echo "deps: run as root:  apt-get update && $line" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >&2; then
	echo "deps: apt-get failed; run by hand:  apt-get update && $line" >&2
	exit 1
fi
