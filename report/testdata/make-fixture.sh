#!/usr/bin/env bash
# Regenerates report/testdata/run-quick: a small run directory in the layout of
# results/README.md, for the report's tests. The fio JSON+ files are genuine (build/bin/fio
# with io_uring on files in /dev/shm); the meta files say which RAID test each stands in
# for, and the stats files follow the engine's raid_stats schema with counts chosen by hand
# (member I/Os per volume I/O as RAID0/5 would issue them). Run from the repository root:
#   bash report/testdata/make-fixture.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FIO=$ROOT/build/bin/fio
OUT=$ROOT/report/testdata/run-quick
SCR=$(mktemp -d /dev/shm/raid-report-fixture.XXXXXX)
trap 'rm -rf "$SCR"' EXIT
rm -rf "$OUT"
mkdir -p "$OUT/tests" "$OUT/logs"

cat >"$OUT/run.json" <<JSON
{
  "run_id": "20250101-120000-quick",
  "preset": "quick",
  "scale": 0.0625,
  "options": {"backend": "io_uring", "parity": "cpu", "size": "64m"},
  "fio_version": "$("$FIO" --version)",
  "engine": {"build": "fixture", "parity_impl": "avx2"},
  "profile": null,
  "host": {"hostname": "fixture-host", "cpu": "AMD EPYC (Zen 3)", "sockets": 1, "cores": 2,
           "numa_nodes": 1, "memory_gb": 24, "mem_bw_gbps": 17.5},
  "arrays": []
}
JSON

# test NAME WORKLOAD ENGINE LEVEL MEMBERS CHUNK STATE RW BS IODEPTH NUMJOBS [GROUPED]
test_one() {
	local name=$1 wl=$2 eng=$3 level=$4 members=$5 chunk=$6 state=$7 rw=$8 bs=$9
	local qd=${10} nj=${11} grouped=${12:-1} layout='"left-symmetric"'
	[[ $level == null || $level == 0 ]] && layout=null
	local size=32m
	[[ $bs -lt 65536 ]] && size=8m
	"$FIO" --name="$name" --filename="$SCR/$name.dat" --size=$size --ioengine=io_uring \
		--direct=1 --rw="$rw" --bs="$bs" --iodepth="$qd" --numjobs="$nj" \
		--group_reporting="$grouped" --randseed=42 --output-format=json+ \
		--output="$OUT/tests/$name.json" >"$OUT/logs/$name.log" 2>&1
	cat >"$OUT/tests/$name.meta.json" <<JSON
{"preset": "quick", "test": "$name", "workload": "$wl", "engine": "$eng", "level": $level,
 "members": $members, "chunk": $chunk, "layout": $layout, "parity": $([[ $level == 5 ]] && echo '"cpu"' || echo null),
 "state": "$state", "rw": "$rw", "bs": $bs, "iodepth": $qd, "numjobs": $nj, "scale": 0.0625,
 "backend": "io_uring"}
JSON
}

# stats NAME LEVEL MEMBERS CHUNK STATE VOL_R VOL_W MEM_R MEM_W IOSIZE PARITY_BYTES PARITY_NS [REBUILD]
stats() {
	local name=$1 level=$2 members=$3 chunk=$4 state=$5 vr=$6 vw=$7 mr=$8 mw=$9 sz=${10}
	local pb=${11} pns=${12} rebuild=${13:-null} failed='[]'
	[[ $state != optimal ]] && failed='[2]'
	cat >"$OUT/tests/$name.stats.json" <<JSON
{
  "level": $level, "members": $members, "chunk": $chunk, "layout": "left-symmetric",
  "backend": "io_uring", "parity_path": "cpu", "parity_impl": "avx2",
  "state": "$state", "failed": $failed,
  "volume": {"reads": $vr, "writes": $vw, "read_bytes": $((vr * sz)), "write_bytes": $((vw * sz))},
  "member_io": {"reads": $mr, "writes": $mw, "read_bytes": $((mr * sz)), "write_bytes": $((mw * sz))},
  "writes": {"full_stripe": 0, "rcw": 0, "rmw": 0},
  "degraded_reads": $([[ $state != optimal ]] && echo $((vr / 4)) || echo 0),
  "parity": {"bytes": $pb, "cpu_ns": $pns},
  "stripe_lock_waits": 0,
  "rebuild": $rebuild,
  "scrub": null
}
JSON
}

