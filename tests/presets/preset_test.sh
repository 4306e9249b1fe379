#!/usr/bin/env bash
# tests/presets/preset_test.sh: the presets as data (presets/*.preset, build/bin/raid-preset).
# Every preset, with each --parity, plans exactly what run.sh's hand-written plan functions
# planned (tests/presets/plans.txt, written by that run.sh); every preset's whole --dry-run
# (host profile, so that it does not depend on this machine's NUMA nodes) is unchanged
# (tests/presets/dryrun.sha256); bad preset and job files are refused with one line naming
# the file and line. After an intended change of what a preset runs:
#   PRESET_TEST_UPDATE=1 bash tests/presets/preset_test.sh   (and review the diff)
source "$(dirname "$0")/../lib.sh"
P=$ROOT/build/bin/raid-preset
RUN=$ROOT/run.sh
PLANS=$ROOT/tests/presets/plans.txt
SUMS=$ROOT/tests/presets/dryrun.sha256
[[ -x $P ]] || t_skip "build/bin/raid-preset is not built (make)"
mapfile -t NAMES < <("$P" list "$ROOT/presets" | cut -d' ' -f1)

plans() { # every preset x parity: "## PRESET PARITY" and its plan lines
	local p par layout profile args
	for p in "${NAMES[@]}"; do
		read -r layout profile < <("$P" info "$ROOT/presets/$p.preset" |
			awk '$1 == "layout" { l = $2 } $1 == "profile" { f = $2 } END { print l, f }')
		args=()
		if [[ $layout != - ]]; then
			"$ROOT/build/bin/raid-hwinfo" layout "$ROOT/hw-profiles/$profile.json" "$layout" \
				>"$T_SCRATCH/layout" || return 1
			args=(--layout "$T_SCRATCH/layout")
		fi
		for par in "" cpu cuda auto; do
			echo "## $p ${par:-default}"
			"$P" arrays "$ROOT/presets/$p.preset" --workloads "$ROOT/workloads" \
				${par:+--parity "$par"} "${args[@]}" || return 1
		done
	done
}
dry_sums() { # "SHA256 PRESET": its whole --dry-run, this checkout's paths written @ROOT@
	local p
	for p in "${NAMES[@]}"; do
		[[ $p == proxmox ]] && continue # its profile pins to this machine's NUMA nodes
		FIO_RAID_RUN_ID=golden "$RUN" "$p" --dry-run --no-build --profile host --scale 0.5 \
			--scratch /srv/m 2>/dev/null | sed "s|$ROOT|@ROOT@|g" | sha256sum |
			sed "s/ .*/ $p/" || return 1
	done
}
if [[ -n ${PRESET_TEST_UPDATE:-} ]]; then
	plans >"$PLANS" && dry_sums >"$SUMS" && echo "wrote $PLANS and $SUMS"
	exit
fi
same() { # WANT_FILE CMD...: CMD prints WANT_FILE's text
	"$2" >"$T_SCRATCH/got" || return 1
	diff -u "$1" "$T_SCRATCH/got"
}
t_case "every preset x --parity plans what run.sh planned before" same "$PLANS" plans
t_case "every preset's --dry-run is unchanged" same "$SUMS" dry_sums

# Bad files: one line naming the file and the line (or the field), and a clean exit 1.
W=$T_SCRATCH/wl
mkdir -p "$W"
cp "$ROOT/workloads/seq1m-q8t64-read.fio" "$W/ok.fio"
bad() { # NAME ERE LINE...: a preset of those lines is refused with ERE
	local name=$1 ere=$2
	shift 2
	printf '%s\n' "doc a test preset" "runtime 3" "member-size 32M" "$@" >"$T_SCRATCH/p.preset"
	t_case_fail "refused: $name" --msg "^raid-preset: $T_SCRATCH/p.preset:[0-9]+: $ere" \
		"$P" plan "$T_SCRATCH/p.preset" --workloads "$W"
}
bad "an unknown keyword" "unknown keyword 'arrays'" "arrays x level=0 members=2"
bad "fewer members than the level's minimum (the engine's validator)" \
	"raid5-2m: raid: raid_members: raid_level=5 needs at least 3 members, 2 given" \
	"array raid5-2m level=5 members=2 chunk=64k parity=cpu" "run array=raid5-2m workload=ok"
