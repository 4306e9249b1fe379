#!/usr/bin/env bash
# ublk_cli_test.sh - raid-ublk's command line on this host (no ublk driver needed): each
# refusal is one line and a non-zero exit and leaves nothing behind (no /run/raid-ublk file,
# no member file); the engine's own message for a bad option; the driver's absence named
# with its module and the kernel package that has it. The device itself: ublk_test.sh.
source "$(dirname "$0")/../lib.sh"

U=$ROOT/build/bin/raid-ublk
S=$T_SCRATCH
for i in 0 1 2; do truncate -s 8m "$S/m$i"; done
MEM=raid_members=$S/m0:$S/m1:$S/m2
before=$(ls /run/raid-ublk 2>/dev/null | wc -l)

t_case_fail "no command: the usage" --msg '^usage: raid-ublk start' "$U"
t_case_fail "an unknown command" --msg '^usage:' "$U" frobnicate
t_case_fail "an unknown flag is named" --msg "unknown option --frob" "$U" start --frob raid_level=5 "$MEM"
t_case_fail "a word that is no option" --msg "'raid5' is no option" "$U" start raid5 "$MEM"
t_case_fail "a bad option value: the engine's message" \
	--msg "^raid: raid_chunk: '3k' is not a power of two" "$U" start raid_level=5 "$MEM" raid_chunk=3k
t_case_fail "an unknown engine option: the engine's message" --msg "raid_chonk" \
	"$U" start raid_level=5 "$MEM" raid_chonk=64k
t_case_fail "too few members for the level" --msg "raid_level=6 needs at least 4 members" \
	"$U" start raid_level=6 "$MEM"
t_case_fail "no level" --msg "raid_level" "$U" start "$MEM"
t_case_fail "--depth 0" --msg "^raid-ublk: --depth: '0' is not a whole number from 1 to 4096" \
	"$U" start --depth 0 raid_level=5 "$MEM"
t_case_fail "--queues without a value" --msg "^raid-ublk: --queues: '' is not" "$U" start --queues
t_case_fail "--id junk" --msg "^raid-ublk: --id: 'x'" "$U" start --id x raid_level=5 "$MEM"
t_case_fail "--cpus junk" --msg "^raid-ublk: --cpus: '3-1' is not a CPU list" \
	"$U" start --cpus 3-1 raid_level=5 "$MEM"
if command -v setpriv >/dev/null; then
	t_case_fail "not root" --msg "^raid-ublk: must run as root" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$U" start raid_level=5 "$MEM"
fi
if [[ ! -e /dev/ublk-control ]]; then
	t_case_fail "no ublk driver: the module and the kernel package that has it" \
		--msg "^raid-ublk: no /dev/ublk-control: load the module ublk_drv.*Debian 13's linux-image \(6.12\) has it, Debian 12's 6.1 does not" \
		"$U" start raid_level=5 "$MEM"
	t_case "... in one line" bash -c "[[ \$('$U' start raid_level=5 '$MEM' 2>&1 | wc -l) -eq 1 ]]"
	t_case_fail "no driver: a missing member is not created" --msg "ublk_drv" \
		"$U" start raid_level=5 raid_members="$S/n0:$S/n1:$S/n2" raid_member_size=8m
	t_case "... nor any member file" bash -c "! ls '$S'/n? 2>/dev/null | grep -q ."
fi
t_case_fail "stop: no such server" --msg "^raid-ublk: stop: no server of device 4093" "$U" stop 4093
t_case_fail "stop: not a device" --msg "^raid-ublk: stop: give one device" "$U" stop /dev/sda
t_case "list: exit 0, a line per device file only" "$U" list
t_case "nothing left under /run/raid-ublk" \
	bash -c "[[ \$(ls /run/raid-ublk 2>/dev/null | wc -l) -eq $before ]]"
t_done
