#!/usr/bin/env bash
# tests/gpu/engine_fio.sh DEVICE - RAID6 through fio with raid_parity=cuda on a real GPU, run
# by tests/gpu/check.sh: random writes of mixed sizes verified with crc32c, in copy and
# mapped mode, at batch 1, 64 and 256, optimal and with a member missing (reads rebuilt on the
# GPU), each job's stats showing the GPU took stripes. FIO, RAID_ENGINE and JQ name other
# programs than build/bin/fio, build/engines/raid.so and jq (check.sh --bundle sets them).
set -uo pipefail
cd "$(dirname "$0")/../.."
dev=${1:-0}
fio=${FIO:-build/bin/fio}
engine=${RAID_ENGINE:-$PWD/build/engines/raid.so}
jq=${JQ:-jq}
dir=$(mktemp -d /dev/shm/raid-gpu-fio.XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail=0
# mode batch failed-member: the degraded runs read their lost chunks back through GPU recovery
for run in "copy 1 -" "copy 256 -" "mapped 1 -" "mapped 256 -" "copy 64 1" "mapped 64 2"; do
	read -r mode batch failed <<<"$run"
	fopt=()
	[[ $failed != - ]] && fopt=(--raid_failed="$failed")
	{
		st=$dir/$mode-$batch-$failed.json
		m=$(printf "$dir/m%d:" 0 1 2 3 4 5)
		if ! "$fio" --ioengine="external:$engine" --thread=1 \
			--name=gpu --filename=vol --raid_level=6 --raid_members="${m%:}" \
			--raid_member_size=64m --raid_chunk=64k --raid_parity=cuda --raid_gpu="$dev" \
			--raid_gpu_mode=$mode --raid_gpu_batch=$batch --rw=randwrite \
			--bsrange=4k-1m --iodepth=32 --size=100% --direct=1 --verify=crc32c --do_verify=1 \
			--verify_fatal=1 --verify_state_save=0 --raid_stats="$st" "${fopt[@]}" \
			>"$dir/log" 2>&1; then
			cat "$dir/log"
			echo "FAIL $mode batch=$batch failed=$failed: fio failed"
			fail=1
			rm -f "$dir"/m*
			continue
		fi
		read -r line per cpu inp < <("$jq" -r '.gpu // {} | [.launches, .stripes_per_launch,
			.cpu_stripes, .inplace_stripes] | map(tostring) | join(" ")' "$st" 2>/dev/null)
		echo "$mode batch=$batch failed=$failed: verified; $line launches, $per stripes each," \
			"$cpu on the CPU, $inp read from fio's buffers in place"
		[[ ${line:-0} -gt 0 ]] || { echo "FAIL $mode batch=$batch: no GPU launch"; fail=1; }
		rm -f "$dir"/m*
	}
done
exit $fail
