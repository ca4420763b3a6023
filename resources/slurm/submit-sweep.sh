#!/bin/bash
# Submits a tessera-backtest sweep to Slurm: N shards as a job array (sweep.sbatch) and the
# merge (merge.sbatch) that runs when every shard has succeeded. Prints the two job ids.
#
#   submit-sweep.sh --history h.db --strategy NAME --grid g.json --shards N --out DIR \
#       [--cpus-per-task C] [--backtest /path/to/tessera-backtest] [--sbatch-args "..."] \
#       [-- more sweep options, e.g. --md-latency exp:300]
#
# Paths are made absolute: the nodes must see them (a shared file system). The merged result is
# DIR/sweep.json and DIR/sweep.csv; each task's log is DIR/slurm-<job>_<task>.out.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage() { sed -n '4,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
history="" strategy="" grid="" shards="" out="" cpus="" backtest="" sbatch_args=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --history) history="$2"; shift 2 ;;
    --strategy) strategy="$2"; shift 2 ;;
    --grid) grid="$2"; shift 2 ;;
    --shards) shards="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --cpus-per-task) cpus="$2"; shift 2 ;;
    --backtest) backtest="$2"; shift 2 ;;
    --sbatch-args) sbatch_args="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "submit-sweep.sh: unknown option '$1'" >&2; usage ;;
  esac
done
[[ -n "$history" && -n "$strategy" && -n "$grid" && -n "$shards" && -n "$out" ]] || usage
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || { echo "submit-sweep.sh: --shards wants a whole number, 1 or more" >&2; exit 2; }
[[ -z "$cpus" || "$cpus" =~ ^[1-9][0-9]*$ ]] || { echo "submit-sweep.sh: --cpus-per-task wants a whole number, 1 or more" >&2; exit 2; }
for f in "$history" "$grid"; do [[ -r "$f" ]] || { echo "submit-sweep.sh: cannot read '$f'" >&2; exit 1; }; done
mkdir -p "$out"

export TESSERA_HISTORY="$(realpath "$history")" TESSERA_GRID="$(realpath "$grid")" TESSERA_OUT="$(realpath "$out")"
export TESSERA_STRATEGY="$strategy" TESSERA_SHARDS="$shards" TESSERA_SWEEP_ARGS="$*"
if [[ -n "$backtest" ]]; then export TESSERA_BACKTEST="$(realpath "$backtest")"; fi

common=(--parsable --chdir "$TESSERA_OUT" --export ALL)
# shellcheck disable=SC2206  # --sbatch-args is a list of options
[[ -n "$sbatch_args" ]] && common+=($sbatch_args)
array_opts=(--array "0-$((shards - 1))" --output "$TESSERA_OUT/slurm-%A_%a.out")
[[ -n "$cpus" ]] && array_opts+=(--cpus-per-task "$cpus")
array="$(sbatch "${common[@]}" "${array_opts[@]}" "$here/sweep.sbatch")"
array="${array%%;*}"
merge="$(sbatch "${common[@]}" --dependency "afterok:$array" --kill-on-invalid-dep=yes \
  --output "$TESSERA_OUT/slurm-%j-merge.out" "$here/merge.sbatch")"
merge="${merge%%;*}"
echo "array $array"
echo "merge $merge"
