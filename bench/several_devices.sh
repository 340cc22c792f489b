#!/usr/bin/env bash
# Scaling of digits training from one CPU worker to two (`devices cpu[0 1]`)
# on the reference runtime and on the fast executor, and the share of a step
# the workers spend in all-reduces (waiting for each other included), from
# `run --stats`.
set -euo pipefail
cd "$(dirname "$0")/.."
cli=build/default/bin/shapescript
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp examples/digits/digits-train.safetensors examples/digits/digits-test.safetensors "$dir"
epochs=${EPOCHS:-5}
for devices in "" "cpu[0 1]"; do
  {
    [ -n "$devices" ] && echo "devices $devices"
    sed "s/range(30)/range($epochs)/" examples/digits/digits.ss
  } > "$dir/digits_${#devices}.ss"
done
seconds() { # FILE EXECUTOR: wall seconds of a run, its --stats on $dir/stats
  local start end
  start=$(date +%s.%N)
  "$cli" run "$1" --executor "$2" --sink metrics="$dir/m.csv" --stats > "$dir/out" 2> "$dir/stats"
  end=$(date +%s.%N)
  awk "BEGIN { print $end - $start }"
}
echo "several devices: digits, $epochs epochs of 64-example steps, $(nproc) cores"
printf '%-34s %10s %10s %8s %10s %12s\n' "run" "seconds" "per step" "speedup" \
  "all-reduces" "in them"
for executor in reference fast; do
  one=$(seconds "$dir/digits_0.ss" "$executor")
  two=$(seconds "$dir/digits_8.ss" "$executor")
  stat() { awk -v col="$1" '$1 == "train_step" && $2 == "cpu[0]" { print $col }' "$dir/stats"; }
  steps=$(stat 4)
  printf '%-34s %10.2f %9.2fms %8s\n' "$executor, one device" "$one" \
    "$(awk "BEGIN { print 1000 * $one / $steps }")" "1.00"
  printf '%-34s %10.2f %9.2fms %8.2f %10s %11.1f%%\n' "$executor, cpu[0 1] (2 workers)" "$two" \
    "$(awk "BEGIN { print 1000 * $two / $steps }")" "$(awk "BEGIN { print $one / $two }")" \
    "$(awk "BEGIN { print $(stat 6) / $steps }")/step" "$(awk "BEGIN { print 100 * $(stat 8) / $two }")"
done
