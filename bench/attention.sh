#!/usr/bin/env bash
# A causal self-attention block's training call (forward, backward, Adam)
# through the C++ API beside eager PyTorch on one thread (from $PYTHON).
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -x build/default/bin/bench_attention ]] || scripts/build default >/dev/null
ours=$(build/default/bin/bench_attention fast | awk '{print $2}')
peer=$("${PYTHON:-python3}" bench/attention_torch.py 2>/dev/null | awk '{print $2}') || peer=""
printf '%-44s %12s %12s %8s\n' "attention (b 8, seq 128, d 64, 4 heads)" "ours (us)" "PyTorch" "ratio"
printf '%-44s %12s %12s %8s\n' "forward + backward + Adam" "$ours" "${peer:--}" \
  "$([[ -n $peer ]] && awk "BEGIN { printf \"%.2f\", $ours / $peer }" || echo -)"
