#!/usr/bin/env bash
# tests/presets/dryrun_test.sh: every preset's --dry-run runs the published test: block size,
# depth, jobs, pattern, level, members and chunk checked against the published figures
# (results/reference/published.csv, read by raid-report's own CSV parser: raid-report
# published); options and bad input of run.sh; --target ublk's plan (run/ublk.sh).
source "$(dirname "$0")/../lib.sh"
RUN=$ROOT/run.sh
CSV=${PUBLISHED_CSV:-$ROOT/results/reference/published.csv}

# table PRESET -> one line per run: workload level members chunk parity state numjobs iodepth bs rw
table() {
	"$RUN" "$1" --dry-run --no-build --scale 1 | awk '
	/^# \[/ { match($0, /workload [^,]*/); w = substr($0, RSTART + 9, RLENGTH - 9)
		  split($0, f, /, /); for (i in f) { split(f[i], kv, " "); m[kv[1]] = kv[2] }
		  lvl = m["level"]; mem = m["members"]; ch = m["chunk"]; par = m["parity"]; st = m["state"]; next }
	/^env / { nj = ""; qd = ""; job = $NF
		  for (i = 1; i <= NF; i++) { if ($i ~ /^NUMJOBS=/) nj = substr($i, 9); if ($i ~ /^IODEPTH=/) qd = substr($i, 9) }
		  bs = ""; rw = ""
		  while ((getline l < job) > 0) { if (l ~ /^bs=/) bs = substr(l, 4); if (l ~ /^rw=/) rw = substr(l, 4) }
		  close(job)
		  print w, lvl, mem, ch, par, st, nj, qd, bs, rw }'
}
for p in hwluxx proxmox sr-gen5 megaraid; do table $p >"$T_SCRATCH/$p.tab"; done

# One published row -> is there a run with those parameters?
row_covered() {
	local src=$1 array=$2 drives=$3 engine=$4 chunk=$5 wl=$6 bs=$7 qd=$8 nj=$9 rw=${10} state=${11}
	local preset lvl=${array#raid} mem=$drives par=".*" st=$state
	[[ $array == jbod ]] && lvl=jbod
	[[ $state == rebuild ]] && st=rebuilding
	case $src in
	hwluxx-pmxx) preset=hwluxx; [[ $wl == PROXMOX-* ]] && preset=proxmox ;;
	sr-graid-gen5) preset=sr-gen5 ;;
	sr-megaraid) preset=megaraid
		# "2x 8-drive" arrays: two arrays of half the drives run at once.
		[[ $array != jbod && $state == optimal ]] && mem=$((drives / 2)) ;;
	esac
	case $engine in graid) par="cuda|auto" ;; sw-raid | mdadm) par=cpu ;; esac
	awk -v w="$wl" -v l="$lvl" -v m="$mem" -v c="$chunk" -v p="^($par)\$" -v s="$st" \
		-v nj="$nj" -v qd="$qd" -v bs="$bs" -v rw="$rw" '
		$1 == w && $2 == l && $3 == m && (c == "" || $4 == c) && $5 ~ p && $6 == s &&
		(nj == "" || $7 == nj) && (qd == "" || $8 == qd) && (bs == "" || $9 == bs) &&
		(rw == "" || $10 == rw) { found = 1 } END { exit !found }' "$T_SCRATCH/$preset.tab" ||
		{ echo "no $preset run for: $*"; return 1; }
}
# The rows, one a line, fields separated by US (0x1f: no field holds it; read keeps empty ones)
t_case "the published figures parse (raid-report published)" bash -c \
	"'$ROOT/build/bin/raid-report' published '$CSV' >'$T_SCRATCH/pub.json' && jq -e 'length > 0' '$T_SCRATCH/pub.json'"
jq -r '.[] | [.source, .host, .drives, .drive_model, .array, .engine, .chunk, .workload, .bs,
	.iodepth, .numjobs, .rw, .state, .metric] | join("\u001f")' "$T_SCRATCH/pub.json" >"$T_SCRATCH/pub.rows"
while IFS=$'\x1f' read -r src host drives model array engine chunk wl bs qd nj rw state metric; do
	t_case "published $src $array x$drives $engine ${chunk:+chunk $chunk }$wl $rw $state" \
		row_covered "$src" "$array" "$drives" "$engine" "$chunk" "$wl" "$bs" "$qd" "$nj" "$rw" "$state"
done <"$T_SCRATCH/pub.rows"

