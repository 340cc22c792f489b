#!/usr/bin/env bash
# Process start to first result: `shapescript run` of a program that loads
# the digits MLP's weights and prints the logits of one example: on the fast
# executor with a cold code cache (its kernels compiled in the run) and with
# a warm one (linked from the cache), and on the reference; beside ONNX
# Runtime and PyTorch doing the same from a fresh Python process (from
# $PYTHON). The best of 5 runs each.
set -euo pipefail
cd "$(dirname "$0")/.."
cli=build/default/bin/shapescript
[[ -x $cli ]] || scripts/build default >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp examples/digits/digits-test.safetensors "$work/"
sed -n '1,/^fn accuracy/p' examples/digits/digits.ss | sed '$d' >"$work/first.ss"
cat >>"$work/first.ss" <<'SS'
fn main():
    test: Dataset[Digit] = load("digits-test.safetensors")
    m = Mlp(seed=0)
    for batch in test |> batches(1) |> take(1):
        print(logits(m, batch.pixels))
SS
best() {  # COMMAND...: the best wall milliseconds of 5 runs
  local best=999999 start end ms
  for _ in 1 2 3 4 5; do
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1 || { echo "-"; return; }
    end=$(date +%s%N)
    ms=$(((end - start) / 1000000))
    ((ms < best)) && best=$ms
  done
  echo "$best"
}
printf '%-44s %10s\n' "process start to first result" "ms"
cold() {
  rm -rf "$work/cold"
  "$cli" run "$work/first.ss" --code-cache "$work/cold"
}
"$cli" run "$work/first.ss" --code-cache "$work/warm" >/dev/null
printf '%-44s %10s\n' "shapescript run (fast, cold code cache)" "$(best cold)"
printf '%-44s %10s\n' "shapescript run (fast, warm code cache)" \
  "$(best "$cli" run "$work/first.ss" --code-cache "$work/warm")"
printf '%-44s %10s\n' "shapescript run (reference)" "$(best "$cli" run "$work/first.ss" --executor reference)"
python=${PYTHON:-python3}
cat >"$work/peer_torch.py" <<'PY'
import torch
torch.set_num_threads(1)
m = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
print(m(torch.zeros(1, 64)))
PY
cat >"$work/peer_ort.py" <<'PY'
import numpy, onnx, onnx.helper as h, onnxruntime as ort
w1 = h.make_tensor("w1", onnx.TensorProto.FLOAT, [64, 128], numpy.zeros(64 * 128, numpy.float32))
w2 = h.make_tensor("w2", onnx.TensorProto.FLOAT, [128, 10], numpy.zeros(128 * 10, numpy.float32))
g = h.make_graph([h.make_node("MatMul", ["x", "w1"], ["h"]), h.make_node("Relu", ["h"], ["r"]),
                  h.make_node("MatMul", ["r", "w2"], ["y"])], "mlp",
                 [h.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 64])],
                 [h.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, 10])], [w1, w2])
o = ort.SessionOptions(); o.intra_op_num_threads = 1
s = ort.InferenceSession(h.make_model(g).SerializeToString(), o, providers=["CPUExecutionProvider"])
print(s.run(None, {"x": numpy.zeros((1, 64), numpy.float32)}))
PY
printf '%-44s %10s\n' "ONNX Runtime (python3 -c, a 64-128-10 MLP)" "$(best "$python" "$work/peer_ort.py")"
printf '%-44s %10s\n' "PyTorch (python3 -c, a 64-128-10 MLP)" "$(best "$python" "$work/peer_torch.py")"
