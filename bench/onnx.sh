#!/usr/bin/env bash
# Imported ONNX models beside ONNX Runtime (issue 44), one thread: ResNet-18
# and MobileNetV2 at 224x224, a GRU policy (20 steps, hidden 32), a
# transformer encoder (2 layers, d 64, 24 tokens) and the MLP
# 784-256-256-10, exported from PyTorch by bench/onnx_models.py (random
# weights, seed fixed, nothing downloaded; opset 17, dynamo=False, the
# batch axis dynamic), each run through Engine::load_onnx and call_into
# (bench_onnx) and through ONNX Runtime's C API (bench_ort_c_model, the
# wheel's libonnxruntime.so), at batch 1 and 8, taking turns: p50 of each,
# ours over ORT's, our heap allocations per steady call, and whether the
# outputs agree within docs/numerics.md's `onnx` row. Then ResNet-18 and
# MobileNetV2 with `--precision bf16` (bfloat16 convolutions on AMX or
# AVX512-BF16, where the CPU has them) over ORT's float32, and the CNNs'
# allocations with SHAPESCRIPT_ONEDNN=0 (our own kernels, no oneDNN).
#
#   PYTHON=python-with-torch-torchvision-onnxruntime bench/onnx.sh
set -euo pipefail
cd "$(dirname "$0")/.."
py=${PYTHON:-python3}
[[ -x build/default/bin/bench_onnx && -x build/default/bin/bench_ort_c_model ]] ||
  scripts/build default >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$py" bench/onnx_models.py "$work" >/dev/null 2>&1 || {
  echo "bench/onnx.sh: exporting the models needs torch, torchvision and onnx in \$PYTHON" >&2
  exit 1
}
ort_lib=$("$py" -c 'import glob, os, onnxruntime
print(sorted(glob.glob(os.path.join(os.path.dirname(onnxruntime.__file__), "capi", "libonnxruntime.so*")))[0])')
ort_version=$("$py" -c 'import onnxruntime; print(onnxruntime.__version__)')

# calls per measurement: the CNNs' calls take milliseconds
calls() { case $1 in resnet18 | mobilenet_v2) echo $((40 / $2 + 5)) ;; *) echo 3000 ;; esac; }
target() {
  case $1 in
    resnet18 | mobilenet_v2) echo "<= 1.0" ;;
    gru_policy | encoder) echo "<= 0.8" ;;
    *) echo "-" ;;
  esac
}
less() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
# agree OURS.bin ORT.bin: "yes" within the onnx row (|d| <= 1e-5 + 1e-4 *
# the larger of 1 and ORT's largest |x|), else the worst ratio to the bound
agree() {
  "$py" -c 'import sys, numpy as np
a = np.fromfile(sys.argv[2], "<f4").astype(np.float64); b = np.fromfile(sys.argv[1], "<f4")
bound = 1e-5 + 1e-4 * max(1.0, float(np.abs(a).max()))
worst = float(np.abs(a - b).max()) / bound
print("yes" if worst <= 1 else "no (%.1fx the bound)" % worst)' "$1" "$2"
}

# ort NAME BATCH CALLS OUT.bin / ours NAME BATCH CALLS OUT.bin [PRECISION]: one
# run's line (ortc P50 P99 FIRST / ours P50 P99 FIRST ALLOCS LOAD_MS), the
# model's $input, $output, $in_shape and $out_shape as read from models.txt.
ort() {
  build/default/bin/bench_ort_c_model "$ort_lib" "$work/$1.onnx" 1 "$3" "$input" \
    "$work/$1.b$2.in.bin" "${in_shape/B/$2}" "$output" "$4" "${out_shape/B/$2}"
}
ours() {
  build/default/bin/bench_onnx "$work/$1.onnx" 1 "$3" "$work/$1.b$2.in.bin" "${in_shape/B/$2}" \
    "$4" "${out_shape/B/$2}" "${5:-f32}"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'); 1 thread; ONNX Runtime $ort_version (C API)"
echo
echo "| model | batch | ours p50 (us) | ORT p50 (us) | ours / ORT | target | ours: allocs a call | ours: load (ms) | outputs agree |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
while read -r name input output in_shape out_shape; do
  for b in 1 8; do
    n=$(calls "$name" "$b")
    best_ours="" best_ort=""
    for turn in 1 2; do
      read -r _ p _ <<<"$(ort "$name" "$b" "$n" "$work/$name.b$b.ort.bin")"
      [[ -z $best_ort ]] || less "$p" "$best_ort" && best_ort=$p
      read -r _ q _ _ allocs load <<<"$(ours "$name" "$b" "$n" "$work/$name.b$b.ours.bin")"
      [[ -z $best_ours ]] || less "$q" "$best_ours" && best_ours=$q
    done
    echo "| $name | $b | $best_ours | $best_ort | $(ratio "$best_ours" "$best_ort") | $(target "$name") | $allocs | $load | $(agree "$work/$name.b$b.ours.bin" "$work/$name.b$b.ort.bin") |"
  done
done <"$work/models.txt"

bf16=$(build/default/bin/shapescript devices 2>/dev/null | sed -n 's/^cpu .*bf16 contractions //p')
echo
echo "--precision bf16 (this CPU's bf16 contractions: ${bf16:-unknown}; without AVX512-BF16 or AMX they are float32); ORT in float32"
echo
echo "| model | batch | ours bf16 p50 (us) | ORT f32 p50 (us) | ours bf16 / ORT f32 | target | rel. error of the logits |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for name in resnet18 mobilenet_v2; do
  read -r _ input output in_shape out_shape < <(grep "^$name " "$work/models.txt")
  for b in 1 8; do
    n=$(calls "$name" "$b")
    read -r _ p _ <<<"$(ort "$name" "$b" "$n" "$work/$name.b$b.ort.bin")"
    read -r _ q _ <<<"$(ours "$name" "$b" "$n" "$work/$name.b$b.bf16.bin" bf16)"
    error=$("$py" -c 'import sys, numpy as np
a = np.fromfile(sys.argv[2], "<f4").astype(np.float64); b = np.fromfile(sys.argv[1], "<f4")
print("%.1e" % (np.linalg.norm(a - b) / np.linalg.norm(a)))' "$work/$name.b$b.bf16.bin" "$work/$name.b$b.ort.bin")
    t="-"
    [[ $name == resnet18 ]] && t="<= 0.6"
    echo "| $name | $b | $q | $p | $(ratio "$q" "$p") | $t | $error |"
  done
done

echo
echo "Without oneDNN (SHAPESCRIPT_ONEDNN=0: our im2col GEMM and the grouped chain's own nodes), batch 1:"
echo
echo "| model | ours p50 (us) | allocs a call |"
echo "|---|---:|---:|"
for name in resnet18 mobilenet_v2; do
  read -r _ input output in_shape out_shape < <(grep "^$name " "$work/models.txt")
  read -r _ q _ _ allocs _ <<<"$(SHAPESCRIPT_ONEDNN=0 ours "$name" 1 5 "$work/$name.plain.bin")"
  echo "| $name | $q | $allocs |"
done
