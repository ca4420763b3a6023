#!/bin/bash
# A sweep on a real Slurm: starts munged, slurmctld and slurmd from Debian's packages on this
# machine, configured in a temporary folder (its own munge key and socket, its own ports and
# slurm.conf for this host, running as root as in CI), submits the sweep with
# resources/slurm/submit-sweep.sh (a job array and a merge job that depends on it), waits for the
# merge, and checks the merged sweep.json and sweep.csv equal an unsharded run's byte for byte.
# Everything it started is stopped and the folder removed on every way out.
#
# Exit 77 (CTest SKIP_RETURN_CODE) with the reason on stderr only where Slurm cannot start here:
# not root, a program missing, or a daemon that does not come up. Anything after Slurm is up that
# goes wrong is a failure.
#
#   test_slurm_sweep.sh TESSERA_BACKTEST SOURCE_DIR
set -uo pipefail

backtest="$1"
src="$2"
skip() { echo "SKIPPED: Slurm cannot start on this machine: $*" >&2; exit 77; }
fail() { echo "FAIL: $*" >&2; dump_logs; exit 1; }

[[ "$(id -u)" == 0 ]] || skip "the test runs slurmd as root, as CI does (uid $(id -u))"
for p in munged mungekey slurmctld slurmd sbatch squeue scontrol python3; do
  command -v "$p" >/dev/null || skip "'$p' is not installed (scripts/setup.sh installs slurm-wlm and munge)"
done

tmp="$(mktemp -d /tmp/tessera-slurm.XXXXXX)"
chmod 700 "$tmp"
pids=()
cleanup() {
  # Jobs still queued or running (none when the test passes) are cancelled while slurmctld
  # and slurmd can still end their steps; then the daemons this test started, by their pids.
  if [[ -n "${SLURM_CONF:-}" ]] && scontrol ping >/dev/null 2>&1; then
    scancel --full --cluster=tessera-test --user=root >/dev/null 2>&1
    for _ in $(seq 50); do [[ -z "$(squeue -h 2>/dev/null)" ]] && break; sleep 0.1; done
  fi
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
dump_logs() {
  for f in "$tmp"/*.log "$tmp"/out/*.out; do
    [[ -f "$f" ]] && { echo "--- $f"; tail -n 30 "$f"; } >&2
  done
}

# Two free TCP ports for slurmctld and slurmd.
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')

host="$(hostname -s)"
cpus="$(nproc)"
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/out"

mungekey --create --keyfile="$tmp/munge.key" >/dev/null 2>&1 || skip "mungekey could not create a key"
chmod 400 "$tmp/munge.key"
munged --socket="$tmp/munge.socket" --key-file="$tmp/munge.key" --pid-file="$tmp/munged.pid" \
  --log-file="$tmp/munged.log" --seed-file="$tmp/munge.seed" --foreground --force >"$tmp/munged.out.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [[ -S "$tmp/munge.socket" ]] && break; sleep 0.1; done
[[ -S "$tmp/munge.socket" ]] || { dump_logs; skip "munged did not start (log above)"; }

: >"$tmp/plugstack.conf"
cat >"$tmp/slurm.conf" <<CONF
ClusterName=tessera-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge.socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
MailProg=/bin/true
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
PlugStackConfig=$tmp/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
MinJobAge=300
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=tessera Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$tmp/slurm.conf"

slurmctld -D -i -f "$SLURM_CONF" >"$tmp/slurmctld.out.log" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >"$tmp/slurmd.out.log" 2>&1 &
pids+=($!)
up=""
for _ in $(seq 150); do
  if scontrol show node "$host" 2>/dev/null | grep -Eq "State=IDLE"; then up=1; break; fi
  sleep 0.2
done
[[ -n "$up" ]] || { dump_logs; skip "slurmctld and slurmd did not bring node '$host' up within 30 s (logs above)"; }
echo "Slurm is up on $host ($cpus CPUs), ports $ctld_port/$slurmd_port"

# The sweep: a day of market, 6 points in 3 shards.
"$backtest" generate --out "$tmp/h.db" --hours 24 --clusters 8 --seed 4 --quiet >/dev/null || fail "generate"
cat >"$tmp/grid.json" <<'GRID'
{"base": {"cluster": "harbor-us-west-h100-b"}, "grid": {"spread": [0.02, 0.06], "hours_ahead": [4, 8, 12]}}
GRID
ids="$("$src/resources/slurm/submit-sweep.sh" --history "$tmp/h.db" --strategy market-maker --grid "$tmp/grid.json" \
  --shards 3 --out "$tmp/out" --backtest "$backtest" -- --md-latency exp:300 --latency-seed 5)" || fail "submit-sweep.sh"
echo "$ids"
merge="$(awk '/^merge /{print $2}' <<<"$ids")"
[[ -n "$merge" ]] || fail "submit-sweep.sh printed no merge job id"

state=""
for _ in $(seq 200); do
  state="$(scontrol show job "$merge" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2)"
  case "$state" in
    COMPLETED) break ;;
    FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE) fail "merge job $merge ended $state" ;;
  esac
  sleep 0.2
done
[[ "$state" == COMPLETED ]] || fail "merge job $merge not done within 40 s (state '$state')"

# The same sweep unsharded, on this machine.
mkdir -p "$tmp/local"
"$backtest" sweep --history "$tmp/h.db" --strategy market-maker --grid "$tmp/grid.json" --out "$tmp/local/all.jsonl" \
  --quiet --md-latency exp:300 --latency-seed 5 >/dev/null || fail "the unsharded sweep"
"$backtest" merge --out "$tmp/local/sweep" "$tmp/local/all.jsonl" >/dev/null || fail "merging the unsharded sweep"
for f in sweep.json sweep.csv; do
  cmp "$tmp/out/$f" "$tmp/local/$f" || fail "$f from Slurm differs from the unsharded run"
done
grep -q '"points": 6' "$tmp/out/sweep.json" || fail "sweep.json does not hold the 6 points"
ls "$tmp"/out/shard-{0,1,2}.jsonl >/dev/null || fail "a shard file is missing"
echo "PASS: 3 array tasks and the dependent merge on Slurm equal the unsharded sweep byte for byte"
