#!/usr/bin/env bash
# Regenerates report/testdata/run-quick: a small run directory in the layout of
# results/README.md, for the report's tests. Everything in it is genuine: each test is a real
# build/bin/fio run (--output-format=json+) through the RAID engine (build/engines/raid.so)
# on member files in /dev/shm, with the engine's own raid_stats file; the JBOD test uses fio's
# io_uring engine on the member files. run.json holds this host's facts (raid-hwinfo) and
# its single-core memory bandwidth (raid-parity-bench membw), as run.sh writes them. The meta
# files say what each test was, as run.sh writes them. Degraded and rebuilding tests fail
# member 2 (raid_failed); the rebuilding one rebuilds it onto a spare at a capped rate so
# that the rebuild lasts a few seconds and records per-second samples. One RAID5 random write
# runs two jobs without group_reporting (the report must add them up).
# Run from anywhere, after make:
#   bash report/testdata/make-fixture.sh
# Then regenerate the expected outputs (report/testdata/expected/, see docs/report.md).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FIO=$ROOT/build/bin/fio
ENGINE=$ROOT/build/engines/raid.so
RJ=$ROOT/build/bin/raid-json
OUT=$ROOT/report/testdata/run-quick
SCR=$(mktemp -d /dev/shm/raid-report-fixture.XXXXXX)
trap 'rm -rf "$SCR"' EXIT
rm -rf "$OUT"
mkdir -p "$OUT/tests" "$OUT/logs"
MSIZE=16777216

"$ROOT/build/bin/raid-hwinfo" facts >"$SCR/host.json"
bw=$("$ROOT/build/bin/raid-parity-bench" --json --impl membw --quick --mode stream --pool 256m \
	--runs 5 2>/dev/null | grep -o '"gbps": *[0-9.]*' | head -1 | grep -o '[0-9.]*$')
"$RJ" set "$SCR/host.json" mem_bw_gbps:f="$bw" \
	"mem_bw_method:s=raid-parity-bench --impl membw --quick --mode stream --pool 256m (one core)"
"$RJ" obj run_id:s="$(date +%Y%m%d-%H%M%S)-quick" preset:s=quick \
	"preset_doc:s=report fixture: report/testdata/make-fixture.sh" scale:f=0.03 runtime_s:i=1 \
	member_size:i=$MSIZE options.drives:s= options.scratch:s=/dev/shm host:J="$SCR/host.json" \
	kernel:s="$(uname -r)" fio_version:s="$("$FIO" --version)" engine.path:s="$ENGINE" \
	engine.built:b=true engine.git:s="$(git -C "$ROOT" describe --always --dirty)" \
	profile.name:s=host >"$OUT/run.json"

# run NAME WORKLOAD LEVEL MEMBERS CHUNK STATE RW BS IODEPTH NUMJOBS [FIO OPTIONS...]
# LEVEL jbod: fio's io_uring on the members. Reads first get the volume written once.
run() {
	local name=$1 wl=$2 level=$3 n=$4 chunk=$5 state=$6 rw=$7 bs=$8 qd=$9 nj=${10}
	shift 10
	local d=$SCR/$name m=() i tgt
	mkdir -p "$d"
	for ((i = 0; i < n; i++)); do
		truncate -s $MSIZE "$d/m$i"
		m+=("$d/m$i")
	done
	if [[ $level == jbod ]]; then
		tgt=(--ioengine=io_uring "--filename=$(IFS=:; echo "${m[*]}")")
	else
		tgt=(--ioengine="external:$ENGINE" --thread=1 "--filename=$d/vol" --raid_level="$level"
			"--raid_members=$(IFS=:; echo "${m[*]}")" --raid_chunk="$chunk")
	fi
	if [[ $rw == *read ]]; then
		"$FIO" --name=fill "${tgt[@]}" --rw=write --bs=1m --direct=1 --size=100% \
			--output=/dev/null >>"$OUT/logs/$name.log" 2>&1
	fi
	[[ $level == jbod ]] || tgt+=("--raid_stats=$OUT/tests/$name.stats.json")
	"$FIO" --name="$wl-$rw" "${tgt[@]}" --direct=1 --rw="$rw" --bs="$bs" --iodepth="$qd" \
		--numjobs="$nj" --size=100% --time_based=1 --runtime=1 --randseed=42 --lat_percentiles=1 \
		--output-format=json+ --output="$OUT/tests/$name.json" "$@" \
		>>"$OUT/logs/$name.log" 2>&1
	local lv=level:i=$level ch=chunk:i=$chunk lay=layout:n par=parity:n
	[[ $level == jbod ]] && lv=level:n ch=chunk:n
	[[ $level == 5 || $level == 6 ]] && lay=layout:s=left-symmetric par=parity:s=cpu
	"$RJ" obj preset:s=quick test:s="$name" workload:s="$wl" \
		engine:s=$([[ $level == jbod ]] && echo jbod || echo raid) "$lv" members:i="$n" "$ch" \
		"$lay" "$par" state:s="$state" rw:s="$rw" bs:i="$bs" iodepth:i="$qd" numjobs:i="$nj" \
		scale:f=0.03 backend:s=io_uring status:s=ok >"$OUT/tests/$name.meta.json"
}

