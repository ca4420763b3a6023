#!/usr/bin/env bash
# Installs, builds and runs the whole test suite (what CI runs), then the core, settlement and
# net tests under AddressSanitizer + UndefinedBehaviorSanitizer and the net tests under
# ThreadSanitizer (scripts/sanitize.sh; SANITIZE=0 skips them), then the fuzz targets for a
# bounded time each (scripts/fuzz.sh; FUZZ_SECONDS, default 30; FUZZ_SECONDS=0 skips them).
# In CI (CI=true) the build treats warnings in the project's own code as errors
# (TESSERA_WERROR), and it also builds the .deb, installs it, runs the installed programs and removes
# it (scripts/package-check.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${CI:-}" = "true" ]; then export TESSERA_WERROR="${TESSERA_WERROR:-ON}"; fi
./scripts/setup.sh
export QT_QPA_PLATFORM=offscreen
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure --parallel "$(nproc)"
if [ "${CI:-}" = "true" ]; then
  ./scripts/package-check.sh
fi
if [ "${SANITIZE:-1}" != "0" ]; then
  ./scripts/sanitize.sh
fi
if [ "${FUZZ_SECONDS:-30}" != "0" ]; then
  ./scripts/fuzz.sh
fi
