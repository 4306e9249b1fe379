#!/usr/bin/env bash
# tests/presets/plan_test.sh: raid-preset plan, the per-test plan run.sh runs
# (presets/README.md, "The plan"): its sizes are the engine's (every RAID test's volume equals
# the volume the engine itself gives over members of that size: raid-mdadm --volume), its
# limits and defaults are the engine's option table (raid-tool options), a level without
# redundancy never gets raid_init=resync, and bad values are refused with one line.
source "$(dirname "$0")/../lib.sh"
P=$ROOT/build/bin/raid-preset
RMD=$ROOT/build/bin/raid-mdadm
TOOL=$ROOT/build/bin/raid-tool
[[ -x $P && -x $RMD ]] || t_skip "build/bin/raid-preset or raid-mdadm is not built (make)"
plan() { "$P" plan "$ROOT/presets/$1.preset" --workloads "$ROOT/workloads" "${@:2}"; }
field() { # LINE KEY -> the value of KEY
	tr '\t' '\n' <<<"$1" | sed -n "s/^$2=//p" | head -1
}

# Every RAID test of these presets: the plan's volume = the engine's over member files of
# the plan's member_bytes (each array once)
same_volumes() {
	local line lv n ch mb vol want ms i k checked=0
	declare -A seen=()
	while IFS= read -r line; do
		[[ $(field "$line" engine) == raid ]] || continue
		lv=$(field "$line" level) n=$(field "$line" members) ch=$(field "$line" chunk)
		mb=$(field "$line" member_bytes) vol=$(field "$line" volume)
		k=$lv.$n.$ch.$mb
		[[ -z ${seen[$k]:-} ]] || continue
		seen[$k]=1
		ms=""
		for ((i = 0; i < n; i++)); do
			truncate -s "$mb" "$T_SCRATCH/m$i"
			ms+=${ms:+:}$T_SCRATCH/m$i
		done
		want=$("$RMD" --volume raid_level="$lv" raid_members="$ms" raid_chunk="$ch") || return 1
		echo "raid$lv x$n chunk $ch, members of $mb: plan $vol, engine $want"
		[[ $vol == "$want" ]] || return 1
		checked=$((checked + 1))
	done
	((checked >= 3))
}
for p in quick rebuild selfcheck; do
	t_case "$p: every RAID test's volume is the engine's" \
		same_volumes < <(plan "$p" --member-size 33M --scale 1)
done

t_case "member size: the engine's parser (1G, 1g), whole MiB" bash -c \
	"[[ \$('$P' plan '$ROOT/presets/quick.preset' --workloads '$ROOT/workloads' --member-size 1g | head -1) == *$'\t'member_size=1073741824$'\t'* ]] &&
	 [[ \$('$P' plan '$ROOT/presets/quick.preset' --workloads '$ROOT/workloads' --member-size 3000000 | head -1) == *$'\t'member_size=2097152$'\t'* ]]"

limits() { # raid-preset limits = the engine's option table (raid-tool options --json)
	local o got want
	for o in gpu gpu_batch rebuild_min rebuild_max; do
		got=$("$P" limits | sed -n "s/^${o}_default=//p")
		want=$("$TOOL" options --json | jq -r ".[] | select(.name == \"raid_$o\") | .default" | cut -d' ' -f1)
		echo "raid_$o default: $got, table $want"
		[[ -n $got && $got == "$want" ]] || return 1
	done
	for o in gpu gpu_batch; do
		got=$("$P" limits | sed -n "s/^${o}_max=//p")
		want=$("$TOOL" options --json | jq -r ".[] | select(.name == \"raid_$o\") | .values" | sed 's/.*\.\. //')
		echo "raid_$o max: $got, table $want"
		[[ -n $got && $got == "$want" ]] || return 1
	done
}
t_case "limits and defaults are the engine's option table" limits

resync() { # reused members: raid_init=resync on the levels with redundancy only
	local line lv args r0=0 other=0
	while IFS= read -r line; do
		[[ $(field "$line" engine) == raid ]] || continue
		lv=$(field "$line" level) args=$(tr '\t' '\n' <<<"$line" | grep '^arg=')
		if [[ $lv == 0 ]]; then
			! grep -q raid_init <<<"$args" || { echo "raid0 asks for a resync"; return 1; }
			r0=$((r0 + 1))
		else
			grep -q 'arg=--raid_init=resync' <<<"$args" || { echo "raid$lv: no resync"; return 1; }
			other=$((other + 1))
		fi
	done
	echo "$r0 RAID0 tests without, $other others with"
	((r0 > 0 && other > 0))
}
t_case "--reuse: raid_init=resync for levels with redundancy, never RAID0" \
	resync < <(plan quick --reuse)

t_case "the spans: sequential jobs a slice each, random ones the whole volume" bash -c \
	"[[ \$('$P' span 1g write 1m 4) == 'JOB_SIZE=268435456 JOB_OFFSET=268435456' &&
	    \$('$P' span 1g randwrite 4k 4) == 'JOB_SIZE=1073741824 JOB_OFFSET=0' &&
	    \$('$P' span 2048s read 1m 1) == 'JOB_SIZE=1048576 JOB_OFFSET=1048576' ]]"

bad() { # NAME ERE ARGS...: plan refuses with one line matching ERE
	local name=$1 ere=$2
	shift 2
	t_case_fail "refused: $name" --msg "^raid-preset: $ere" plan quick "$@"
}
bad "--gpu past the engine's table" "--gpu must be a CUDA device index 0..63, not '64'" --gpu 64
bad "--gpu-batch past the engine's table" "--gpu-batch must be a stripe count 1..1024, not '0'" --gpu-batch 0
bad "--scale 0" "--scale must be a number in \(0, 1\], not '0'" --scale 0
bad "--member-size below 1M" "--member-size must be at least 1M" --member-size 4k
bad "a path with a tab" "member_paths: .* holds a tab" --scratch "$T_SCRATCH/a	b"
t_done
