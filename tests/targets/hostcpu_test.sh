#!/usr/bin/env bash
# tests/targets/hostcpu_test.sh: raid-hostcpu, the whole-machine CPU of a test. The interval
# arithmetic on made-up samples (exact figures), the choice of samples around a short
# interval, bad input, and one real sampling of fio with its job processes counted.
source "$(dirname "$0")/../lib.sh"
H=$ROOT/build/bin/raid-hostcpu
S=$T_SCRATCH/samples F=$T_SCRATCH/fio.json

# 10 samples 1 s apart from t=1000: user 10 i^2 ticks (so that windows differ); per second 5 nice, 20 system, 2 irq,
# 3 softirq, 7 iowait; fio's tree 30 user and 10 system ticks (hz 100).
{
	echo "# cpus 4 hz 100"
	for i in $(seq 0 9); do
		echo "$((1000 + i)).0 $((10 * i * i)) $((5 * i)) $((20 * i)) 100 $((7 * i)) $((2 * i)) $((3 * i)) 0 $((30 * i)) $((10 * i))"
	done
} >"$S"
# fio wrote its JSON at t=1008.5 after a job of 4 s (the longest direction): [1004.5, 1008.5]
echo '{"timestamp_ms": 1008500, "jobs": [{"read": {"runtime": 4000}, "write": {"runtime": 1000}}]}' >"$F"
interval() {
	local got
	got=$("$H" interval "$S" "$F" "$@") || return 1
	echo "$got"
	[[ $got == "$EXPECT" ]]
}
EXPECT='{"user_s":4.050,"system_s":0.660,"softirq_s":0.090,"iowait_s":0.210,"interval_s":3.000,"cpus":4,"fio_user_s":0.900,"fio_system_s":0.300,"fio_interval_s":4.000}'
t_case "the samples inside fio's interval: user+nice, system+irq, softirq, iowait, fio's tree" interval
# --tail 3: the interval ends at 1005.5 ([1001.5, 1005.5]): samples 1002..1005
EXPECT='{"user_s":2.250,"system_s":0.660,"softirq_s":0.090,"iowait_s":0.210,"interval_s":3.000,"cpus":4,"fio_user_s":0.900,"fio_system_s":0.300,"fio_interval_s":4.000}'
t_case "--tail moves the interval back (a rebuild waited for after the I/O)" interval --tail 3
# a 0.2 s job between two samples: the samples around it, 1 s
echo '{"timestamp_ms": 1003600, "jobs": [{"write": {"runtime": 200}}]}' >"$F"
EXPECT='{"user_s":0.750,"system_s":0.220,"softirq_s":0.030,"iowait_s":0.070,"interval_s":1.000,"cpus":4,"fio_user_s":0.300,"fio_system_s":0.100,"fio_interval_s":0.200}'
t_case "an interval shorter than the sampling takes the samples around it" interval

t_case_fail "no fio JSON: refused" "$H" interval "$S" "$T_SCRATCH/none.json"
t_case_fail "one sample only: refused" bash -c "head -2 '$S' >'$T_SCRATCH/one'; '$H' interval '$T_SCRATCH/one' '$F'"
t_case_fail "--tail not a number: refused" "$H" interval "$S" "$F" --tail x
t_case_fail "--pid not a process id: refused" "$H" sample --pid abc "$T_SCRATCH/x"

# fio without thread=1 forks its jobs: their CPU must be counted, as fio's own usr/sys say
real_fio() {
	local out=$T_SCRATCH/real.cpu p got job sampled
	# the null engine keeps the forked job on the CPU, whatever the machine's load leaves it
	"$FIO" --name=burn --ioengine=null --size=1g --rw=write --bs=4k \
		--time_based --runtime=2 --output-format=json --output="$T_SCRATCH/real.json" >/dev/null &
	p=$!
	"$H" sample --pid "$p" "$out" &
	wait "$p" || return 1
	wait
	got=$("$H" interval "$out" "$T_SCRATCH/real.json") || return 1
	echo "$got"
	# what fio itself says its forked job spent (percent of the job's runtime, in ms): the
	# sampled processes must hold at least most of it, however loaded the machine is
	job=$(jq '.jobs[0] | (.usr_cpu + .sys_cpu) / 100 * .job_runtime / 1000' "$T_SCRATCH/real.json")
	sampled=$(jq '.fio_user_s + .fio_system_s' <<<"$got")
	echo "fio's job: $job s of CPU; sampled in fio's processes: $sampled s"
	# (the samples count clock ticks: 10 ms each, two of them at the ends)
	awk -v j="$job" -v s="$sampled" 'BEGIN { exit !(j > 0.05 && s >= 0.7 * j - 0.02) }'
}
t_case "a real fio: its forked job's CPU is in fio_user_s + fio_system_s" real_fio

# A scan of /proc is not one instant: a parent read before it reaps a child, the child looked
# for after it is gone, lost the child's whole time, and a sum that drops made a real fio's
# fio_user_s negative. Provoke it: 600 idle children put many reads between a parent and the
# burner it reaps, 20 burners of ~0.15 s reaped one by one; the tree's sum must never drop.
never_drops() {
	local out=$T_SCRATCH/reap.cpu p
	bash -c 'for i in $(seq 600); do sleep 60 & done
		for i in $(seq 20); do ( x=0; while ((x < 150000)); do ((x++)); done ) & wait $!; done
		kill $(jobs -p) 2>/dev/null' &
	p=$!
	"$H" sample --pid "$p" "$out" &
	wait "$p"
	wait
	awk 'NR > 1 { v = $10 + $11; if (NR > 2 && v < last) { print "drop " last " -> " v; d++ }
		last = v } END { print NR - 1 " samples, " d + 0 " drops, " last " ticks"; exit d || last < 100 }' "$out"
}
t_case "children reaped while /proc is scanned: the tree's CPU never drops" never_drops
t_done
