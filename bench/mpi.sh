#!/usr/bin/env bash
# Several processes on MPI: a training step of the MLP 784-256-256-10
# (AdamW, global batch $BATCH) on 1, 2 and 4 processes of this machine
# (`mpirun -np N shapescript run`, loopback TCP, one thread each), the
# all-reduce time per step (from `run --stats`: the gradients' and the
# loss's, waiting for the others included), beside PyTorch DDP over Gloo on
# the same model, data and split (`torchrun --nproc_per_node N
# bench/mpi_ddp.py`), measured in the same run. A step's time is the
# difference of two runs (EPOCHS and 1 epoch) over their steps, so start-up
# and loading drop out. Needs $PYTHON with torch, numpy and safetensors.
set -euo pipefail
cd "$(dirname "$0")/.."
cli=$PWD/build/default/bin/shapescript
python=${PYTHON:-python3}
batch=${BATCH:-256}
epochs=${EPOCHS:-6}
examples=4096
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,tcp \
  OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_rmaps_base_oversubscribe=1 \
  GLOO_SOCKET_IFNAME=lo MASTER_ADDR=127.0.0.1

"$python" - "$dir/data.safetensors" "$examples" <<'PY'
import sys
import numpy as np
from safetensors.numpy import save_file
rng = np.random.default_rng(0)
n = int(sys.argv[2])
save_file({"pixels": rng.standard_normal((n, 784)).astype(np.float32),
           "label": rng.integers(0, 10, n).astype(np.int32)}, sys.argv[1])
PY
program() { # EPOCHS
  cat <<SS
dim D = 784
dim H = 256
dim C = 10

data Example:
    pixels: [D]
    label: [] Index[C]

model Mlp:
    param w1: [D H] = normal(std=0.05)
    param b1: [H] = zeros
    param w2: [H H] = normal(std=0.05)
    param b2: [H] = zeros
    param w3: [H C] = normal(std=0.05)
    param b3: [C] = zeros

fn loss(m: Mlp, batch: [b] Example) -> []:
    h = relu(relu(batch.pixels @ m.w1 + m.b1) @ m.w2 + m.b2)
    return cross_entropy(h @ m.w3 + m.b3, batch.label, over=C)

fn train_step(mut m: Mlp, mut opt: AdamW[Mlp], batch: [b] Example) -> []:
    l, g = value_and_grad(loss, m, batch)
    update(mut m, mut opt, g)
    return l

fn main():
    data: Dataset[Example] = load("data.safetensors")
    m = Mlp(seed=0)
    opt = AdamW(m, lr=1e-3, weight_decay=0.01)
    for epoch in range($1):
        for batch in data |> batches($batch):
            l = train_step(mut m, mut opt, batch)
    print("loss", l)
SS
}
program "$epochs" > "$dir/long.ss"
program 1 > "$dir/short.ss"
steps_per_epoch=$((examples / batch))
seconds() { # NP FILE: wall seconds of the run; its --stats in $dir/stats
  local start end
  start=$(date +%s%N)
  (cd "$dir" && mpirun -np "$1" "$cli" run "$2" --stats > out 2> stats)
  end=$(date +%s%N)
  awk "BEGIN { print ($end - $start) / 1e9 }"
}

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(nproc) cores"
echo "MLP 784-256-256-10, AdamW, global batch $batch, $((epochs - 1)) epochs of $steps_per_epoch steps timed; one thread a process"
printf '| processes | ours: ms/step | ours: all-reduce ms/step | DDP (Gloo): ms/step | Gloo all-reduce ms | ours / DDP (step) | ours / Gloo (all-reduce) |\n'
printf '|---:|---:|---:|---:|---:|---:|---:|\n'
mpirun -np 1 "$cli" run "$dir/short.ss" >/dev/null 2>&1 || true  # warm the code cache
for np in 1 2 4; do
  short=$(seconds "$np" short.ss)
  long=$(seconds "$np" long.ss)
  in_them=$(awk '$1 == "train_step" && $3 == 0 { print $8 }' "$dir/stats")
  steps=$(awk '$1 == "train_step" && $3 == 0 { print $4 }' "$dir/stats")
  ours=$(awk "BEGIN { print 1000 * ($long - $short) / ($steps - $steps_per_epoch) }")
  ours_reduce=$(awk "BEGIN { print 1000 * $in_them / $steps }")
  read -r ddp gloo elements < <(cd "$dir" && torchrun --nproc_per_node "$np" --master_port $((29500 + np)) \
    "$OLDPWD/bench/mpi_ddp.py" data.safetensors "$batch" $(((epochs - 1) * steps_per_epoch)) 2>/dev/null | tail -n 1)
  printf '| %d | %.2f | %.3f | %.2f | %.3f | %.2f | %.2f |\n' "$np" "$ours" "$ours_reduce" "$ddp" "$gloo" \
    "$(awk "BEGIN { print $ours / $ddp }")" "$(awk "BEGIN { print $ours_reduce / ($gloo > 0 ? $gloo : 1) }")"
done
echo "(the model's $elements parameters are all-reduced each step; ours: the rank-0 worker's time in its collectives, the loss's included)"
