#!/usr/bin/env bash
# Scaling of digits training from one CPU worker to two (`devices cpu[0 1]`)
# on the reference runtime, and the share of a step the workers spend in
# all-reduces (waiting for each other included), from `run --stats`.
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
seconds() { # FILE: wall seconds of a run, its --stats on $dir/stats
  local start end
  start=$(date +%s.%N)
  "$cli" run "$1" --sink metrics="$dir/m.csv" --stats > "$dir/out" 2> "$dir/stats"
  end=$(date +%s.%N)
  awk "BEGIN { print $end - $start }"
}
one=$(seconds "$dir/digits_0.ss")
two=$(seconds "$dir/digits_8.ss")
steps=$(awk '$1 == "train_step" && $2 == "cpu[0]" { print $4 }' "$dir/stats")
in_reduce=$(awk '$1 == "train_step" && $2 == "cpu[0]" { print $8 }' "$dir/stats")
reduces=$(awk '$1 == "train_step" && $2 == "cpu[0]" { print $6 }' "$dir/stats")
echo "several devices: digits, $epochs epochs ($steps steps of 64), reference runtime, $(nproc) cores"
printf '%-34s %10s %10s %8s\n' "run" "seconds" "per step" "speedup"
printf '%-34s %10.2f %9.2fms %8s\n' "one device" "$one" "$(awk "BEGIN { print 1000 * $one / $steps }")" "1.00"
printf '%-34s %10.2f %9.2fms %8.2f\n' "cpu[0 1] (2 workers)" "$two" \
  "$(awk "BEGIN { print 1000 * $two / $steps }")" "$(awk "BEGIN { print $one / $two }")"
printf 'all-reduces per step: %s; time worker cpu[0] spent in them: %.1f%% of the run\n' \
  "$((reduces / steps))" "$(awk "BEGIN { print 100 * $in_reduce / $two }")"