M=1048576 K4=4096 C=524288
test_one jbod-4-SEQ1M-Q8T64-read SEQ1M-Q8T64 jbod null 4 null optimal read $M 8 1
test_one raid0-4-SEQ1M-Q8T64-read SEQ1M-Q8T64 raid 0 4 $C optimal read $M 8 1
test_one raid0-4-SEQ1M-Q8T64-write SEQ1M-Q8T64 raid 0 4 $C optimal write $M 8 1
test_one raid5-4-SEQ1M-Q8T64-read SEQ1M-Q8T64 raid 5 4 $C optimal read $M 8 1
test_one raid5-4-SEQ1M-Q8T64-write SEQ1M-Q8T64 raid 5 4 $C optimal write $M 8 1
test_one raid5-3-SEQ1M-Q8T64-write SEQ1M-Q8T64 raid 5 3 $C optimal write $M 8 1
test_one raid5-4-c64k-SEQ1M-Q8T64-write SEQ1M-Q8T64 raid 5 4 65536 optimal write $M 8 1
test_one raid0-4-RND4K-WRITE-randwrite RND4K-WRITE raid 0 4 $C optimal randwrite $K4 32 1
test_one raid5-4-RND4K-WRITE-randwrite RND4K-WRITE raid 5 4 $C optimal randwrite $K4 32 2 0
test_one raid5-4-RND4K-Q1-randread RND4K-Q1T64 raid 5 4 $C optimal randread $K4 1 1
test_one raid5-4-RND4K-READ-randread RND4K-READ raid 5 4 $C optimal randread $K4 32 1
test_one raid5-4-RND4K-READ-randread-degraded RND4K-READ raid 5 4 $C degraded randread $K4 32 1
test_one raid5-4-RND4K-READ-randread-rebuilding RND4K-READ raid 5 4 $C rebuilding randread $K4 32 1

stats raid0-4-SEQ1M-Q8T64-read 0 4 $C optimal 32 0 64 0 524288 0 0
stats raid0-4-SEQ1M-Q8T64-write 0 4 $C optimal 0 32 0 64 524288 0 0
stats raid5-4-SEQ1M-Q8T64-read 5 4 $C optimal 32 0 64 0 524288 0 0
stats raid5-4-SEQ1M-Q8T64-write 5 4 $C optimal 0 32 0 86 524288 22544384 2150000
stats raid5-3-SEQ1M-Q8T64-write 5 3 $C optimal 0 32 0 96 524288 33554432 3100000
stats raid5-4-c64k-SEQ1M-Q8T64-write 5 4 65536 optimal 0 32 0 96 65536 33554432 2600000
stats raid0-4-RND4K-WRITE-randwrite 0 4 $C optimal 0 2048 0 2048 4096 0 0
stats raid5-4-RND4K-WRITE-randwrite 5 4 $C optimal 0 4096 8192 8192 4096 16777216 2900000
stats raid5-4-RND4K-Q1-randread 5 4 $C optimal 2048 0 2048 0 4096 0 0
stats raid5-4-RND4K-READ-randread 5 4 $C optimal 2048 0 2048 0 4096 0 0
stats raid5-4-RND4K-READ-randread-degraded 5 4 $C degraded 2048 0 3584 0 4096 2097152 310000
stats raid5-4-RND4K-READ-randread-rebuilding 5 4 $C rebuilding 2048 0 3072 0 4096 1048576 160000 \
	'{"member": 2, "spare": "/dev/shm/spare0", "start_s": 0.5, "end_s": 8.5, "bytes": 1073741824,
    "mbps": 134.2, "min_per_tb": 124.2, "wait_s": 0.1,
    "samples": [{"t": 0, "phase": "before", "iops": 52000, "mbps": 203.1, "lat_mean_us": 610, "lat_p99_us": 1400},
                {"t": 2, "phase": "during", "iops": 31000, "mbps": 121.1, "lat_mean_us": 1020, "lat_p99_us": 2900},
                {"t": 4, "phase": "during", "iops": 29500, "mbps": 115.2, "lat_mean_us": 1080, "lat_p99_us": 3100},
                {"t": 6, "phase": "during", "iops": 30400, "mbps": 118.8, "lat_mean_us": 1050, "lat_p99_us": 3000},
                {"t": 9, "phase": "after", "iops": 51000, "mbps": 199.2, "lat_mean_us": 620, "lat_p99_us": 1450}]}'
echo "fixture written to $OUT"
