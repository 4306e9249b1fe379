#!/usr/bin/env bash
# Regenerates report/testdata/run-rebuild: a run of the rebuild preset's RAID5 rebuild and
# resync tests (run.sh rebuild --only, engine target, member files in /dev/shm), made with
# review A's host profile so that the spare's bay has a drive with a write spec. Everything
# in it is genuine: run.sh's own run.json, meta, fio json+ and the engine's stats (the resync
# test's fio killed with SIGKILL mid-write, then the start that resyncs: run/recovery.sh).
# Only run.json and tests/ are kept. Run from anywhere, after make:
#   bash report/testdata/make-rebuild-fixture.sh
# Then regenerate report/testdata/expected/rebuild.csv (docs/report.md, "Rebuild and resync").
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$ROOT/report/testdata/run-rebuild
SCR=$(mktemp -d /dev/shm/raid-report-rebuild.XXXXXX)
trap 'rm -rf "$SCR"' EXIT
"$ROOT/run.sh" rebuild --only 'raid5-4m-(REBUILD|RESYNC)' --profile gigabyte-r284-s93-aal1 \
	--scale 0.03 --runtime 2 --no-build --no-report --out "$SCR/res" >&2
rm -rf "$OUT"
mkdir -p "$OUT"
cp -r "$SCR"/res/*/run.json "$SCR"/res/*/tests "$OUT/"
