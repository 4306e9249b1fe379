#!/usr/bin/env bash
# ublk_test.sh - raid-ublk's device in ONE boot of the md appliance on Debian 13's kernel
# (the host's kernel has no ublk_drv): ext4 on a RAID5 and a RAID6 device, files written,
# fsck clean, read back after a remount, the server stopped and md (raid-mdadm's line)
# reading the same files; fio's verify=crc32c through the device on RAID 0, 1, 5, 6 and 10;
# the server killed with SIGKILL during O_DIRECT writes, `start --recover`, every
# acknowledged write read back, the state file dirty after the kill and clean after the
# stop, the writer seeing no error; flush and FUA reaching the members; a member's error
# reaching the reader; the refusals that need the driver; a member failed under the mounted
# filesystem and rebuilt onto a spare while files are written, then md's check (0
# mismatches) and md reading every file. The guest's side: tests/ublk/guest.sh. Skipped
# (one line) where the appliance or a kernel with ublk can't be had. UBLK_MDVM names another
# appliance front end; UBLK_ONLY (an ERE of fs fio kill flush err busy rebuild) runs only
# those groups in the guest and UBLK_BIN another build of the server, for a planted defect's
# check.
source "$(dirname "$0")/../lib.sh"

S=$T_SCRATCH
MDVM=${UBLK_MDVM:-$MDVM_CMD}
export MDVM_KERNEL=${MDVM_KERNEL:-6.12}
where=$("$MDVM" check 2>"$S/.check")
[[ $? -eq 77 ]] && t_skip "$where $(tail -1 "$S/.check")"
# an appliance that boots a kernel before 6.12 (Debian 12's 6.1) has no ublk: no boot for that
if [[ $where =~ appliance\ ([0-9]+)\.([0-9]+) ]] &&
	((BASH_REMATCH[1] * 1000 + BASH_REMATCH[2] < 6012)); then
	t_skip "the appliance's kernel has no ublk_drv ($where; Debian 13's 6.12 has it)"
fi
[[ -x $ROOT/build/bin/raid-ublk ]] || t_skip "no build/bin/raid-ublk (make first)"

# the guest's /tmp is a tmpfs of its own: the member ramdisks' states and mounts live there
(cd "$ROOT" && "$MDVM" run --rw "$S" --ramdisks 8:32768 --timeout 900 -- \
	bash "$ROOT/tests/ublk/guest.sh" "$S" "$ROOT" "${UBLK_ONLY:-.}" "${UBLK_BIN:-}") >"$S/out" 2>&1
echo "appliance exit $?" >>"$S/out"
touch "$S/results" "$S/log"
grep -q '^no-ublk' "$S/results" && t_skip "the appliance's kernel has no ublk_drv: $(cat "$S/results")"
grep '^kernel' "$S/results"

# each case: the guest's line for it reads "NAME ok" (cases of groups UBLK_ONLY left out: not run)
ok() {
	grep -qx "$1 ok" "$S/results" && return 0
	grep "^$1 " "$S/results" || echo "$1: no result"
	echo "--- guest log (tail)"
	tail -30 "$S/log"
	tail -5 "$S/out"
	return 1
}
case_() { # NAME GUEST-RESULT
	local g=${2%%-*}
	[[ $g =~ ${UBLK_ONLY:-.} ]] || return 0
	t_case "$1" ok "$2"
}
for l in 5 6; do
	case_ "RAID$l: raid-ublk start prints the device" fs-r$l-start
	case_ "RAID$l: io_opt and io_min are the stripe width's and the chunk" fs-r$l-io_opt
	case_ "RAID$l: ext4 made and mounted" fs-r$l-mkfs
	case_ "RAID$l: fsck -f finds it clean" fs-r$l-fsck
	case_ "RAID$l: every file's sha256 after a remount" fs-r$l-sha256
	case_ "RAID$l: raid-ublk stop ends the server, the device and its file" fs-r$l-stop
	case_ "RAID$l: device and pid file gone" fs-r$l-gone
	case_ "RAID$l: md assembles the members and reads the same files" fs-r$l-md
done
for l in 0 1 5 6 10; do
	case_ "RAID$l: fio verify=crc32c through /dev/ublkbN (RAID6: two queues; RAID10: --cpus)" fio-r$l
done
case_ "RAID6: --queues 2 makes two hardware queues" fio-r6-queues
case_ "RAID5: the queue thread woke on the engine's completion fd (raid_queue_fd)" fio-r5-engine-fd
case_ "SIGKILL: the server is killed during writes" kill-killed
case_ "SIGKILL: the state file says dirty" kill-dirty
case_ "SIGKILL: start --recover takes the same device over" kill-recover
case_ "SIGKILL: the writer saw no error (the dead server's requests reissued)" kill-noerr
case_ "SIGKILL: every acknowledged write reads back" kill-acked
case_ "SIGKILL: stop after recovery" kill-stop
case_ "SIGKILL: the state file says clean after the stop" kill-state-clean
case_ "SIGKILL: stop of a killed server's device deletes it" kill-stop-dead
case_ "SIGKILL: ... device and pid file gone" kill-stop-dead-gone
case_ "flush: an fsync of the device flushes every member" flush-fsync
case_ "FUA: an O_DSYNC write flushes every member before it returns" flush-fua
case_ "a member's read error reaches the reader as EIO (no hang, no success)" err-eio
case_ "refused: members another array holds (the engine's lock), one line, no device" busy-locked
case_ "refused: a member md holds, named" busy-md
case_ "refused: a member size that does not fit" busy-size
case_ "rebuild: a member failed under the mounted fs, rebuilt onto the spare" rebuild-done
case_ "rebuild: files were written while it failed and rebuilt" rebuild-failed-during
case_ "rebuild: fsck -f clean after" rebuild-fsck
case_ "rebuild: stop" rebuild-stop
case_ "rebuild: md over the rebuilt members: check finds 0 mismatches" rebuild-md-check
case_ "rebuild: md reads every file" rebuild-md
t_case "the guest ran to the end" grep -qx done "$S/results"
t_done
