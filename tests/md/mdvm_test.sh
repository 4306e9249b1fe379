#!/usr/bin/env bash
# mdvm_test.sh - the md appliance (tools/mdvm, docs/md.md): a guest boots with md, sees the
# host's tree read-only at the caller's cwd, writes only into --rw directories, forwards
# stdout and stderr, and its command's exit status comes back; a hung guest ends at its
# timeout; bad options (--nvme's too) are refused before any boot; the NVMe drives themselves
# are tests/md/nvme_test.sh's. The guest kernel: Debian 13's 6.12 by default, with ublk_drv,
# ext4 and xfs loaded; --kernel/MDVM_KERNEL picks 6.1, each cached apart, anything else is
# refused. Skipped (one line) where md can't be had.
source "$(dirname "$0")/../lib.sh"

S=$T_SCRATCH

t_need_md

# One boot: md is there, the tree is the host's, only --rw is writable, status comes back.
guest() {
	cat /proc/mdstat
	echo "cwd=$PWD MDVM=${MDVM:-} boot=${MDVM_BOOT_S:-} probe=$(cat probe 2>&1)"
	echo "kernel=$(uname -r) ublk=$([[ -c /dev/ublk-control ]] && echo yes || echo no)" \
		"fs=$(grep -ow -e ext4 -e xfs /proc/filesystems | sort | paste -sd,)"
	echo "to stderr" >&2
	echo written >"$1/from-guest"
	touch "$ROOT/build/mdvm-ro-probe" 2>/dev/null && echo "host tree writable"
	exit 7
}
export -f guest
export ROOT
# the cwd is under /tmp, where the guest mounts a tmpfs of its own (so is a clone in /tmp)
CWD=$(mktemp -d /tmp/mdvm-cwd.XXXXXX) && echo seen >"$CWD/probe" || exit 1
boot() {
	cd "$CWD" || return 1
	"$MDVM_CMD" run --rw "$S" -- bash -c 'guest "$1"' _ "$S" >"$S/out" 2>"$S/err"
	echo $? >"$S/rc"
	cd "$ROOT" && rm -rf "$CWD"
	cat "$S/out" "$S/err"
}
t_case "a guest boots and runs the command" boot
t_case "its exit status comes back (7)" grep -qx 7 "$S/rc"
t_case "the guest kernel has md: raid0/1/10/5/6 personalities" \
	grep -q 'Personalities.*raid0.*raid1.*raid10.*raid6.*raid5' "$S/out"
t_case "cwd is the caller's, even under the guest's tmpfs; MDVM=1 inside" \
	grep -q "^cwd=$CWD MDVM=1 boot=[0-9].* probe=seen$" "$S/out"
t_case "the default guest kernel is Debian 13's 6.12, with ublk_drv, ext4 and xfs loaded" \
	grep -q '^kernel=6\.12\.[0-9.]*+deb13-amd64 ublk=yes fs=ext4,xfs$' "$S/out"
t_case "stderr comes back on stderr, with one line naming the accelerator" \
	bash -c "grep -qx 'to stderr' '$S/err' && grep -q 'under \(tcg\|kvm\)' '$S/err'"
t_case "--rw DIR is written at its own path" grep -qx written "$S/from-guest"
t_case_fail "the host's tree is read-only" bash -c "grep -q 'host tree writable' '$S/out' || [[ -e '$ROOT/build/mdvm-ro-probe' ]]"

# a guest that hangs is stopped at --timeout, with one line saying so
hang() {
	MDVM_KEEP=0 "$MDVM_CMD" run --timeout 20 -- sleep 600 2>"$S/hang.err"
	local rc=$?
	cat "$S/hang.err"
	[[ $rc -eq 124 ]] && grep -q 'did not finish within 20 s' "$S/hang.err"
}
t_case "a hung guest ends at --timeout (exit 124)" hang

t_case_fail "an unknown option is refused" "$MDVM_CMD" run --bogus -- true
t_case_fail "--kernel other than 6.12 or 6.1 is refused" --msg "'5.10' is not a guest kernel \\(6.12 or 6.1\\)" \
	"$MDVM_CMD" run --kernel 5.10 -- true
t_case_fail "MDVM_KERNEL other than 6.12 or 6.1 is refused" --msg "'6' is not a guest kernel" \
	env MDVM_KERNEL=6 "$MDVM_CMD" check
# the other kernel, prepared (no boot): cached apart, named by check
t_case "--kernel 6.1 check names Debian 12's 6.1 kernel" bash -c \
	"'$MDVM_CMD' --kernel 6.1 check 2>/dev/null | grep -q 'appliance 6\.1\.0-[0-9]*-amd64 under'"
t_case "each kernel has its own cache" bash -c \
	"c=\${MDVM_CACHE:-$ROOT/build/mdvm}; grep -q '^6\.1\.0-' \$c/kernel-6.1/version && grep -q '^6\.12\.' \$c/kernel-6.12/version"
t_case_fail "--numa2 with an odd --smp is refused" "$MDVM_CMD" run --numa2 --smp 3 -- true
t_case_fail "--rw of a missing directory is refused" "$MDVM_CMD" run --rw "$S/none" -- true
t_case_fail "no command is refused" "$MDVM_CMD" run --
t_case_fail "--ramdisks that is not COUNT:KIB is refused" "$MDVM_CMD" run --ramdisks 4 -- true
t_case_fail "--nvme that is not COUNT[:SIZE] is refused" --msg "^mdvm: --nvme: '2:64X' is not COUNT" \
	"$MDVM_CMD" run --nvme 2:64X -- true
t_case_fail "--nvme of more than 32 drives is refused" --msg 'at most 32 drives' \
	"$MDVM_CMD" run --nvme 30 --nvme 3 -- true
t_case_fail "--nvme-file of a missing file is refused" --msg "^mdvm: --nvme-file: '$S/none'" \
	"$MDVM_CMD" run --nvme-file "$S/none" -- true
t_done
