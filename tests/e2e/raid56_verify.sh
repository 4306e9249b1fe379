#!/usr/bin/env bash
# raid56_verify.sh - RAID 5 and 6 end to end through fio with crc32c verification: every
# layout, optimal and with one (and, for RAID6, two) failed members, iodepth 32, numjobs 4
# (thread=1) writing interleaved 4k strides so that every stripe is shared by the jobs;
# block sizes from 4k to whole stripes; written optimal then read back degraded; the knobs
# (raid_rmw, raid_stripe_cache, raid_workers, raid_parity) and the stats file.
source "$(dirname "$0")/../lib.sh"

S=$T_SCRATCH


# shared NAME LEVEL N ARGS...: 4 jobs, each writing every 4th 4k block (the blocks of one
# stripe belong to different jobs), then verifying its own
shared() {
	local name=$1 level=$2 n=$3 vsize
	shift 3
	vsize=$(((n - level + 4) * 4)) # MiB: (n - parity members) x 4m members
	fio_raid --name="$name" --filename=vol --raid_level="$level" \
		--raid_members="$(members "$n" "$name-")" --raid_member_size=4m \
		--rw=randwrite --bs=4k --iodepth=32 --numjobs=4 --offset_increment=4k \
		--zonemode=strided --zonesize=4k --zoneskip=12k --io_size=$((vsize / 4))m \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --verify_state_save=0 "$@"
}

# single NAME LEVEL N ARGS...: one job, mixed sizes (partial, full and multi-stripe writes)
single() {
	local name=$1 level=$2 n=$3
	shift 3
	fio_raid --name="$name" --filename=vol --raid_level="$level" \
		--raid_members="$(members "$n" "$name-")" --raid_member_size=4m \
		--rw=randwrite --bsrange=4k-96k --iodepth=32 --size=100% --verify=crc32c \
		--do_verify=1 --verify_fatal=1 --verify_state_save=0 "$@"
}

layouts=(left-symmetric left-asymmetric right-symmetric right-asymmetric)
chunks=(4k 8k 16k 64k)
for i in 0 1 2 3; do
	l=${layouts[$i]} c=${chunks[$i]}
	t_case "raid5 $l chunk $c shared stripes" shared r5$i 5 5 --raid_layout=$l --raid_chunk=$c
	t_case "raid5 $l chunk $c one failed" shared r5f$i 5 5 --raid_layout=$l --raid_chunk=$c \
		--raid_failed=$i
	t_case "raid6 $l chunk $c shared stripes" shared r6$i 6 6 --raid_layout=$l --raid_chunk=$c
	t_case "raid6 $l chunk $c one failed" shared r6f$i 6 6 --raid_layout=$l --raid_chunk=$c \
		--raid_failed=$((5 - i))
	t_case "raid6 $l chunk $c two failed" shared r6ff$i 6 6 --raid_layout=$l --raid_chunk=$c \
		--raid_failed=$i,$(((i + 2) % 6))
	t_case "raid6 $l chunk $c mixed sizes" single r6m$i 6 7 --raid_layout=$l --raid_chunk=$c
done
t_case "raid5 mixed sizes, 3 members, io_uring" single r5m 5 3 --raid_chunk=16k
t_case "raid5 mixed sizes, libaio, direct=1" single r5a 5 4 --raid_backend=libaio --direct=1
t_case "raid6 psync, two failed, mixed sizes" single r6p 6 8 --raid_backend=psync \
	--raid_failed=1,6 --raid_chunk=8k
t_case "raid5 ram backend" single r5r 5 6 --raid_backend=ram --raid_chunk=4k
t_case "raid6 1m chunks, writes up to 1m" single r6b 6 5 --raid_chunk=1m --bsrange=4k-1m \
	--raid_failed=3
t_case "raid6 forced rmw, 2 workers" shared r6w 6 6 --raid_rmw=rmw --raid_workers=2
t_case "raid6 forced rcw, isal, 1 worker" shared r6i 6 6 --raid_rmw=rcw --raid_parity=isal \
	--raid_workers=1
t_case "raid5 stripe cache of 2" shared r5c 5 5 --raid_stripe_cache=2 --raid_chunk=4k

# Written optimal, then read back with members missing: reads reconstruct them.
later_degraded() {
	local m
	m=$(members 6 ld-)
	fio_raid --name=w --filename=vol --raid_level=6 --raid_members="$m" --raid_chunk=8k \
		--raid_member_size=4m --rw=write --bs=12k --size=100% --verify=crc32c \
		--do_verify=0 --verify_state_save=0 &&
		fio_raid --name=w --filename=vol --raid_level=6 --raid_members="$m" \
			--raid_chunk=8k --raid_failed=0,3 --raid_stats="$S/ld.json" --rw=read \
			--bs=12k --size=100% --verify=crc32c --verify_fatal=1 &&
		(($(jget "$S/ld.json" degraded_reads) > 0)) &&
		[[ $(jget "$S/ld.json" state) == degraded ]]
}
t_case "raid6 written optimal, read with 2 members missing" later_degraded

