#!/usr/bin/env bash
# tests/gpu/check.sh - the GPU path on a real device, run by hand on a machine with an NVIDIA
# GPU and nvcc (never by `make test`). In under 5 minutes it:
#   1. builds the CUDA library objects, pq_cuda_test, pq_kernels_test and raid-gpu-bench;
#   2. runs pq_kernels_test (the kernels on the CPU shim) and pq_cuda_test with a long sweep
#      (every op, random k 1..62, lengths, batches and failure positions, copy and mapped
#      modes, polled and threaded completion, compared with pq_calls_base byte for byte);
#   3. runs the RAID5/6 random model test and the rebuild-window test with raid_parity=cuda on
#      the device (raid56_cuda_test, rebuild56_cuda_test)
#      and, when fio is built, RAID6 verify jobs through the engine (tests/gpu/engine_fio.sh);
#   4. runs raid-gpu-bench (kernel only, end to end, pinned PCIe copies) as JSON;
# and prints a summary with the two targets of docs/gpu.md. Exit 0 only if every step passed
# on the GPU; 77 and one SKIP line when the machine has no NVIDIA GPU (nvidia-smi -L lists
# none); 1 (FAIL) when it has one and anything is wrong, a missing nvcc included, or a step
# that ran without the GPU (pq_cuda_test's failure path, a bench with no cuda rows).
# With --bundle DIR it builds nothing and runs the programs of DIR (made by tests/gpu/bundle.sh
# on a machine with nvcc and this project's packages, with their libraries and loader): for a
# GPU machine that has the driver and none of those, as the ones lent to this project start.
#   usage: tests/gpu/check.sh [--quick] [--bundle DIR]
#                                           (env: PQ_CUDA_TEST_ROUNDS, RAID_GPU=<index>,
#                                            CHECK_OUT=<dir for logs>, default build/gpu-check,
#                                            NVCC=<nvcc>, default $CUDA_HOME/bin/nvcc, else
#                                            /usr/local/cuda/bin/nvcc, as the Makefile)
set -uo pipefail
cd "$(dirname "$0")/../.."

quick=
bundle=
while (($#)); do
	case $1 in
	--quick) quick=--quick ;;
	--bundle)
		[[ $# -ge 2 ]] || { echo "FAIL  check.sh: --bundle needs a directory" >&2; exit 1; }
		bundle=$2
		shift
		;;
	*) echo "FAIL  check.sh: unknown option $1 (usage: check.sh [--quick] [--bundle DIR])" >&2; exit 1 ;;
	esac
	shift
done
out=${CHECK_OUT:-build/gpu-check}
mkdir -p "$out"
dev=${RAID_GPU:-0}
status=0
summary=()

step() { # NAME TIMEOUT CMD...: run with a time limit, log to $out/NAME.log
	local name=$1 limit=$2
	shift 2
	local t0=$SECONDS
	echo "== $name: $*"
	timeout "$limit" "$@" >"$out/$name.log" 2>&1
	local rc=$?
	tail -n 15 "$out/$name.log" | sed 's/^/   | /'
	if [[ $rc -eq 0 ]]; then
		summary+=("PASS  $name ($((SECONDS - t0)) s)")
	else
		summary+=("FAIL  $name (exit $rc after $((SECONDS - t0)) s; $out/$name.log)")
		status=1
	fi
	return $rc
}

# Whether a GPU is there is asked of the driver, not of the code under test: a build or a
# library that cannot see the GPU must fail here, not pass its no-GPU paths.
gpus=$(nvidia-smi -L 2>/dev/null | grep -E '^GPU [0-9]+:')
if [[ -z $gpus ]]; then
	echo "SKIP  check.sh: no NVIDIA GPU here (nvidia-smi -L lists none)"
	exit 77
fi
sed 's/^/gpu: /' <<<"$gpus"
if [[ -n $bundle ]]; then
	# the bundle's programs, each through its wrapper (bundle.sh): nothing is built here
	if [[ ! -x $bundle/run || ! -f $bundle/STAMP ]]; then
		echo "FAIL  check.sh: $bundle is not a bundle of tests/gpu/bundle.sh (no run, no STAMP)" >&2
		exit 1
	fi
	bundle=$(cd "$bundle" && pwd)
	echo "bundle: $bundle, made from $(cat "$bundle/STAMP")"
	echo "driver: $( (ldconfig -p 2>/dev/null | grep -m1 'libcuda\.so\.1') ||
		ls /usr/local/nvidia/lib64/libcuda.so.1 2>/dev/null || echo 'libcuda.so.1 not found')"
	tests=$bundle/x bin=$bundle/x jq=$bundle/x/jq
	export FIO=$bundle/x/fio RAID_ENGINE=$bundle/engines/raid.so JQ=$jq
	built() { step bundle 30 "$jq" --version; } # its loader and C library run here
