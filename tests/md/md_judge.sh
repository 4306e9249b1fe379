#!/usr/bin/env bash
# md_judge.sh - Linux md itself judges the engine's bytes (docs/md.md). The engine writes
# fio verify patterns onto member files here; in ONE boot of the md appliance md assembles
# the same members with the line build/bin/raid-mdadm prints (level, chunk, layout, member
# order, --metadata=1.0 --assume-clean, `missing` for failed members) and reports its array
# size, a `check` (mismatch_cnt), fio verify_only through /dev/md1, and copies the array
# into a fresh md array whose members must equal the engine's byte for byte. The other way,
# md writes verify patterns and the engine reads them back, optimal and with members
# failed, and its scrub finds nothing. Two negative controls (the wrong layout given to md,
# one flipped parity byte) must be seen as differences. Skipped where md can't be had.
source "$(dirname "$0")/../lib.sh"

RMD=$ROOT/build/bin/raid-mdadm
S=$T_SCRATCH
D=$((4 * 1024 * 1024)) # each member's data area (the engine's raid_member_size)
start=$SECONDS

t_need_md

# NAME LEVEL MEMBERS CHUNK LAYOUT | engine-only options | fio options (both sides). Random
# writes through md's degraded or RAID6 paths are slow under TCG: those write 1 MiB.
FORWARD=(
	"r0-3-4k-rand 0 3 4k - | | --rw=randwrite --bs=4k --iodepth=16"
	"r1-3-rand 1 3 64k - | | --rw=randwrite --bs=4k --iodepth=16"
	"r10-3-4k-rand 10 3 4k near2 | | --rw=randwrite --bs=4k --iodepth=16"
	"r10-5-64k-4jobs 10 5 64k near2 | | --rw=randwrite --bs=8k --numjobs=4 --size=25% --offset_increment=25%"
	"r5-4-64k-ls 5 4 64k left-symmetric | | --rw=randwrite --bs=4k --iodepth=16"
	"r5-4-64k-la 5 4 64k left-asymmetric | | --rw=write --bs=64k"
	"r5-4-64k-rs 5 4 64k right-symmetric | | --rw=randwrite --bs=16k --iodepth=8"
	"r5-4-64k-ra 5 4 64k right-asymmetric | | --rw=write --bs=1m"
	"r5-3-512k-seq 5 3 512k left-symmetric | | --rw=write --bs=1m"
	"r5-5-4k-rcw 5 5 4k right-asymmetric | --raid_rmw=rcw | --rw=randwrite --bs=4k --iodepth=16"
	"r6-5-64k-ls 6 5 64k left-symmetric | | --rw=randwrite --bs=4k --iodepth=16"
	"r6-5-64k-la 6 5 64k left-asymmetric | | --rw=write --bs=64k"
	"r6-5-64k-rs 6 5 64k right-symmetric | | --rw=randwrite --bs=8k --iodepth=8"
	"r6-5-64k-ra 6 5 64k right-asymmetric | | --rw=write --bs=1m"
	"r6-6-4k-rmw 6 6 4k left-symmetric | --raid_rmw=rmw | --rw=randwrite --bs=4k --iodepth=16"
	"r6-6-64k-workers 6 6 64k left-asymmetric | --raid_workers=2 | --rw=randwrite --bs=4k --iodepth=16 --numjobs=4 --size=25% --offset_increment=25%"
	"r5-4-64k-deg1 5 4 64k left-symmetric | --raid_failed=1 | --rw=randwrite --bs=4k --iodepth=16 --io_size=1m"
	"r6-6-4k-deg2 6 6 4k right-asymmetric | --raid_failed=0,3 | --rw=randwrite --bs=8k --iodepth=16 --io_size=1m"
	"r10-4-64k-deg1 10 4 64k near2 | --raid_failed=2 | --rw=randwrite --bs=4k --iodepth=16"
	"r1-2-deg1 1 2 64k - | --raid_failed=0 | --rw=write --bs=64k"
)
# md writes, the engine reads: NAME LEVEL MEMBERS CHUNK LAYOUT | failed sets to read with | fio
REVERSE=(
	"md-r0-3-64k 0 3 64k - | | --rw=randwrite --bs=4k --io_size=1m"
	"md-r10-3-4k 10 3 4k near2 | 0 2 | --rw=randwrite --bs=4k --io_size=1m"
	"md-r5-4-64k-ls 5 4 64k left-symmetric | 1 3 | --rw=randwrite --bs=4k --io_size=1m"
	"md-r6-5-64k-rs 6 5 64k right-symmetric | 0,4 2 | --rw=randwrite --bs=8k --io_size=1m"
	"md-r6-6-4k-la 6 6 4k left-asymmetric | 1,2 | --rw=write --bs=1m"
)

