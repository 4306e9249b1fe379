#!/usr/bin/env bash
# tests/presets/edges_test.sh: run.sh's bad input, each one clear line on stderr and a
# non-zero exit: host names (--hosts, --hosts-file), hosts that cannot be reached or would
# share members, --drives naming an unattached loop device or one device twice, option
# values that are options, --only.
source "$(dirname "$0")/../lib.sh"
RUN=$ROOT/run.sh

bad() { # EXPECTED ARGS...: run.sh fails with exactly one line on stderr containing EXPECTED
	local want=$1
	shift
	"$RUN" "$@" >/dev/null 2>"$T_SCRATCH/err"
	local rc=$?
	cat "$T_SCRATCH/err"
	[[ $rc -ne 0 && $(wc -l <"$T_SCRATCH/err") -eq 1 ]] && grep -qF -- "$want" "$T_SCRATCH/err"
}
ok() { "$RUN" quick --dry-run --no-build "$@" >/dev/null; }

# host names: host, host:port, IPv4[:port], [IPv6][:port]; nothing else, nothing expanded
not_host="is not a host (host, host:port, an IPv4 address, [IPv6] or [IPv6]:port)"
for h in 'a b' '*' '$(touch /tmp/x)' 'h:0' 'h:65536' 'h:' ':8765' '256.0.0.1' '1.2.3' \
	'a..b' '-a' 'a-' 'a_b' '[::1' '[1.2.3.4]' '[::g]' '[1::2::3]' 'h:1:2'; do
	t_case "--hosts '$h' refused" bad "'$h' $not_host" quick --dry-run --no-build --hosts "$h"
done
t_case "a bare IPv6 address: told to bracket it" bad "goes in brackets: [::1]" \
	quick --dry-run --no-build --hosts ::1
t_case "an empty entry in --hosts" bad "an empty entry in 'a,,b'" quick --dry-run --no-build --hosts a,,b
t_case "a host named twice (default port)" bad "host h:8765 is named twice" \
	quick --dry-run --no-build --scratch /srv --hosts h,h:8765
for h in localhost 127.0.0.1:9000 '[::1]' '[::1]:9000' '[fe80::1:2]' '[::ffff:10.1.2.3]' \
	'[1:2:3:4:5:6:7:8]' storage-01.example.com; do
	t_case "--hosts '$h' accepted" ok --scratch /srv/m --hosts "$h"
done
t_case "a host that is not this machine needs a member directory there" \
	bad "storage-01:8765 is not this machine: give --scratch DIR" \
	quick --dry-run --no-build --hosts storage-01
t_case "--hosts and --hosts-file exclude each other" bad "exclude each other" \
	quick --dry-run --no-build --hosts a --hosts-file /dev/null

# --hosts-file
HF=$T_SCRATCH/hosts
hf() { printf '%s\n' "$@" >"$HF"; }
hf "127.0.0.1:9001 scratch=$T_SCRATCH/a" "127.0.0.1:9002 scratch=$T_SCRATCH/a"
t_case "two servers on this machine sharing a member directory" \
	bad "share scratch $T_SCRATCH/a: their member files would collide" \
	quick --dry-run --no-build --hosts-file "$HF"
hf "127.0.0.1:9001 scratch=rel/dir"
t_case "hosts file: a relative scratch directory" bad "$HF:1: scratch=rel/dir: the directory must be an absolute path" \
	quick --dry-run --no-build --hosts-file "$HF"
hf "# comment" "" "127.0.0.1:9001 scrach=/x"
t_case "hosts file: an unknown word, with its line" bad "$HF:3: 'scrach=/x' is neither scratch=DIR nor drives=A,B,..." \
	quick --dry-run --no-build --hosts-file "$HF"
hf "bad_host scratch=/x"
t_case "hosts file: a bad host name, with its line" bad "$HF:1: 'bad_host' is not a host" \
	quick --dry-run --no-build --hosts-file "$HF"
