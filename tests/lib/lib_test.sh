#!/usr/bin/env bash
# tests/lib/lib_test.sh: the case helpers of tests/lib.sh themselves. A bad-input case
# (t_case_fail) passes only on a clean refusal: exit 1..127 and, with --msg, the expected
# message; a crash or a signal (exit 128 and above) fails it, as does exit 0.
source "$(dirname "$0")/../lib.sh"

# verdict CMD...: OK or FAILED, as t_case_fail reports CMD, from a child test program
verdict() {
	local prog=$T_SCRATCH/prog.sh
	{
		printf 'source %q\n' "$ROOT/tests/lib.sh"
		printf 't_case_fail case'
		printf ' %q' "$@"
		printf '\nt_done\n'
	} >"$prog"
	bash "$prog" | sed -n 's/^\[ *\(OK\|FAILED\) *\] case$/\1/p' | head -1
}
is() { # WANT CMD...
	local want=$1 got
	shift
	got=$(verdict "$@")
	[[ $got == "$want" ]] || { echo "t_case_fail $*: $got, not $want"; return 1; }
}
t_case "a clean refusal (exit 1) passes" is OK bash -c 'echo "bad option" >&2; exit 1'
t_case "exit 0 fails" is FAILED true
t_case "a crash (SIGSEGV) fails" is FAILED bash -c 'kill -SEGV $$'
t_case "an abort (SIGABRT) fails" is FAILED bash -c 'kill -ABRT $$'
t_case "exit 134 (a shell's report of an abort) fails" is FAILED bash -c 'exit 134'
t_case "--msg: the expected message passes" is OK --msg "unknown option 'x'" \
	bash -c "echo \"unknown option 'x'\" >&2; exit 2"
t_case "--msg: another message fails" is FAILED --msg "unknown option 'x'" \
	bash -c 'echo "cannot open" >&2; exit 2'
t_case "--msg: a crash with the message fails" is FAILED --msg "bad" \
	bash -c 'echo bad; kill -SEGV $$'
# T_ONLY: only the matching cases run, the others are neither run nor counted
only() {
	local prog=$T_SCRATCH/only.sh
	printf 'source %q\nt_case "alpha one" true\nt_case "beta" false\nt_case_fail "gamma" true\nt_done\n' \
		"$ROOT/tests/lib.sh" >"$prog"
	T_ONLY='^alpha' bash "$prog" >"$T_SCRATCH/only.log" || return 1
	grep -q '^\[       OK \] alpha one$' "$T_SCRATCH/only.log" &&
		grep -q '^\[  PASSED  \] 1 test(s)\.$' "$T_SCRATCH/only.log" &&
		! grep -q 'beta\|gamma' "$T_SCRATCH/only.log"
}
t_case "T_ONLY runs only the matching cases" only
# tests/run.sh adds up the programs' "N test(s)" summaries only: a case whose name begins with a
# number and "tests" is not one (a failing "20 tests, each ..." once counted as 41 failures)
runner_counts() {
	local prog=$T_SCRATCH/counts.sh out
	printf 'source %q\nt_case "20 tests, each with a log" false\nt_case "ok" true\nt_done\n' \
		"$ROOT/tests/lib.sh" >"$prog"
	out=$(cd "$ROOT" && TEST_LOG_DIR=$T_SCRATCH/logs bash tests/run.sh "$prog")
	echo "$out"
	[[ $(tail -1 <<<"$out") == "1 passed, 1 failed" ]]
}
t_case "the runner counts summaries, not case names" runner_counts
t_done
