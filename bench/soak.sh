#!/usr/bin/env bash
# The soak (bench/soak.cpp): two threads calling the policy example, one
# training it, a reload every 100 ms and a checkpoint saved (and loaded
# back) every second, for 10 minutes (or the seconds given); resident
# memory and open files printed each minute. Exits non-zero on an error or
# growth. Its table goes in bench/README.md.
#
#   bench/soak.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
scripts/build default >/dev/null
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p') ($(nproc) cores)"
exec build/default/bin/bench_soak --source "$PWD" --seconds "$seconds" --period "$((seconds >= 120 ? 60 : seconds / 4))"