# The stats file: strategies, parity work and lock waits are counted; member writes as the
# level issued them (data, P and Q of each write; merged ones included) are at least 3 each.
# The four jobs must overlap to share one array (and one stats file): each starts its engine
# when its thread starts, so rate_iops keeps every job running for about a second, longer
# than the threads' start-up spread on a loaded machine.
stats() {
	local f=$S/st.json
	shared st 6 6 --raid_chunk=4k --raid_stats="$f" --rate_iops=1000 &&
		[[ $(jget "$f" level) == 6 ]] &&
		[[ $(jget "$f" parity_impl) != null ]] &&
		[[ $(jget "$f" parity_selection.hot.chosen) == $(jget "$f" parity_impl) ]] &&
		(($(jget "$f" writes.rmw) + $(jget "$f" writes.rcw) == 4096)) &&
		(($(jget "$f" parity.bytes) > 0)) && (($(jget "$f" parity.cpu_ns) > 0)) &&
		(($(jget "$f" member_io.writes) + $(jget "$f" member_io.merged) >= 3 * 4096))
}
t_case "raid6 stats" stats

full_stripes() {
	local f=$S/fs.json
	fio_raid --name=fs --filename=vol --raid_level=5 --raid_members="$(members 5 fs-)" \
		--raid_chunk=4k --raid_member_size=4m --rw=write --bs=16k --size=100% \
		--raid_stats="$f" &&
		(($(jget "$f" writes.full_stripe) == 1024)) &&
		(($(jget "$f" writes.rmw) + $(jget "$f" writes.rcw) == 0)) &&
		(($(jget "$f" member_io.reads) == 0))
}
t_case "raid5 whole-stripe writes read nothing" full_stripes

rmw_counts() { # MODE: 4k writes on RAID5 over 6 members, forced MODE or auto (= rmw)
	local f=$S/rc-$1.json
	fio_raid --name=rc --filename=vol --raid_level=5 --raid_members="$(members 6 rc$1-)" \
		--raid_chunk=64k --raid_member_size=4m --rw=randwrite --bs=4k --io_size=1m \
		--raid_rmw="$1" --raid_stats="$f" &&
		if [[ $1 == rcw ]]; then
			(($(jget "$f" writes.rcw) == 256)) && (($(jget "$f" member_io.reads) == 4 * 256))
		else
			(($(jget "$f" writes.rmw) == 256)) && (($(jget "$f" member_io.reads) == 2 * 256))
		fi
}
t_case "raid_rmw=auto picks rmw for 4k on 6 members" rmw_counts auto
t_case "raid_rmw=rmw" rmw_counts rmw
t_case "raid_rmw=rcw" rmw_counts rcw

# A member I/O error fails the member (md's behaviour): the request is run again degraded.
member_error() { # KIND: read or write
	local f=$S/me-$1.json
	shared me$1 6 5 --raid_chunk=8k --raid_inject=2:$1:2 --raid_stats="$f" &&
		[[ $(jget "$f" state) == degraded ]] && [[ $(jget "$f" failed) == *2* ]]
}
t_case "raid6 member write error mid-run" member_error write
t_case "raid6 member read error mid-run" member_error read

# raid_parity=cuda: with a GPU the data must verify; without one, one clear line.
cuda() {
	local out=$S/cuda.log rc=0
	fio_raid --name=cu --filename=vol --raid_level=6 --raid_members="$(members 5 cu-)" \
		--raid_member_size=2m --raid_chunk=8k --raid_parity=cuda --rw=randwrite \
		--bsrange=4k-64k --iodepth=16 --size=100% --verify=crc32c --do_verify=1 \
		--verify_fatal=1 --verify_state_save=0 >"$out" 2>&1 || rc=$?
	cat "$out"
	((rc == 0)) || grep -q "^raid: raid_parity=cuda: no usable GPU: " "$out"
}
t_case "raid_parity=cuda verifies, or says why there is no GPU" cuda

# raid_parity=auto: the GPU when there is one (batched launches in the stats), else the CPU,
# and the stats say which and why.
auto_parity() {
	local f=$S/auto.json
	fio_raid --name=au --filename=vol --raid_level=6 --raid_members="$(members 6 au-)" \
		--raid_member_size=2m --raid_chunk=16k --raid_parity=auto --raid_gpu_batch=32 \
		--rw=randwrite --bsrange=4k-128k --iodepth=16 --size=100% --verify=crc32c \
		--do_verify=1 --verify_fatal=1 --verify_state_save=0 --raid_stats="$f" || return 1
	case $(jget "$f" parity_used) in
	cuda) (($(jget "$f" gpu.launches) > 0)) && (($(jget "$f" gpu.batch) == 32)) ;;
	cpu) [[ $(jget "$f" parity_note) == "raid_parity=auto: no usable GPU ("* ]] &&
		[[ $(jget "$f" gpu) == null ]] ;;
	*) return 1 ;;
	esac
}
t_case "raid_parity=auto verifies and records what computed the parity" auto_parity
t_case_fail "unaligned I/O on raid5" fio_raid --name=x --filename=vol --raid_level=5 \
	--raid_members="$(members 3 ua-)" --raid_member_size=1m --rw=write --bs=1000 \
	--size=64k
t_done
