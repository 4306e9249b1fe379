#!/usr/bin/env bash
# tools/dev/mutants.sh - shows that each test of docs/rebuild.md's defect table can fail: every
# mutant undoes one fix (one exact replacement in one file), the tree is rebuilt, the
# defect's test runs and must FAIL; then the file is restored. One line per mutant:
#   killed    the test failed, as it must
#   SURVIVED  a test passed with the defect back in: it cannot see the defect (each test
#             named for a mutant must fail on its own)
#   stale     the text to replace is no longer there (the code moved on): update the mutant
# Usage, in a built tree whose mutated files have no local edits (they are restored from a
# copy, also on ^C): tools/dev/mutants.sh [ERE]   (only the mutants whose name matches ERE).
# Not part of `make test`: each mutant rebuilds the library and its test (a minute or more).
# Exit status: 0 when every mutant that applied was killed.
set -uo pipefail
cd "$(dirname "$0")/../.."
only=${1:-}
log=build/mutants
mkdir -p "$log"
survived=0
saved=

restore() { [[ -n $saved ]] && cp "$log/orig" "$saved" && saved=; }
trap 'restore; exit 130' INT TERM

# mutant NAME FILE OLD NEW TEST...: TEST is a build/tests/ program, "e2e:CASE-ERE" (cases
# of tests/e2e/rebuild.sh), "hostile:CASE-ERE" (of tests/e2e/hostile.sh) or
# "campaign:CASE-ERE" (of tests/e2e/campaign.sh) or "torture:CASE-ERE" (of tests/e2e/torture.sh)
mutant() {
	local name=$1 file=$2 old=$3 new=$4 out=$log/$1.log
	shift 4
	[[ -z $only || $name =~ $only ]] || return 0
	cp "$file" "$log/orig"
	saved=$file
	if ! OLD=$old NEW=$new python3 - "$file" <<'EOF'; then
import os, sys
p = sys.argv[1]
s = open(p).read()
if s.count(os.environ["OLD"]) != 1:
    sys.exit(1)
open(p, "w").write(s.replace(os.environ["OLD"], os.environ["NEW"]))
EOF
		restore
		printf '%-26s stale (%s changed)\n' "$name" "$file"
		return 0
	fi
	local targets=() t passed=()
	for t in "$@"; do [[ $t == *:* ]] || targets+=("$t"); done
	if ! make -s all "${targets[@]}" >"$out" 2>&1; then
		restore
		printf '%-26s does not build (log %s)\n' "$name" "$out"
		survived=$((survived + 1))
		return 0
	fi
	for t in "$@"; do # each test named must see the defect on its own
		case $t in
		e2e:*) T_ONLY=${t#e2e:} bash tests/e2e/rebuild.sh ;;
		hostile:*) T_ONLY=${t#hostile:} bash tests/e2e/hostile.sh ;;
		campaign:*) T_ONLY=${t#campaign:} bash tests/e2e/campaign.sh ;;
		torture:*) T_ONLY=${t#torture:} bash tests/e2e/torture.sh ;;
		*) timeout 120 "$t" ;;
		esac >>"$out" 2>&1 && passed+=("$t")
	done
	restore
	if ((${#passed[@]})); then
		printf '%-26s SURVIVED in %s (log %s)\n' "$name" "${passed[*]}" "$out"
		survived=$((survived + 1))
	else
		printf '%-26s killed by %s\n' "$name" "$*"
	fi
}

T=build/tests
E='e2e:raid5 dirty start'
# --- the state file is trusted blindly ---
mutant done-type raid/recovery/blocks/state.c \
	'json_type_boolean, true, &jd) <= 0' 'json_type_boolean, true, &jd) < -1000' $T/state_test
mutant offset-range raid/recovery/blocks/state.c \
	'"recovery_offset", 0, (int64_t)limit,' '"recovery_offset", INT64_MIN, INT64_MAX,' \
	$T/state_test
mutant failed-entry-type raid/recovery/blocks/state.c \
	'm = json_object_is_type(e, json_type_int) ? json_object_get_int64(e) : -1;' \
	'm = json_object_get_int64(e);' $T/state_test
mutant member-identity raid/recovery/blocks/state.c \
	'if (strcmp(r->state_id[i], now)) {' 'if (0) {' $T/state_test
mutant geometry raid/recovery/blocks/state.c \
	$'\tif (!r->state_geom)\n\t\treturn 0;\n\tif (r->state_level' \
	$'\treturn 0;\n\tif (r->state_level' $T/state_test
mutant spare-refused raid/recovery/blocks/state.c \
	'if (r->resume_off[i] && (!r->resume_id[i] || strcmp(r->resume_id[i], now->id))) {' \
	'if (0) {' $T/state_test
# --- the dirty mark ---
mutant dirty-mark raid/recovery/service.c \
	$'\trec->st.unclean = true;\n\tret = raid_rec_state_save(a);' \
	$'\tret = raid_rec_state_save(a);' $T/state_test "$E"
mutant dirty-degraded-refused raid/recovery/service.c \
	'if (!c->start_dirty_degraded) {' 'if (0) {' $T/state_test "$E" \
	'torture:kill a degraded raid5 writer \(state\)'
mutant dirty-resync raid/recovery/service.c \
	'a->rec->st.resync_dirty = true;' '(void)0;' $T/state_test "$E"
# --- request errors are not member failures ---
mutant dio-refused raid/core/queue.c \
	$'\tif ((r->offset | r->length | (uintptr_t)r->buf) & (q->dio_align - 1))\n\t\treturn misaligned(q, r);\n' \
	'' $T/array_test
mutant dio-block-size raid/core/queue.c \
	'q->dio_align = raid_dio_align(ret);' '(void)0;' $T/array_test
mutant einval-is-request raid/core/failure.c \
	$'\tcase -EINVAL:' $'\tcase -EINVAL - 1000:' $T/failure_test
mutant ebusy-is-request raid/core/failure.c \
	$'\tcase -EBUSY:' $'\tcase -EBUSY - 1000:' $T/failure_test
mutant full-ring-backlog raid/core/queue.c \
	'if (ret == -EBUSY && q->be_inflight > 1) {' 'if (0) {' $T/failure_test
# --- signals ---
mutant sigint-stops raid/recovery/helpers/rec.c \
	'atomic_load(&rec->stop) || atomic_load(&interrupted)' 'atomic_load(&rec->stop)' \
	'e2e:SIGINT during the wait' 'e2e:SIGTERM during'
mutant scrub-stops-on-signal raid/recovery/passes/scrub.c \
	'!(ret = lost_member(rec, 0)) && !rec_stopping(rec);' '!(ret = lost_member(rec, 0));' \
	$T/service_test
# --- the registry key's length ---
mutant key-length raid/core/array.c \
	'len += strlen(paths[i]) + 1;' 'len += PATH_MAX + 1;' $T/array_test
# --- raid_fail inside the passes ---
mutant fail-inside-passes raid/recovery/blocks/rebuild_window.c \
	$'\traid_rec_fail_timers(rec->a, now);\n' '' $T/service_test \
	'e2e:raid6 second member fails' 'e2e:raid10 second member fails'
# --- a later job ---
mutant later-job raid/core/array.c \
	'(a->cfg.failed & ~a->cfg.rec.state_failed) == (c->failed & ~c->rec.state_failed)' \
	'a->cfg.failed == c->failed' 'e2e:a later job joins'
# --- the exit status ---
mutant exit-stats raid/core/array.c 'ret = ret ? ret : r;' '(void)r;' 'e2e:errors outside'
mutant exit-state raid/recovery/blocks/state.c \
	$'\t\trec->st.err = ret;\n\t\traid_rec_error(rec, ret);' $'\t\trec->st.err = ret;' \
	'e2e:errors outside'
mutant exit-scrub-repair raid/recovery/thread/rebuild.c \
	'raid_rec_error(rec, raid_rec_scrub(rec, a->cfg.rec.scrub, false));' \
	'raid_rec_scrub(rec, a->cfg.rec.scrub, false);' 'e2e:errors outside'
mutant scrub-out-of-memory raid/recovery/passes/scrub.c \
	$'\tif (ret) {\n\t\t/* what was counted so far' $'\tif (ret && 0) {\n\t\t/* what was counted so far' \
	$T/service_test
mutant spare-fdatasync raid/recovery/thread/rebuild.c \
	'if (targets >> t & 1 && rec->q->fds[dev] >= 0 && fdatasync(rec->q->fds[dev])) {' \
	'if (0) {' $T/service_test
mutant state-file-fsync raid/recovery/blocks/state.c \
	'write(fd, "\n", 1) != 1 || fsync(fd) ||' 'write(fd, "\n", 1) != 1 ||' $T/service_test
mutant state-dir-fsync raid/recovery/blocks/state.c 'ret = sync_dir(path);' 'ret = 0;' $T/service_test
mutant state-short-write raid/recovery/blocks/state.c $'\terrno = 0; /* a short write' \
	$'\t(void)0; /* a short write' $T/service_test
# --- the messages ---
mutant msg-alias raid/core/array.c \
	'if (!(c->failed >> j & 1) && raid_same_file(c->members[j], c->members[i])) {' 'if (0) {' \
	$T/array_test
mutant msg-raid0 raid/core/failure.c \
	$'\t\tif (!a->ops->max_failed)\n\t\t\traid_log' $'\t\tif (0)\n\t\t\traid_log' $T/failure_test
mutant msg-state-blamed raid/core/config.c \
	'return blame_state(c, -EINVAL, err, errlen);' 'return -EINVAL;' $T/state_test
# --- found by the campaign (tests/e2e/hostile.sh) ---
mutant state-one-value raid/recovery/blocks/state.c \
	'strspn(buf + end, " \t\r\n") != len - end' '0' $T/state_test 'hostile:a second value'
mutant int64-clamped raid/recovery/blocks/state.c \
	'(*v == INT64_MAX && json_object_get_uint64(x) != (uint64_t)INT64_MAX) || *v < lo' \
	'*v < lo' $T/state_test 'hostile:offset beyond 64 bits'
mutant state-null-field raid/recovery/blocks/state.c \
	'return *out && json_object_is_type(*out, t) ? 1 : -EINVAL;' \
	'return !*out ? 0 : json_object_is_type(*out, t) ? 1 : -EINVAL;' $T/state_test \
	'hostile:clean null'
mutant state-not-a-file raid/recovery/blocks/state.c 'O_RDONLY | O_NONBLOCK | O_CLOEXEC' \
	'O_RDONLY | O_CLOEXEC' 'hostile:is a FIFO'
mutant state-is-member raid/recovery/blocks/state.c \
	'if (raid_same_file(path, c->members[i])) {' 'if (0) {' \
	$T/state_test 'hostile:state file is a member$'
mutant spare-serves-one raid/recovery/blocks/state.c \
	'if (spare_of[i] && !strcmp(spare_of[i], sp)) {' 'if (0) {' $T/state_test \
	'hostile:onto one spare'
mutant files-apart raid/core/array.c 'ret = files_apart(a, err, errlen);' 'ret = 0;' \
	$T/array_test 'hostile:stats file is'
mutant shared-state raid/core/array.c '} else if ((ret = state_taken(c, err, errlen)) ||' \
	'} else if (0 ||' $T/state_test 'hostile:share a state file'
mutant state-in-use raid/recovery/service.c 'ret = raid_rec_state_lock(a, err, errlen);' \
	'ret = 0;' $T/state_test 'hostile:two fio processes'
mutant state-changed raid/recovery/blocks/state.c 'if (!same_file_seen(&now, &r->state_read)) {' \
	'if (0) {' $T/state_test
mutant repair-marks-dirty raid/recovery/service.c \
	'(a->cfg.writes || c->resync || c->scrub == RAID_SCRUB_REPAIR)' 'a->cfg.writes' \
	$T/service_test
mutant repair-stopped-dirty raid/recovery/service.c \
	'rec->init_ret == 0 && !rec->st.repair_stopped' 'rec->init_ret == 0' $T/service_test
mutant fail-time-finite raid/recovery/helpers/rebuild_config.c '!(s >= 0) || !isfinite(s) ||' \
	'!(s >= 0) ||' "hostile:raid_fail='1@inf'"
# --- pacing (the fake-clock rebuild) ---
mutant pace-min-max raid/recovery/blocks/pace.c \
	'return now - p->last_t < BUSY_S ? p->min : p->max;' 'return p->max;' $T/pace_test
mutant checkpoint-each-second raid/recovery/passes/passes.h \
	'#define CHECKPOINT_S 1.0' '#define CHECKPOINT_S 0.5' $T/pace_test

# issue 37 (docs/rebuild.md, "Issue 37")
mutant spare-lock-exclusive raid/core/array.c '(spare ? LOCK_EX : mode) | LOCK_NB' 'mode | LOCK_NB' \
	'campaign:a reading fio has open'
mutant devices-taken raid/core/array.c '(ret = devices_taken(c, key, err, errlen))' '0' \
	$T/array_test
mutant jobs-clash engines/fio_raid.c '	if (fio_raid_clash(td, &c)) {' '	if (0) {' \
	'campaign:two jobs: job b'
# the submit gate (below) refuses the campaign's and torture's sequences first; what this gate
# still guards is a write submitted before the failure and staged after it (failure_test:
# test_unrecorded_failure_stops_staged_write, a RAID5 write waiting for its stripe)
mutant failure-gate raid/core/queue.c '		r->error = raid_failure_gate(q->a);' '		(void)0;' \
	$T/failure_test 'campaign:raid1: a failure the full state disk' 'torture:state disk full'
mutant dirty-rebuild-from-0 raid/recovery/blocks/state.c '} else if (r->resume_off[i] && r->state_dirty) {' \
	'} else if (0) {' 'campaign:raid1 rebuild under writes, SIG'
mutant failed-64-members raid/core/config.c 'if (c->nmembers < 64 && c->failed >> c->nmembers) {' \
	'if (c->failed >> c->nmembers) {' 'campaign:64-member'
mutant clones-refused engines/fio_raid.c '(td->o.numjobs > 1 || td->subjob_number)' \
	'td->o.numjobs > 1' 'campaign:numjobs=2'
# --- issue 44 ---
mutant raid-json-output tools/run/json/fiojson.c 'if (fflush(stdout) == EOF || ferror(stdout)) {' \
	'if (0) {' 'hostile:raid-json'
mutant wait-for engines/fio_raid.c 'if (td->o.wait_for && !strcmp(td->o.wait_for, o->o.name))' \
	'if (0)' 'campaign:wait_for'
mutant replaced-twice raid/recovery/blocks/state.c $'\t\tif (dev != i)\n' \
	$'\t\tif (dev != i && !rec_cfg(&a->cfg)->replaced[i])\n' 'torture:seed 5' 'torture:seed 10'
mutant spares-64 raid/recovery/helpers/rebuild_config.c \
	$'\tfor (int i = 0; i < r->nspares; i++)\n\t\tfor (int j = 0; j < c->nmembers + i; j++)' \
	$'\tif (c->nmembers + r->nspares > RAID_MAX_MEMBERS)\n\t\treturn -EINVAL;\n\tfor (int i = 0; i < r->nspares; i++)\n\t\tfor (int j = 0; j < c->nmembers + i; j++)' \
	'torture:seed 14' 'torture:64 members: a spare'
mutant submit-gate raid/core/queue.c '		r->error = raid_failure_gate(a);' '		r->error = 0;' \
	'torture:seed 43842260'
# --- issue 44's leftovers: the former spare re-added, the torture's new operations ---
mutant re-add-former-spare raid/recovery/passes/intent.c 'if (c->resume_spare[i]) {' \
	'if (c->resume_spare[i] || c->replaced[i]) {' 'torture:seed 406616697' \
	'torture:seed 406616703'
mutant bitmap-resync raid/recovery/passes/intent.c \
	'ret = rg ? raid_rec_resync_rows(rec, rg, n, &fixed) : -ENOMEM;' 'ret = 0;' \
	'torture:aimed at bitmap writes: raid6' 'torture:aimed at bitmap writes: raid5'
mutant dirty-degraded-stays-dirty raid/recovery/service.c \
	$'\t\ta->rec->st.repair_stopped = true;\n\t\treturn 0;' $'\t\treturn 0;' $T/state_test
mutant write-retry raid/core/failure.c $'\tr->retries++;\n\tr->error = 0;' \
	$'\treturn false;\n\tr->error = 0;' 'torture:fio through the engine, EIO'

make -s all >/dev/null 2>&1 # the tree as it is again
echo "$survived survived"
((survived == 0))
