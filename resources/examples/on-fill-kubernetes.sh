#!/bin/sh
# tessera-cli buy ... --on-fill 'resources/examples/on-fill-kubernetes.sh'
#
# Creates a Kubernetes Job for the contract from on-fill-kubernetes-job.yaml: the contract's
# variables (docs/cli.md, "--on-fill") are substituted into the template, and the Job is
# named after the contract, so a second apply for the same contract changes nothing.
# The Job's pod waits until the contract's first hour (an init container sleeps until
# TESSERA_START) and has activeDeadlineSeconds for the window's length.
set -eu
here=$(dirname "$0")
template="${1:-$here/on-fill-kubernetes-job.yaml}"
now=$(date -u +%s)
start=$(date -d "$TESSERA_START" +%s)
export TESSERA_WAIT_SECONDS=$(( start > now ? start - now : 0 ))
export TESSERA_DEADLINE_SECONDS=$(( TESSERA_WAIT_SECONDS + TESSERA_HOURS * 3600 ))
envsubst < "$template" | kubectl apply -f -
