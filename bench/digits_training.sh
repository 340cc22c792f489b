#!/usr/bin/env bash
# The digits demo's training, shapescript's reference runtime beside
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
start=$(date +%s.%N)
ours=$("$cli" run "$work/digits.ss" --sink metrics="$work/metrics.csv" | tail -1 | awk '{print $NF}')
end=$(date +%s.%N)
ours_s=$(echo "$end - $start" | bc -l)
printf '%-34s %10s %10s %8s\n' "digits training, 30 epochs" "seconds" "accuracy" "time x"
printf '%-34s %10.2f %10.4f %8s\n' "shapescript (reference runtime)" "$ours_s" "$ours" ""
python=${PYTHON:-python3}
if peer=$("$python" bench/digits_torch.py 2>/dev/null); then
  read -r acc secs <<<"$peer"
  printf '%-34s %10.2f %10.4f %8.2f\n' "PyTorch (1 thread, eager)" "$secs" "$acc" \
    "$(echo "$ours_s / $secs" | bc -l)"
else
  echo "PyTorch: not found (set PYTHON to a Python with torch and safetensors)"
fi
