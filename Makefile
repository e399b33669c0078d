# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: rtmb developers
#
# Entry point for people and CI. On a fresh Debian 12 machine `make run` and `make test` are all
# it takes: every target first runs scripts/install-deps.sh (silent unless a package is missing),
# then drives CMake + Ninja. The real build logic stays in CMake; this file only picks build
# directories, flags and the commands to run. `make help` lists the targets.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := build

BUILD_DIR      ?= build
ASAN_BUILD_DIR ?= build-asan
FUZZ_BUILD_DIR ?= build-fuzz
TSAN_BUILD_DIR ?= build-tsan
# seconds per fuzz target; empty: 20 for fuzz-smoke, 600 for fuzz-long
FUZZ_SECONDS   ?=
FUZZ_RUNS      ?= 0
FUZZ_TARGETS   ?=
BUILD_TYPE     ?= RelWithDebInfo
RUN_ARGS       ?= serve --duration 10 --demo
BENCH_ARGS     ?= --benchmark_min_time=0.1
CMAKE_ARGS     ?=

# Parallelism: JOBS=N if given, else the N of `make -jN`, else ninja's default and one ctest job
# per core. ninja ignores make's jobserver, so -jN is forwarded explicitly. These are recursive
# (=) on purpose: GNU make 4.3 only shows -jN in MAKEFLAGS when a recipe is expanded.
JOBS       ?=
MAKE_JOBS   = $(patsubst -j%,%,$(filter -j%,$(MAKEFLAGS)))
BUILD_JOBS  = $(or $(JOBS),$(MAKE_JOBS))
TEST_JOBS   = $(or $(BUILD_JOBS),$(shell nproc))
NINJA_JOBS  = $(if $(BUILD_JOBS),-j $(BUILD_JOBS))
# --no-tests=error: a build that registers no tests must not report success
CTEST       = ctest --output-on-failure --no-tests=error -j $(TEST_JOBS) --test-dir

# Debug information: line tables only (-g1). That is all profilers (callgrind, perf) and the
# sanitizers' stack traces read, and full -g made every compile about a third slower (measured on
# an engine file and a test file: 13.2 s vs 8.8 s, 7.0 s vs 5.2 s of CPU). BUILD_TYPE=Debug gives
# full debug information for gdb.
MAIN_CMAKE_FLAGS  = -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
                    '-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG'
# Sanitizer build: -O1 rather than -O2 keeps the physics tests fast enough under ASan while
# keeping stack traces readable. Any report is fatal, including leaks at exit.
ASAN_CMAKE_FLAGS  = -DCMAKE_BUILD_TYPE=RelWithDebInfo \
                    '-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG' \
                    -DRTMB_SANITIZE=ON -DRTMB_BUILD_BENCH=OFF -DRTMB_BUILD_PYTHON=OFF
# ThreadSanitizer tree: only the tests in which threads share memory (tests/CMakeLists.txt,
# rtmb_thread_tests), -O1 for the same reason as ASan. Any report is fatal.
TSAN_CMAKE_FLAGS  = -DCMAKE_BUILD_TYPE=RelWithDebInfo \
                    '-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG' \
                    -DRTMB_TSAN=ON -DRTMB_BUILD_BENCH=OFF -DRTMB_BUILD_PYTHON=OFF
SANITIZER_ENV := ASAN_OPTIONS=halt_on_error=1:print_stacktrace=1:detect_leaks=1:check_initialization_order=1:strict_init_order=1 \
                 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# Our sources only; directories that do not exist yet are skipped.
FORMAT_DIRS := $(wildcard engine net include tests bench apps fuzz python)
FIND_SOURCES = find $(FORMAT_DIRS) -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) -print0

.PHONY: help deps build test run bench bench-scaling sanitize tsan fuzz-smoke fuzz-long format format-check clean

help:
	@echo "make run           build, then serve configs/default.yaml in real time for 10 s with a local demo client (rtmb $(RUN_ARGS))"
	@echo "make test          build, then run all tests with ctest"
	@echo "make build         configure (first time only) and build everything into $(BUILD_DIR)/"
	@echo "make bench         build, then run the benchmarks (extra flags: BENCH_ARGS=...)"
	@echo "make bench-scaling step time vs body count, sparse vs dense, fitted exponent"
	@echo "make sanitize      ASan+UBSan build in $(ASAN_BUILD_DIR)/, then run all tests there"
	@echo "make tsan          ThreadSanitizer build in $(TSAN_BUILD_DIR)/ of the threaded tests (rtmb_thread_tests), then run them"
	@echo "make fuzz-smoke    clang libFuzzer build in $(FUZZ_BUILD_DIR)/, each fuzzer for $(or $(FUZZ_SECONDS),20) s"
	@echo "make fuzz-long     each fuzzer for FUZZ_SECONDS=$(or $(FUZZ_SECONDS),600) s or FUZZ_RUNS=N runs, one at a time; prints the executions per target (FUZZ_TARGETS='record view' picks)"
	@echo "make format        clang-format our sources in place"
	@echo "make format-check  fail if any source is not clang-formatted"
	@echo "make clean         remove the build trees ($(BUILD_DIR)/, $(ASAN_BUILD_DIR)/, $(FUZZ_BUILD_DIR)/, $(TSAN_BUILD_DIR)/)"
	@echo "Variables: JOBS=N, BUILD_TYPE=..., CMAKE_ARGS='-D...', RUN_ARGS='...', BENCH_ARGS='...'"
	@echo "(BUILD_TYPE and CMAKE_ARGS apply when a build tree is first configured; make clean to change them)"