F=$((D + 16 * 1024)) # each member file (and guest ramdisk): md 1.0 keeps the last 16 KiB
PLAN=$S/plan.sh
{
	printf 'source %q\n' "$ROOT/tests/md/guest.sh"
	printf 'RESULTS=%q LOG=%q FIO=%q\n' "$S/results" "$S/guest.log" "$FIO"
	printf 'echo "boot $MDVM_BOOT_S" >>"$RESULTS"\n'
} >"$PLAN"

# geometry NAME: sets gn level n chunk layout eopts fopts (the table's columns) and msize,
# the engine's data area: D, but for RAID0 (mdadm ignores --size) what md takes of F: all
# but 12 KiB, rounded down to the chunk
geometry() {
	local row g c
	for row in "${FORWARD[@]}" "${REVERSE[@]}"; do [[ $row == "$1 "* ]] && break; done
	g=${row%%|*}
	read -r gn level n chunk layout <<<"$g"
	row=${row#*|}
	eopts=${row%%|*}
	fopts=${row#*|}
	c=$((${chunk%k} * 1024))
	msize=$D
	((level == 0)) && msize=$(((F - 12 * 1024) / c * c))
}
names() { local r; for r in "$@"; do echo "${r%% *}"; done; }

# files DIR FAILED: the geometry's member files of F bytes, less the failed ones; their paths
files() {
	local dir=$1 failed=,$2, i out=
	mkdir -p "$dir"
	for ((i = 0; i < n; i++)); do
		[[ $failed == *,$i,* ]] || truncate -s $F "$dir/m$i"
		out+=${out:+:}$dir/m$i
	done
	echo "$out"
}

cfg() { # the engine's options for this geometry, members $1
	local c=(--raid_level="$level" --raid_members="$1" --raid_chunk="$chunk" --raid_member_size=$msize)
	[[ $layout != - ]] && c+=(--raid_layout="$layout")
	echo "${c[@]}"
}

failed_of() { sed -n 's/.*--raid_failed=\([0-9,]*\).*/\1/p' <<<"$1"; }

# plan STEP NAME MEMBERS EXTRA... [-- copy]: one shell-quoted line of the guest plan, md's
# line from raid-mdadm for this geometry (EXTRA: engine options that change it)
plan() {
	local step=$1 nm=$2 m=$3 line
	shift 3
	# shellcheck disable=SC2046
	line=$("$RMD" --md /dev/md1 $(cfg "$m") "$@" 2>/dev/null) || echo "$nm: raid-mdadm refused it"
	printf 'D=%q %q %q' "$msize" "$step" "$nm" >>"$PLAN"
	# shellcheck disable=SC2086
	printf ' %q' $fopts -- $line >>"$PLAN"
	[[ $step == judge && $nm != neg-layout ]] && printf ' -- copy' >>"$PLAN"
	[[ $step == mdwrite || $nm != neg-layout ]] && FRESH=$((FRESH + n))
	echo >>"$PLAN"
}

declare -A VOL
setup_errors=0
FRESH=6 # ramdisks the guest needs: 0..5 for the engine's members, one more per md member
for g in $(names "${FORWARD[@]}"); do
	geometry "$g"
	f=$(failed_of "$eopts")
	A=$(files "$S/$gn" "$f")
	# shellcheck disable=SC2046
	if ! fio_raid --name=w --filename=vol --verify_state_save=0 $(cfg "$A") $eopts $fopts --verify=crc32c \
		--do_verify=0 >"$S/$gn.engine.log" 2>&1; then
		echo "$gn: the engine's write failed:"
		tail -5 "$S/$gn.engine.log"
		setup_errors=$((setup_errors + 1))
		continue
	fi
	# shellcheck disable=SC2046
	VOL[$gn]=$("$RMD" --volume $(cfg "$A") $eopts)
	plan judge "$gn" "$A" $eopts
done

# negative control 1: md is told left-asymmetric for left-symmetric members (md's check
# cannot tell these two apart: only the data verify can)
geometry r5-4-64k-ls
plan judge neg-layout "$(files "$S/$gn")" --raid_layout=left-asymmetric
# negative control 2: one flipped byte in row 0's P (left-symmetric: on the last member)
geometry r6-5-64k-ls
cp -r "$S/$gn" "$S/neg-flip"
printf '\xff' | dd of="$S/neg-flip/m$((n - 1))" bs=1 seek=100 conv=notrunc status=none
cmp -s "$S/neg-flip/m$((n - 1))" "$S/$gn/m$((n - 1))" && echo "neg-flip: the flip did not land"
plan judge neg-flip "$(files "$S/neg-flip")"

for g in $(names "${REVERSE[@]}"); do
	geometry "$g"
	A=$(files "$S/$gn")
	# shellcheck disable=SC2046
	VOL[$gn]=$("$RMD" --volume $(cfg "$A"))
	plan mdwrite "$gn" "$A"
done

# ---- the boot: every geometry in one
t0=$SECONDS
boot() {
	"$MDVM_CMD" run --rw "$S" --ramdisks $FRESH:$((F / 1024)) --timeout 1200 -- bash "$PLAN" 2>&1
}
t_case "one boot of the md appliance runs every geometry" boot
boot_s=$((SECONDS - t0))
guest_boot=$(sed -n 's/^boot //p' "$S/results" 2>/dev/null)
echo "md appliance: ready ${guest_boot:-?} s after kernel start; the whole boot took $boot_s s"

result() { # NAME KEY
	sed -n "s/^$1 .*\<$2=\([^ ]*\).*/\1/p" "$S/results" | head -1
}

judged() { # the forward checks of one geometry
	local size mm v bytes
	size=$(result "$gn" size) mm=$(result "$gn" mismatch)
	v=$(result "$gn" verify) bytes=$(result "$gn" bytes)
	echo "$gn: md size $size (engine ${VOL[$gn]}), mismatch_cnt $mm, verify $v, bytes $bytes"
	[[ -n $size && $size == "${VOL[$gn]}" ]] || { echo "array size differs"; return 1; }
	[[ $mm == 0 || ($mm == - && ($level == 0 || -n $f)) ]] || { echo "md's check: $mm"; return 1; }
	[[ $v == 0 ]] || { echo "fio verify through md failed"; return 1; }
	[[ $bytes == 0 ]] || { echo "the members differ from those md writes"; return 1; }
}

for g in $(names "${FORWARD[@]}"); do
	geometry "$g"
	f=$(failed_of "$eopts")
	[[ -n ${VOL[$gn]:-} ]] || continue
	t_case "$gn: md's size, check, verify and member bytes match the engine's" judged
	sed -n 1p "$T_OUT"
done
t_case "every engine write succeeded" test $setup_errors -eq 0

neg_layout() {
	local v
	v=$(result neg-layout verify)
	echo "neg-layout: md given left-asymmetric for left-symmetric members: verify $v"
	[[ -n $v && $v != 0 ]]
}
t_case "negative control: the wrong layout given to md fails fio's verify" neg_layout
sed -n 1p "$T_OUT"
neg_flip() {
	local mm bytes
	mm=$(result neg-flip mismatch) bytes=$(result neg-flip bytes)
	echo "neg-flip: one parity byte flipped: mismatch_cnt $mm, bytes $bytes (1: differ)"
	[[ -n $mm && $mm != - && $mm -gt 0 && $bytes == 1 ]]
}
t_case "negative control: one flipped parity byte is found by md's check and by the byte compare" neg_flip
sed -n 1p "$T_OUT"

# the engine reads what md wrote: optimal, with each failed set, then its scrub
engine_reads() {
	local size mm v fs st=$S/$gn.stats.json
	size=$(result "$gn" size) mm=$(result "$gn" mismatch) v=$(result "$gn" verify)
	echo "$gn: md wrote it (fio $v, md size $size, mismatch_cnt $mm); the engine reads it optimal${eopts:+ and with failed members${eopts% }}"
	[[ $v == 0 && $size == "${VOL[$gn]}" && ($mm == 0 || ($mm == - && $level == 0)) ]] || return 1
	local A
	A=$(members "$n" "$gn/m")
	for fs in "" $eopts; do
		# shellcheck disable=SC2046
		fio_raid --name=r --filename=vol --verify_state_save=0 $(cfg "$A") ${fs:+--raid_failed=$fs} $fopts \
			--verify=crc32c --verify_only=1 --verify_fatal=1 || { echo "failed set '$fs'"; return 1; }
	done
	((level == 0)) && return 0
	# shellcheck disable=SC2046
	fio_raid --name=s --filename=vol --verify_state_save=0 $(cfg "$A") $fopts --verify=crc32c --verify_only=1 \
		--raid_scrub=check --raid_stats="$st" || return 1
	[[ $(jget "$st" scrub.mismatches) == 0 ]]
}
for g in $(names "${REVERSE[@]}"); do
	geometry "$g"
	t_case "$gn: the engine reads md's bytes (optimal, failed members) and its scrub finds nothing" engine_reads
	sed -n 1p "$T_OUT"
done
echo "md judgement: ${#FORWARD[@]} engine geometries, ${#REVERSE[@]} md-written ones, 2 negative controls in $((SECONDS - start)) s"
t_done
