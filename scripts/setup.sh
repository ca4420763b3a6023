#!/usr/bin/env bash
# Installs Tessera's Debian packages and builds everything in Release under build/.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
BUILD_DIR="${BUILD_DIR:-build}"
# The Python package builds for the interpreter Debian's python3-numpy, python3-pytest and
# pybind11-dev belong to, even when another python3 (pyenv, a venv) comes first in PATH.
PYTHON_ARGS=()
if [ -x /usr/bin/python3 ]; then PYTHON_ARGS=(-DPython3_EXECUTABLE=/usr/bin/python3); fi
# TESSERA_WERROR=ON (scripts/test.sh sets it when CI=true): warnings in the project's code fail the build.
# TESSERA_UNITY_BUILD=ON (the default here): the libraries compile in batches, a third of the
# CPU time of a whole build (CMakeLists.txt says why).
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSERA_WERROR="${TESSERA_WERROR:-OFF}" \
  -DTESSERA_UNITY_BUILD="${TESSERA_UNITY_BUILD:-ON}" "${PYTHON_ARGS[@]}"
cmake --build "$BUILD_DIR" --parallel "$(nproc)"
# A development TLS certificate for tessera-exchange (self-signed CA + localhost server
# certificate), made once; TESSERA_TLS_DIR puts it elsewhere (e.g. your data folder).
TLS_DIR="${TESSERA_TLS_DIR:-$BUILD_DIR/tls}"
./scripts/make-dev-cert.sh "$TLS_DIR"
echo
echo "Built. Run the terminal with: ./$BUILD_DIR/tessera"
echo "A TLS exchange: ./$BUILD_DIR/app/tessera-exchange --tls-cert $TLS_DIR/server.crt --tls-key $TLS_DIR/server.key ..."
echo "   and its clients: --ca $TLS_DIR/ca.crt"