else
	source tests/gpu/nvcc.sh
	if [[ ! -x $nvcc ]]; then
		echo "FAIL  check.sh: a GPU is here but no nvcc ($nvcc): cannot build the GPU path" \
			"(or make a bundle elsewhere: tests/gpu/bundle.sh, then check.sh --bundle DIR)" >&2
		exit 1
	fi
	tests=build/tests bin=build/bin jq=jq
	built() {
		step build 240 make -j"$(nproc)" build/tests/pq_cuda_test build/tests/pq_kernels_test \
			build/bin/raid-gpu-bench build/tests/raid56_cuda_test build/tests/rebuild56_cuda_test
	}
fi

if built; then
	step shim-test 60 "$tests/pq_kernels_test"
	PQ_CUDA_TEST_ROUNDS=${PQ_CUDA_TEST_ROUNDS:-400} step gpu-test 120 "$tests/pq_cuda_test"
	if grep -q "no usable GPU" "$out/gpu-test.log"; then
		summary+=("FAIL  gpu-test ran without a GPU: $(grep -m1 'no usable GPU:' "$out/gpu-test.log")")
		status=1
	fi
	# the engine's GPU path (batches gathered per queue, copy and mapped) against its model
	step engine-test 150 "$tests/raid56_cuda_test"
	step rebuild-test 60 "$tests/rebuild56_cuda_test"
	if [[ -n $bundle || (-x build/bin/fio && -f build/engines/raid.so) ]]; then
		step engine-fio 60 tests/gpu/engine_fio.sh "$dev"
	else
		summary+=("SKIP  engine-fio (no build/bin/fio here: run make first)")
	fi
	step bench 150 "$bin/raid-gpu-bench" --json $quick --device "$dev"
	# stderr lines may precede the JSON array
	sed -n '/^\[/,$p' "$out/bench.log" >"$out/bench.json" 2>/dev/null
	if ! "$jq" -e 'any(.[]; .impl == "cuda")' "$out/bench.json" >/dev/null 2>&1; then
		summary+=("FAIL  bench measured no cuda row on a machine with a GPU ($out/bench.log)")
		status=1
	fi
fi

echo
echo "== summary"
printf '%s\n' "${summary[@]}"
if [[ -s $out/bench.json ]]; then
	"$jq" -r '
	def get(impl; mode): [.[] | select(.impl == impl and .mode == mode)];
	(get("pcie-h2d"; "pinned")[0]) as $h2d | (get("cuda-d2d"; "device")[0]) as $d2d |
	(if $h2d and $d2d then
		"pinned host-to-device \($h2d.gbps * 10 | round / 10) GB/s, device copy " +
		"\($d2d.gbps * 10 | round / 10) GB/s (\(2 * $d2d.gbps | round) GB/s of memory traffic)"
	 else empty end),
	(["kernel", "of device memory bandwidth", 0.5], ["copy", "of pinned H2D (copy mode)", 0.8],
	 ["mapped", "of pinned H2D (mapped mode)", 0.8]) as [$mode, $what, $goal] |
	(get("cuda"; $mode) | max_by(.ratio)) // empty |
	"gen k=10 64KiB \($mode): best \(.gbps * 10 | round / 10) GB/s at batch \(.batch) = " +
	"\(.ratio * 100 | round / 100) \($what) (\(if .ratio >= $goal then "meets" else "MISSES" end)" +
	" the \($goal) target)"' "$out/bench.json"
fi
[[ $status -eq 0 ]] && echo "check.sh: all steps passed" || echo "check.sh: FAILED"
exit $status
