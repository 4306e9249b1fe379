#!/usr/bin/env bash
# tests/gpu/check_test.sh: tests/gpu/check.sh says SKIP (exit 77) on a machine without a GPU
# and FAIL (exit 1) on one with a GPU it cannot test; never a pass without having run on the
# GPU. The driver's answer is faked by an nvidia-smi first on PATH; nothing is built.
source "$(dirname "$0")/../lib.sh"
CHECK=$ROOT/tests/gpu/check.sh
BIN=$T_SCRATCH/bin
mkdir -p "$BIN"

fake_smi() { # LINES...: an nvidia-smi whose -L prints LINES
	printf '#!/bin/sh\n' >"$BIN/nvidia-smi"
	printf 'echo %q\n' "$@" >>"$BIN/nvidia-smi"
	chmod +x "$BIN/nvidia-smi"
}
check() { # WANT_RC PATTERN [ENV...]: check.sh exits WANT_RC and prints PATTERN
	local want=$1 pat=$2 rc
	shift 2
	env PATH="$BIN:$PATH" CHECK_OUT="$T_SCRATCH/out" "$@" bash "$CHECK" --quick \
		>"$T_SCRATCH/log" 2>&1
	rc=$?
	cat "$T_SCRATCH/log"
	[[ $rc == "$want" ]] || { echo "exit $rc, not $want"; return 1; }
	grep -Eq "$pat" "$T_SCRATCH/log"
}
fake_smi "No devices were found"
t_case "no GPU: SKIP, exit 77" check 77 '^SKIP  check.sh: no NVIDIA GPU'
fake_smi "GPU 0: NVIDIA H200 (UUID: GPU-0)"
t_case "a GPU and no nvcc: FAIL, exit 1" check 1 '^FAIL  check.sh: a GPU is here but no nvcc' \
	NVCC="$T_SCRATCH/no-nvcc"
t_done
