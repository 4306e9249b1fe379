#!/usr/bin/env bash
# project_bench.sh - the projection's error on this machine (figures, not a test; run by
# `make bench`): ./run.sh selfcheck (JBOD, RAID5, RAID6 over 4 and 8 members in /dev/shm),
# then each x8 figure projected from its x4 twin (raid-report project --self) beside what
# x8 measured. The machine is shared and noisy: the error moves from run to run, so the
# run's directory is kept and named for a second look.
# Env: BENCH_RUNTIME (seconds per test, default 3), BENCH_OUT (results directory, default
# a temporary one).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${BENCH_OUT:-$(mktemp -d /tmp/fio-raid-project-bench.XXXXXX)}
TMPDIR=/dev/shm "$ROOT/run.sh" selfcheck --no-build --scale 0.0625 --runtime "${BENCH_RUNTIME:-3}" \
	--member-size 64M --out "$OUT" >"$OUT/run.log" 2>&1 ||
	{ tail -5 "$OUT/run.log"; echo "project_bench: the selfcheck run failed ($OUT/run.log)"; exit 1; }
R=$(ls -d "$OUT"/*-selfcheck | tail -1)
echo "== projection self-check: x8 projected from x4 on this machine ($R)"
"$ROOT/build/bin/raid-report" project "$R" --self | grep -v '^    '
