#!/usr/bin/env bash
# Builds the tests of core, settlement and net with AddressSanitizer and UndefinedBehaviorSanitizer
# (clang, build-asan, configured by scripts/asan-configure.sh and shared with the fuzz targets),
# and the threaded net tests with ThreadSanitizer (GCC, build-tsan), each in its own folder and
# only the test programs (and what they link), then runs them. Any sanitizer report fails the
# test that caused it, and so this script.
#   SANITIZERS  which to run: "asan tsan" (default), "asan", "tsan"
#   ASAN_BUILD_DIR, TSAN_BUILD_DIR  build folders (default build-asan, build-tsan)
# ccache (the project's compiler launcher) makes a rebuild with few changes cheap.
set -euo pipefail
cd "$(dirname "$0")/.."
SANITIZERS="${SANITIZERS:-asan tsan}"

build_and_test() {  # configured folder[, regular expression of the tests to run]
  local dir="$1" only="${2:-.}"
  # The test programs are the CTest tests' names; tests that are scripts around the installed
  # programs (no target of their own) are left to the regular run.
  local tests programs
  tests=$(ctest --test-dir "$dir" -N -R "$only" | sed -n 's/^ *Test *#[0-9]*: //p')
  programs=$(cmake --build "$dir" --target help | sed -n 's/^\([A-Za-z0-9_]*\): .*/\1/p' | sort -u)
  tests=$(comm -12 <(tr ' ' '\n' <<<"$tests" | sort -u) <(echo "$programs"))
  # shellcheck disable=SC2086
  cmake --build "$dir" --parallel "$(nproc)" --target $tests
  QT_QPA_PLATFORM=offscreen ctest --test-dir "$dir" -R "^($(paste -sd'|' <<<"$tests"))\$" \
    --output-on-failure --parallel "$(nproc)"
}

for s in $SANITIZERS; do
  case "$s" in
    asan)
      echo "== AddressSanitizer + UndefinedBehaviorSanitizer: core, settlement and net tests"
      # Leaks are reported too; a sanitizer report stops the program (halt_on_error).
      export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1"
      export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
      ./scripts/asan-configure.sh "${ASAN_BUILD_DIR:-build-asan}" "core;settlement;net"
      build_and_test "${ASAN_BUILD_DIR:-build-asan}"
      ;;
    tsan)
      echo "== ThreadSanitizer: the net tests that run the server or the client on their threads"
      # die_after_fork=0: the TLS and crash tests start processes from a threaded program.
      export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:die_after_fork=0:suppressions=$PWD/tests/tsan.supp"
      # The others drive ExchangeCore on one thread: nothing for TSan to see, and not building
      # them keeps CI's time down. test_exchange_crash is left out too: it starts and kills
      # whole exchange processes against deadlines set for uninstrumented speed, and the
      # server's threads are exercised by test_exchange_server and test_exchange_limits.
      # -O1 -g1: optimised enough for the tests' deadlines, line numbers in the reports.
      cmake -S . -B "${TSAN_BUILD_DIR:-build-tsan}" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DCMAKE_CXX_FLAGS="-fsanitize=thread" \
        -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" \
        -DTESSERA_UNITY_BUILD=ON -DTESSERA_BUILD_UI=OFF -DTESSERA_BUILD_BENCH=OFF -DTESSERA_BUILD_PYTHON=OFF -DTESSERA_TEST_AREAS=net >/dev/null
      build_and_test "${TSAN_BUILD_DIR:-build-tsan}" \
        '^test_(exchange_(server|client|tls|limits|hostile_requests|settlement)|client_command)$'
      ;;
    *) echo "unknown sanitizer '$s' (asan, tsan)" >&2; exit 2 ;;
  esac
done
