#!/bin/sh
# Issue 47's cost table: --numerics portable against fast on the CPU
# table's rows (bench_mlp, bench_attention, bench_conv) and the policy's
# batch-1 call (bench_policy), one thread, the two measured alternately in
# this run (five rounds each, the best kept). Prints a Markdown table and
# the CPU line.
#
#   bench/portable.sh        (from the source tree, after scripts/build default)
set -e
cd "$(dirname "$0")/.."
BIN=build/default/bin
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for round in 1 2 3 4 5; do
  for numerics in fast portable; do
    {
      SS_BENCH_NUMERICS=$numerics $BIN/bench_mlp fast 1
      SS_BENCH_NUMERICS=$numerics $BIN/bench_attention fast 1
      SS_BENCH_NUMERICS=$numerics $BIN/bench_conv 1 .
      SS_BENCH_NUMERICS=$numerics $BIN/bench_policy .
    } >> "$out/$numerics" 2>/dev/null
  done
done
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(grep -m1 -o 'avx512f' /proc/cpuinfo || echo 'no AVX-512'); 1 thread"
echo
echo "| row | fast (us) | portable (us) | portable / fast | target |"
echo "|---|---:|---:|---:|---:|"
awk -v fast="$out/fast" -v portable="$out/portable" '
  function best(file, table,   line, f) {
    while ((getline line < file) > 0) {
      split(line, f, " ")
      if (f[2] ~ /^[0-9.]+$/ && (!(f[1] in table) || f[2] + 0 < table[f[1]])) table[f[1]] = f[2] + 0
    }
  }
  BEGIN {
    best(fast, F); best(portable, P)
    n = split("forward_b1 forward_b64 train_b64 train_b256 attention_step policy_b1 conv_forward conv_gradient cnn_step_b64 cnn_step_b256", rows, " ")
    for (i = 1; i <= n; i++) {
      r = rows[i]
      if (!(r in F) || !(r in P)) continue
      target = (r ~ /^conv|^cnn/) ? "(where the time goes: below)" : "<= 1.25"
      printf "| %s | %.1f | %.1f | %.2f | %s |\n", r, F[r], P[r], P[r] / F[r], target
    }
  }'
