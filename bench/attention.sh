#!/usr/bin/env bash
# A causal self-attention block's training call (forward, backward, Adam)
# through the C++ API beside eager PyTorch (from $PYTHON), on 1 and 2 threads.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ -x build/default/bin/bench_attention ]] || scripts/build default >/dev/null
printf '%-44s %12s %12s %8s\n' "attention (b 8, seq 128, d 64, 4 heads)" "ours (us)" "PyTorch" "ratio"
for threads in 1 2; do
  ours=$(build/default/bin/bench_attention fast "$threads" 2>/dev/null | awk '{print $2}')
  peer=$("${PYTHON:-python3}" bench/attention_torch.py "$threads" 2>/dev/null | awk '{print $2}') || peer=""
  printf '%-44s %12s %12s %8s\n' "forward + backward + Adam, $threads thread(s)" "$ours" "${peer:--}" \
    "$([[ -n $peer ]] && awk "BEGIN { printf \"%.2f\", $ours / $peer }" || echo -)"
done
