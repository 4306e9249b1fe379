#!/usr/bin/env bash
# torture.sh - raid-torture's fixed seeds (tools/dev/torture): each seed a random array and
# random operations (writes, members failed, EIO injected, truncated and removed, SIGKILL
# during writes, rebuilds and scrubs, spares, re-adds, a full disk under the state file),
# checked after each against the model of every acknowledged write; then each sequence the
# torture found, replayed by its seed and operations (docs/rebuild.md, "Torture").
source "$(dirname "$0")/../lib.sh"

S=$T_SCRATCH
TORTURE=$ROOT/build/bin/raid-torture
[[ -x $TORTURE ]] || t_skip "no $TORTURE (make)"
tt() { nice -n 5 "$TORTURE" --dir "$S" --no-shrink "$@"; }

# every level and backend among them; seeds that ran clean when chosen (the script: about
# 2.5 minutes on the shared machine under a load of 16, less unloaded)
t_case "fixed seeds 1, 2, 4, 6-9, 12, 8 operations each" tt --seeds 1,2,4,6,7,8,9,12 --count 8
t_case "fixed seeds 13, 15, 17, 19, 21, psync" tt --seeds 13,15,17,19,21 --count 8 --backend psync

# found: a slot replaced twice (its first spare failed, rebuilt onto a second): the state
# file kept naming the first spare, the next start read the stale one
t_case "found: seed 5, a slot replaced twice: the second spare is recorded" \
	tt --seed 5 --ops 'f:1:2971970712,s:0:175115919,f:1:953424071,s:2:2439003595'
t_case "found: seed 10, raid1: a slot replaced twice, then a scrub" tt --seed 10 --count 12

# found: a 64-member array could take no spare ("raid_spares: members and spares exceed
# 64"), so the issue's 64-member RAID6 whose spare took a member's place could not restart
t_case "found: seed 14, raid6 of 64 members takes a spare" \
	tt --seed 14 --ops 'w:46:4037745782,t:9:3556979167,s:30:1219751684,w:32:1474240170'
raid6x64() { # through fio: written, member 5 failed, rebuilt onto a spare, restarted, verified
	local base=(--filename=vol --raid_level=6 --raid_members="$(members 64 w)"
		--raid_member_size=256k --raid_chunk=4k --raid_state="$S/w.state" --bs=64k
		--size=100% --verify=crc32c --verify_state_save=0 --verify_fatal=1)
	fio_raid --name=fill "${base[@]}" --rw=write --do_verify=0 >/dev/null || return 1
	fio_raid --name=rebuild "${base[@]}" --raid_failed=5 --raid_spares="$S/wsp" \
		--raid_rebuild=1 --rw=read --verify_only=1 || return 1
	jq -e '.replaced[0].done == true' "$S/w.state" >/dev/null || return 1
	# the same job file again (the spare still named): the restart the issue could not do
	fio_raid --name=again "${base[@]}" --raid_spares="$S/wsp" --rw=read --verify_only=1
}
t_case "raid6 of 64 members: a spare takes member 5's place, the array restarts" raid6x64

# found: a RAID5 of 64 members crashed in a scrub or a rebuild (63 data chunks a row: the
# row's pointers overran their array, sized for RAID6's 62)
t_case "found: seed 359503589, raid5 of 64 members: scrub" \
	tt --seed 359503589 --backend io_uring --ops 'w:3:4029257234'
t_case "found: seed 539175793, raid5 of 64 members: a rebuild, then a scrub" \
	tt --seed 539175793 --backend psync --ops 'f:35:301354176,s:10:2099373162'
t_case "found: seed 539175803, raid5 of 64 members: scrub repair" \
	tt --seed 539175803 --backend psync --ops 'c:24:2181331933'
# found: an unrecorded failure beside a recorded one; new writes reached the survivors
# (core/queue.c now refuses them untouched, md's order); replayed under the forced dirty
# degraded start's contract (torn rows unsure whole)
t_case "found: seed 131920611, raid6: a recorded and an unrecorded failure, dirty start" \
	tt --seed 131920611 --backend psync --ops 'e:10:2722752233,e:8:350493751,s:8:2322572470,d:4:920939646'
t_case "found: seed 43842260, raid6 of 64: no write reaches a member while a failure is unrecorded" \
	tt --seed 43842260 --backend io_uring --ops 't:63:2055928637,d:62:2373227738,s:60:4115576280'

