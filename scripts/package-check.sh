#!/usr/bin/env bash
# Builds the .deb from an existing build (BUILD_DIR, default build), installs it the way a user
# does (apt-get install ./tessera_*.deb, which pulls its dependencies), runs the installed
# programs (--version, a tessera-cli match script, the terminal's --screenshot offscreen, a man
# page, the bash completion) and removes the package again. Needs root (or sudo) and apt.
# scripts/test.sh runs it when CI=true.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${BUILD_DIR:-build}"
started=$(date +%s)
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# cpack builds what is not built yet (its preinstall step); in CI everything is by now.
(cd "$build" && rm -f tessera_*.deb && cpack -G DEB >"$work/cpack.log") || { cat "$work/cpack.log"; exit 1; }
deb=$(ls "$build"/tessera_*.deb)
echo "package: $deb ($(du -h "$deb" | cut -f1))"
listing=$(dpkg-deb -c "$deb")
for f in usr/share/doc/tessera/copyright usr/share/man/man1/tessera-cli.1.gz usr/share/bash-completion/completions/tessera-cli; do
  grep -q "$f" <<<"$listing" || { echo "FAIL: $f is not in the package"; exit 1; }
done
echo "depends: $(dpkg-deb -f "$deb" Depends)"

DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "./$deb" >"$work/apt.log" \
  || { cat "$work/apt.log"; exit 1; }
status=0
check() {  # check DESCRIPTION COMMAND...: runs it, shows what failed
  if ! out=$("${@:2}" 2>&1); then
    echo "FAIL: $1"; echo "$out"; status=1
  else
    echo "ok: $1"
  fi
}
for program in tessera tessera-cli tessera-exchange tessera-backtest; do
  check "$program --version" env QT_QPA_PLATFORM=offscreen "/usr/bin/$program" --version
done
script='{"type":"cluster","id":1}
{"type":"capacity","account":"p","cluster":1,"gpus":8,"start":0,"end":4}
{"type":"order","id":1,"account":"p","side":"sell","cluster":1,"gpus":8,"start":0,"end":4,"limit_usd":2}
{"type":"order","id":2,"account":"b","side":"buy","cluster":1,"gpus":8,"start":0,"end":4,"limit_usd":2.5}'
check "tessera-cli match trades" bash -c "echo '$script' | /usr/bin/tessera-cli match | grep -q '\"event\":\"contract\"'"
check "tessera --screenshot offscreen" env QT_QPA_PLATFORM=offscreen HOME="$work" /usr/bin/tessera --screenshot "$work/shot.png"
check "the screenshot is a PNG" bash -c "head -c 8 '$work/shot.png' | grep -q PNG"
check "man tessera-cli" bash -c "zcat /usr/share/man/man1/tessera-cli.1.gz | grep -q '^.SS \"tessera-cli scale\"'"
check "bash completion of tessera-cli" bash -c \
  "source /usr/share/bash-completion/completions/tessera-cli; COMP_WORDS=(tessera-cli sc); COMP_CWORD=1; _tessera_complete; [[ \" \${COMPREPLY[*]} \" == *' scale '* ]]"
check "docs in /usr/share/doc/tessera" test -f /usr/share/doc/tessera/docs/cli.md

DEBIAN_FRONTEND=noninteractive $sudo apt-get remove -y tessera >"$work/apt-remove.log" || { cat "$work/apt-remove.log"; exit 1; }
if [ -e /usr/bin/tessera-cli ]; then echo "FAIL: tessera-cli still installed after apt-get remove"; status=1; fi
echo "package check: $(( $(date +%s) - started )) s"
exit $status
