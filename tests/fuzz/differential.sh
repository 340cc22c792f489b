#!/usr/bin/env bash
# Differential testing at length: N generated programs (from seed FIRST,
# default 0) on every CPU executor, split over the machine's cores (or
# SS_FUZZ_JOBS), each part a block of seeds. Exits non-zero on any
# disagreement, crash or program that doesn't load; failing programs are
# kept in build/differential-failures (or SS_FUZZ_KEEP).
#
#   tests/fuzz/differential.sh N [FIRST]
set -euo pipefail
cd "$(dirname "$0")/../.."
n=${1:?usage: tests/fuzz/differential.sh N [FIRST]}
first=${2:-0}
jobs=${SS_FUZZ_JOBS:-$(nproc)}
keep=${SS_FUZZ_KEEP:-build/differential-failures}
bin=build/default/bin/differential
[[ -x $bin ]] || scripts/build default >/dev/null
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
per=$(((n + jobs - 1) / jobs))
pids=()
for ((j = 0; j < jobs; j++)); do
  from=$((first + j * per))
  count=$((j == jobs - 1 ? n - j * per : per))
  ((count > 0)) || continue
  "$bin" --from "$from" --count "$count" --keep "$keep" >"$logs/$j" 2>&1 &
  pids+=("$!")
done
status=0
for j in "${!pids[@]}"; do
  # A crash ends a part without its summary: its last seed is in the log.
  wait "${pids[$j]}" || status=1
  grep -v '^differential:' "$logs/$j" || true
  tail -1 "$logs/$j"
done
echo "differential.sh: $n programs from seed $first: $([[ $status == 0 ]] && echo "all agree" || echo "FAILURES (kept in $keep)")"
exit $status