bad "a level the engine does not have" "r7: raid: raid_level: '7' is not one of" \
	"array r7 level=7 members=4 chunk=64k parity=cpu"
bad "a missing job file" "run: workload 'nope': .*/nope.fio is missing" \
	"array j level=jbod members=2" "run array=j workload=nope"
bad "an unknown state" "run: ok@broken: state 'broken' is not optimal, degraded, rebuilding or resync" \
	"array j level=jbod members=2" "run array=j workload=ok@broken"
bad "an unknown array" "run: no array or layout named 'x'" \
	"array j level=jbod members=2" "run array=x workload=ok"
bad "bays that are not the members" "r0: 3 bays for 4 members" \
	"array r0 level=0 members=4 chunk=64k parity=cpu bays=0-2"
bad "two parities and no {parity} in the name" "r0: several parity/chunk values" \
	"array r0 level=0 members=4 chunk=64k parity=cpu,cuda"
bad "a jbod with a chunk" "j: a jbod has no chunk= or parity=" \
	"array j level=jbod members=2 chunk=64k"
bad "an unknown field" "r0: 'stripe=64k' is not one of its FIELD=VALUE fields" \
	"array r0 level=0 members=2 stripe=64k"
bad "a chunk the engine refuses" "r0: raid: raid_chunk: '12k'" \
	"array r0 level=0 members=2 chunk=12k parity=cpu"
bad "an array defined twice" "'j' is defined twice" \
	"array j level=jbod members=2" "array j level=jbod members=4"
t_case_fail "refused: a preset without its scale rules" --msg "needs a runtime and a member-size" \
	bash -c "echo 'doc x' >'$T_SCRATCH/q.preset'; '$P' info '$T_SCRATCH/q.preset'"

# Job files: their facts are checked words, never shell text (run.sh once eval'ed them).
job() { # NAME ERE LINE...: a job file of those lines is refused with ERE
	local name=$1 ere=$2
	shift 2
	printf '%s\n' "$@" >"$T_SCRATCH/j.fio"
	t_case_fail "job file refused: $name" --msg "^raid-preset: $T_SCRATCH/j.fio(:[0-9]+)?: $ere" \
		"$P" job "$T_SCRATCH/j.fio"
}
job "shell text as the workload id" "'; @workload ID'" \
	'; @workload x;touch${IFS}pwned' "; @published rw=read bs=4k iodepth=1 numjobs=1"
job "shell text as a figure" "@published: 'bs=4k.\(id\)'" \
	"; @workload X" '; @published rw=read bs=4k$(id) iodepth=1 numjobs=1'
job "no @workload" "no '; @workload ID' line" "; @published rw=read bs=4k iodepth=1 numjobs=1"
job "a figure missing" "@published has no numjobs=" "; @workload X" "; @published rw=read bs=4k iodepth=1"
t_case "a job file's facts: id, rw, bs, iodepth, numjobs" bash -c \
	"[[ \$('$P' job '$ROOT/workloads/mr-rebuild.fio') == 'REBUILD-6.4TB read 128k 4 1' ]]"
t_case "the scale rules: runtime and member size at --scale" bash -c \
	"'$P' info '$ROOT/presets/hwluxx.preset' --scale 0.0625 | grep -qx 'runtime 5' &&
	 '$P' info '$ROOT/presets/hwluxx.preset' --scale 0.5 | grep -qx 'runtime 30' &&
	 '$P' info '$ROOT/presets/hwluxx.preset' --scale 0.0625 | grep -qx 'member-size 67108864' &&
	 '$P' info '$ROOT/presets/hwluxx.preset' --scale 0.01 | grep -qx 'member-size 33554432'"
t_case "--list is presets/index, in order" bash -c \
	"[[ \$('$RUN' --list | awk '{print \$1}' | tr '\n' ' ') == \"\$(grep -v '^#' '$ROOT/presets/index' | tr '\n' ' ')\" ]]"
t_done
