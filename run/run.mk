# run/run.mk: build fragment, included by the top-level Makefile (see its header).
# run.sh's shell parts live here (the job files in workloads/); their tests are the preset and target
# shell tests (edges: run.sh's bad input; hosts: --hosts end to end on fio servers on
# loopback ports). The C helpers that run.sh calls are in tools/.

TESTS += tests/presets/profiles_test.sh tests/presets/dryrun_test.sh tests/presets/quick_test.sh
TESTS += tests/presets/edges_test.sh tests/presets/hosts_test.sh
TESTS += tests/targets/hostcpu_test.sh tests/targets/dev_test.sh tests/targets/md_test.sh
BENCHES += tests/bench/targets_bench.sh
