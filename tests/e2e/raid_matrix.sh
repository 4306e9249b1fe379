#!/usr/bin/env bash
# raid_matrix.sh - fio runs with crc32c verification over file members: RAID 0, 1 and 10 x
# io_uring, libaio and psync, iodepth 1 and 32, numjobs 4 (thread=1) sharing one array,
# block sizes 4k..1m and 12k over 8k chunks, direct=1, degraded RAID1/10 (the failed member
# is never touched), data written optimal and read back degraded, the ram and null
# backends, and the stats file.
source "$(dirname "$0")/../lib.sh"

S=$T_SCRATCH


# vrun NAME LEVEL N ARGS...: write the volume and verify it (crc32c, fatal)
vrun() {
	local name=$1 level=$2 n=$3
	shift 3
	fio_raid --name="$name" --filename=vol --raid_level="$level" \
		--raid_members="$(members "$n" "$name-")" --raid_member_size=6m \
		--rw=randwrite --bs=4k --size=100% --verify=crc32c --do_verify=1 \
		--verify_fatal=1 --verify_state_save=0 "$@"
}

declare -A nmem=([0]=3 [1]=2 [10]=3)
i=0
for level in 0 1 10; do
	for be in io_uring libaio psync; do
		# alternate depth, block size and O_DIRECT across the matrix
		if ((i % 2)); then qd=32; else qd=1; fi
		bs=$([[ $((i % 3)) == 0 ]] && echo 4k || echo 12k)
		direct=$((i % 2))
		t_case "raid$level $be iodepth=$qd bs=$bs direct=$direct" \
			vrun "m$level$be" $level ${nmem[$level]} --raid_backend=$be \
			--raid_chunk=8k --iodepth=$qd --bs=$bs --direct=$direct
		i=$((i + 1))
	done
	t_case "raid$level bs 4k..1m iodepth 32 direct" \
		vrun "bs$level" $level 4 --raid_chunk=64k --bsrange=4k-1m --iodepth=32 --direct=1
	t_case "raid$level numjobs=4 thread=1 one array" \
		vrun "nj$level" $level 4 --raid_chunk=16k --numjobs=4 --size=25% \
		--offset_increment=25% --iodepth=8 --bs=8k
	t_case "raid$level size=50% sequential 1m" \
		vrun "sq$level" $level 2 --raid_chunk=4k --size=50% --rw=write --bs=1m --iodepth=4
done
t_case "raid10 5 members (odd) bs=12k chunk=8k" vrun odd 10 5 --raid_chunk=8k --bs=12k \
	--iodepth=16
t_case "raid0 ram backend" vrun ram 0 4 --raid_backend=ram --raid_chunk=4k --iodepth=32 \
	--bsrange=4k-64k
t_case "raid10 null backend runs" fio_raid --name=null --filename=vol --raid_level=10 \
	--raid_members=x:y:z --raid_backend=null --raid_member_size=64m --rw=randrw --bs=4k \
	--iodepth=32 --size=100% --io_size=16m

# Degraded: the failed member does not even exist, so nothing can have touched it.
degraded() { # LEVEL N FAILED
	local m
	m=$(members "$2" "dg$1-")
	fio_raid --name=dg --filename=vol --raid_level="$1" --raid_members="$m" \
		--raid_member_size=4m --raid_chunk=8k --raid_failed="$3" --rw=randwrite --bs=12k \
		--iodepth=16 --size=100% --verify=crc32c --verify_fatal=1 --verify_state_save=0 \
		--raid_stats="$S/dg$1.json" || return 1
	[[ ! -e $S/dg$1-$3 ]] || { echo "failed member $3 was created"; return 1; }
	local st=$S/dg$1.json
	[[ $(jget "$st" state) == degraded ]] || return 1
	[[ $(jget "$st" failed | tr -d ' ') == "[$3]" ]] || return 1
	(($(jget "$st" degraded_reads) > 0)) || return 1
	(($(jget "$st" volume.writes) > 0)) || return 1
	(($(jget "$st" member_io.writes) >= $(jget "$st" volume.writes)))
}
t_case "raid1 degraded (member 1 missing)" degraded 1 3 1
t_case "raid10 degraded (member 2 missing)" degraded 10 4 2

# Written optimal, read back degraded: reads must come from the surviving copies, and the
# failed member's bytes must be left as they were.
optimal_then_degraded() { # LEVEL N FAILED
	local m sum
	m=$(members "$2" "od$1-")
	local common=(--name=od --filename=vol --raid_level="$1" --raid_members="$m"
		--raid_member_size=4m --raid_chunk=16k --rw=randwrite --bs=16k --iodepth=8
		--size=100% --verify=crc32c --verify_fatal=1 --verify_state_save=0 --randseed=7)
	fio_raid "${common[@]}" --do_verify=0 || return 1
	sum=$(md5sum <"$S/od$1-$3")
	fio_raid "${common[@]}" --verify_only=1 --raid_failed="$3" || return 1
	[[ $(md5sum <"$S/od$1-$3") == "$sum" ]] || { echo "failed member changed"; return 1; }
}
t_case "raid1 written optimal, verified with member 0 failed" optimal_then_degraded 1 2 0
t_case "raid10 written optimal, verified with member 1 failed" optimal_then_degraded 10 4 1
t_case "raid10 odd written optimal, verified with member 2 failed" optimal_then_degraded 10 3 2

# Stats of an optimal RAID10 run: member writes are twice the volume writes.
stats_raid10() {
	vrun st 10 4 --raid_chunk=4k --bs=4k --iodepth=8 --raid_stats="$S/st.json" || return 1
	local st=$S/st.json k
	[[ $(jget "$st" state) == optimal && $(jget "$st" layout) == near2 ]] || return 1
	[[ $(jget "$st" failed | tr -d ' ') == "[]" ]] || return 1
	(($(jget "$st" member_io.write_bytes) == 2 * $(jget "$st" volume.write_bytes))) || return 1
	(($(jget "$st" member_io.read_bytes) == $(jget "$st" volume.read_bytes))) || return 1
	for k in writes.rmw parity.bytes stripe_lock_waits rebuild scrub parity_impl; do
		jget "$st" $k >/dev/null || return 1
	done
}
t_case "raid10 stats file" stats_raid10
t_done
