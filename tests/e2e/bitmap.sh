#!/usr/bin/env bash
# bitmap.sh - the write-intent bitmap (raid_bitmap=1) end to end through fio: a writer killed
# with -9 during random writes confined to 1% of a large sparse array, then a start that
# resyncs only the regions being written (bytes from the stats, at most 5% of a full
# resync's); a member failed, written while degraded and re-added (raid_re_add) gets only
# the regions it missed. Every byte of the written area is checked by fio's crc32c verify,
# healthy and degraded, and a scrub of the whole array finds no mismatch.
source "$(dirname "$0")/../lib.sh"

S=$T_SCRATCH
CHUNK=64k

# vol NAME LEVEL N PREFIX MS ARGS...: one fio job over the volume of members PREFIX0..N-1
vol() {
	local name=$1 level=$2 n=$3 p=$4 ms=$5
	shift 5
	fio_raid --name="$name" --filename=vol --raid_level="$level" \
		--raid_members="$(members "$n" "$p")" --raid_member_size="$ms" \
		--raid_chunk=$CHUNK --bs=4k --verify=crc32c --verify_fatal=1 \
		--verify_state_save=0 "$@" >"$S/$name.log" 2>&1
	local rc=$?
	cat "$S/$name.log"
	return $rc
}
# bytes VALUE: a fio size ("10m") in bytes
bytes() { numfmt --from=iec "${1^^}"; }
# dirty_wait STATE: until the state file says writes are running (the writer's first write)
dirty_wait() {
	local i
	for ((i = 0; i < 200; i++)); do
		grep -q '"clean": false' "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}
# scrub_clean LEVEL N PREFIX MS: a full check of the array finds every row consistent
scrub_clean() {
	vol scrub "$@" --rw=read --size=4k --verify=0 --raid_scrub=check --raid_stats="$S/scrub.json" ||
		return 1
	[[ $(jget "$S/scrub.json" scrub.mismatches) == 0 ]]
}

# data_members LEVEL N: members' worth of data in a row (RAID10: near 2 copies)
data_members() { case $1 in 5) echo $(($2 - 1)) ;; 6) echo $(($2 - 2)) ;; *) echo $(($2 / 2)) ;; esac; }
# bits FILE: how many bits of a bitmap are set
bits() {
	tail -c +16385 "$1" | od -An -v -tu1 |
		awk '{ for (i = 1; i <= NF; i++) for (v = $i; v; v = int(v / 2)) n += v % 2 } END { print n + 0 }'
}

# killed LEVEL N: N sparse members of 1 GiB; the writes go to 1% of the volume (member rows
# 400m..410m). The bitmap's default region for a 1 GiB member is 512 KiB.
killed() {
	local l=$1 n=$2 p=k$1- ms=1g st pid full got data area
	data=$(data_members "$l" "$n")
	area=(--offset=$((400 * data))m --size=$((10 * data))m)
	st=$S/$p.state
	vol fill "$l" "$n" $p $ms "${area[@]}" --rw=write --raid_state="$st" --raid_bitmap=1 ||
		return 1
	[[ -f $st.bitmap ]] || { echo "no bitmap beside the state file"; return 1; }
	[[ $(bits "$st.bitmap") == 0 ]] || { echo "bits left set after a clean stop"; return 1; }
	# what member 0 held before the crash: put back after it, as if its writes were lost,
	# so that rows of the area disagree (stale parity or copy, old data under new parity)
	dd if="$S/${p}0" of="$S/snap" bs=1M skip=400 count=10 status=none || return 1
	"$FIO" --ioengine="external:$ENGINE" --thread=1 --name=w --filename=vol \
		--raid_level="$l" --raid_members="$(members "$n" $p)" --raid_member_size=$ms \
		--raid_chunk=$CHUNK --bs=4k "${area[@]}" --rw=randwrite --iodepth=8 \
		--time_based --runtime=120 --verify=crc32c --do_verify=0 --raid_state="$st" \
		--raid_bitmap=1 >"$S/w.log" 2>&1 &
	pid=$!
	dirty_wait "$st" || { kill -9 $pid; cat "$S/w.log"; return 1; }
	sleep 2 # writes all over the area
	kill -9 $pid
	wait $pid 2>/dev/null
	[[ $(jget "$st" clean) == false ]] || return 1
	echo "$(bits "$st.bitmap") bits set at the crash"
	dd if="$S/snap" of="$S/${p}0" bs=1M seek=400 conv=notrunc status=none || return 1
	vol check "$l" "$n" $p $ms "${area[@]}" --rw=read --raid_state="$st" --raid_bitmap=1 \
		--raid_stats="$S/$p.json" || return 1
	[[ $(jget "$S/$p.json" resync.scope) == bitmap ]] || return 1
	[[ $(jget "$S/$p.json" consistency.policy) == bitmap ]] || return 1
	full=$(bytes $ms)
	got=$(jget "$S/$p.json" resync.bytes) || return 1
	echo "resynced $got bytes a member of $full ($((got * 1000 / full))/1000)"
	((got > 0 && got * 20 <= full)) || return 1
	scrub_clean "$l" "$n" $p $ms --raid_state="$st" --raid_bitmap=1 || return 1
	# every byte again through the redundancy: member 0 missing
	vol degraded "$l" "$n" $p $ms "${area[@]}" --rw=read --raid_failed=0 || return 1
	[[ $(jget "$st" clean) == true ]]
}
t_case "raid5 kill -9 during random writes on 1%: resync of the set regions only, verified" \
	killed 5 4
