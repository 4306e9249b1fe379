# tests/md/threads.sh - sourced by the appliance tests that check where a run's threads are
# allowed to run (numa2_test.sh, nvme_test.sh); exported into the guest with export -f.
#
#   thread_affinity PID   while PID (fio itself, not a shell around it) runs, sample every half second each of its threads'
#                         Cpus_allowed_list and print the sample with the most threads as
#                         "TID CPUS" lines, by TID (fio starts its threads slowly under
#                         emulation; builtins only, since programs start slowly there too)
thread_affinity() {
	local pid=$1 best=() cur st k v t
	while read -r _ _ st _ 2>/dev/null </proc/$pid/stat && [[ $st != Z ]]; do
		cur=()
		for t in /proc/$pid/task/*; do
			while read -r k v; do
				[[ $k == Cpus_allowed_list: ]] && cur+=("${t##*/} $v")
			done <"$t/status" 2>/dev/null
		done
		((${#cur[@]} > ${#best[@]})) && best=("${cur[@]}")
		sleep 0.5
	done
	printf '%s\n' "${best[@]}" | sort -n
}
export -f thread_affinity

#   threads_on FILE CPUS  (on the host) FILE holds thread_affinity's lines then "fio exit N":
#                         fio exited 0 and every thread after fio's own two (the jobs, the
#                         engine's parity workers and io_uring workers) may run on CPUS only,
#                         and there are at least three (two jobs and a parity worker)
threads_on() {
	local n=0 bad=0 tid cpus
	grep -qx 'fio exit 0' "$1" || { echo "fio failed: $(grep 'fio exit' "$1")"; return 1; }
	while read -r tid cpus; do
		[[ $tid == fio ]] && continue
		((++n <= 2)) && continue
		[[ $cpus == "$2" ]] || bad=$((bad + 1))
	done <"$1"
	echo "threads after fio's own: $((n - 2)), not on CPUs $2: $bad"
	((n - 2 >= 3 && bad == 0))
}
