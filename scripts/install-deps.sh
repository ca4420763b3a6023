#!/usr/bin/env bash
# Installs every Debian package Tessera needs to build, test and package.
# Idempotent and non-interactive; runs apt-get only when something is missing.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config ccache
  qt6-base-dev libqt6sql6-sqlite libqt6svg6
  libqcustomplot-dev
  libsqlite3-dev sqlite3
  libboost-dev
  nlohmann-json3-dev
  libssl-dev openssl libsodium-dev libspdlog-dev libcli11-dev
  coinor-libcbc-dev   # the call auction's MIP and LP (core/auction: CBC, CLP)
  clang libclang-rt-14-dev   # libFuzzer and the sanitizers' runtimes (only Recommended by clang)
  lld   # links the programs several times faster than GNU ld (CMakeLists.txt, TESSERA_LINKER)
  xvfb xauth
  pybind11-dev python3-dev python3-numpy python3-pytest   # the tessera Python package and its tests
  slurm-wlm munge   # tests/backtest/test_slurm_sweep.sh starts a real single-node Slurm
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends "${missing[@]}"
