# tests/tests.mk: build fragment, included by the top-level Makefile (see its header).
# The shell tests' own case helpers (tests/lib.sh).
TESTS += tests/lib/lib_test.sh
# tests/gpu/check.sh (run by hand on a GPU) skips without one and fails when it cannot test one.
TESTS += tests/gpu/check_test.sh
# tests/gpu/bundle.sh's bundle (the check's programs for a bare GPU machine) runs on its own.
TESTS += tests/gpu/bundle_test.sh
