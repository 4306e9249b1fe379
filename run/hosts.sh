# run/hosts.sh: sourced by run.sh. Directories made with one error line, the checks of
# --drives (raid-preset devices: attached block devices, none named twice or through another
# path; no data unless --force) and run.sh's multi-host runs through fio's client/server mode:
# the hosts and their members (raid-preset hosts checks the names and --hosts-file), the hosts
# reachable before the run, one fio client for all hosts per test, each host's share of the
# output split out, a lost host named. Each host's tests come from its own plan (run/plan.sh:
# HOST_PLAN_<i>, its members and stats files). Uses run.sh's die, RJSON, the options O and the
# run's settings RUN.

# make_dir WHAT DIR: mkdir -p, or one line naming the option and why (not mkdir's line too)
make_dir() {
	local err
	err=$(mkdir -p -- "$2" 2>&1) || die "$1: cannot create $2: ${err##*: }"
}

# room_check WHAT DIR: DIR takes a results directory's first megabyte (run.json, logs, fio's
# JSON): a full file system is said before anything runs, not left as a 0-byte run.json
room_check() {
	local probe=$2/.room-check err
	if ! err=$( (head -c 1048576 /dev/zero >"$probe" && sync -f "$probe") 2>&1); then
		rm -f -- "$probe"
		rmdir -- "$2"/tests "$2"/logs "$2" 2>/dev/null # nothing of this run is left there
		die "$1: cannot write in $2: ${err##*: } ($(df -h --output=avail "$2" 2>/dev/null | tail -1 | tr -d ' ') free there)"
	fi
	rm -f -- "$probe"
}

# drives_ok WHAT PATH...: every path an attached block device, none twice (raid-preset devices:
# a link such as /dev/disk/by-id/... is the device it names), then drives_guard's checks
drives_ok() {
	"$PRESET" devices "$@" || exit 1
	drives_guard "$@"
}

# drives_guard WHAT PATH...: refuse mounted devices always, devices holding data unless
# --force (WHAT names the option in the messages)
drives_guard() {
	local d sig bad=0 what=$1
	shift
	for d in "$@"; do
		if [[ -n $(lsblk -nro MOUNTPOINTS "$d" 2>/dev/null | tr -d '[:space:]') ]]; then
			die "$what: $d (or a partition of it) is mounted: refusing even with --force"
		fi
		sig=$( { wipefs -n "$d" 2>/dev/null | tail -n +2; lsblk -nro NAME,TYPE,FSTYPE,PTTYPE "$d" 2>/dev/null | awk 'NR > 1 || $3 != "" || $4 != ""'; } | sort -u) || true
		if [[ -n $sig ]]; then
			echo "run.sh: $d holds data that the tests would destroy:" >&2
			sed 's/^/    /' <<<"$sig" >&2
			bad=1
		fi
	done
	((bad == 0 || O[force])) || die "refusing to use $what that hold data (add --force to destroy it)"
}

# list_split WHAT LIST -> LIST_ITEMS: a ','-separated list; an empty entry is an error. Never
# word-split or globbed (a '*' stays a '*').
list_split() {
	local what=$1 list=$2
	[[ $list != ,* && $list != *, && $list != *,,* ]] || die "$what: an empty entry in '$list'"
	IFS=, read -r -a LIST_ITEMS <<<"$list"
}

# hosts_load HOSTS_LIST HOSTS_FILE [--members DRIVES SCRATCH GIVEN]: HOSTS... from --hosts or
# --hosts-file (a line: HOST[:PORT] [scratch=DIR] [drives=A,B,...]), checked and normalized by
# raid-preset hosts (its one line is the error): fio's client name, a label for file names,
# whether the host is this machine; with --members each host's members (hosts_members)
hosts_load() {
	local out n a p c l loc s d
	HOSTS=() HOST_ADDR=() HOST_PORT=() HOST_CLIENT=() HOST_LABEL=() HOST_LOCAL=() HOST_SCRATCH=()
	HOST_DRIVES=()
	out=$("$PRESET" hosts ${1:+--hosts "$1"} ${2:+--hosts-file "$2"} "${@:3}") || exit 1
	while IFS=$'\x1f' read -r n a p c l loc s d; do
		HOSTS+=("$n") HOST_ADDR+=("$a") HOST_PORT+=("$p") HOST_CLIENT+=("$c") HOST_LABEL+=("$l")
		HOST_LOCAL+=("$loc") HOST_SCRATCH+=("$s") HOST_DRIVES+=("$d")
	done <<<"$out"
}

