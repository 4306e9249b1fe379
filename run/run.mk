# run/run.mk: build fragment, included by the top-level Makefile (see its header).
# run.sh's shell parts live here (the job files in workloads/, the plan in
# tools/run/preset/); their tests are the preset and target shell tests (plan: the plan's
# sizes and limits are the engine's; drives: too few drives, --fit, RAID0 on drives and
# reused members, a missing scratch; edges: run.sh's bad input; hosts: --hosts end to end on
# fio servers on loopback ports).
TESTS += tests/presets/profiles_test.sh tests/presets/dryrun_test.sh tests/presets/quick_test.sh
TESTS += tests/presets/edges_test.sh tests/presets/hosts_test.sh tests/presets/ab_test.sh
TESTS += tests/presets/plan_test.sh tests/presets/drives_test.sh
TESTS += tests/presets/repeat_test.sh tests/presets/guard_test.sh tests/presets/measure_test.sh \
	tests/presets/resync_test.sh tests/presets/members_test.sh
TESTS += tests/targets/hostcpu_test.sh tests/targets/dev_test.sh tests/targets/md_test.sh \
	tests/targets/mdstats_test.sh
BENCHES += tests/bench/targets_bench.sh tests/bench/ublk_bench.sh
