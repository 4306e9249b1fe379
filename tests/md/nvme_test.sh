#!/usr/bin/env bash
# nvme_test.sh - NVMe drives on two NUMA nodes, in one boot of the md appliance (mdvm run
# --numa2 --nvme 8, docs/md.md): the guest's kernel sees eight controllers with the serials
# and EUI-64s mdvm gave them, four behind a PCIe expander bridge on each node (sysfs and
# hwloc agree); md makes a RAID5 over the node-1 drives and fio verifies it; the engine runs
# a verified RAID5 over the node-0 drives; raid-hwinfo places a RAID6 over the node-1 drives
# on node 1 and its CPUs, and the engine's RAID6 run under that placement (run.sh's fio
# options) has its job and parity threads there; everything is torn down. Skipped where the
# appliance can't be had. The bay-map and placement decisions alone are numa_test's.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/threads.sh"

S=$T_SCRATCH
N=8
start=$SECONDS

# Bad input, on this host (no boot): one line naming the field or the device, exit 1.
HW=$ROOT/build/bin/raid-hwinfo R284=$ROOT/hw-profiles/gigabyte-r284-s93-aal1.json
jq '.bays[0].pci = "81:00.0"' "$R284" >"$S/bad-pci.json"
jq '.bays[1].serial = 7' "$R284" >"$S/bad-serial.json"
t_case_fail "a bay's pci that is not a PCI address is refused" \
	--msg 'bays\[0\]\.pci: not a PCI address' "$HW" check "$S/bad-pci.json"
t_case_fail "a bay's serial that is not a string is refused" \
	--msg 'bays\[1\]\.serial: not a string' "$HW" check "$S/bad-serial.json"
t_case_fail "place-drives of a path that does not exist: refused" \
	--msg 'place-drives: /nonexistent/nvme0n1: No such file' "$HW" place-drives /nonexistent/nvme0n1
t_case_fail "drives of a member file: refused as not a block device" \
	--msg 'drives: .*: not a block device' "$HW" drives "$R284"
t_case "place-drives of member files: not pinned, said" bash -c \
	"'$HW' place-drives '$R284' | tee /dev/stderr | grep -qx pin=0 &&
	 '$HW' place-drives '$R284' | grep -q '^warning=no member.s NUMA node is known.*not a block device'"

t_need_md
export FIO ENGINE ROOT