deps:
	@bash scripts/install-deps.sh

# Configure only when the build tree does not exist yet. After that ninja re-runs CMake by itself
# whenever a CMakeLists.txt (or a globbed source list) changes.
$(BUILD_DIR)/build.ninja: | deps
	cmake -S . -B $(BUILD_DIR) -G Ninja $(MAIN_CMAKE_FLAGS) $(CMAKE_ARGS)

$(ASAN_BUILD_DIR)/build.ninja: | deps
	cmake -S . -B $(ASAN_BUILD_DIR) -G Ninja $(ASAN_CMAKE_FLAGS) $(CMAKE_ARGS)

build: deps $(BUILD_DIR)/build.ninja
	ninja -C $(BUILD_DIR) $(NINJA_JOBS)

test: build
	$(CTEST) $(BUILD_DIR)

run: build
	$(BUILD_DIR)/bin/rtmb $(RUN_ARGS)

bench: build
	$(BUILD_DIR)/bin/rtmb_bench $(BENCH_ARGS)

# step time vs body count, sparse vs dense (bench/sparse_step_bench.cpp), and the fitted exponent
bench-scaling: build
	$(BUILD_DIR)/bin/rtmb_bench --benchmark_filter='BM_ChainStep' --benchmark_repetitions=5 \
	  --benchmark_report_aggregates_only=true --benchmark_out=$(BUILD_DIR)/scaling.json \
	  --benchmark_out_format=json
	python3 scripts/fit_scaling.py $(BUILD_DIR)/scaling.json

# The environment applies to the build too: gtest_discover_tests runs the test binaries at build
# time to list their tests.
sanitize: deps $(ASAN_BUILD_DIR)/build.ninja
	$(SANITIZER_ENV) ninja -C $(ASAN_BUILD_DIR) $(NINJA_JOBS)
	$(SANITIZER_ENV) $(CTEST) $(ASAN_BUILD_DIR)

$(TSAN_BUILD_DIR)/build.ninja: | deps
	cmake -S . -B $(TSAN_BUILD_DIR) -G Ninja $(TSAN_CMAKE_FLAGS) $(CMAKE_ARGS)

tsan: deps $(TSAN_BUILD_DIR)/build.ninja
	ninja -C $(TSAN_BUILD_DIR) $(NINJA_JOBS) rtmb_thread_tests
	TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 $(TSAN_BUILD_DIR)/bin/rtmb_thread_tests

# libFuzzer needs clang; only the fuzz targets are built in this tree (ninja rtmb_fuzz)
$(FUZZ_BUILD_DIR)/build.ninja: | deps
	cmake -S . -B $(FUZZ_BUILD_DIR) -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DRTMB_FUZZ=ON \
	  -DRTMB_BUILD_BENCH=OFF -DRTMB_BUILD_PYTHON=OFF $(CMAKE_ARGS)

# Each fuzz target for FUZZ_SECONDS on its seed corpus; any crash or sanitizer report fails.
fuzz-smoke: deps $(FUZZ_BUILD_DIR)/build.ninja
	ninja -C $(FUZZ_BUILD_DIR) $(NINJA_JOBS) rtmb_fuzz
	bash fuzz/smoke.sh $(FUZZ_BUILD_DIR) $(or $(FUZZ_SECONDS),20)

# The same, longer: FUZZ_SECONDS (default 600) per target, or FUZZ_RUNS executions (then the
# time is only a bound), one target at a time; the corpus in $(FUZZ_BUILD_DIR)/fuzz-findings/
# carries over between runs.
fuzz-long: deps $(FUZZ_BUILD_DIR)/build.ninja
	ninja -C $(FUZZ_BUILD_DIR) $(NINJA_JOBS) rtmb_fuzz
	bash fuzz/smoke.sh $(FUZZ_BUILD_DIR) $(or $(FUZZ_SECONDS),600) $(FUZZ_RUNS) $(FUZZ_TARGETS)

format: deps
	$(FIND_SOURCES) | xargs -0 -r clang-format -i

format-check: deps
	$(FIND_SOURCES) | xargs -0 -r clang-format --dry-run --Werror --ferror-limit=1 \
	  || { echo "format-check: sources are not clang-formatted; run 'make format'" >&2; exit 1; }

clean:
	rm -rf $(BUILD_DIR) $(ASAN_BUILD_DIR) $(FUZZ_BUILD_DIR) $(TSAN_BUILD_DIR)
