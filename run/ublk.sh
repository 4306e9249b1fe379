# run/ublk.sh: run.sh's ublk target (sourced): each test's array exposed as /dev/ublkbN by
# the project's ublk server (build/bin/raid-ublk, tools/ublk) over the same members and with
# the same options as the engine target, fio's own io_uring engine on that device, the server
# stopped after the test. Where the host kernel has no ublk driver, run/targets.sh re-runs the
# whole preset in the appliance (tools/mdvm, Debian 13's 6.12 kernel has ublk_drv).
#
# The server's contract: `raid-ublk start raid_level=5 raid_members=/a:/b:/c [raid_*=V ...]`
# prints the device path once it accepts I/O and detaches; `raid-ublk stop DEV` drains,
# flushes and deletes it and waits for the server to exit. RAID_UBLK names another server
# binary (a branch's build); the default is the project's own.

RAID_UBLK=${RAID_UBLK:-$ROOT/build/bin/raid-ublk}
declare -A UBLK_DEV=() # test id -> /dev/ublkbN while its server runs

ublk_available() { # 0 when this kernel has the ublk driver (loading ublk_drv if it can)
	[[ -e /dev/ublk-control ]] || modprobe -q ublk_drv 2>/dev/null
	[[ -e /dev/ublk-control ]]
}

ublk_where() { # run.json's ublk.where: the kernel that serves the device
	if [[ -n ${MDVM:-} ]]; then echo "appliance: kernel $(uname -r)"; else echo "host kernel $(uname -r)"; fi
}

# ublk_server_args TEST ARRAY: raid-ublk start's arguments: the engine's --raid_* options of
# the plan, as raid_*=VALUE, and its placement (fio's --cpus_allowed) as the queue threads'
# --cpus, so that the server runs where the engine's jobs would
ublk_server_args() {
	local -n ua_=$2
	local ua_a ua_l
	test_list "$1" arg ua_l
	ua_=()
	for ua_a in "${ua_l[@]}"; do
		case $ua_a in
		--raid_*) ua_+=("${ua_a#--}") ;;
		--cpus_allowed=*) ua_+=(--cpus "${ua_a#--cpus_allowed=}") ;;
		esac
	done
}

# ublk_fio_args TEST ARRAY: fio's options on the device: the plan's, less the engine's own
# (external ioengine, its volume file, --raid_*), fio's io_uring on the device instead
ublk_fio_args() {
	local -n uf_=$2 ut_=$1
	local uf_a uf_l uf_dev=${UBLK_DEV[${ut_[id]}]:-/dev/ublkbN}
	test_list "$1" arg uf_l
	uf_=()
	for uf_a in "${uf_l[@]}"; do
		case $uf_a in
		--ioengine=* | --filename=* | --raid_*) ;;
		*) uf_+=("$uf_a") ;;
		esac
	done
	uf_+=(--ioengine=io_uring "--filename=$uf_dev")
}

ublk_start_cmd() { # TEST: the start command, for --dry-run and the test's log
	local usc_a
	ublk_server_args "$1" usc_a
	printf '%q ' "$RAID_UBLK" start "${usc_a[@]}"
}

# ublk_prepare_test TEST: the server started on the test's members; 1 with the reason in
# logs/ID.ublk.log when it could not be
ublk_prepare_test() {
	local -n up_=$1
	local upa_ dev log=${RUN[rdir]}/logs/${up_[id]}.ublk.log
	# a resync test's unclean stop is the engine's or md's (run/recovery.sh skips it here)
	[[ ${up_[state]} != resync* ]] || return 0
	if [[ ! -x $RAID_UBLK ]]; then
		echo "raid-ublk: $RAID_UBLK is not built (make, or RAID_UBLK=PATH)" >"$log"
		return 1
	fi
	if ! ublk_available; then
		echo "raid-ublk: this kernel ($(uname -r)) has no ublk driver (module ublk_drv, Debian 13's linux-image-amd64)" >"$log"
		return 1
	fi
	ublk_server_args "$1" upa_
	printf '%q ' "$RAID_UBLK" start "${upa_[@]}" >"$log"
	echo >>"$log"
	dev=$("$RAID_UBLK" start "${upa_[@]}" 2>>"$log") || return 1
	[[ $dev == /dev/ublkb* && -b $dev ]] || { echo "raid-ublk printed '$dev', not a device" >>"$log"; return 1; }
	echo "device $dev" >>"$log"
	UBLK_DEV[${up_[id]}]=$dev
}

ublk_test_end() { # TEST: its server stopped (drained, flushed, deleted)
	local -n ue_=$1
	local dev=${UBLK_DEV[${ue_[id]}]:-}
	[[ -n $dev ]] || return 0
	"$RAID_UBLK" stop "$dev" >>"${RUN[rdir]}/logs/${ue_[id]}.ublk.log" 2>&1 ||
		echo "run.sh: raid-ublk stop $dev failed (logs/${ue_[id]}.ublk.log)" >&2
	unset "UBLK_DEV[${ue_[id]}]"
}

ublk_teardown() { # on exit, error or Ctrl-C: every server this run started
	local t
	for t in "${!UBLK_DEV[@]}"; do
		"$RAID_UBLK" stop "${UBLK_DEV[$t]}" >/dev/null 2>&1 || true
		unset "UBLK_DEV[$t]"
	done
}
