#!/usr/bin/env bash
# Builds the default preset and prints every benchmark's table, with a line
# about the machine it ran on.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build default >/dev/null
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%F)"
build/default/bin/bench_check
bench/digits_training.sh
bench/several_devices.sh
