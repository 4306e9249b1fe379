# tests/ublk/guest.sh - the guest side of tests/ublk/ublk_test.sh, run inside ONE boot of the
# md appliance on Debian 13's kernel (ublk_drv): raid-ublk devices over ramdisks (/dev/ram0..,
# 32 MiB each, the engine's data area 24 MiB so that md's 1.0 superblock fits behind it).
# Each step appends "NAME ok" or "NAME FAIL: why" to $OUT/results; its commands' output goes
# to $OUT/log. Usage: bash guest.sh OUT ROOT [ONLY] (ONLY: an ERE of the groups to run: fs fio
# kill flush err busy rebuild) [BIN] (another raid-ublk: both for a planted defect's check)
OUT=$1
ROOT=$2
ONLY=${3:-.}
R=${4:-$ROOT/build/bin/raid-ublk}
RMD=$ROOT/build/bin/raid-mdadm
FIO=$ROOT/build/bin/fio
M=/tmp/mnt
exec >>"$OUT/log" 2>&1
mkdir -p $M

res() { # NAME ok|"FAIL: why"
	echo "$1 $2" >>"$OUT/results"
	echo "== $1 $2"
}
check() { # NAME CMD...: ok when CMD exits 0
	local n=$1
	shift
	if "$@"; then res "$n" ok; else res "$n" "FAIL: $* (exit $?)"; fi
}
rams() { # FIRST N: /dev/ramFIRST:...
	local i s=
	for ((i = $1; i < $1 + $2; i++)); do s+=${s:+:}/dev/ram$i; done
	echo "$s"
}
zero() { # FIRST N: zero the ramdisks (a test's members start blank)
	local i
	for ((i = $1; i < $1 + $2; i++)); do blkdiscard /dev/ram$i 2>/dev/null ||
		dd if=/dev/zero of=/dev/ram$i bs=1M count=32 status=none; done
}
q() { cat /sys/block/${1#/dev/}/queue/$2; }

if [[ ! -e /dev/ublk-control ]]; then
	echo "no-ublk $(uname -r)" >>"$OUT/results"
	exit 0
fi
echo "kernel $(uname -r)" >>"$OUT/results"

# --- a filesystem on RAID5 and RAID6, then md reading the same files ---------------------
# NAME LEVEL FIRST N IO_OPT (bytes: the stripe width, or its power-of-two part)
fs_case() {
	local name=$1 level=$2 first=$3 n=$4 opt=$5 mem dev line
	mem=$(rams $first $n)
	zero $first $n
	local o=(raid_level=$level raid_members=$mem raid_chunk=64k raid_member_size=24m)
	dev=$("$R" start "${o[@]}")
	if [[ $dev != /dev/ublkb* ]]; then
		res $name-start "FAIL: no device ($dev)"
		return
	fi
	res $name-start ok
	check $name-io_opt test "$(q $dev optimal_io_size)/$(q $dev minimum_io_size)" = "$opt/65536"
	mkfs.ext4 -q -F $dev && mount $dev $M || { res $name-mkfs "FAIL: mkfs/mount"; return; }
	res $name-mkfs ok
	for f in a b c; do
		dd if=/dev/urandom of=$M/$f bs=64k count=$((RANDOM % 40 + 8)) status=none
	done
	cp -r $ROOT/tools/ublk $M/src
	(cd $M && find . -type f | sort | xargs sha256sum) >/tmp/$name.sums
	umount $M
	check $name-fsck fsck.ext4 -fn $dev
	# a second mount reads the files back through the device (not the page cache)
	echo 3 >/proc/sys/vm/drop_caches
	mount $dev $M && check $name-sha256 bash -c "cd $M && sha256sum --quiet -c /tmp/$name.sums"
	umount $M
	check $name-stop "$R" stop $dev
	check $name-gone test ! -e $dev -a ! -e /run/raid-ublk/${dev#/dev/ublkb}
	# md: the same members, the engine's geometry (raid-mdadm's line)
	line=$("$RMD" --md /dev/md1 "${o[@]}") || { res $name-md "FAIL: raid-mdadm"; return; }
	$line >/dev/null 2>&1 && mount -o ro /dev/md1 $M &&
		check $name-md bash -c "cd $M && sha256sum --quiet -c /tmp/$name.sums" ||
		res $name-md "FAIL: $line"
	umount $M 2>/dev/null
	mdadm --stop /dev/md1 >/dev/null 2>&1
}
want() { [[ $1 =~ $ONLY ]]; }
if want fs; then
	fs_case fs-r5 5 0 3 131072
	fs_case fs-r6 6 3 5 65536
fi

# --- fio's verify through the device, every level ----------------------------------------
# LEVEL N
# LEVEL,N[,raid-ublk's flags]: RAID6 with two queues (two fio jobs, one a CPU, reach both),
# RAID10 with its queue thread bound to CPU 1
for spec in $(want fio && echo "0,3 1,2 5,4 6,5,--queues=2 10,4,--cpus=1"); do
	IFS=, read -r l n flags <<<"$spec"
	set -- $l $n
	name=fio-r$1
	zero 0 $2
	dev=$("$R" start ${flags/=/ } raid_level=$1 raid_members=$(rams 0 $2) raid_chunk=16k \
		raid_member_size=8m)
	if [[ $dev != /dev/ublkb* ]]; then
		res $name "FAIL: no device"
		continue
	fi
	[[ $flags == --queues=2 ]] &&
		check $name-queues test "$(ls /sys/block/${dev#/dev/}/mq | wc -l)" = 2
	check $name "$FIO" --name=v --filename=$dev --ioengine=io_uring --direct=1 --rw=randwrite \
		--bsrange=4k-64k --iodepth=16 --size=3m --numjobs=2 --offset_increment=3m \
		--cpus_allowed_policy=split --cpus_allowed=0-1 --verify=crc32c --verify_fatal=1 \
		--verify_state_save=0 --output=/tmp/$name.out
	cat /tmp/$name.out
	"$R" stop $dev || res $name-stop "FAIL: stop"
	# the queue thread sleeps in its ublk ring only: the engine's news must have woken it
	# there (the poll on raid_queue_fd), not only the ublk requests
	[[ $1 == 5 ]] && check $name-engine-fd bash -c "grep 'queue 0 served' \
		/run/raid-ublk/${dev#/dev/ublkb}.log | tail -1 | grep -E ' [1-9][0-9]* engine wakeups'"
done

# --- SIGKILL of the server during writes, --recover, every acknowledged write ------------
kill_case() {
	local o=(raid_level=5 raid_members=$(rams 0 3) raid_chunk=16k raid_member_size=8m
		raid_state=/tmp/k.state raid_bitmap=1)
	local dev id pid wpid
	zero 0 3
	rm -f /tmp/k.state
	dev=$("$R" start --id 7 "${o[@]}") || { res kill-start "FAIL: start"; return; }
	id=${dev#/dev/ublkb}
	pid=$(sed -n 's/^pid=//p' /run/raid-ublk/$id)
	# the writer: block i holds i; it logs i once the write returned (acknowledged)
	python3 - $dev /tmp/k.acked 2000 <<'PY' &
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_DIRECT)
buf = mmap.mmap(-1, 4096)
log = open(sys.argv[2], "w", buffering=1)
for i in range(int(sys.argv[3])):
    buf.seek(0)
    buf.write((b"%08d" % i) * 512)
    try:
        os.pwrite(fd, buf, i * 4096)
        log.write("%d\n" % i)
    except OSError as e:
        log.write("err %d %s\n" % (i, e))
PY
	wpid=$!
	while [[ $(wc -l </tmp/k.acked 2>/dev/null || echo 0) -lt 200 ]]; do sleep 0.2; done
	kill -9 $pid
	res kill-killed ok
	sleep 1
	# the engine marked the array dirty while writes ran: the next start resyncs
	check kill-dirty grep -Eq '"clean": *false' /tmp/k.state
	local dev2
	dev2=$("$R" start --recover --id $id "${o[@]}")
	check kill-recover test "$dev2" = "$dev"
	wait $wpid
	# the requests the dead server held were issued again to the new one: no error seen
	check kill-noerr test "$(grep -c '^err' /tmp/k.acked)" = 0
	grep '^err' /tmp/k.acked | head -3
	check kill-acked python3 - $dev /tmp/k.acked <<'PY'
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
buf = mmap.mmap(-1, 4096)
bad = n = 0
for line in open(sys.argv[2]):
    if line.startswith("err"):
        continue
    i = int(line)
    os.preadv(fd, [buf], i * 4096)
    n += 1
    if buf[:] != (b"%08d" % i) * 512:
        bad += 1
print("acknowledged", n, "bad", bad)
sys.exit(1 if bad or n < 200 else 0)
PY
	check kill-stop "$R" stop $dev
	check kill-state-clean grep -Eq '"clean": *true' /tmp/k.state
	cat /tmp/k.state
	# a server killed and never recovered: stop deletes its device
	dev=$("$R" start --id 7 "${o[@]}") || { res kill-stop-dead "FAIL: start"; return; }
	kill -9 "$(sed -n 's/^pid=//p' /run/raid-ublk/7)"
	sleep 1
	check kill-stop-dead "$R" stop 7
	check kill-stop-dead-gone test ! -e /dev/ublkb7 -a ! -e /run/raid-ublk/7
}
want kill && kill_case

# --- flush and FUA reach the members ------------------------------------------------------
# Members are loop devices over tmpfs files: loop has a volatile cache, so a flush of it is
# counted in its stat (field 16: flush requests). An fsync of the ublk device and an O_SYNC
# (FUA) write must each flush every member.
flushes() { # the members' flush count, summed
	local d s=0
	for d in "${LOOPS[@]}"; do s=$((s + $(awk '{print $16}' /sys/block/${d#/dev/}/stat))); done
	echo $s
}
flush_case() {
	local i dev a b
	LOOPS=()
	for i in 0 1 2; do
		truncate -s 8m /tmp/fl$i
		LOOPS+=($(losetup -f --show /tmp/fl$i))
	done
	local mem=$(IFS=:; echo "${LOOPS[*]}")
	dev=$("$R" start raid_level=5 raid_members=$mem raid_chunk=16k) || { res flush-start "FAIL"; return; }
	dd if=/dev/urandom of=$dev bs=64k count=4 oflag=direct status=none
	a=$(flushes)
	python3 -c "import os,sys; fd=os.open(sys.argv[1], os.O_WRONLY); os.fsync(fd)" $dev
	b=$(flushes)
	check flush-fsync test $((b - a)) -ge 3
	echo "fsync: member flushes $a -> $b"
	a=$(flushes)
	# io_uring's O_DSYNC direct writes are FUA writes with no flush after them (a synchronous
	# write(2) would be followed by an fsync, which hides a FUA ignored)
	"$FIO" --name=fua --filename=$dev --ioengine=io_uring --direct=1 --sync=dsync --rw=write \
		--bs=4k --size=16k --offset=1m --iodepth=1 --output=/dev/null
	b=$(flushes)
	check flush-fua test $((b - a)) -ge 3
	echo "4 O_DSYNC io_uring writes: member flushes $a -> $b"
	"$R" stop $dev
	for i in "${LOOPS[@]}"; do losetup -d $i; done
}
want flush && flush_case

# --- a member error reaches the reader (the failed request is committed as an error) -------
err_case() {
	local dev rc
	zero 0 2
	dev=$("$R" start raid_level=0 raid_members=$(rams 0 2) raid_chunk=16k raid_member_size=8m \
		raid_inject=0:read:100) || { res err-start "FAIL"; return; }
	dd if=$dev of=/dev/null bs=64k count=8 iflag=direct status=none &
	local pid=$! i
	for ((i = 0; i < 120 && $(kill -0 $pid 2>/dev/null && echo 1); i++)); do sleep 0.5; done
	if kill -0 $pid 2>/dev/null; then
		# a request never answered: dd sleeps uninterruptibly, and so would a stop
		res err-eio "FAIL: the read never came back (60 s)"
		exit 1
	fi
	wait $pid
	rc=$?
	echo "dd over an always failing member: exit $rc"
	# 1: dd saw the error; 0: the error was lost
	check err-eio test $rc -eq 1
	"$R" stop $dev
}
want err && err_case
# --- refusals that need the driver: a member another array has locked, one md holds, a
# size that does not fit. Each: exit 1, one line, no device left.
nodev() { ! ls /dev/ublkb* >/dev/null 2>&1; }
refused() { # NAME ERE CMD...: exit 1, one line matching ERE, no device
	local n=$1 ere=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	echo "$n: exit $rc: $out"
	if [[ $rc -eq 1 && $(printf '%s\n' "$out" | wc -l) -eq 1 && $out =~ $ere ]] && nodev; then
		res $n ok
	else
		res $n "FAIL: exit $rc: $out"
	fi
}
busy_case() {
	local dev o=(raid_level=5 raid_members=$(rams 0 3) raid_chunk=16k raid_member_size=8m)
	zero 0 3
	dev=$("$R" start "${o[@]}") || { res busy-start "FAIL: start"; return; }
	# one device only may be left: the first; refused() checks none, so stop it after
	local out rc
	out=$("$R" start "${o[@]}" 2>&1)
	rc=$?
	echo "busy-locked: exit $rc: $out"
	if [[ $rc -eq 1 && $(printf '%s\n' "$out" | wc -l) -eq 1 && $(ls /dev/ublkb* | wc -l) -eq 1 ]]; then
		res busy-locked ok
	else
		res busy-locked "FAIL: exit $rc: $out"
	fi
	"$R" stop $dev
	mdadm --create /dev/md2 --run --level=1 --raid-devices=2 --metadata=1.0 --assume-clean \
		/dev/ram3 /dev/ram4 >/dev/null 2>&1
	refused busy-md "/dev/ram3 is in use by md2" \
		"$R" start raid_level=5 raid_members=/dev/ram5:/dev/ram3:/dev/ram6 raid_member_size=8m
	mdadm --stop /dev/md2 >/dev/null 2>&1
	refused busy-size "." "$R" start raid_level=5 raid_members=$(rams 0 3) raid_member_size=64m
}
want busy && busy_case

# --- a member fails under a mounted filesystem, rebuilt onto a spare while files are
# written; then md's check finds 0 mismatches and md reads every file
rebuild_case() {
	local dev st=/tmp/rb.state i=0 done=0
	local o=(raid_level=5 raid_members=$(rams 0 3) raid_chunk=64k raid_member_size=24m
		raid_state=$st raid_spares=/dev/ram3 raid_rebuild=1 raid_fail=1@30
		raid_rebuild_min=1 raid_rebuild_max=2)
	zero 0 4
	rm -f $st $st.*
	dev=$("$R" start "${o[@]}") || { res rebuild-start "FAIL: start"; return; }
	mkfs.ext4 -q -F $dev && mount $dev $M || { res rebuild-mkfs "FAIL"; return; }
	mkdir -p $M/d
	# files written until the spare has taken member 1's place (at most 10 minutes); those
	# written while member 1 is failed or being rebuilt are counted (member 1 fails 30 s
	# after the start, the rebuild takes 12 s at its 2 MB/s)
	local during=0
	while ((i < 1200)); do
		dd if=/dev/urandom of=$M/d/f$i bs=16k count=$((RANDOM % 16 + 1)) status=none
		i=$((i + 1))
		if jq -e '.replaced[]? | select(.member == 1 and .done == true)' $st >/dev/null 2>&1; then
			done=1
			break
		fi
		jq -e '(.failed | index(1)) != null or ([.replaced[]? | select(.member == 1)] | length > 0)' \
			$st >/dev/null 2>&1 && during=$((during + 1))
		sleep 0.5
	done
	echo "rebuild: $i files written, $during of them while member 1 was failed or rebuilding, done=$done"
	cat $st
	check rebuild-done test $done -eq 1
	check rebuild-failed-during test $during -ge 3
	for ((k = 0; k < 5; k++)); do dd if=/dev/urandom of=$M/d/after$k bs=16k count=4 status=none; done
	(cd $M && find . -type f | sort | xargs sha256sum) >/tmp/rb.sums
	umount $M
	check rebuild-fsck fsck.ext4 -fn $dev
	check rebuild-stop "$R" stop $dev
	# md over the slots as they are now: member 1 is the former spare
	local line
	line=$("$RMD" --md /dev/md1 raid_level=5 raid_members=/dev/ram0:/dev/ram3:/dev/ram2 \
		raid_chunk=64k raid_member_size=24m) || { res rebuild-md "FAIL: raid-mdadm"; return; }
	$line >/dev/null 2>&1 || { res rebuild-md "FAIL: $line"; return; }
	echo check >/sys/block/md1/md/sync_action
	sleep 1
	while [[ $(cat /sys/block/md1/md/sync_action) != idle ]]; do sleep 1; done
	check rebuild-md-check test "$(cat /sys/block/md1/md/mismatch_cnt)" = 0
	mount -o ro /dev/md1 $M && check rebuild-md bash -c "cd $M && sha256sum --quiet -c /tmp/rb.sums"
	umount $M 2>/dev/null
	mdadm --stop /dev/md1 >/dev/null 2>&1
}
want rebuild && rebuild_case

echo done >>"$OUT/results"
