#!/usr/bin/env bash
# The host's own time per call of the GPU benchmark's calls (bench_gpu) on the
# stand-in driver (tests/fakes), where every kernel is a no-op: what is left
# is what the host spends dispatching, launching and copying. Uncaptured
# (SHAPESCRIPT_CUDA_GRAPHS=off) beside CUDA graphs replayed, in the same run,
# alternating, best of ROUNDS (default 3), under PRECISION (default f32;
# bf16 keeps activations in bf16). Needs the default build with NVRTC.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/default
export SHAPESCRIPT_CUDA_DRIVER=$PWD/$build/lib/libss_fake_cuda.so
export SS_FAKE_CUDA_LAUNCHES=noop SS_FAKE_CUDA_SM=90
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
rounds=${ROUNDS:-3}
precision=${PRECISION:-f32}
declare -A best
for ((r = 0; r < rounds; ++r)); do
  for graphs in off on; do
    while read -r name us; do
      key="$name $graphs"
      if [ -z "${best[$key]:-}" ] || awk "BEGIN { exit !($us < ${best[$key]}) }"; then
        best[$key]=$us
      fi
    done < <(SHAPESCRIPT_CUDA_GRAPHS=$graphs "$build/bin/bench_gpu" "$precision" "$cache" 2>/dev/null)
  done
done
grep -m1 'model name' /proc/cpuinfo | sed 's/.*: /CPU: /'
echo "host microseconds a call on the stand-in driver (no-op kernels), $precision, best of $rounds"
printf '%-30s %12s %12s %8s\n' "call" "uncaptured" "graphs" "ratio"
for name in mlp_train_b256 mlp_train_b256_values mlp_train_b256_resident \
  attention_step attention_step_values attention_step_resident cnn_step_b256_resident; do
  a=${best["$name off"]:-}
  b=${best["$name on"]:-}
  printf '%-30s %12s %12s %8s\n' "$name" "${a:--}" "${b:--}" \
    "$([ -n "$a" ] && [ -n "$b" ] && awk "BEGIN { printf \"%.2f\", $b / $a }" || echo -)"
done
