#!/usr/bin/env bash
# Installs, builds and runs the whole test suite (what CI runs), then the fuzz targets for a
# bounded time each (scripts/fuzz.sh; FUZZ_SECONDS, default 60; FUZZ_SECONDS=0 skips them).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export QT_QPA_PLATFORM=offscreen
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure --parallel "$(nproc)"
if [ "${FUZZ_SECONDS:-60}" != "0" ]; then
  ./scripts/fuzz.sh
fi
