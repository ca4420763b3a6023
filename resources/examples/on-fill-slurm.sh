#!/bin/sh
# tessera-cli buy ... --on-fill 'resources/examples/on-fill-slurm.sh train.sbatch'
#
# Submits a Slurm batch job that starts when the contract's first hour begins and is limited
# to its window. The contract comes in TESSERA_* variables (docs/cli.md, "--on-fill"); the
# cluster's name is passed as the partition, so name Slurm partitions after Tessera clusters
# (or map them here).
set -eu
script="${1:?usage: on-fill-slurm.sh JOB_SCRIPT}"
# sbatch reads --begin in the controller's local time: convert from UTC.
begin=$(date -d "$TESSERA_START" +%Y-%m-%dT%H:%M:%S)
minutes=$((TESSERA_HOURS * 60))
nodes=$(( (TESSERA_GPUS + 7) / 8 ))
exec sbatch --begin="$begin" --time="$minutes" --partition="$TESSERA_CLUSTER" \
    --nodes="$nodes" --gpus="$TESSERA_GPUS" --job-name="tessera-$TESSERA_CONTRACT_ID" \
    --export=ALL,TESSERA_CONTRACT_ID="$TESSERA_CONTRACT_ID" "$script"
