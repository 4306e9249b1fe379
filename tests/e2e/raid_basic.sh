#!/usr/bin/env bash
# raid_basic.sh - the smoke test of the engine: RAID 0, 1 and 10 over file members with
# the default io_uring backend, written and read back with fio's crc32c verification.
source "$(dirname "$0")/../lib.sh"


verify_run() { # NAME LEVEL N ARGS...
	local name=$1 level=$2 n=$3
	shift 3
	fio_raid --name="$name" --filename=vol --raid_level="$level" \
		--raid_members="$(members "$n" "$name-m")" --raid_member_size=8m \
		--rw=randwrite --bs=4k --iodepth=16 --size=100% --verify=crc32c \
		--do_verify=1 --verify_fatal=1 --verify_state_save=0 "$@"
}

t_case "raid0 3 members io_uring verify" verify_run r0 0 3 --raid_chunk=8k --bs=12k
# one member (md's --force): review A's 1-drive RAID0 rows measure the RAID layer alone
t_case "raid0 1 member io_uring verify" verify_run r01 0 1 --bsrange=4k-256k
t_case "raid1 2 members io_uring verify" verify_run r1 1 2
t_case "raid10 4 members io_uring verify" verify_run r10 10 4 --raid_chunk=16k --bs=64k
t_done
