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

# fio without thread=1 forks its jobs: their CPU must be counted (fio's usr+sys say ~1 core)
real_fio() {
	local out=$T_SCRATCH/real.cpu p got fu fs
	"$FIO" --name=burn --filename="$T_SCRATCH/f" --size=16m --rw=randwrite --bs=4k \
		--time_based --runtime=2 --output-format=json --output="$T_SCRATCH/real.json" >/dev/null &
	p=$!
	"$H" sample --pid "$p" "$out" &
	wait "$p" || return 1
	wait
	got=$("$H" interval "$out" "$T_SCRATCH/real.json") || return 1
	echo "$got"
	fu=$(sed 's/.*"fio_user_s":\([0-9.]*\).*/\1/' <<<"$got")
	fs=$(sed 's/.*"fio_system_s":\([0-9.]*\).*/\1/' <<<"$got")
	# a 2 s test that keeps a job busy spends well over 0.2 s of CPU in fio's processes
	awk -v u="$fu" -v s="$fs" 'BEGIN { exit !(u + s > 0.2) }'
}
t_case "a real fio: its forked job's CPU is in fio_user_s + fio_system_s" real_fio
t_done
