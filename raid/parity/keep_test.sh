#!/usr/bin/env bash
# keep_test.sh - RAID_PARITY_SELECTION=FILE across processes (pq_keep.c), through the bench: the
# first process measures and keeps, the next reads and times nothing, with the same choice; a
# figure edited in the file decides the next process's choice (the kept figures are what it
# chooses from), a tie with ISA-L goes to ISA-L; processes started together share one measurement;
# a damaged file or one of another CPU is measured again and rewritten, named on stderr; a place
# that cannot hold the file leaves the process its own selection; the streaming record joins the
# hot one. The file's own format and its refusals are pq_keep_test's.
source "$(dirname "$0")/../../tests/lib.sh"
BENCH=$ROOT/build/bin/raid-parity-bench
F=$T_SCRATCH/sel.json
HOT=(--quick --runs 1 --k 10 --chunk 64k --op gen --mode hot --impl avx2)
KEEP=$(sed -n 's/^#define PQ_KEEP_RUNS \([0-9]*\)$/\1/p' "$ROOT/raid/parity/pq.h") # selections a kept one is the median of

hot_run() { # OUT: the bench's hot-only run with the kept file, stdout and stderr in OUT
	RAID_PARITY_SELECTION=$F "$BENCH" "${HOT[@]}" >"$1" 2>&1
}
won() { grep '^hot selection won by:' "$1" | sed 's/; [0-9]* ms of CPU)//'; }

measured_then_read() {
	rm -f "$F"
	hot_run "$T_SCRATCH/1" && hot_run "$T_SCRATCH/2" || return 1
	grep -q "kept in $F, measured .*, medians of $KEEP selections" "$T_SCRATCH/1" &&
		grep -q "read from $F, measured .*, medians of $KEEP selections" "$T_SCRATCH/2" &&
		jq -e --argjson n "$KEEP" '.hot.runs == $n and (.hot.candidates | length > 0) and .streaming == null' "$F" >/dev/null &&
		[[ -n $(won "$T_SCRATCH/1") && $(won "$T_SCRATCH/1") == "$(won "$T_SCRATCH/2")" ]]
}
t_case "the first process measures and keeps, the next reads the same choice" measured_then_read

# avx2 made the fastest at k = 10, 64 KiB in the file, a finalist (timed to its band's last
# round) in FINALS of the runs and the rest of the band in every one: the next process chooses
# it there when that is most of the runs (a band's winner dropped in the one run in which the
# band was not decided early must still win: a rule once left such a band ISA-L at 1.00x beside
# a kernel at 1.15x), and not when it was dropped in half of them or more (a dropped candidate
# keeps the median of its first rounds, which the finalists' full medians fell below)
avx2_fastest() { # FINALS OUT: the next process's run, with avx2 edited so
	rm -f "$F"
	hot_run "$T_SCRATCH/1" || return 1
	jq --argjson f "$1" '.hot.runs as $n | (.hot.candidates[] | select(.k == 10 and .len == 65536)) |= (.finals = $n) |
		(.hot.candidates[] | select(.name == "avx2" and .k == 10 and .len == 65536)) |=
		(.rel = 9.5 | .finals = $f)' "$F" >"$F.new" && mv "$F.new" "$F"
	hot_run "$2"
}
kept_figures_decide() {
	avx2_fastest $((KEEP / 2 + 1)) "$T_SCRATCH/2" && grep -q 'k = 10 64K avx2 9.50x isal' "$T_SCRATCH/2"
}
t_case "the kept figures decide the choice, a finalist in most runs" kept_figures_decide
dropped_in_half() {
	avx2_fastest $((KEEP / 2)) "$T_SCRATCH/2" && won "$T_SCRATCH/2" | grep -q 'k = 10 64K ' &&
		! won "$T_SCRATCH/2" | grep -q 'k = 10 64K avx2 '
}
t_case "a candidate dropped after the first rounds in half the runs is not chosen" dropped_in_half

# every candidate at k = 10, 64 KiB made 0.5% faster than ISA-L in the file: a tie, which ISA-L,
# the reference, wins (a kernel of ours must be more than 1% faster to be chosen)
tie_goes_to_isal() {
	rm -f "$F"
	hot_run "$T_SCRATCH/1" || return 1
	jq '(.hot.candidates[] | select(.k == 10 and .len == 65536 and .name != "isal")) |= (.rel = 1.005)' \
		"$F" >"$F.new" && mv "$F.new" "$F"
	hot_run "$T_SCRATCH/2" || return 1
	grep -q 'k = 10 64K isal 1.00x isal' "$T_SCRATCH/2"
}
t_case "a tie with ISA-L goes to ISA-L" tie_goes_to_isal

together() {
	rm -f "$F"
	hot_run "$T_SCRATCH/a" &
	hot_run "$T_SCRATCH/b" &
	wait %1 && wait %2 || return 1
	cat "$T_SCRATCH/a" "$T_SCRATCH/b" | grep -c "kept in $F" | grep -qx 1 &&
		cat "$T_SCRATCH/a" "$T_SCRATCH/b" | grep -c "read from $F" | grep -qx 1 &&
		[[ $(won "$T_SCRATCH/a") == "$(won "$T_SCRATCH/b")" ]]
}
t_case "two processes started together: one measures, the other waits and reads it" together

damaged() {
	echo '{"format": 1, "cpu": ' >"$F"
	hot_run "$T_SCRATCH/1" || return 1
	grep -q "RAID_PARITY_SELECTION=$F: not a JSON object; measuring the hot selection again" "$T_SCRATCH/1" &&
		jq -e --argjson n "$KEEP" '.hot.runs == $n' "$F" >/dev/null
}
t_case "a damaged file: named, measured again, rewritten" damaged

other_cpu() {
	rm -f "$F"
	hot_run "$T_SCRATCH/1" || return 1
	jq '.cpu = "Some Other CPU"' "$F" >"$F.new" && mv "$F.new" "$F"
	hot_run "$T_SCRATCH/2" || return 1
	grep -q "RAID_PARITY_SELECTION=$F: another CPU; measuring the hot selection again" "$T_SCRATCH/2" &&
		[[ $(jq -r .cpu "$F") != "Some Other CPU" ]]
}
t_case "a file of another CPU: measured again for this one" other_cpu

no_place() {
	RAID_PARITY_SELECTION=$T_SCRATCH/none/sel.json "$BENCH" "${HOT[@]}" >"$T_SCRATCH/1" 2>&1 || return 1
	grep -q "RAID_PARITY_SELECTION=$T_SCRATCH/none/sel.json: cannot lock .*: No such file or directory; this process measures its own hot selection" "$T_SCRATCH/1" &&
		grep -q '^hot selection won by:' "$T_SCRATCH/1"
}
t_case "a file that cannot be made: the process measures its own" no_place

streaming_joins() {
	rm -f "$F"
	hot_run "$T_SCRATCH/1" || return 1
	local hot
	hot=$(jq -c .hot "$F")
	RAID_PARITY_SELECTION=$F "$BENCH" --quick --runs 1 --pool 64m --k 10 --chunk 64k --op gen \
		--mode stream --impl avx2 >"$T_SCRATCH/2" 2>&1 || return 1
	grep -q "streaming selection .*kept in $F" "$T_SCRATCH/2" &&
		grep -q "hot selection .*read from $F" "$T_SCRATCH/2" &&
		[[ $(jq -c .hot "$F") == "$hot" ]] && jq -e --argjson n "$KEEP" '.streaming.runs == $n' "$F" >/dev/null
}
t_case "the streaming record joins the hot one, which stays as it was" streaming_joins
t_done
