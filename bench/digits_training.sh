#!/usr/bin/env bash
# The digits demo's training, shapescript's reference runtime and fast executor beside
# PyTorch (one thread) on the same data and schedule: seconds for 30 epochs
# and the final test accuracy. PyTorch comes from $PYTHON (a Python with
# torch and safetensors); without one, only shapescript's row is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
cli=build/default/bin/shapescript
[[ -x $cli ]] || scripts/build default >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp examples/digits/digits.ss examples/digits/digits-*.safetensors "$work/"
# Seconds and final accuracy of one run: `train EXECUTOR [CLI OPTIONS]`. The
# fast executor runs twice: with a cold code cache (its kernels compiled in
# the run) and a warm one (a second run, as a user's would be).
train() {
  local start end acc
  start=$(date +%s.%N)
  acc=$("$cli" run "$work/digits.ss" --executor "$@" --sink metrics="$work/metrics.csv" |
    tail -1 | awk '{print $NF}')
  end=$(date +%s.%N)
  echo "$(echo "$end - $start" | bc -l) $acc"
}
read -r ref_s ref_acc <<<"$(train reference)"
read -r cold_s cold_acc <<<"$(train fast --code-cache "$work/cache")"
read -r fast_s fast_acc <<<"$(train fast --code-cache "$work/cache")"
python=${PYTHON:-python3}
peer=""
peer=$("$python" bench/digits_torch.py 2>/dev/null) || peer=""
printf '%-34s %10s %10s %8s\n' "digits training, 30 epochs" "seconds" "accuracy" "time x"
if [[ -n $peer ]]; then
  read -r acc secs <<<"$peer"
  ratio() { echo "$1 / $secs" | bc -l; }
  printf '%-34s %10.2f %10.4f %8.2f\n' "shapescript (reference runtime)" "$ref_s" "$ref_acc" "$(ratio "$ref_s")"
  printf '%-34s %10.2f %10.4f %8.2f\n' "shapescript (fast, cold code cache)" "$cold_s" "$cold_acc" "$(ratio "$cold_s")"
  printf '%-34s %10.2f %10.4f %8.2f\n' "shapescript (fast, warm code cache)" "$fast_s" "$fast_acc" "$(ratio "$fast_s")"
  printf '%-34s %10.2f %10.4f %8.2f\n' "PyTorch (1 thread, eager)" "$secs" "$acc" 1
else
  printf '%-34s %10.2f %10.4f\n' "shapescript (reference runtime)" "$ref_s" "$ref_acc"
  printf '%-34s %10.2f %10.4f\n' "shapescript (fast, cold code cache)" "$cold_s" "$cold_acc"
  printf '%-34s %10.2f %10.4f\n' "shapescript (fast, warm code cache)" "$fast_s" "$fast_acc"
  echo "PyTorch: not found (set PYTHON to a Python with torch and safetensors)"
fi