hf "h1 scratch=/x drives=/dev/a"
t_case "hosts file: scratch and drives on one line" bad "$HF:1: scratch= and drives= exclude each other" \
	quick --dry-run --no-build --hosts-file "$HF"
hf "h1 drives=/dev/a,,/dev/b"
t_case "hosts file: an empty drive entry" bad "$HF:1: drives: an empty entry" \
	quick --dry-run --no-build --hosts-file "$HF"
hf "# nothing"
t_case "hosts file without hosts" bad "names no host" quick --dry-run --no-build --hosts-file "$HF"
t_case "hosts file that does not exist" bad "no such readable file" \
	quick --dry-run --no-build --hosts-file "$T_SCRATCH/none"
hf "127.0.0.1:9001 scratch=$T_SCRATCH/a # one" "127.0.0.1:9002 scratch=$T_SCRATCH/b"
t_case "hosts file: each host's members in its own directory" bash -c \
	"'$RUN' quick --dry-run --no-build --hosts-file '$HF' | grep -q -- '9002: .*--raid_members=$T_SCRATCH/b/raid0-4m-bay0:'"

# Members left in a host's directory by an earlier run get raid_init=resync; new ones do not
mkdir -p "$T_SCRATCH/old" "$T_SCRATCH/new"
touch "$T_SCRATCH/old/raid5-4m-bay0"
hf "127.0.0.1:9001 scratch=$T_SCRATCH/new"
t_case "a new host directory: no resync" bash -c \
	"! '$RUN' quick --dry-run --no-build --hosts-file '$HF' | grep -q -- '--raid_init=resync'"
hf "127.0.0.1:9001 scratch=$T_SCRATCH/new" "127.0.0.1:9002 scratch=$T_SCRATCH/old"
t_case "a host directory holding members: resync" bash -c \
	"'$RUN' quick --dry-run --no-build --hosts-file '$HF' | grep -q -- '9001: .*--raid_init=resync'"

# A real run against a port where no fio server listens stops before any test.
port=$((20000 + RANDOM % 30000))
while timeout 2 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$0"' "$port" 2>/dev/null; do port=$((port + 1)); done
t_case "no fio server at a host: one line naming it, before any test" \
	bad "no fio server answers at 127.0.0.1:$port (start 'fio --server=127.0.0.1,$port' there)" \
	quick --no-build --no-report --out "$T_SCRATCH/r" --hosts "127.0.0.1:$port"

# directories that cannot be made: one line naming the option and why
t_case "--out that cannot be made" bad "--out: cannot create /dev/null/x/" \
	quick --no-build --no-report --out /dev/null/x
t_case "--scratch that is not a directory" bad "--scratch: /dev/null/s is not a directory" \
	quick --no-build --no-report --out "$T_SCRATCH/r" --scratch /dev/null/s

# option values
t_case "an option as another option's value" bad "--scratch needs a value, not the option '--keep'" \
	quick --dry-run --no-build --scratch --keep
t_case "an option with no value at the end" bad "--out needs a value" quick --dry-run --no-build --out
t_case "--only matching nothing" bad "--only: 'nope' matches none of preset quick's test ids" \
	quick --dry-run --no-build --only nope
t_case "--only that is no regular expression" bad "--only: '(' is not an extended regular expression" \
	quick --dry-run --no-build --only '('
t_case "--only keeps the matching tests" bash -c \
	"[[ \$('$RUN' quick --dry-run --no-build --repeat 1 --only '^raid5-.*write\$' | grep -c '^# \[') == 2 ]]"
t_case "an empty entry in --drives" bad "--drives: an empty entry in '/dev/a,,/dev/b'" \
	quick --dry-run --no-build --drives /dev/a,,/dev/b

# --drives on loop devices: one attached here (and detached at the end), one unattached
if [[ $(id -u) -ne 0 ]] || ! command -v losetup >/dev/null; then
	echo "skip: --drives loop-device cases need root and losetup"
