#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, address and undefined-behaviour sanitizers) in the build
# folder they share with the sanitizer tests (scripts/asan-configure.sh; after sanitize.sh only
# the fuzz targets' own files are left to compile), then runs each for a bounded time on a copy
# of its seed corpus. Exits non-zero on the first crash, leak, sanitizer report or hang;
# libFuzzer leaves the input that did it as crash-*/timeout-* in the folder it runs in
# (FUZZ_ARTIFACTS, default <build folder>/artifacts).
#   FUZZ_SECONDS  time per target (default 30)
#   FUZZ_BUILD_DIR  build folder (default ASAN_BUILD_DIR, or build-asan)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR="${FUZZ_BUILD_DIR:-${ASAN_BUILD_DIR:-build-asan}}"
SECONDS_PER_TARGET="${FUZZ_SECONDS:-30}"
ARTIFACTS="${FUZZ_ARTIFACTS:-$BUILD_DIR/artifacts}"
# Configured as sanitize.sh left it when it ran first, so nothing is rebuilt for a changed setting.
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then ./scripts/asan-configure.sh "$BUILD_DIR"; fi
cmake --build "$BUILD_DIR" --target fuzz_match_input fuzz_message_parser fuzz_exchange_core --parallel "$(nproc)"
mkdir -p "$ARTIFACTS"
run() {  # target, its folder in the build, seed corpus
  local target="$1" folder="$2" seeds="$3" work="$BUILD_DIR/corpus-$1"
  mkdir -p "$work"  # what the fuzzer finds; the seeds stay as they are
  echo "== $target: ${SECONDS_PER_TARGET}s"
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1 \
    "$BUILD_DIR/$folder/$target" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 \
    -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 -artifact_prefix="$ARTIFACTS/$target-" \
    "$work" "$seeds"
}
run fuzz_match_input tests/core/fuzz tests/scenarios
run fuzz_message_parser tests/net/fuzz tests/net/corpus/message_parser
run fuzz_exchange_core tests/net/fuzz tests/net/corpus/exchange
