#!/usr/bin/env bash
# tests/targets/dev_test.sh: run.sh --target dev:PATH on a loop device over a file: the quick
# preset's RAID5 workloads run on it (its --target-desc names the level and members), each
# test names its target and carries the whole-machine CPU; a volume holding a file system is
# refused, --force overrides that, a mounted one is refused even so; bad --target input.
source "$(dirname "$0")/../lib.sh"
RUN=$ROOT/run.sh
IMG=$T_SCRATCH/vol.img
command -v losetup >/dev/null || t_skip "losetup (util-linux) is missing"
truncate -s 64M "$IMG"
LOOP=$(losetup --find --show "$IMG" 2>/dev/null) || t_skip "cannot attach a loop device here (needs root and /dev/loop-control)"
trap 'umount "$T_SCRATCH/mnt" 2>/dev/null; losetup -d "$LOOP"; rm -rf "$T_SCRATCH"' EXIT
OUT=$T_SCRATCH/results
run() { env TMPDIR="$T_SCRATCH" "$RUN" quick --no-build --no-report --scale 0.03 --runtime 1 --repeat 1 --member-size 32M --out "$OUT" "$@"; }

t_case "quick on dev:$LOOP=vol (level=5 members=4) runs" run --target "dev:$LOOP=vol" --target-desc "level=5 members=4 chunk=64k card=loop"
cat "$T_OUT"
R=$(ls -d "$OUT"/*-quick 2>/dev/null | head -1)
check_dev_tests() {
	local m n=0
	for m in "$R"/tests/dev-vol-*.meta.json; do
		[[ $(jget "$m" status) == ok && $(jget "$m" target) == dev:vol &&
			$(jget "$m" device) == "$LOOP" && $(jget "$m" level) == 5 &&
			$(jget "$m" members) == 4 && $(jget "$m" chunk) == 65536 &&
			$(jget "$m" engine) == dev ]] || { cat "$m"; return 1; }
		n=$((n + 1))
	done
	((n == 4)) || { echo "$n dev tests, want 4 (the RAID5 lines of quick)"; return 1; }
	# the JBOD baselines run once, as target jbod; no engine test ran
	[[ $(ls "$R"/tests/*.meta.json | wc -l) == 8 ]] || return 1
	[[ $(jget "$R/tests/jbod-4-SEQ1M-Q8T64-write.meta.json" target) == jbod ]]
}
t_case "4 dev tests (ids dev-vol-*) name target, device, level, members, chunk; JBOD once" check_dev_tests
t_case "run.json records the volume and its description" bash -c \
	"[[ \$(jget '$R/run.json' devices.vol.path) == '$LOOP' && \$(jget '$R/run.json' devices.vol.desc) == 'level=5 members=4 chunk=64k card=loop' && \$(jget '$R/run.json' targets) == '[\"dev:vol\"]' ]]"
host_cpu() {
	local m c
	for m in "$R"/tests/*.meta.json; do
		c=$(jget "$m" host_cpu.cpus) || return 1
		[[ $c == "$(nproc)" ]] || { echo "$m: cpus $c"; return 1; }
		# fio's measured interval is its 1 s; the samples taken over it span a part of it or
		# a little more, as far apart as a loaded machine lets the sampler run: no bound
		awk -v i="$(jget "$m" host_cpu.interval_s)" -v f="$(jget "$m" host_cpu.fio_interval_s)" \
			'BEGIN { exit !(f > 0.3 && f < 3 && i > 0) }' ||
			{ echo "$m: interval"; jq -c .host_cpu "$m"; return 1; }
	done
}
t_case "every test has host_cpu, sampled over its 1 s measured interval" host_cpu

refused() { # PATTERN ARGS...: run.sh --dry-run ARGS fails with PATTERN in its message
	local pat=$1 rc=0
	shift
	run --dry-run "$@" >"$T_SCRATCH/o" 2>&1 || rc=$?
	cat "$T_SCRATCH/o"
	((rc != 0)) && grep -q "$pat" "$T_SCRATCH/o"
}
# a file system on it: refused (the signature named), --force runs it
if command -v mkfs.ext4 >/dev/null && mkfs.ext4 -q -F "$LOOP" >/dev/null 2>&1; then
	t_case "a volume with a file system is refused, naming it" refused ext4 --target "dev:$LOOP"
	t_case "--force overrides it" run --dry-run --force --target "dev:$LOOP"
	mkdir -p "$T_SCRATCH/mnt"
	if mount "$LOOP" "$T_SCRATCH/mnt" 2>/dev/null; then
		t_case "a mounted volume is refused even with --force" refused mounted --force --target "dev:$LOOP"
		umount "$T_SCRATCH/mnt"
	else
		echo "(mount not permitted here: the mounted case is not checked)"
	fi
else
	echo "(mkfs.ext4 missing: the file system cases are not checked)"
fi

t_case "--target md with --hosts is refused, saying why" refused "fio server runs job files only" --target engine,md --hosts 127.0.0.1
t_case "--target dev: with --hosts-file is refused too" refused "not with --hosts" --target "dev:$LOOP" --hosts-file /dev/null
t_case_fail "--target foo is refused" run --dry-run --target foo
t_case_fail "--target dev: without a path is refused" run --dry-run --target dev:
t_case_fail "--target dev: with a bad label is refused" run --dry-run --target "dev:$LOOP=a/b"
t_case_fail "--target listed twice is refused" run --dry-run --target engine,engine
t_case_fail "--target dev: on a file is refused" run --dry-run --target "dev:$IMG"
t_case_fail "--target-desc without a dev: target is refused" run --dry-run --target-desc "level=5"
t_case_fail "--md-stripe-cache 5 is refused" run --dry-run --md-stripe-cache 5
t_case_fail "--md-sync-min above --md-sync-max is refused" run --dry-run --md-sync-min 50 --md-sync-max 10
t_done
