#!/usr/bin/env bash
# tests/gpu/bundle_test.sh: tests/gpu/bundle.sh makes a bundle that runs without this machine's
# libraries (what a bare GPU machine lacks): with the system's library folder hidden in a mount
# namespace of its own, the bundle's programs still run, fio with the bundle's engine included,
# and check.sh --bundle runs every step through them. No GPU is needed: the GPU steps then take
# their no-GPU paths, which check.sh reports as failures, as it must.
source "$(dirname "$0")/../lib.sh"
BUNDLE=$T_SCRATCH/bundle
source "$ROOT/tests/gpu/nvcc.sh"
[[ -x $nvcc ]] || t_skip "no nvcc here: the GPU programs cannot be built"

libdir=$(dirname "$(ldd "$ROOT/build/bin/fio" | awk '$1 == "libc.so.6" { print $3 }')")
# bare CMD...: CMD with the system's library folder empty (a private mount namespace), when
# this machine lets us make one; else as it is (bundle.sh has checked with --list that every
# library resolves inside the bundle)
mkdir -p "$T_SCRATCH/empty"
if unshare -m mount --bind "$T_SCRATCH/empty" "$(readlink -f "$libdir")" 2>/dev/null; then
	bare() { unshare -m bash -c 'mount --bind "$0" "$1" && shift && exec "$@"' \
		"$T_SCRATCH/empty" "$(readlink -f "$libdir")" "$@"; }
	how="the system's libraries hidden"
else
	bare() { "$@"; }
	how="no mount namespace here: with the system's libraries"
fi
# through the bundle's loader itself: its wrappers are /bin/sh scripts, which need the system's
run() { # PROGRAM ARGS...: DIR/bin/PROGRAM under the bundle's loader and libraries only
	local p=$1
	shift
	bare "$BUNDLE/lib/ld-linux-x86-64.so.2" --library-path "$BUNDLE/lib" "$BUNDLE/bin/$p" "$@"
}

make_bundle() { bash "$ROOT/tests/gpu/bundle.sh" "$BUNDLE"; }
shim_test() { run pq_kernels_test; }
# the control: a program of the system's own does not start there (else nothing was hidden)
control() { ! bare "$(command -v jq)" --version 2>/dev/null; }
fio_verify() { # RAID6 random writes verified through the bundle's fio and engine
	local m
	m=$(printf "$T_SCRATCH/m%d:" 0 1 2 3 4 5)
	run fio --ioengine="external:$BUNDLE/engines/raid.so" --thread=1 --name=b \
		--filename=vol --raid_level=6 --raid_members="${m%:}" --raid_member_size=8m \
		--raid_chunk=64k --rw=randwrite --bsrange=4k-256k --iodepth=8 --size=100% \
		--direct=1 --verify=crc32c --do_verify=1 --verify_fatal=1 --verify_state_save=0 \
		>"$T_SCRATCH/fio.log" 2>&1 || { cat "$T_SCRATCH/fio.log"; return 1; }
	grep -q 'err= 0' "$T_SCRATCH/fio.log"
}
check_wiring() { # check.sh --bundle on a faked GPU: every step runs through the bundle
	local bin=$T_SCRATCH/smi
	mkdir -p "$bin"
	printf '#!/bin/sh\necho "GPU 0: NVIDIA H200 (UUID: GPU-0)"\n' >"$bin/nvidia-smi"
	chmod +x "$bin/nvidia-smi"
	PATH="$bin:$PATH" CHECK_OUT="$T_SCRATCH/check" bash "$ROOT/tests/gpu/check.sh" --quick \
		--bundle "$BUNDLE" >"$T_SCRATCH/check.log" 2>&1
	local rc=$?
	cat "$T_SCRATCH/check.log"
	[[ $rc == 1 ]] && grep -q '^PASS  bundle' "$T_SCRATCH/check.log" &&
		grep -q '^PASS  shim-test' "$T_SCRATCH/check.log" &&
		grep -q '^FAIL  gpu-test ran without a GPU' "$T_SCRATCH/check.log" &&
		grep -q "engine-fio: tests/gpu/engine_fio.sh" "$T_SCRATCH/check.log" &&
		grep -q "raid_parity=cuda: no usable GPU" "$T_SCRATCH/check/engine-fio.log"
}

t_case "bundle.sh makes a bundle" make_bundle
[[ $how == no* ]] || t_case "the control: a system program cannot start ($how)" control
t_case "the kernels' shim test runs from the bundle ($how)" shim_test
t_case "fio with the bundle's engine verifies RAID6 ($how)" fio_verify
t_case "check.sh --bundle runs every step through the bundle (a faked GPU: fails)" check_wiring
t_case_fail "bundle.sh without nvcc refuses" --msg "no nvcc" \
	env NVCC="$T_SCRATCH/no-nvcc" bash "$ROOT/tests/gpu/bundle.sh" "$T_SCRATCH/b2"
t_done
