#!/usr/bin/env bash
# Convolution beside PyTorch (channels last) in the same run, on THREADS (1)
# threads: the examples/cnn training step at batch 64 and 256, and a conv
# layer alone (batch 8, 32x32, 64 to 64 channels, 3x3) forward and with
# backward; ours over PyTorch's (lower is better for us).
set -euo pipefail
cd "$(dirname "$0")/.."
threads=${1:-1}
[[ -x build/default/bin/bench_conv ]] || scripts/build default >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build/default/bin/bench_conv "$threads" . >"$work/ours"
"${PYTHON:-python3}" bench/conv_torch.py "$threads" >"$work/peer" 2>/dev/null || echo "# no PyTorch" >"$work/peer"
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $threads thread(s)"
printf '%-16s %12s %12s %9s\n' "case" "ours (us)" "PyTorch (us)" "ours/PT"
while read -r name us; do
  peer=$(awk -v n="$name" '$1 == n { print $2 }' "$work/peer")
  ratio=$([[ -n $peer ]] && awk "BEGIN { printf \"%.2f\", $us / $peer }" || echo -)
  printf '%-16s %12s %12s %9s\n' "$name" "$us" "${peer:--}" "$ratio"
done <"$work/ours"
