# run/guard.sh (sourced by run.sh): one run a machine at a time, and a run stopped by Ctrl-C or
# SIGTERM that still reports what it measured. Reads the run's options O and settings RUN.

# The lock: a file every run.sh on this machine opens (FIO_RAID_LOCK overrides it, for tests),
# held with flock(1) for the whole run and released when run.sh and its children end. The
# holder writes its pid, run id and preset into it, so that the next run can name it. Two runs
# at once spoil each other's figures (one JBOD read fell from about 26,000 IOPS to 1,457).
lock_path() {
	local d=/run/lock
	[[ -d $d && -w $d ]] || d=${XDG_RUNTIME_DIR:-/tmp}
	echo "${FIO_RAID_LOCK:-$d/fio-raid.lock}"
}

# lock_take: refuse (default), wait (--wait) or go on (--concurrent) while another run holds it
lock_take() {
	# inside the md appliance the run that started it holds the lock
	((O[concurrent] == 0)) && [[ -z ${MDVM:-} ]] || return 0
	local f holder
	f=$(lock_path)
	exec {RUN_LOCK_FD}<>"$f" || die "cannot open the lock $f (FIO_RAID_LOCK names another)"
	if ! flock -n "$RUN_LOCK_FD"; then
		holder=$(tr '\n' ' ' <"$f")
		((O[wait])) || die "another run is running on this machine (${holder% }; lock $f): wait for it (--wait) or run alongside it (--concurrent)"
		echo "run.sh: waiting for the run on this machine to end (${holder% }; lock $f)"
		flock "$RUN_LOCK_FD"
	fi
	# the holder's words, written in place (the file is the lock: never replaced)
	echo "pid $$, run ${RUN[id]}, preset ${O[preset]}" >"$f"
}

# interrupted SIGNAL: fio stopped, each test that was running marked so (its cut output moved
# to logs/, meta.json keeps "status": "running"), the report made from the rest; run.json has
# "started" and no "finished" (results/README.md); exit 128 + the signal's number
interrupted() {
	local rc=$((128 + $(kill -l "$1"))) line t
	declare -A I=()
	trap '' INT TERM
	echo "run.sh: interrupted ($1): stopping fio, tearing down what this run made" >&2
	targets_stop
	[[ -n ${RUN[rdir]:-} && -f ${RUN[rdir]}/run.json ]] || exit "$rc"
	for line in "${PID_TESTS[@]}"; do
		test_load I "$line"
		t=${I[id]}
		echo "[${I[idx]}/${PLAN_RUN[tests]}] stop  $t: interrupted"
		[[ ! -e ${RUN[rdir]}/tests/$t.json ]] || mv "${RUN[rdir]}/tests/$t.json" "${RUN[rdir]}/logs/$t.partial.json"
	done
	echo "run.sh: interrupted after ${COUNT[ok]} ok, ${COUNT[skipped]} skipped, ${COUNT[failed]} failed: ${RUN[rdir]}" >&2
	if ((O[report])) && [[ -x $REPORT ]]; then
		"$REPORT" "${RUN[rdir]}" || echo "run.sh: raid-report failed (exit $?)" >&2
	fi
	exit "$rc"
}