t_case "raid10 kill -9 during random writes on 1%: resync of the set regions only, verified" \
	killed 10 4

# readd LEVEL N OTHERS: N members of 512 MiB; member 1 fails, 4 MiB of random writes land on
# 1% of the volume (member rows 200m..205m) while it is out, then it comes back with
# raid_re_add and gets only what it missed; read last with OTHERS failed, so that member 1's
# bytes carry the area.
readd() {
	local l=$1 n=$2 others=$3 p=r$1- ms=512m st got full data area
	data=$(data_members "$l" "$n")
	area=(--offset=$((200 * data))m --size=$((5 * data))m)
	st=$S/$p.state
	vol fill "$l" "$n" $p $ms "${area[@]}" --rw=write --raid_state="$st" --raid_bitmap=1 ||
		return 1
	vol degraded "$l" "$n" $p $ms "${area[@]}" --rw=randwrite --io_size=4m --do_verify=0 \
		--raid_failed=1 --raid_state="$st" --raid_bitmap=1 || return 1
	[[ $(jget "$st" failed) == "[1]" ]] || return 1
	[[ $(head -c 16384 "$st.bitmap" | jq -c '[.missed[].member]') == "[1]" ]] || return 1
	vol back "$l" "$n" $p $ms "${area[@]}" --rw=read --raid_re_add=1 --raid_state="$st" \
		--raid_bitmap=1 --raid_stats="$S/$p.json" || return 1
	[[ $(jget "$st" failed) == "[]" ]] || return 1
	full=$(bytes $ms)
	got=$(jget "$S/$p.json" re_add.bytes) || return 1
	echo "copied $got bytes of $full onto the returning member"
	((got > 0 && got * 20 <= full)) || return 1
	scrub_clean "$l" "$n" $p $ms --raid_state="$st" --raid_bitmap=1 || return 1
	vol others "$l" "$n" $p $ms "${area[@]}" --rw=read --raid_failed="$others"
}
t_case "raid6 member failed, written degraded, re-added: only the missed regions, verified" \
	readd 6 5 0,2
t_case "raid10 member failed, written degraded, re-added: only the missed regions, verified" \
	readd 10 4 0

# Bits clear lazily while the array stays open: one job writes 1 MiB and ends, another
# reads on; the written regions' bits are set, then cleared about 5 s after the last write
# (members flushed first), before fio ends.
lazy() {
	local p=l- st pid i set=0
	st=$S/$p.state
	fio_raid --filename=vol --raid_level=5 --raid_members="$(members 4 $p)" \
		--raid_member_size=64m --raid_chunk=$CHUNK --raid_state="$st" --raid_bitmap=1 \
		--name=w --rw=write --bs=64k --size=1m \
		--name=r --rw=randread --bs=4k --time_based --runtime=60 >"$S/lazy.log" 2>&1 &
	pid=$!
	for ((i = 0; i < 100 && !set; i++)); do # the writer's bits
		sleep 0.1
		[[ -f $st.bitmap ]] && set=$(bits "$st.bitmap")
	done
	echo "$set bits set by the writer"
	((set > 0)) || { kill $pid; return 1; }
	for ((i = 0; i < 200; i++)); do # cleared while fio still runs
		sleep 0.1
		[[ $(bits "$st.bitmap") == 0 ]] && break
	done
	kill -0 $pid 2>/dev/null || { echo "fio ended before the bits were cleared"; return 1; }
	kill -TERM $pid # (a background job ignores SIGINT)
	wait $pid
	[[ $(bits "$st.bitmap") == 0 ]] || { echo "bits still set after 20 s idle"; return 1; }
}
t_case "bits clear lazily once the writes are idle, the array still open" lazy

# What the bitmap refuses, each with one line naming the file or option.
refusals() {
	local p=x- ms=8m st
	st=$S/$p.state
	vol a 5 4 $p $ms --rw=write --size=1m --raid_state="$st" --raid_bitmap=1 || return 1
	# a device that is not the one that failed cannot come back by its misses
	vol b 5 4 $p $ms --rw=write --size=1m --raid_failed=2 --raid_state="$st" \
		--raid_bitmap=1 || return 1
	rm "$S/${p}2" && truncate -s $ms "$S/${p}2" || return 1
	vol c 5 4 $p $ms --rw=read --size=1m --raid_re_add=2 --raid_state="$st" \
		--raid_bitmap=1 && return 1
	grep -q "raid: raid_re_add: member 2 .* only that device can be re-added" "$S/c.log" ||
		return 1
	# a file that is no bitmap of ours
	printf 'not a bitmap' >"$st.bitmap"
	vol d 5 4 $p $ms --rw=read --size=1m --raid_state="$st" --raid_bitmap=1 && return 1
	grep -q "raid: raid_bitmap: $st.bitmap: not a fio-raid bitmap" "$S/d.log" || return 1
	# the bitmap needs the state file, and a level with redundancy
	vol e 5 4 $p $ms --rw=read --size=1m --raid_bitmap=1 && return 1
	grep -q "raid_bitmap=1 needs raid_state" "$S/e.log" || return 1
	vol f 0 2 z- $ms --rw=read --size=1m --raid_state="$S/z.state" --raid_bitmap=1 &&
		return 1
	grep -q "raid: raid_bitmap: raid_level=0 has no redundancy" "$S/f.log"
}
t_case "bitmap refusals: another device re-added, a foreign file, no state, RAID0" refusals

t_done
