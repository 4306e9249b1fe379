#!/usr/bin/env bash
# host_test.sh - run.sh on a server whose kernel has md, in one boot of the md appliance
# (mdvm run --numa2 --nvme 8, docs/md.md): inside the guest run.sh does not re-run itself,
# exactly as on such a server. The test makes its own md RAID5 over the four node-0 drives,
# standing in for a vendor's volume, then runs the quick preset (a subset of its workloads,
# every level and JBOD) with --drives over the four node-1 drives on
# --target engine,md,dev:<that array>=vendor, as the README's "Running on your own server"
# says. Every test must end ok with no fio error and labels from what ran; afterwards no array
# but the test's own and no md superblock on the run's drives; the engine's RAID6 ran on
# node 1's CPUs (the drives' node, raid-hwinfo place-drives); a drive with a file system on
# it is refused, by name, without --force. Then, on the node-0 drives once the vendor's array
# is gone, spares by identity: the engine's RAID5 over three namespaces rebuilt onto a fourth
# (named by a symlink) and verified, its state file holding each device's serial and EUI-64,
# and a fifth namespace put at the spare's path refused, naming both devices. Skipped where
# the appliance can't be had.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/threads.sh"

S=$T_SCRATCH
N=8
start=$SECONDS
t_need_md
export ROOT FIO ENGINE

# What the run does: a write and a read workload of the quick preset, on every array; small
# enough for QEMU's plain emulation (docs/md.md: the time it took).
HOST_ONLY='SEQ1M-Q8T64-write|RND4K-Q1T64-randread'
export HOST_ONLY

# In the guest: the engine's RAID5 over drives $2-$4 loses member 1, rebuilt onto $5 named
# by the symlink /run/spare, then verified; then $6 put at /run/spare. Each run's log, its fio
# exit and the state file after it go to OUT/r5-<step>.*
host_spare() {
	local out=$1 sp=/run/spare st=$1/r5.state
	local f=(--ioengine="external:$ENGINE" --thread=1 --name=r5 --filename=vol --raid_level=5
		--raid_members="$2:$3:$4" --raid_chunk=64k --raid_member_size=16m --bs=64k
		--size=100% --verify=crc32c --verify_fatal=1 --verify_state_save=0
		--raid_state="$st" --raid_rebuild_min=200 --raid_rebuild_max=2000)
	step() {
		local name=$1
		shift
		"$FIO" "${f[@]}" "$@" >"$out/r5-$name.log" 2>&1
		echo "fio exit $?" >>"$out/r5-$name.log"
		cp "$st" "$out/r5-$name.state"
	}
	ln -sfn "$5" $sp
	step fill --rw=write --do_verify=0
	step rebuild --rw=read --verify_only=1 --raid_failed=1 --raid_spares=$sp --raid_rebuild=1 \
		--raid_stats="$out/r5-rebuild.json"
	step verify --rw=read --verify_only=1
	ln -sfn "$6" $sp
	step swapped --rw=read --verify_only=1
}
export -f host_spare