# The tests with no figure in the CSV are planned too.
has() { grep -q -- "$2" "$T_SCRATCH/$1.tab" || { echo "no '$2' in $1"; return 1; }; }
t_case "hwluxx RND4K Q32T64 write" has hwluxx "^RND4K-Q32T64 6 12 512k cuda optimal 64 32 4k randwrite$"
t_case "hwluxx RND4K Q1T64 read" has hwluxx "^RND4K-Q1T64 5 4 512k cpu optimal 64 1 4k randread$"
t_case "hwluxx single drive JBOD" has hwluxx "^SEQ1M-Q8T64 jbod 1 - - optimal 64 8 1m read$"
t_case "proxmox 4K QD64T32 on the RAID1" has proxmox "^PROXMOX-4K-QD64T32 1 2 512k auto optimal 32 64 4k randwrite$"
t_case "megaraid preconditioning" has megaraid "^PRECOND-RAND jbod 16 "
t_case "megaraid QD1 latency rebuilding" has megaraid "^RND4K-WRITE-LAT 5 16 512k auto rebuilding 1 1 4k randwrite$"
t_case "sr-gen5 JBOD baseline" has sr-gen5 "^RND4K-192T32Q jbod 24 - - optimal 192 32 4k randread$"

# Options.
t_case "--scale scales jobs and depth" bash -c \
	"\"$RUN\" hwluxx --dry-run --no-build --scale 0.0625 | grep -m1 'RND4K-Q32T64' -A1 | grep -q 'NUMJOBS=4 IODEPTH=2 '"
t_case "proxmox pins nothing on a host without node 1, and says so" bash -c \
	"\"$RUN\" proxmox --dry-run --no-build 2>&1 | grep -q 'gpu-raid6-8: profile .* NUMA node 1.*not pinned'"
t_case "proxmox RAID6 gets the two hot spares" bash -c \
	"\"$RUN\" proxmox --dry-run --no-build | grep -q -- '--raid_spares=[^ ]*spare2:[^ ]*spare3'"
t_case "--parity restricts the variants" bash -c \
	"! \"$RUN\" hwluxx --dry-run --no-build --parity cpu | grep -q 'raid_parity=cuda'"
t_case "--hosts uses fio client mode on each host" bash -c \
	"\"$RUN\" quick --dry-run --no-build --hosts h1,h2:9000 --scratch /srv/m | grep -q -- '--client=h1.,8765 .*h1_8765.fio --client=h2.,9000 .*h2_9000.fio'"
t_case "rebuild preset fails a member and rebuilds onto a spare" bash -c \
	"\"$RUN\" rebuild --dry-run --no-build | grep -q -- '--raid_spares=.* --raid_failed=0 --raid_rebuild=1'"
t_case "--gpu and --gpu-batch reach the GPU runs only" bash -c \
	"out=\$(\"$RUN\" hwluxx --dry-run --no-build --gpu 1 --gpu-batch 256) &&
	 grep -- '--raid_parity=cuda' <<<\"\$out\" | grep -q -- '--raid_gpu=1 --raid_gpu_batch=256' &&
	 ! grep -- '--raid_parity=cpu' <<<\"\$out\" | grep -q -- '--raid_gpu'"
t_case "--list names every preset" bash -c \
	"[[ \$(\"$RUN\" --list | awk '{print \$1}' | tr '\n' ' ') == 'quick hwluxx proxmox sr-gen5 megaraid rebuild selfcheck ' ]]"
t_case "--help documents every option" bash -c "h=\$(\"$RUN\" --help); for o in --list --drives --force --scratch --member-size --keep --profile --parity --gpu --gpu-batch --runtime --scale --hosts --hosts-file --only --out --dry-run; do grep -q -- \"\$o\" <<<\"\$h\" || { echo \"\$o missing\"; exit 1; }; done"
for p in quick rebuild; do
	t_case "$p dry-run" "$RUN" "$p" --dry-run --no-build
done

