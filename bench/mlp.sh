#!/usr/bin/env bash
# The MLP 784-256-256-10 through the C++ API beside PyTorch and ONNX Runtime
# (bench/mlp_peers.py, from $PYTHON), on 1 and then 2 threads each: forward
# at batch 1 and 64, a training step at batch 64 and 256; microseconds per
# call and ours over the best peer's.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -x build/default/bin/bench_mlp ]] || scripts/build default >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build/default/bin/bench_mlp reference 1 >"$work/reference" 2>/dev/null || true
for threads in 1 2; do
  build/default/bin/bench_mlp fast "$threads" >"$work/ours"
  "${PYTHON:-python3}" bench/mlp_peers.py "$threads" >"$work/peers" 2>/dev/null ||
    echo "# no PyTorch" >"$work/peers"
  printf '%-22s %12s %12s %12s %12s %8s\n' "MLP, $threads thread(s)" "ours (us)" "reference" "PyTorch" \
    "ORT" "vs best"
  for name in forward_b1 forward_b64 train_b64 train_b256; do
    ours=$(awk -v n="$name" '$1 == n { print $2 }' "$work/ours")
    ref=$(awk -v n="$name" '$1 == n { print $2 }' "$work/reference")
    torch=$(awk -v n="$name" '$1 == "torch" && $2 == n { print $3 }' "$work/peers")
    onnx=$(awk -v n="$name" '$1 == "ort" && $2 == n { print $3 }' "$work/peers")
    best=$(printf '%s\n%s\n' "${torch:-}" "${onnx:-}" | awk 'NF && (m == "" || $1 < m) { m = $1 } END { print m }')
    ratio=$([[ -n $best ]] && awk "BEGIN { printf \"%.2f\", $ours / $best }" || echo "-")
    printf '%-22s %12s %12s %12s %12s %8s\n' "$name" "$ours" "${ref:--}" "${torch:--}" "${onnx:--}" "$ratio"
  done
  grep '^#' "$work/peers" || true
done