M=1048576 K4=4096 C=524288
run jbod-4-SEQ1M-Q8T64-read SEQ1M-Q8T64 jbod 4 0 optimal read $M 8 1
run raid0-4-SEQ1M-Q8T64-read SEQ1M-Q8T64 0 4 $C optimal read $M 8 1
run raid0-4-SEQ1M-Q8T64-write SEQ1M-Q8T64 0 4 $C optimal write $M 8 1
run raid5-4-SEQ1M-Q8T64-read SEQ1M-Q8T64 5 4 $C optimal read $M 8 1
run raid5-4-SEQ1M-Q8T64-write SEQ1M-Q8T64 5 4 $C optimal write $M 8 1
run raid5-3-SEQ1M-Q8T64-write SEQ1M-Q8T64 5 3 $C optimal write $M 8 1
run raid5-4-c64k-SEQ1M-Q8T64-write SEQ1M-Q8T64 5 4 65536 optimal write $M 8 1
run raid0-4-RND4K-WRITE-randwrite RND4K-WRITE 0 4 $C optimal randwrite $K4 32 1
run raid5-4-RND4K-WRITE-randwrite RND4K-WRITE 5 4 $C optimal randwrite $K4 32 2 \
	--group_reporting=0
run raid5-4-RND4K-Q1-randread RND4K-Q1T64 5 4 $C optimal randread $K4 1 1
run raid5-4-RND4K-READ-randread RND4K-READ 5 4 $C optimal randread $K4 32 1
run raid5-4-RND4K-READ-randread-degraded RND4K-READ 5 4 $C degraded randread $K4 32 1 \
	--raid_failed=2
run raid5-4-RND4K-READ-randread-rebuilding RND4K-READ 5 4 $C rebuilding randread $K4 32 1 \
	--raid_failed=2 --raid_spares="$SCR/spare0" --raid_rebuild=1 --raid_rebuild_min=4 \
	--raid_rebuild_max=4
# A skipped test, as run.sh records one: its meta and log, no fio output.
"$RJ" obj preset:s=quick test:s=raid6-4-RND4K-WRITE-randwrite workload:s=RND4K-WRITE \
	engine:s=raid level:i=6 members:i=4 chunk:i=$C layout:s=left-symmetric parity:s=cuda \
	state:s=optimal rw:s=randwrite bs:i=$K4 iodepth:i=32 numjobs:i=1 scale:f=0.03 \
	backend:s=io_uring status:s=skipped "reason:s=raid: raid_parity=cuda: no GPU (example)" \
	>"$OUT/tests/raid6-4-RND4K-WRITE-randwrite.meta.json"
: >"$OUT/logs/raid6-4-RND4K-WRITE-randwrite.log"
du -sh "$OUT"
echo "fixture written to $OUT"
