#!/usr/bin/env bash
# Runs every test program named on the command line and ends with one line CI can read:
# "N passed, N failed". Each program is a cmocka binary or a shell script using
# tests/lib.sh; both print cmocka's "[  PASSED  ] N test(s)." / "[  FAILED  ] N test(s)"
# summary, which this runner adds up. A program that crashes or prints no summary counts
# as one failed test; one that prints only "[  SKIPPED ] REASON" (t_skip: it cannot run
# here) is listed as skipped, not failed.
set -uo pipefail

passed=0 failed=0 failed_progs=() skipped=()
log_dir=${TEST_LOG_DIR:-build/test-logs}
mkdir -p "$log_dir"

for t in "$@"; do
	name=$(basename "$t")
	log=$log_dir/$name.log
	start=$(date +%s)
	printf '=== %s\n' "$name"
	if [[ "$t" == *.sh ]]; then
		bash "$t" >"$log" 2>&1
	else
		"$t" >"$log" 2>&1
	fi
	rc=$?
	# the summaries: "N test(s)" exactly (a case named "20 tests, each ..." is not one)
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test(s).*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test(s).*/\1/p' "$log" | awk '{s+=$1} END {print s+0}')
	if [[ $rc -ne 0 && $f -eq 0 ]]; then
		f=1 # crashed or failed outside a test case
	fi
	skip=$(sed -n 's/^\[  SKIPPED \] //p' "$log" | head -1)
	if [[ $rc -eq 0 && $p -eq 0 && $f -eq 0 && -n $skip ]]; then
		skipped+=("$name: $skip") # cannot run here (t_skip): not a failure
	elif [[ $rc -eq 0 && $p -eq 0 && $f -eq 0 ]]; then
		f=1 # ran nothing: that is a failure, not a pass
		echo "    (no test summary in $log)"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	printf '    %d passed, %d failed (%ds)\n' "$p" "$f" $(($(date +%s) - start))
	if [[ $f -gt 0 ]]; then
		failed_progs+=("$name")
		grep -E '^\[  (FAILED|ERROR) +\]|^\[  ERROR   \]|FAIL|error' "$log" | head -20 | sed 's/^/    | /'
		echo "    full log: $log"
	fi
done

for s in "${skipped[@]}"; do echo "skipped: $s"; done
# the failed cases again, last: a CI log is often read from its tail only
for name in "${failed_progs[@]}"; do
	echo "failed: $name"
	sed -n 's/^\[  FAILED  \] \(.*\)/\1/p' "$log_dir/$name.log" | grep -v '^[0-9]* test(s)' |
		sort -u | head -10 | sed 's/^/    - /'
done
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
