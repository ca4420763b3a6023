#!/usr/bin/env bash
# Configures the one clang build that holds both the AddressSanitizer + UndefinedBehaviorSanitizer
# test programs (scripts/sanitize.sh) and the libFuzzer targets (scripts/fuzz.sh), so the
# libraries they share are compiled once. Everything is compiled with the sanitizers and with
# libFuzzer's coverage instrumentation (fuzzer-no-link, which the test programs carry without
# cost to their results); only the fuzz targets link libFuzzer itself.
#   $1  build folder (default build-asan)
#   $2  test areas (TESSERA_TEST_AREAS; default "core;settlement;net")
# -O1 -g1: optimised enough that the random-script tests run in seconds, with line numbers in
# the reports; asserts stay on.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-build-asan}"
areas="${2:-core;settlement;net}"
# vptr is left out: clang's check reports Boost.System's error categories (constexpr objects in
# a header, error_code.hpp:417) as having an invalid vptr when a socket call fails.
san="-fsanitize=address,undefined -fno-sanitize=vptr -fno-sanitize-recover=all -fno-omit-frame-pointer"
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link $san" \
  -DCMAKE_EXE_LINKER_FLAGS="$san" -DCMAKE_SHARED_LINKER_FLAGS="$san" \
  -DTESSERA_UNITY_BUILD=ON -DTESSERA_BUILD_FUZZ=ON -DTESSERA_BUILD_UI=OFF -DTESSERA_BUILD_BENCH=OFF -DTESSERA_BUILD_PYTHON=OFF \
  -DTESSERA_TEST_AREAS="$areas" >/dev/null
