#!/usr/bin/env bash
# Makes sure the Debian packages the suite builds and runs with are installed.
# As root it installs what is missing (apt-get update first); otherwise it prints the
# exact apt-get line and fails, so that `make` never half-builds on a bare machine.
set -euo pipefail

PKGS=(gcc g++ make pkg-config libaio-dev liburing-dev libhwloc-dev hwloc libjson-c-dev
      libisal-dev libcmocka-dev libnuma-dev zlib1g-dev gnuplot-nox xz-utils
      ca-certificates util-linux libxml2-utils jq)
# the md appliance (tools/mdvm): without them only the md tests are skipped, so they are
# installed as root but never required; e2fsprogs (mkfs.ext4, fsck.ext4) for the file
# systems the ublk tests put on an array (the guest runs the host's programs)
OPT_PKGS=(qemu-system-x86 busybox-static mdadm e2fsprogs)

absent() {
	local p st
	for p in "$@"; do
		st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
		[[ "$st" == "install ok installed" ]] || echo "$p"
	done
}
mapfile -t missing < <(absent "${PKGS[@]}")
mapfile -t opt_missing < <(absent "${OPT_PKGS[@]}")
[[ ${#missing[@]} -eq 0 && ${#opt_missing[@]} -eq 0 ]] && exit 0
skip_line="deps: the md tests will be skipped without ${opt_missing[*]}"

line="apt-get install -y ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
	[[ ${#opt_missing[@]} -gt 0 ]] &&
		echo "$skip_line (as root: apt-get install -y ${opt_missing[*]})" >&2
	[[ ${#missing[@]} -eq 0 ]] && exit 0
	echo "deps: missing Debian packages: ${missing[*]}" >&2
	echo "deps: run as root:  apt-get update && $line" >&2
	exit 1
fi
echo "deps: installing ${missing[*]} ${opt_missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2 || true
if [[ ${#missing[@]} -gt 0 ]] &&
	! apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2; then
	echo "deps: apt-get failed; run by hand:  apt-get update && $line" >&2
	exit 1
fi
if [[ ${#opt_missing[@]} -gt 0 ]] &&
	! apt-get install -y -qq --no-install-recommends "${opt_missing[@]}" >&2; then
	echo "$skip_line (apt-get install failed)" >&2
fi
exit 0