# --target ublk (run/ublk.sh): each engine test once more as ublk-<id>, the server started over
# the same members with the engine's own raid_* options, fio's io_uring on the device
"$RUN" quick --dry-run --no-build --target engine,ublk,md >"$T_SCRATCH/ublk.dry" 2>&1
ublk_twins() { # every engine test has a ublk twin and an md twin, in that order
	local e u m
	e=$(grep -c '^# \[.*target engine)$' "$T_SCRATCH/ublk.dry")
	u=$(grep -c '^# \[[0-9/]*\] ublk-.*target ublk)$' "$T_SCRATCH/ublk.dry")
	m=$(grep -c '^# \[[0-9/]*\] md-.*target md)$' "$T_SCRATCH/ublk.dry")
	echo "engine $e ublk $u md $m"
	((e > 0 && u == e && m == e)) &&
		[[ $(grep -o '^# \[[0-9/]*\] [a-z]*-*raid5-4m-RND4K-Q32T64-randwrite@1' "$T_SCRATCH/ublk.dry" |
			awk '{print $3}' | tr '\n' ' ') == "raid5-4m-RND4K-Q32T64-randwrite@1 ublk-raid5-4m-RND4K-Q32T64-randwrite@1 md-raid5-4m-RND4K-Q32T64-randwrite@1 " ]]
}
t_case "--target engine,ublk,md: each engine test has a ublk- and an md- twin, in that order" ublk_twins
ublk_same() { # the server's options are the engine test's own, fio runs io_uring on the device
	local eng srv fio
	eng=$(grep -A1 '^# \[[0-9/]*\] raid6-4m-SEQ1M-Q8T64-write@1 ' "$T_SCRATCH/ublk.dry" | tail -1 |
		grep -o -- '--raid_[a-z_]*=[^ ]*' | grep -v raid_stats | sed 's/^--//' | tr '\n' ' ')
	srv=$(grep -A1 '^# \[[0-9/]*\] ublk-raid6-4m-SEQ1M-Q8T64-write@1 ' "$T_SCRATCH/ublk.dry" | tail -1)
	fio=$(grep -A2 '^# \[[0-9/]*\] ublk-raid6-4m-SEQ1M-Q8T64-write@1 ' "$T_SCRATCH/ublk.dry" | tail -1)
	echo "engine: $eng"
	echo "server: $srv"
	echo "fio: $fio"
	[[ $srv == "# ublk: $ROOT/build/bin/raid-ublk start $eng"raid_stats=*ublk-raid6-4m-SEQ1M-Q8T64-write@1.stats.json" " ]] &&
		[[ $fio == *" --ioengine=io_uring --filename=/dev/ublkbN "* && $fio != *--raid_* && $fio != *external:* ]]
}
t_case "a ublk test's server takes the engine test's raid_* options; fio io_uring on /dev/ublkbN" ublk_same
ublk_placed() { # with a profile's placement, each server runs on its engine test's CPUs
	# (on a one-node host the profile's node-1 arrays stay unpinned, the node-0 ones pinned)
	"$RUN" proxmox --profile gigabyte-r284-s93-aal1 --dry-run --no-build --target engine,ublk \
		--out "$T_SCRATCH/res" >"$T_SCRATCH/placed.dry" 2>&1
	local e u
	e=$(grep -o -- '--raid_level=[0-9]* .*--cpus_allowed=[^ ]*' "$T_SCRATCH/placed.dry" |
		sed -E 's/^--raid_level=([0-9]*) .*--cpus_allowed=/\1 /' | sort)
	u=$(grep '^# ublk:.* --cpus ' "$T_SCRATCH/placed.dry" |
		sed -E 's/.* raid_level=([0-9]*) .* --cpus ([^ ]*).*/\1 \2/' | sort)
	echo "engine: $(echo $e)"
	echo "ublk:   $(echo $u)"
	[[ -n $e && $e == "$u" ]]
}
t_case "--target ublk: each server is pinned (--cpus) where its engine test's fio jobs are" ublk_placed
t_case "RAID_UBLK names another server" bash -c \
	"RAID_UBLK=/opt/x/raid-ublk \"$RUN\" quick --dry-run --no-build --target ublk --only raid5 | grep -q '^# ublk: /opt/x/raid-ublk start raid_level=5 '"
t_case_fail "--target ublk with --hosts is refused" --msg "not with --hosts" \
	"$RUN" quick --dry-run --no-build --target ublk --hosts h1
t_case_fail "unknown preset" --msg "unknown preset 'nope'" "$RUN" nope --dry-run --no-build
t_case "unknown preset names the presets" bash -c "\"$RUN\" nope --dry-run --no-build 2>&1 | grep -q \"unknown preset 'nope'; presets: quick\""
t_case_fail "unknown option" --msg "unknown option '--frob'" "$RUN" --frob
t_case_fail "bad scale" --msg "scale must be a number in \(0, 1\], not '2'" "$RUN" --scale 2 --dry-run --no-build
t_case_fail "bad parity" --msg "parity must be cpu, cuda or auto, not 'gpu'" "$RUN" --parity gpu --dry-run --no-build
t_case_fail "bad runtime" --msg "runtime must be a whole number of seconds, not '1s'" "$RUN" --runtime 1s --dry-run --no-build
t_case_fail "bad gpu" --msg "gpu must be a CUDA device index 0..63, not 'x'" "$RUN" --gpu x --dry-run --no-build
t_case_fail "bad gpu batch" --msg "gpu-batch must be a stripe count 1..1024, not '2000'" "$RUN" --gpu-batch 2000 --dry-run --no-build
t_case_fail "bad member size" --msg "member-size: 'lots' is not a size" "$RUN" --member-size lots --dry-run --no-build
t_case_fail "unknown profile" --msg "unknown profile 'nope'" "$RUN" --profile nope --dry-run --no-build
t_case_fail "malformed profile" --msg "profile .*p.json is not valid" bash -c "echo '{\"name\": 1}' >'$T_SCRATCH/p.json'; \"$RUN\" --profile '$T_SCRATCH/p.json' --dry-run --no-build"
t_case_fail "a file is not a drive" --msg "p.json is not a block device" "$RUN" --drives "$T_SCRATCH/p.json" --dry-run --no-build
t_done