# In the guest: what the kernel shows, then md, the engine, and the placed engine run. Each
# step writes its files into OUT for the host's checks.
nvme_guest() {
	local out=$1 hw=$ROOT/build/bin/raid-hwinfo c p ns n0=() n1=() cpus mem pid
	local nostate=--verify_state_save=0 # the cwd is read-only in the guest
	echo "boot $MDVM_BOOT_S" >"$out/times"
	cat /sys/devices/system/node/node*/cpulist >"$out/cpulists"
	# controller, serial, node, PCI address, its namespace's block device (native multipath
	# names the path nvme<S>c<C>n1 and the disk nvme<S>n1)
	for c in /sys/class/nvme/nvme*; do
		for p in "$c"/nvme*n1; do
			ns=${p##*/}
			ns=${ns/c[0-9]*n/n}
			p=$(readlink -f "$c/device")
			read -r node <"$c/device/numa_node"
			echo "${c##*/} $(<"$c/serial") $node ${p##*/} $ns"
			if [[ $node == 1 ]]; then n1+=("/dev/$ns"); else n0+=("/dev/$ns"); fi
		done
	done >"$out/ctrls"
	"$hw" drives "${n0[@]}" "${n1[@]}" >"$out/drives.json" 2>&1
	"$hw" drives >"$out/hwloc-drives.json" 2>&1
	lstopo-no-graphics --of console >"$out/lstopo" 2>&1
	"$hw" place-drives "$(IFS=,; echo "${n1[*]}")" >"$out/place-n1" 2>&1
	"$hw" place-drives "$(IFS=,; echo "${n0[*]}")" >"$out/place-n0" 2>&1
	"$hw" place-drives "$(IFS=,; echo "${n0[0]},${n1[0]}")" >"$out/place-both" 2>&1
	# a profile of this guest (host-profile: bays with each drive's PCI address) with two
	# disagreements planted: the first node-1 drive's bay names its serial but says node 0,
	# the first node-0 drive's bay names a serial no drive has
	"$hw" host-profile >"$out/host.json" 2>&1
	jq --arg a "${n1[0]#/dev/}" --arg b "${n0[0]#/dev/}" --slurpfile d "$out/drives.json" \
		'.bays |= map(if .device == $a then .numa_node = 0 |
				.serial = ($d[0][] | select(.dev == $a) | .serial)
			elif .device == $b then .serial = "NOT-THIS-ONE" else . end)' \
		"$out/host.json" >"$out/planted.json"
	"$hw" map "$out/planted.json" >"$out/map" 2>&1
	"$hw" place "$out/planted.json" "$(jq -r --arg l " ${n1[*]#/dev/} " \
		'[.bays[] | .device as $d | select($l | contains(" \($d) ")) | .bay] | join(",")' \
		"$out/host.json")" >"$out/place-profile" 2>&1

	# md RAID5 over the node-1 drives (zero drives: parity already agrees), fio verifies
	mdadm --create /dev/md0 --run --level=5 --raid-devices=${#n1[@]} --chunk=64 \
		--assume-clean "${n1[@]}" >"$out/md.log" 2>&1
	cat /proc/mdstat >"$out/mdstat"
	"$FIO" --name=md --filename=/dev/md0 --ioengine=io_uring --direct=1 --rw=randwrite \
		--bs=4k --iodepth=8 --size=8m --verify=crc32c --do_verify=1 $nostate --output-format=json \
		--output="$out/md-fio.json" >>"$out/md.log" 2>&1
	echo "md fio exit $?" >>"$out/md.log"
	mdadm --stop /dev/md0 >>"$out/md.log" 2>&1
	mdadm --zero-superblock "${n1[@]}" >>"$out/md.log" 2>&1
	echo "md teardown exit $?" >>"$out/md.log"

	# the engine, RAID5 over the node-0 drives, verified
	fio_raid --name=e0 --filename=vol --raid_level=5 --raid_members="$(IFS=:; echo "${n0[*]}")" \
		--raid_chunk=64k --raid_member_size=32m --rw=randwrite --bs=4k --iodepth=8 --size=8m \
		--verify=crc32c --do_verify=1 $nostate --output-format=json --output="$out/e0.json" \
		--raid_stats="$out/e0-stats.json" >"$out/e0.log" 2>&1
	echo "fio exit $?" >>"$out/e0.log"

	# the engine, RAID6 over the node-1 drives, placed as raid-hwinfo says (fio's own
	# options, as run.sh passes them), with a parity worker; its threads sampled
	cpus=$(sed -n 's/^cpus=//p' "$out/place-n1")
	mem=$(sed -n 's/^mem_policy=//p' "$out/place-n1")
	# (fio itself in the background, not a shell function: $! is fio)
	"$FIO" --ioengine="external:$ENGINE" --thread=1 --name=e1 --filename=vol --raid_level=6 --raid_members="$(IFS=:; echo "${n1[*]}")" \
		--raid_chunk=64k --raid_member_size=32m --raid_workers=1 --numjobs=2 --size=50% \
		--offset_increment=50% --io_size=4m --rw=randwrite --bs=4k --iodepth=8 \
		--verify=crc32c --do_verify=1 $nostate --cpus_allowed="$cpus" --numa_mem_policy="$mem" \
		--output-format=json --output="$out/e1.json" >"$out/e1.log" 2>&1 &
	pid=$!
	thread_affinity $pid >"$out/affinity"
	wait $pid
	echo "fio exit $?" >>"$out/affinity"
	# nothing left behind: no md array, no superblock on any drive
	{ cat /proc/mdstat; mdadm --examine "${n0[@]}" "${n1[@]}" 2>&1; } >"$out/after"
	return 0 # each step's status is in its files
}
export -f nvme_guest fio_raid

boot() {
	local t0=$SECONDS rc
	# the last drive on a file of the caller's (--nvme-file), the others on the appliance's
	truncate -s 64M "$S/last.img" || return 1
	cd "$ROOT" && "$MDVM_CMD" run --numa2 --smp 2 --nvme $((N - 1)):64M --nvme-file "$S/last.img" \
		--rw "$S" --timeout 900 -- \
		bash -c 'nvme_guest "$1"' _ "$S" 2>"$S/mdvm.err"
	rc=$?
	cat "$S/mdvm.err"
	echo "guest run $((SECONDS - t0)) s" >>"$S/times"
	return $rc
}
t_case "the appliance boots with $N NVMe drives on two NUMA nodes" boot
node0=$(sed -n 1p "$S/cpulists" 2>/dev/null)
node1=$(sed -n 2p "$S/cpulists" 2>/dev/null)

# what mdvm said it gave (serial, EUI-64, node), as "serial eui node" lines
given() { sed -n 's/^mdvm: nvme drive [0-9]*: serial \([^,]*\), EUI-64 \([^,]*\), NUMA node \([01]\),.*/\1 \2 \3/p' "$S/mdvm.err" | tr -d : | sort; }
controllers() {
	cat "$S/ctrls"
	[[ $(wc -l <"$S/ctrls") == "$N" ]] || { echo "not $N controllers"; return 1; }
	# serial and node of each, as given
	diff <(given | cut -d' ' -f1,3) <(awk '{print $2, $3}' "$S/ctrls" | sort)
}
t_case "$N controllers, each with the serial and NUMA node mdvm gave it" controllers
# the caller's file is drive N-1 (on node 1): md and the engine wrote onto it
t_case "--nvme-file: the caller's file is the last drive, written through" bash -c \
	"grep -q 'nvme drive $((N - 1)): .*NUMA node 1, $S/last.img\$' '$S/mdvm.err' &&
	 [[ \$(tr -d '\\0' <'$S/last.img' | head -c 1 | wc -c) == 1 ]]"
t_case "half the controllers on node 1, half on node 0" bash -c \
	"[[ \$(awk '\$3 == 1' '$S/ctrls' | wc -l) == $((N / 2)) && \$(awk '\$3 == 0' '$S/ctrls' | wc -l) == $((N / 2)) ]]"
# the namespaces' EUI-64 (the guest kernel hides it in sysfs for QEMU's controllers:
# raid-hwinfo asks the namespace) and the kernel's wwid, which carries the serial
identities() {
	cat "$S/drives.json"
	diff <(given | cut -d' ' -f1,2) <(jq -r '.[] | "\(.serial) \(.eui64)"' "$S/drives.json" | sort) &&
		jq -e 'all(.[]; (.wwid | length) > 0)' "$S/drives.json" >/dev/null
}
t_case "each namespace has the EUI-64 mdvm gave it" identities
hwloc_nodes() {
	cat "$S/lstopo" "$S/hwloc-drives.json"
	diff <(awk '{print $5, $3}' "$S/ctrls" | sort) \
		<(jq -r '.[] | select(.dev | startswith("nvme")) | "\(.dev) \(.numa_node)"' "$S/hwloc-drives.json" | sort)
}
t_case "hwloc's drives (raid-hwinfo drives) sit on the kernel's nodes" hwloc_nodes
# fio's JSON in FILE (the lines before it, messages of fio or the engine, are shown)
fio_json() {
	sed -n '1,/^{/{/^{/!p}' "$1" >&2
	sed -n '/^{/,$p' "$1" >"$1.only"
	echo "$1.only"
}
export -f fio_json
has() { # FILE LINES...: each line present
	local f=$1 l
	shift
	cat "$f"
	for l in "$@"; do grep -qx -- "$l" "$f" || { echo "missing: $l"; return 1; }; done
}
t_case "raid-hwinfo places the node-1 drives on node 1 and its CPUs" has "$S/place-n1" \
	nodes=1 pin=1 "cpus=$node1" mem_policy=bind:1 spans_sockets=0
t_case "raid-hwinfo places the node-0 drives on node 0 and its CPUs" has "$S/place-n0" \
	nodes=0 pin=1 "cpus=$node0" mem_policy=bind:0
t_case "an array over both nodes' drives is warned about" bash -c \
	"cat '$S/place-both'; grep -q '^warning=array spans 2 sockets (NUMA nodes 0,1)' '$S/place-both'"
# the map names every bay's drive and the two planted disagreements; placing the node-1
# drives' bays by the profile follows the machine's node, and says where they differ
bay_map() {
	cat "$S/map"
	[[ $(grep -c '^bay=[0-9]* dev=nvme[0-9]*n1 ' "$S/map") == "$N" ]] &&
		grep -qx 'disagreements=2' "$S/map" &&
		grep -Eq "^disagree=bay [0-9]+: ${n1first} is on NUMA node 1 here, the profile says 0$" "$S/map" &&
		grep -Eq "^disagree=bay [0-9]+: ${n0first} at [0-9a-f:.]+ holds serial MDVMNVME[0-9]+, the profile says NOT-THIS-ONE$" "$S/map"
}
n1first=$(awk '$3 == 1 {print $5; exit}' "$S/ctrls" 2>/dev/null)
n0first=$(awk '$3 == 0 {print $5; exit}' "$S/ctrls" 2>/dev/null)
t_case "raid-hwinfo map: each bay's drive, and where profile and machine disagree" bay_map
by_machine() {
	has "$S/place-profile" nodes=1 "cpus=$node1" mem_policy=bind:1 &&
		grep -q "^warning=.*$n1first is on NUMA node 1 here, the profile says 0" "$S/place-profile"
}
t_case "a profile's bays are placed by the machine's node, with the disagreement said" by_machine
t_case "md RAID5 over the node-1 drives: fio verify passes" bash -c \
	"cat '$S/mdstat' '$S/md.log'; grep -q 'md0 : active raid5' '$S/mdstat' && grep -qx 'md fio exit 0' '$S/md.log' &&
	 jq -e '.jobs[0].error == 0' \$(fio_json '$S/md-fio.json') >/dev/null"
t_case "the engine's RAID5 over the node-0 drives: fio verify passes" bash -c \
	"cat '$S/e0.log'; grep -qx 'fio exit 0' '$S/e0.log' && jq -e '.jobs[0].error == 0' \$(fio_json '$S/e0.json') >/dev/null"
pinned() {
	cat "$S/affinity"
	threads_on "$S/affinity" "$node1" || { cat "$S/e1.log"; return 1; }
	jq -e '[.jobs[].error] | all(. == 0)' "$(fio_json "$S/e1.json")" >/dev/null
}
t_case "the engine's RAID6 over the node-1 drives runs, verified, on node 1's CPUs" pinned
t_case "md's array and superblocks are gone afterwards" bash -c \
	"cat '$S/md.log' '$S/after'; grep -qx 'md teardown exit 0' '$S/md.log' && ! grep -q '^md[0-9]' '$S/after' &&
	 ! grep -q 'Magic' '$S/after'"
if [[ -s $S/ctrls ]]; then
	echo "guest boot: $(sed -n 's/^boot //p' "$S/times") s; $(grep 'guest run' "$S/times"); test $((SECONDS - start)) s"
	for n in 1 0; do
		echo "placement: node $n drives: $(awk -v n=$n '$3 == n {printf "%s (%s) ", $5, $2}' "$S/ctrls")-> $(grep -E '^(nodes|cpus|mem_policy)=' "$S/place-n$n" | tr '\n' ' ')"
	done
fi
t_done
