# Shared helpers for the shell tests (sourced, not run). Output follows cmocka's shape so
# tests/run.sh adds shell and C results up alike:
#   t_case NAME CMD...     run CMD; OK when it exits 0, FAILED (with its output) otherwise
#   t_case_fail NAME [--msg ERE] CMD...
#                          bad-input tests: OK when CMD refuses cleanly, i.e. exits 1..127
#                          (and, with --msg, says something matching the extended regular
#                          expression ERE); exit 0, or death by a signal / a crash (128 and
#                          above: the shell's 128+N), is FAILED
#   t_done                 print the summary; exit 1 if anything failed
#   t_skip REASON          the whole program cannot run here (a missing tool): one line, exit 0
#   t_need_md              t_skip unless md can be had (host kernel or tools/mdvm)
#   t_gpu_listed           true when the NVIDIA driver lists a GPU
# T_ONLY=ERE runs only the cases whose name matches it (the others are not run, nor
# counted): one case of a long program, e.g. for a mutation check (tools/dev/mutants.sh).
# Also: ROOT, FIO, ENGINE (T_FIO and T_ENGINE name others: `make sanitize` sets them),
# T_SCRATCH (a private scratch directory removed at exit), and jget
# (one value of a JSON file, with jq: the tests read JSON with jq only).

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FIO=${T_FIO:-$ROOT/build/bin/fio}
ENGINE=${T_ENGINE:-$ROOT/build/engines/raid.so}
T_PASS=0
T_FAIL=0
T_FAILED_NAMES=()
T_SCRATCH=$(mktemp -d "${T_SCRATCH_BASE:-/dev/shm}/fio-raid-test.XXXXXX")
trap 'rm -rf "$T_SCRATCH"' EXIT
T_OUT=$T_SCRATCH/.out
# run.sh's one-run-a-machine lock (run/guard.sh), one per test: tests assert no figures, and
# the suite's tests and other users' runs must not refuse each other
export FIO_RAID_LOCK=${FIO_RAID_LOCK:-$T_SCRATCH/run.lock}

_t_report() { # NAME OK?
	if [[ $2 -eq 0 ]]; then
		echo "[       OK ] $1"
		T_PASS=$((T_PASS + 1))
	else
		echo "[  FAILED  ] $1"
		sed 's/^/    | /' "$T_OUT" | tail -40
		T_FAIL=$((T_FAIL + 1))
		T_FAILED_NAMES+=("$1")
	fi
}

# _t_selected NAME: false when T_ONLY is set and NAME does not match it
_t_selected() { [[ -z ${T_ONLY:-} || $1 =~ $T_ONLY ]]; }

t_case() {
	local name=$1
	shift
	_t_selected "$name" || return 0
	echo "[ RUN      ] $name"
	"$@" >"$T_OUT" 2>&1
	_t_report "$name" $?
}

t_case_fail() {
	local name=$1 msg="" rc why=""
	shift
	_t_selected "$name" || return 0
	if [[ ${1:-} == --msg ]]; then
		msg=$2
		shift 2
	fi
	echo "[ RUN      ] $name"
	"$@" >"$T_OUT" 2>&1
	rc=$?
	if ((rc == 0)); then
		why="expected a non-zero exit"
	elif ((rc >= 128)); then
		why="exit $rc: killed by a signal or crashed, not a clean refusal"
	elif [[ -n $msg ]] && ! grep -Eq -- "$msg" "$T_OUT"; then
		why="exit $rc, but no line matches '$msg'"
	fi
	[[ -z $why ]] || echo "($why)" >>"$T_OUT"
	_t_report "$name" $((${#why} > 0))
}

t_done() {
	echo "[  PASSED  ] $T_PASS test(s)."
	if [[ $T_FAIL -gt 0 ]]; then
		echo "[  FAILED  ] $T_FAIL test(s), listed below:"
		printf '[  FAILED  ] %s\n' "${T_FAILED_NAMES[@]}"
		exit 1
	fi
	exit 0
}

# A skip is not a failure: tests/run.sh reports REASON (one line naming what is missing).
t_skip() {
	echo "[  SKIPPED ] $*"
	exit 0
}

# t_need_md: skip (one line) unless md can be had, from the host kernel or the md appliance
# (tools/mdvm); prints where it comes from. MDVM_CMD: the appliance's front end.
MDVM_CMD=$ROOT/tools/mdvm/mdvm
t_need_md() {
	local where
	where=$("$MDVM_CMD" check 2>"$T_SCRATCH/.mdvm-check")
	[[ $? -eq 77 ]] && t_skip "$where $(tail -1 "$T_SCRATCH/.mdvm-check")"
	echo "$where"
}

# t_gpu_listed: true when the NVIDIA driver lists a GPU (nvidia-smi -L), asked apart from the
# code under test, so that a test can fail a GPU run that fell back to its no-GPU path.
t_gpu_listed() {
	nvidia-smi -L 2>/dev/null | grep -Eq '^GPU [0-9]+:'
}

# members N PREFIX: N member paths T_SCRATCH/PREFIX0.. , ':'-separated (raid_members=)
members() {
	local i out=
	for ((i = 0; i < $1; i++)); do out+=${out:+:}$T_SCRATCH/$2$i; done
	echo "$out"
}

# jget FILE KEY: one value of a JSON file, echoed for the log. The tests read JSON one way,
# with jq: this for one value (KEY a.b.c, a number indexes an array; strings raw, arrays and
# objects compact; a missing key fails), jq itself for more. Exported for `bash -c` cases.
jget() {
	local v
	v=$(jq -r --arg k "$2" '($k | split(".") | map(tonumber? // .)) as $p |
		if any(paths; . == $p) then getpath($p) |
			if type == "array" or type == "object" then tojson else . end
		else error("\(input_filename): no key \($k)") end' "$1") || return 1
	echo "$2=$v" >&2
	echo "$v"
}
export -f jget

# fio_raid ARGS...: the suite's fio with the raid engine (ioengine set, thread=1).
fio_raid() {
	"$FIO" --ioengine="external:$ENGINE" --thread=1 "$@"
}