# hosts_members: each host's member directory or drives (raid-preset hosts --members: the
# run's --drives, else <scratch>/<label>; hosts on one machine must not share members), the
# local hosts' drives checked together (attached, none twice, also across hosts, no data)
hosts_members() {
	local i d=() list=${O[hosts]}
	[[ -z ${O[hosts-file]:-} ]] || list="" # (O[hosts] names the file's hosts then)
	hosts_load "$list" "${O[hosts-file]:-}" --members "${O[drives]:-}" "${O[scratch]}" "${O[scratch_given]:+1}"
	for i in "${!HOSTS[@]}"; do
		((HOST_LOCAL[i])) && [[ -n ${HOST_DRIVES[$i]} ]] || continue
		list_split "${HOSTS[$i]}: drives" "${HOST_DRIVES[$i]}"
		d+=("${LIST_ITEMS[@]}")
	done
	((${#d[@]} == 0)) || { "$PRESET" devices "drives of the local hosts" "${d[@]}" || exit 1
		drives_guard --drives "${d[@]}"; }
}

# hosts_reachable: every host has a fio server listening (a TCP connect; fio's server
# forks a handler that sees the connection close and exits).
host_answers() { # index
	timeout 3 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "${HOST_ADDR[$1]}" "${HOST_PORT[$1]}" 2>/dev/null
}
hosts_reachable() {
	local i
	for i in "${!HOSTS[@]}"; do
		host_answers "$i" ||
			die "--hosts: no fio server answers at ${HOSTS[$i]} (start 'fio --server=${HOST_CLIENT[$i]}' there)"
	done
}

# hosts_reuse: 0 when some host's members may hold data (drives, files left in a local
# directory, or a remote host, whose directory this machine cannot see): raid_init=resync
hosts_reuse() {
	local i
	for i in "${!HOSTS[@]}"; do
		[[ -z ${HOST_DRIVES[$i]} ]] || return 0
		((HOST_LOCAL[i])) || return 0
		[[ -z $(ls -A "${HOST_SCRATCH[$i]}" 2>/dev/null) ]] || return 0
	done
	return 1
}

# hosts_prepare_dirs: the local hosts' member directories (remote ones must exist there)
hosts_prepare_dirs() {
	local i
	for i in "${!HOSTS[@]}"; do
		[[ -n ${HOST_SCRATCH[$i]} ]] && ((HOST_LOCAL[i])) || continue
		make_dir "${HOSTS[$i]}" "${HOST_SCRATCH[$i]}"
	done
}

# render_job TEST: the job file as a host runs it: its arguments in [global], ${VAR}s
# expanded (raid-preset render)
render_job() {
	local -n rj_=$1
	local envs args
	test_list "$1" env envs
	test_list "$1" arg args
	"$PRESET" render "${rj_[job_file]}" "${envs[@]}" -- "${args[@]}"
}

# hosts_cmd TEST -> CMD: one fio client invocation sending each host its own job file (the
# test of the same index in the host's plan); members of local hosts made first
hosts_cmd() {
	local -n hc_=$1
	local i outs args
	declare -A H=()
	test_list "$1" out outs
	CMD=("$FIO" "${outs[@]}")
	for i in "${!HOSTS[@]}"; do
		local -n hp_=HOST_PLAN_$i
		test_load H "${hp_[${hc_[idx]} - 1]}"
		local job=${RUN[rdir]}/tests/${hc_[id]}@${HOST_LABEL[$i]}.fio
		if ((O[dry_run])); then
			test_list H arg args
			echo "#   ${HOSTS[$i]}: $(printf '%q ' "${args[@]}")"
		else
			((HOST_LOCAL[i])) && [[ -n ${HOST_SCRATCH[$i]} ]] && make_members H
			render_job H >"$job"
		fi
		CMD+=("--client=${HOST_CLIENT[$i]}" "$job")
	done
}

# hosts_lost LOG: the hosts whose server no longer answers; failing that, those that fio
# saw disconnect (its line names the address only)
hosts_lost() {
	local i lost=()
	for i in "${!HOSTS[@]}"; do
		host_answers "$i" || lost+=("${HOSTS[$i]}")
	done
	if ((${#lost[@]} == 0)); then
		for i in "${!HOSTS[@]}"; do
			grep -qF "client: host=${HOST_ADDR[$i]} disconnected" "$1" && lost+=("${HOSTS[$i]}")
		done
	fi
	echo "${lost[*]}"
}

# hosts_split TEST: each host's share of fio's output and its meta.json, with "host"; the
# headline of each. 1 (and a line naming the host) when a host returned nothing.
hosts_split() {
	local -n hs_=$1
	local t=${hs_[id]} i out head heads="" rc=0 r=${RUN[rdir]}
	for i in "${!HOSTS[@]}"; do
		out=$r/tests/$t@${HOST_LABEL[$i]}
		if ! "$RJSON" client "$r/tests/$t.json" "${HOST_ADDR[$i]}" "${HOST_PORT[$i]}" >"$out.json" 2>>"$r/logs/$t.log"; then
			echo "run.sh: host ${HOSTS[$i]} returned no results for $t" >&2
			rm -f "$out.json"
			rc=1
			continue
		fi
		cp "$r/tests/$t.meta.json" "$out.meta.json"
		head=$("$RJSON" headline "$out.json" 2>/dev/null) || head="?"
		"$RJSON" set "$out.meta.json" host:s="${HOSTS[$i]}" hosts:n status:s=ok "headline:s=$head"
		if [[ ${hs_[engine]} != jbod && ! -s $out.stats.json ]] && ! ((HOST_LOCAL[i])); then
			echo "run.sh: ${HOSTS[$i]} wrote its engine stats on its own side: $out.stats.json (share the results directory or copy the file back)" >&2
		fi
		heads+="${heads:+, }${HOSTS[$i]} $head"
	done
	HOSTS_HEADLINES=$heads
	return $rc
}

# hosts_json: run.json's "hosts" array arguments
hosts_json() {
	local i
	for i in "${!HOSTS[@]}"; do
		local is_local=false
		((HOST_LOCAL[i] == 0)) || is_local=true
		echo "hosts:aj=$("$RJSON" obj host:s="${HOSTS[$i]}" label:s="${HOST_LABEL[$i]}" \
			client:s="${HOST_CLIENT[$i]}" local:b=$is_local \
			scratch:s="${HOST_SCRATCH[$i]}" drives:s="${HOST_DRIVES[$i]}" | tr -d '\n')"
	done
}
