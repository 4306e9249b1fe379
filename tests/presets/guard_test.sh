#!/usr/bin/env bash
# tests/presets/guard_test.sh: one run.sh a machine at a time (a second is refused naming the
# first, waits with --wait, runs with --concurrent; a dry run takes no lock), and a run stopped
# by SIGINT mid-test reports what it measured: run.json "started" without "finished", the
# stopped test's meta.json still "running", raid-report's page and summary from the finished
# tests with the stopped one marked interrupted, exit 130.
source "$(dirname "$0")/../lib.sh"
RUN=$ROOT/run.sh
export TMPDIR=$T_SCRATCH
OUT=$T_SCRATCH/results
ONLY='raid0-4m-RND4K'
# background OUTFILE LINE ARGS...: quick with ARGS in the background (PID), in its own
# process group (set -m) with SIGINT at its default (env --default-signal: a test started in
# the background, as by make test -j or CI, inherits SIGINT ignored, which bash never traps);
# back once LINE is in its output
background() {
	local out=$1 line=$2 i
	shift 2
	set -m
	env --default-signal=INT "$RUN" quick --no-build --repeat 1 --member-size 32M "$@" >"$out" 2>&1 &
	PID=$!
	set +m
	for ((i = 0; i < 600; i++)); do
		grep -q "$line" "$out" && break
		sleep 0.1
	done
}
# the first run (two tests of 3 s) holds the lock once its first test starts
background "$T_SCRATCH/first.out" 'start ' --runtime 3 --only "$ONLY" --out "$OUT"
FIRST=$PID
t_case_fail "a second run is refused, naming the first (pid, run id, preset)" \
	--msg "^run.sh: another run is running on this machine \(pid $FIRST, run [0-9-]+-quick, preset quick; lock" \
	"$RUN" quick --no-build --runtime 1 --member-size 32M --only "$ONLY" --out "$OUT"
t_case "a dry run takes no lock" "$RUN" quick --dry-run --no-build --only "$ONLY"
wait "$FIRST"
cat "$T_SCRATCH/first.out"
t_case "with the first run over, the lock is free" bash -c "flock -n '$FIO_RAID_LOCK' true"

# --wait: the second run waits for the first, then runs
flock "$FIO_RAID_LOCK" -c "echo 'pid 1, run r, preset p' >'$FIO_RAID_LOCK'; sleep 3" &
HOLDER=$!
sleep 0.5
t_case "--wait waits for the run that holds the lock, then runs" "$RUN" quick --no-build \
	--no-report --wait --repeat 1 --runtime 1 --member-size 32M --only 'raid0-4m-RND4K-Q1' --out "$OUT"
cp "$T_OUT" "$T_SCRATCH/wait.out"
t_case "--wait said whom it waited for" grep -q \
	'waiting for the run on this machine to end (pid 1, run r, preset p; lock' "$T_SCRATCH/wait.out"
wait "$HOLDER"

# SIGINT in the middle of the third test
R2=$T_SCRATCH/int
background "$T_SCRATCH/int.out" 'start raid0-4m-RND4K-Q1T64' --runtime 1 \
	--only "$ONLY|raid0-4m-SEQ1M-Q8T64-read" --out "$R2"
kill -INT "$PID"
rc=0
wait "$PID" || rc=$?
cat "$T_SCRATCH/int.out"
t_case "SIGINT: exit 130" test "$rc" = 130
R=$(ls -d "$R2"/*-quick | head -1)
T=raid0-4m-RND4K-Q1T64-randread
t_case "run.json: started, no finished" bash -c \
	"jget '$R/run.json' started && ! jq -e .finished '$R/run.json'"
t_case "the stopped test's meta.json says running" bash -c "[[ \$(jget '$R/tests/$T.meta.json' status) == running ]]"
t_case "the page and the summary were written" test -s "$R/index.html" -a -s "$R/summary.json"
t_case "summary: the two finished tests, the stopped one not run: interrupted" bash -c "
	jq -e '(.tests | length) == 2 and .interrupted == true and
	       ([.not_run[] | select(.test == \"$T\" and .status == \"interrupted\")] | length) == 1' '$R/summary.json'"
t_done
