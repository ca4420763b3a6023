#!/usr/bin/env bash
# Installs Tessera's Debian packages and builds everything in Release under build/.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
BUILD_DIR="${BUILD_DIR:-build}"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$BUILD_DIR" --parallel "$(nproc)"
echo
echo "Built. Run the terminal with: ./$BUILD_DIR/tessera"