else
	truncate -s 64M "$T_SCRATCH/disk"
	LOOP=$(losetup --find --show "$T_SCRATCH/disk")
	trap 'losetup -d "$LOOP" 2>/dev/null; rm -rf "$T_SCRATCH"' EXIT
	ln -s "$LOOP" "$T_SCRATCH/alias"
	t_case "the same device twice" bad "--drives: $LOOP and $LOOP are the same device" \
		quick --dry-run --no-build --drives "$LOOP,$LOOP"
	t_case "a device and a link to it" bad "--drives: $T_SCRATCH/alias and $LOOP are the same device" \
		quick --dry-run --no-build --drives "$LOOP,$T_SCRATCH/alias"
	t_case "a drive smaller than --member-size" bad "holds 67108864 bytes, less than --member-size 128M" \
		quick --dry-run --no-build --drives "$LOOP" --member-size 128M
	t_case "an attached, empty loop device is accepted (--fit: quick on one drive)" ok --drives "$LOOP" --fit
	FREE=$(losetup -f 2>/dev/null)
	if [[ -n $FREE && -b $FREE ]]; then
		t_case "an unattached loop device: one line, not a silent exit 32" \
			bad "--drives: $FREE has no medium (size 0: a loop device with no file attached?)" \
			quick --dry-run --no-build --drives "$FREE"
	else
		echo "skip: no unattached loop device node to name"
	fi
fi
# issue 37: a broken line in another preset is reported as that preset's, not as the one asked
broken_other() {
	local d=$T_SCRATCH/presets-broken
	rm -rf "$d" && cp -r "$ROOT/presets" "$d" && echo "garbage line" >>"$d/rebuild.preset"
	"$ROOT/build/bin/raid-preset" list "$d" >/dev/null 2>"$T_SCRATCH/pl.err" && return 1
	grep -q "rebuild.preset:[0-9]*: unknown keyword 'garbage'" "$T_SCRATCH/pl.err"
}
t_case "a broken preset file is named by raid-preset list" broken_other
t_case "run.sh with a broken presets/ says so, not that the preset is missing" bash -c '
	d=$1/p; mkdir -p "$d" && cp -r "$2"/{run.sh,run,presets,workloads,hw-profiles} "$d/" &&
	ln -s "$2/build" "$d/build" && echo "garbage line" >>"$d/presets/rebuild.preset"
	out=$("$d/run.sh" quick --dry-run --no-build 2>&1); rc=$?
	((rc != 0)) && grep -q "rebuild.preset:" <<<"$out" && grep -q "presets/ is not valid" <<<"$out" &&
		! grep -q "is not in .*index" <<<"$out"' _ "$T_SCRATCH" "$ROOT"
# issue 37: a dry-run line names an array's group apart from its bays ("7g1" before)
t_case "megaraid's dry run: group g1 apart from the bays" bash -c \
	'"$1" megaraid --dry-run --no-build 2>/dev/null | grep "^# \[" >"$2" &&
	grep -q "bays 0,1,2,3,4,5,6,7, group g1," "$2" && ! grep -q "[0-9]g[0-9]" "$2"' _ "$RUN" "$T_SCRATCH/mr.txt"
# issue 37: --out on a full file system is said before anything runs (it left a 0-byte
# run.json and an empty log)
if [[ $EUID == 0 ]] && mkdir -p "$T_SCRATCH/full" && mount -t tmpfs -o size=64k tmpfs "$T_SCRATCH/full"; then
	head -c 65536 /dev/zero >"$T_SCRATCH/full/fill" 2>/dev/null
	t_case_fail "--out on a full file system is refused, naming the disk" \
		--msg "^run.sh: --out: cannot write in .*: No space left on device" \
		"$RUN" quick --no-build --repeat 1 --runtime 1 --member-size 32M \
		--only '^raid0-4m-SEQ1M-Q8T64-write' --out "$T_SCRATCH/full/res"
	t_case "... and leaves no run directory there" bash -c '! ls "$1"/res/* >/dev/null 2>&1' _ "$T_SCRATCH/full"
	umount "$T_SCRATCH/full"
else
	echo "skip: --out on a full file system needs root (a tmpfs mount)"
fi
t_done