# found: a member that failed after a spare's rebuild took its slot could not be re-added
# ("member 6 has a spare in its place"): the finished spare is the member now, and md
# re-adds it by the role its superblock records (recovery/intent.c)
t_case "found: seed 406616697, raid6: the spare that took slot 6 fails and is re-added" \
	tt --seed 406616697 --backend io_uring --ops 't:6:728353362,s:0:3574881048,f:6:1595741743,a:6:798778301'
t_case "found: seed 406616703, raid1 x2: the spare that took slot 1 fails and is re-added" \
	tt --seed 406616703 --backend io_uring --ops 'x:1:1308974411,s:0:362930082,f:1:1987603949,a:1:257049070'

# the issue's data loss: the state file's disk fills once it is marked dirty, then a member
# fails under writes; no write that skipped it may be acknowledged (core/failure.c's gate:
# with it planted out, this case reads acknowledged bytes back wrong)
t_case "state disk full as a member fails: nothing acknowledged is lost (seed 6)" \
	tt --seed 6 --ops 'w:0:1,d:3:77,w:1:2'

# found (the tool's model): a rebuild killed after it finished left its slot's removed device
# named (raid_failed), so the spare, the member now, was failed again and then offered as a
# spare of its own slot ("sp0 is named twice"); the state file's finished spare is adopted
t_case "found: seed 45518636, raid10: a rebuild killed after it finished" \
	tt --seed 45518636 --backend libaio --ops 'x:9:2305856096,w:2:2866801223,K:0:3230350114,w:6:1980705817,w:9:1691205852,s:3:3797567100'

# the operations added after the long runs (docs/rebuild.md, "Torture"): a degraded RAID5/6
# writer SIGKILLed (its restart refused unforced, as md's, then forced: only torn rows may
# differ), fio writing through the engine (verify=pattern; EIO injected under it), and
# SIGKILL aimed at the bitmap's writes (psync: also between the member writes after one)
t_case "kill a degraded raid5 writer (state): refused unforced, then forced (seed 6)" \
	tt --seed 6 --ops 'f:1:123,k:0:1000,w:0:7,k:0:456'
t_case "kill a degraded raid5 writer (no state): raid_init=resync (seed 571314691)" \
	tt --seed 571314691 --backend io_uring --ops 'f:1:123,k:0:1000,w:0:7,k:0:456,c:0:0'
t_case "fio through the engine, EIO injected under it: raid5 (seed 6)" \
	tt --seed 6 --ops 'F:1:11,w:0:1,F:3:12,F:4:13'
t_case "fio through the engine: raid1, a member failed under fio then re-added (seed 406616703)" \
	tt --seed 406616703 --backend io_uring --ops 'F:1:5,a:1:6,F:0:7,F:1:8'
bm_kills=$(for i in $(seq 1 12); do printf 'b:0:%d,' $((i * 7919)); done)
t_case "SIGKILL aimed at bitmap writes: raid6 (seed 571314697, psync)" \
	tt --seed 571314697 --backend psync --ops "${bm_kills%,}"
t_case "SIGKILL aimed at bitmap writes: raid5 (seed 571314720, psync)" \
	tt --seed 571314720 --backend psync --ops "${bm_kills%,}"

# --devices: a drive with a file system on it is refused by name, nothing written
holds_data() {
	local img=$S/fs.img dev rc
	truncate -s 8m "$img" && mkfs.ext4 -q -F "$img" || return 1
	dev=$(losetup -f --show "$img") || { echo "no loop device here: nothing to check"; return 0; }
	"$TORTURE" --dir "$S" --seed 1 --devices "$dev,$dev" >"$S/dev.log" 2>&1
	rc=$?
	losetup -d "$dev"
	cat "$S/dev.log"
	((rc == 1)) && grep -q "^raid-torture: --devices: $dev holds data (ext4): refused" "$S/dev.log" &&
		[[ $(blkid -p -o value -s TYPE "$img") == ext4 ]]
}
t_case "--devices: a drive that holds a file system is refused, left intact" holds_data

t_case "--help prints the usage and exits 0" bash -c "'$TORTURE' --help | grep -q '^usage: raid-torture'"
t_case_fail "a seed that is no number is refused, naming the option" \
	--msg "raid-torture: --seed: 'x' is not a whole number" "$TORTURE" --seed x
t_done
