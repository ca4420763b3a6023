#!/usr/bin/env bash
# The bash completion (installer/bash-completion/tessera) against the built programs: what a
# user gets pressing Tab. Usage: test_bash_completion.sh COMPLETION_FILE BIN_DIR...
# Fails if the completion does not read the programs' own --help (a verb or an option added
# to the programs is then missing here: scale, --on-fill, --effective-cost).
set -u
completion="$1"
shift
for dir in "$@"; do PATH="$dir:$PATH"; done
export PATH HOME="$(mktemp -d)" XDG_CONFIG_HOME=""
# shellcheck source=/dev/null
source "$completion"
failures=0

# complete WORDS...: COMPREPLY for the last word.
complete_line() {
  COMP_WORDS=("$@")
  COMP_CWORD=$(($# - 1))
  COMPREPLY=()
  _tessera_complete
  printf '%s\n' "${COMPREPLY[@]}"
}

expect() {  # expect WORD -- WORDS...: WORD is among the completions of WORDS
  local want="$1"
  shift 2
  if ! complete_line "$@" | grep -qx -- "$want"; then
    echo "FAIL: '$*' does not offer '$want'; it offers: $(complete_line "$@" | tr '\n' ' ')"
    failures=$((failures + 1))
  fi
}

expect scale -- tessera-cli sc
expect match -- tessera-cli ma
expect --connect -- tessera-cli --con
expect --on-fill -- tessera-cli buy --on
expect --effective-cost -- tessera-cli --connect x:1 --account a quote --eff
expect --sell-floor-usd -- tessera-cli scale --sell
expect --reference -- tessera-cli match --ref
expect --window -- tessera-cli index --win
expect --egress-per-gb -- tessera-cli cost --egr
expect --latest-start-in -- tessera-cli plan --lat
expect run -- tessera-backtest r
expect --latency-us -- tessera-backtest run --lat
expect procure -- tessera-backtest run --strategy pro
expect --strategy-lib -- tessera-backtest live --strategy-l
expect --no-wall-clock -- tessera-exchange --no
expect accounts -- tessera-exchange acc
expect InfiniBand -- tessera-cli scale --min-fabric Inf
if command -v tessera >/dev/null; then
  expect --screenshot -- tessera --scr
fi
[ "$failures" -eq 0 ] && echo "PASS: bash completion"
exit "$failures"
