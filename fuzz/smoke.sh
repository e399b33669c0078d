#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# SPDX-FileCopyrightText: rtmb developers
#
# Runs every fuzz target for a short while on its seed corpus and dictionary; exits non-zero on
# the first crash, sanitizer report or failed check. Usage:
#   fuzz/smoke.sh BUILD_DIR [SECONDS_PER_TARGET]
# BUILD_DIR is a tree configured with fuzz/ (top level with -DRTMB_FUZZ=ON, or fuzz/ standalone)
# in which `ninja rtmb_fuzz` has run. Findings go to BUILD_DIR/fuzz-findings/.
set -euo pipefail

build_dir=${1:?usage: fuzz/smoke.sh BUILD_DIR [SECONDS_PER_TARGET]}
seconds=${2:-20}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

seeds=
for candidate in "$build_dir/fuzz/seeds" "$build_dir/seeds"; do  # top-level or standalone tree
  if [[ -d "$candidate" ]]; then
    seeds=$candidate
    break
  fi
done
[[ -n "$seeds" ]] || { echo "fuzz/smoke.sh: no seed corpus under $build_dir; run ninja rtmb_fuzz" >&2; exit 1; }
findings="$build_dir/fuzz-findings"
mkdir -p "$findings"

# max_len: the largest datagram plus slack; the longest command line plus slack
declare -A max_len=([packet]=800 [command]=4200)
for name in packet command; do
  bin="$build_dir/bin/rtmb_fuzz_$name"
  [[ -x "$bin" ]] || { echo "fuzz/smoke.sh: $bin not built" >&2; exit 1; }
  corpus="$findings/corpus-$name"
  mkdir -p "$corpus"
  echo "==> fuzz $name for ${seconds}s"
  # the working corpus grows in $corpus; the seeds are read-only input
  ASAN_OPTIONS=halt_on_error=1:detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    "$bin" "$corpus" "$seeds/$name" \
    -dict="$here/$name.dict" -max_len="${max_len[$name]}" -max_total_time="$seconds" \
    -timeout=5 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$findings/$name-"
done
echo "==> fuzz smoke: no findings"
