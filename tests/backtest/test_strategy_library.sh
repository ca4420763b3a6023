#!/usr/bin/env bash
# The out-of-tree strategy of resources/examples/strategy-library, as its user builds it: the
# project's Development component installed into a temporary prefix, the example configured
# with find_package(Tessera) and built, then loaded by tessera-backtest --strategy-lib, listed,
# and run on a generated history, where it must trade; the example's own program, linking the
# installed static libraries (Tessera::backtest), replays the same run to the same event digest.
# A library that is not one is refused.
#   test_strategy_library.sh BUILD_DIR SOURCE_DIR TESSERA_BACKTEST
# Fails if registration from a loaded library does not reach the program's registry (e.g.
# registerStrategy not storing the strategy: "unknown strategy 'dip-buyer'").
set -euo pipefail
build=$1 src=$2 bt=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" --component Development > "$tmp/install.log"
cmake -S "$src/resources/examples/strategy-library" -B "$tmp/example" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" > "$tmp/configure.log"
cmake --build "$tmp/example" > "$tmp/build.log"
lib="$tmp/example/libdip_buyer.so"

"$bt" strategies --strategy-lib "$lib" | grep -q '^dip-buyer$'
"$bt" generate --out "$tmp/h.db" --days 2 --seed 7 --quiet > /dev/null
"$bt" run --strategy-lib "$lib" --strategy dip-buyer --history "$tmp/h.db" --report "$tmp/report" --quiet \
  --params-json '{"cluster": "harbor-us-west-h100-b", "max_price": 2.6}' > "$tmp/run.log"
fills=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["fills"])' "$tmp/report/summary.json")
if [ "$fills" -lt 1 ]; then
  echo "the library's strategy did not trade: $(cat "$tmp/run.log")" >&2
  exit 1
fi
hash=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["output_hash"])' "$tmp/report/summary.json")
own=$("$tmp/example/replay_dip_buyer" "$tmp/h.db" '{"cluster": "harbor-us-west-h100-b", "max_price": 2.6}')
if [ "$own" != "$fills fills, output hash $hash" ]; then
  echo "replay_dip_buyer says '$own'; tessera-backtest: $fills fills, output hash $hash" >&2
  exit 1
fi
set +e
"$bt" run --strategy-lib "$tmp/h.db" --strategy dip-buyer --history "$tmp/h.db" --report "$tmp/r2" 2> "$tmp/err.log"
code=$?
set -e
if [ "$code" -ne 2 ] || ! grep -q "cannot load strategy library" "$tmp/err.log"; then
  echo "a file that is not a library: exit $code, $(cat "$tmp/err.log")" >&2
  exit 1
fi
echo "dip-buyer built against the installed package: $fills fills"
