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
# One parity selection for the whole run, as run.sh keeps one per run: measured by the first
# process that needs it, read by every later fio and test (docs/parity.md, "Kept selection"),
# instead of measured again in each (0.3-0.5 s hot, 1.2 s streaming). A new one each run; the
# tests of the selection itself measure their own, and keep_test.sh sets its own file.
sel=$(cd "$log_dir" && pwd)/parity-selection.json
rm -f "$sel" "$sel.lock"
export RAID_PARITY_SELECTION=${RAID_PARITY_SELECTION-$sel}
# measured here, both uses, before the first test (about 9 s): a test whose rebuild must overlap
# its writes would otherwise wait for the streaming one in its rebuild thread
if [[ $RAID_PARITY_SELECTION == "$sel" && -x build/bin/raid-parity-bench ]]; then
	build/bin/raid-parity-bench --quick --runs 1 --pool 64m --op gen --mode stream \
		--impl selected >"$log_dir/parity-selection.log" 2>&1 ||
		echo "tests/run.sh: the parity selection could not be measured first (see $log_dir/parity-selection.log)"
fi

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
[[ ${#failed_progs[@]} -gt 0 ]] && echo "failed: ${failed_progs[*]}"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
