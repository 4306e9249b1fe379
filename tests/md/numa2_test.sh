#!/usr/bin/env bash
# numa2_test.sh - run.sh --profile placement on a real kernel's view of two NUMA nodes: the
# md appliance boots with two sockets and two nodes (mdvm run --numa2, one CPU each), and
# there hwloc, raid-hwinfo and run.sh must place the published R284 layout as on the real
# host (RAID6 on bays 4-11 on node 1, RAID1 on bays 0-1 on node 0, all twelve bays warned as
# spanning sockets), and a fio run of run.sh's own command must have its job threads and the
# engine's threads (a parity worker, io_uring workers) on node 1's CPU. Skipped where the
# appliance can't be had. The synthetic-topology checks are tests/presets/profiles_test.sh.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/threads.sh"

S=$T_SCRATCH

t_need_md

# In the guest: the decisions, then the affinity of every thread of one real run.
numa_guest() {
	local out=$1 hw=build/bin/raid-hwinfo p=hw-profiles/gigabyte-r284-s93-aal1.json cmd pid t
	cat /sys/devices/system/node/node*/cpulist >"$out/cpulists"
	"$hw" facts >"$out/facts.json"
	"$hw" place "$p" 4,5,6,7,8,9,10,11 >"$out/place-raid6"
	"$hw" place "$p" 0,1 >"$out/place-raid1"
	"$hw" place "$p" 0,1,2,3,4,5,6,7,8,9,10,11 >"$out/place-all"
	./run.sh proxmox --profile gigabyte-r284-s93-aal1 --dry-run --no-build --out /tmp/res \
		>"$out/proxmox.dry" 2>&1
	# its first warning is enough (the whole dry run is long under emulation)
	./run.sh hwluxx --profile gigabyte-r284-s93-aal1 --dry-run --no-build --out /tmp/res 2>&1 |
		grep -m1 'spans' >"$out/hwluxx.dry"
	# run.sh's RAID6 4K random-write command with a parity worker, on ramdisks for members
	# (this kernel's tmpfs has no O_DIRECT)
	cmd=$(grep -A1 '^# \[4/8\] gpu-raid6-8-' "$out/proxmox.dry" | tail -1)
	cmd=$(sed -E -e 's#/var/tmp/fio-raid-scratch\.DRYRUN/gpu-raid6-8/bay([0-9]+)#/dev/ram\1#g' \
		-e 's#/var/tmp/fio-raid-scratch\.DRYRUN#/tmp#g' -e 's# --raid_spares=[^ ]*##' \
		-e 's#JOB_SIZE=[0-9]*#JOB_SIZE=4m#' -e 's#RUNTIME=[0-9]*#RUNTIME=6#' \
		-e 's#--output=[^ ]*#--output=/tmp/out.json --raid_member_size=8m --raid_workers=1#' \
		-e 's#--raid_stats=[^ ]*#--raid_stats=/tmp/stats.json#' <<<"$cmd")
	echo "$cmd" >"$out/cmd"
	eval "exec $cmd" >"$out/fio.log" 2>&1 &  # exec: $! is fio itself
	pid=$!
	thread_affinity $pid >"$out/affinity"
	wait $pid
	echo "fio exit $?" >>"$out/affinity"
	grep -i 'err\|fail' /tmp/out.json >>"$out/fio.log"
}
export -f numa_guest

boot() {
	cd "$ROOT" && "$MDVM_CMD" run --numa2 --smp 2 --ramdisks 12:8192 --rw "$S" --timeout 600 -- bash -c 'numa_guest "$1"' _ "$S"
}
t_case "the appliance boots with two sockets and two NUMA nodes" boot
node1=$(sed -n 2p "$S/cpulists" 2>/dev/null)
echo "guest nodes' CPUs: $(tr '\n' ' ' <"$S/cpulists" 2>/dev/null)"

t_case "hwloc sees 2 sockets and 2 NUMA nodes" bash -c \
	"tr -d ' \n' <'$S/facts.json' | grep -q '\"sockets\":2,\"numa_nodes\":2'"
has() { # FILE LINES...: each line present
	local f=$1 l
	shift
	cat "$f"
	for l in "$@"; do grep -qx -- "$l" "$f" || { echo "missing: $l"; return 1; }; done
}
t_case "RAID6 on bays 4-11 is placed on node 1's CPUs" has "$S/place-raid6" nodes=1 \
	"cpus=$node1" spans_sockets=0 pin=1 mem_policy=bind:1
t_case "RAID1 on bays 0-1 is placed on node 0" has "$S/place-raid1" nodes=0 pin=1 mem_policy=bind:0
t_case "all twelve bays: the array spans the sockets, with a warning" bash -c \
	"cat '$S/place-all'; grep -qx spans_sockets=1 '$S/place-all' && grep -q '^warning=array spans 2 sockets' '$S/place-all'"
t_case "run.sh pins the RAID6 runs to node 1 and the RAID1 runs to node 0" bash -c \
	"cat '$S/proxmox.dry' | cut -c1-200; [[ \$(grep -c -- '--raid_level=6 .*--cpus_allowed=$node1 --numa_mem_policy=bind:1' '$S/proxmox.dry') == 4 &&
	   \$(grep -c -- '--raid_level=1 .*--cpus_allowed=$(sed -n 1p "$S/cpulists") --numa_mem_policy=bind:0' '$S/proxmox.dry') == 4 ]]"
t_case "run.sh warns that a 12-bay array spans sockets" grep -q 'spans 2 sockets' "$S/hwluxx.dry"

# every thread started after fio's own two (the jobs, the parity worker, io_uring's workers)
# runs on node 1's CPU only
pinned() {
	cat "$S/cmd" "$S/affinity"
	threads_on "$S/affinity" "$node1" || { cat "$S/fio.log"; return 1; }
}
t_case "the run's job and engine threads run on node 1's CPU" pinned
t_done