# In the guest. Each step writes its files into OUT for the host's checks.
host_guest() {
	local out=$1 c p ns d=() i vendor=/dev/md5 run pid
	local opts=(--no-build --repeat 1 --runtime 1 --scale 0.0625 --member-size 32M --only "$HOST_ONLY")
	echo "boot $MDVM_BOOT_S" >"$out/times"
	cat /sys/devices/system/node/node*/cpulist >"$out/cpulists"
	# drive i by its serial MDVMNVME<i> (the kernel enumerates controllers in no fixed order)
	for c in /sys/class/nvme/nvme*; do
		for p in "$c"/nvme*n1; do
			ns=${p##*/}
			i=$(<"$c/serial")
			d[${i#MDVMNVME}]=/dev/${ns/c[0-9]*n/n}
		done
	done
	# drives 0-3 sit on node 0, 4-7 on node 1 (mdvm --numa2)
	run=$(IFS=,; echo "${d[*]:4:4}")
	echo "$run" >"$out/run-drives"
	# the vendor's volume: our own md RAID5 over the node-0 drives
	mdadm --create "$vendor" --run --level=5 --raid-devices=4 --chunk=64 --bitmap=none \
		--assume-clean "${d[@]:0:4}" >"$out/vendor.log" 2>&1
	echo "vendor exit $?" >>"$out/vendor.log"
	cd "$ROOT" || return 1
	# a file system on one of the run's drives: refused, by name, without --force
	mkfs.ext4 -q -F "${d[6]}" >"$out/refused" 2>&1
	./run.sh quick "${opts[@]}" --drives "$run" --out "$out/refused-results" >>"$out/refused" 2>&1
	echo "run.sh exit $?" >>"$out/refused"
	wipefs -a -q "${d[6]}" >>"$out/refused" 2>&1
	# the engine's RAID6 over the node-1 drives: its threads sampled while it runs
	(
		until pid=$(pgrep -f -- '--raid_level=6 ') && [[ $(</proc/$pid/comm) == fio ]]; do sleep 0.3; done
		thread_affinity "$pid"
	) >"$out/affinity" 2>/dev/null &
	local watch=$!
	local t0=$SECONDS
	./run.sh quick "${opts[@]}" --drives "$run" --out "$out/results" \
		--target "engine,md,dev:$vendor=vendor" --target-desc "level=5 members=4 chunk=64k" \
		>"$out/run.log" 2>&1
	echo "run.sh exit $?" >>"$out/run.log"
	echo "run $((SECONDS - t0))" >>"$out/times"
	kill "$watch" 2>/dev/null
	# what is left: arrays, partitions, superblocks on the run's drives
	{
		cat /proc/mdstat
		echo /sys/block/md*
		lsblk -nro NAME "${d[@]:4:4}"
		mdadm --examine "${d[@]:4:4}" 2>&1
	} >"$out/after"
	mdadm --stop "$vendor" >/dev/null 2>&1
	mdadm --zero-superblock "${d[@]:0:4}" >/dev/null 2>&1
	t0=$SECONDS
	host_spare "$out" "${d[@]:0:5}"
	echo "spare $((SECONDS - t0))" >>"$out/times"
	return 0 # each step's status is in its files
}
export -f host_guest

boot() {
	local t0=$SECONDS rc
	cd "$ROOT" && "$MDVM_CMD" run --numa2 --smp 2 --nvme $N:64M --rw "$S" --timeout 900 -- \
		bash -c 'host_guest "$1"' _ "$S" 2>"$S/mdvm.err"
	rc=$?
	cat "$S/mdvm.err"
	echo "guest run $((SECONDS - t0))" >>"$S/times"
	return $rc
}
t_case "the appliance boots with $N NVMe drives on two NUMA nodes" boot
node1=$(sed -n 2p "$S/cpulists" 2>/dev/null)
R=("$S"/results/*)
R=${R[0]}

t_case "the vendor's volume (an md RAID5 of the test's) is made" bash -c \
	"cat '$S/vendor.log'; grep -qx 'vendor exit 0' '$S/vendor.log'"
t_case "a drive with a file system is refused without --force, by name" bash -c \
	"cat '$S/refused'; d=\$(cut -d, -f3 '$S/run-drives');
	 grep -q \"^run.sh: \$d holds data\" '$S/refused' && grep -q 'refusing to use --drives that hold data' '$S/refused' &&
	 grep -qx 'run.sh exit 1' '$S/refused' && [[ ! -e '$S/refused-results' ]]"
t_case "run.sh on the host kernel's md: no re-run in the appliance, exit 0" bash -c \
	"cat '$S/run.log'; grep -qx 'run.sh exit 0' '$S/run.log' && ! grep -q 'inside the md appliance' '$S/run.log' &&
	 jq -e '.md.where | startswith(\"host kernel\")' '$R/run.json' >/dev/null"
# every test of the plan ran and ended ok: the levels, JBOD, md's and the vendor's
all_ok() {
	local ids
	ids=$(jq -r '.test' "$R"/tests/*.meta.json | sort)
	echo "$ids"
	jq -e '.counts.failed == 0 and .counts.skipped == 0' "$R/run.json" >/dev/null || { jq .counts "$R/run.json"; return 1; }
	[[ $(jq '.counts.ok' "$R/run.json") == $(wc -l <<<"$ids") ]] || { echo "counts.ok is not the tests"; return 1; }
	jq -e -s 'all(.[]; .status == "ok")' "$R"/tests/*.meta.json >/dev/null || return 1
	local want
	for want in jbod-4 raid0-4m raid5-4m raid6-4m raid10-4m md-raid0-4m md-raid5-4m md-raid6-4m md-raid10-4m dev-vendor; do
		[[ $(grep -Ec "^$want-($HOST_ONLY)\$" <<<"$ids") == 2 ]] || { echo "missing: $want"; return 1; }
	done
}
t_case "every test ends ok: JBOD, RAID 0/5/6/10 on the engine and md, the vendor's volume" all_ok
# fio's own answer for each test: no job error, I/O done (the engine's messages, when it has
# any, come before fio's JSON in the same file: shown)
fio_clean() {
	local f bad=0
	for f in "$R"/tests/*.meta.json; do
		f=${f%.meta.json}.json
		sed -n '/^{/q;p' "$f"
		sed -n '/^{/,$p' "$f" | jq -e '[.jobs[] | .error == 0 and (.read.io_bytes + .write.io_bytes) > 0] | all' >/dev/null ||
			{ echo "fio error or no I/O: $f"; bad=1; }
	done
	return $bad
}
t_case "fio reports no error and I/O done in every test" fio_clean
# labels from what ran: the engine's stats and md's own answer, four members, the level
labels() {
	local f
	for f in "$R"/tests/{raid,md-raid}*.meta.json; do
		jq -e --slurpfile s "${f%.meta.json}.stats.json" \
			'.members == 4 and .level == $s[0].level and ($s[0].failed // [] | length) == 0' "$f" >/dev/null ||
			{ echo "$f: $(jq -c '{level, members}' "$f")"; return 1; }
	done
	jq -e -s 'all(.[]; .target_desc == "level=5 members=4 chunk=64k" and .device == "/dev/md5")' \
		"$R"/tests/dev-*.meta.json >/dev/null
}
t_case "each test's labels are what ran (the engine's stats, md's answer, the vendor's desc)" labels
t_case "the report is built, with its summary" bash -c "ls '$R'; [[ -s '$R/summary.csv' ]]"
# nothing the run made is left: only the vendor's array, no superblock or partition on the
# run's drives
t_case "afterwards: no array but the vendor's, no superblock or partition on the run's drives" bash -c \
	"cat '$S/after'; [[ \$(grep -c '^md[0-9]* :' '$S/after') == 1 ]] && grep -q '^md5 : active raid5' '$S/after' &&
	 grep -qx /sys/block/md5 '$S/after' && ! grep -q 'Magic' '$S/after' &&
	 [[ \$(grep -c '^nvme[0-9]*n1\$' '$S/after') == 4 ]] && ! grep -q '^nvme[0-9]*n1p' '$S/after'"
# (the test's fio exit is its meta's status, checked above)
pinned() {
	local m=("$R"/tests/raid6-4m-*.meta.json)
	m=${m[0]}
	jq -c '{test, cpus_allowed, status}' "$m"
	{ cat "$S/affinity"; [[ $(jq -r .status "$m") != ok ]] || echo "fio exit 0"; } >"$S/affinity.ok"
	threads_on "$S/affinity.ok" "$node1"
}
t_case "the engine's RAID6 over the node-1 drives ran on node 1's CPUs" pinned

# Spares by identity. What mdvm gave drive i: "MDVMNVME<i> <EUI-64, 16 hex digits>"
given() { sed -n 's/^mdvm: nvme drive \([0-9]*\): serial \([^,]*\), EUI-64 \([^,]*\),.*/\2 \3/p' "$S/mdvm.err" | tr -d :; }
rebuilt() {
	local s
	for s in fill rebuild verify; do
		cat "$S/r5-$s.log"
		grep -qx 'fio exit 0' "$S/r5-$s.log" || return 1
	done
	jq -e '.rebuild.done == true' "$S/r5-rebuild.json" >/dev/null &&
		jq -e '(.replaced | length) == 1 and .replaced[0].member == 1 and
			.replaced[0].spare == "/run/spare" and .replaced[0].done and .failed == []' \
			"$S/r5-verify.state" >/dev/null
}
t_case "the engine's RAID5 over NVMe: a member rebuilt onto an NVMe spare, verified" rebuilt
# slot: the drive mdvm numbered; the state file's serial and EUI-64 of each, as mdvm gave them
identities() {
	cat "$S/r5-verify.state"
	diff <(given | sed -n '1p;4p;3p' | sort) \
		<(jq -r '.devices[] | "\(.serial) \(.eui64)"' "$S/r5-verify.state" | sort) &&
		diff <(given | sed -n 4p) \
			<(jq -r '.replaced[0] | "\(.spare_serial) \(.spare_eui64)"' "$S/r5-verify.state") &&
		jq -e '[.devices[] | select(.slot == 1)][0].id == .replaced[0].spare_id and
			.version == 3 and all(.devices[]; .wwid != null and .id == "wwn:" + .wwid)' \
			"$S/r5-verify.state" >/dev/null
}
t_case "the state file holds each member's and the spare's serial and EUI-64" identities
swapped() {
	local was is
	was=$(given | sed -n 4p) is=$(given | sed -n 5p)
	cat "$S/r5-swapped.log"
	! grep -qx 'fio exit 0' "$S/r5-swapped.log" &&
		grep -q "describes another array: member 1 (/run/spare) is serial ${is% *}, EUI-64 ${is#* }; the file records serial ${was% *}, EUI-64 ${was#* }" "$S/r5-swapped.log" &&
		cmp "$S/r5-verify.state" "$S/r5-swapped.state"
}
t_case "another namespace at the spare's path is refused, naming both; the file kept" swapped
if [[ -s $S/times ]]; then
	echo "guest boot: $(sed -n 's/^boot //p' "$S/times") s; run.sh $(sed -n 's/^run //p' "$S/times") s; spare $(sed -n 's/^spare //p' "$S/times") s; $(grep 'guest run' "$S/times") s; test $((SECONDS - start)) s"
fi
t_done
