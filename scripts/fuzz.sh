#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, address and undefined-behaviour sanitizers) in the build
# folder they share with the sanitizer tests (scripts/asan-configure.sh; after sanitize.sh only
# the fuzz targets' own files are left to compile), then runs each for a bounded time on a copy
# of its seed corpus, all three at once. Exits non-zero if any of them finds a crash, leak,
# sanitizer report or hang, and prints that target's whole log; libFuzzer leaves the input that
# did it as crash-*/timeout-* in FUZZ_ARTIFACTS (default <build folder>/artifacts).
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
run() {  # target, its folder in the build, seed corpus; prints the target's log when it ends
  local target="$1" folder="$2" seeds="$3" work="$BUILD_DIR/corpus-$1" log="$ARTIFACTS/$1.log"
  mkdir -p "$work"  # what the fuzzer finds; the seeds stay as they are
  local status=0
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1 \
    "$BUILD_DIR/$folder/$target" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 \
    -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 -artifact_prefix="$ARTIFACTS/$target-" \
    "$work" "$seeds" >"$log" 2>&1 || status=$?
  echo "== $target: ${SECONDS_PER_TARGET}s, exit $status"
  if [ "$status" = 0 ]; then tail -n 12 "$log"; else cat "$log"; fi
  return "$status"
}
# The targets run side by side (each is one process on one thread): the stage takes one
# target's time, and each target still gets its share of the cores for all of it.
echo "== fuzzing fuzz_match_input, fuzz_message_parser and fuzz_exchange_core for ${SECONDS_PER_TARGET}s"
run fuzz_match_input tests/core/fuzz tests/scenarios & p1=$!
run fuzz_message_parser tests/net/fuzz tests/net/corpus/message_parser & p2=$!
run fuzz_exchange_core tests/net/fuzz tests/net/corpus/exchange & p3=$!
failed=0
for p in $p1 $p2 $p3; do wait "$p" || failed=1; done
exit "$failed"
