#!/usr/bin/env python3
"""The CPU-speed table (issue 21): every row on THREADS threads (1 by
default), ours beside every peer measured in this run: PyTorch eager, bf16
autocast and torch.compile, ONNX Runtime, JAX (jax.jit on XLA:CPU); ours
over the best float32 peer, the target, and each of our rows' share of one
core's FMA peak (bench_gemm's, measured here). A peer that isn't installed
is a `-`. Prints a Markdown table and the CPU line; run by bench/run.sh.

    python3 bench/cpu_table.py [THREADS]
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BIN = os.path.join(ROOT, "build", "default", "bin")
THREADS = sys.argv[1] if len(sys.argv) > 1 else "1"
PYTHON = os.environ.get("PYTHON", sys.executable)


def lines(command):
    try:
        out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=1200)
        return out.stdout.splitlines()
    except (OSError, subprocess.TimeoutExpired):
        return []


def table(command, peer=None):
    """`name us` lines (or `peer name us` with peer) as a dict."""
    got = {}
    for line in lines(command):
        parts = line.split()
        if peer is None and len(parts) == 2:
            got[parts[0]] = float(parts[1])
        elif peer is not None and len(parts) == 3 and parts[0] == peer:
            got[parts[1]] = float(parts[2])
    return got


ours = {}
ours.update(table([os.path.join(BIN, "bench_mlp"), "fast", THREADS]))
# --precision bf16 (bfloat16 contractions where the CPU has AVX512-BF16).
ours_bf16 = table([os.path.join(BIN, "bench_mlp"), "bf16", THREADS])
ours.update(table([os.path.join(BIN, "bench_attention"), "fast", THREADS]))
ours.update(table([os.path.join(BIN, "bench_conv"), THREADS, "."]))
peak = table([os.path.join(BIN, "bench_gemm"), "peak"]).get("peak")

mlp_peers = lines([PYTHON, os.path.join(HERE, "mlp_peers.py"), THREADS])
peers = {"PyTorch": {}, "ORT": {}, "JAX": {}, "PyTorch compile": {}, "PyTorch bf16": {}}
for line in mlp_peers:
    p = line.split()
    if len(p) == 3 and p[0] in ("torch", "ort"):
        peers["PyTorch" if p[0] == "torch" else "ORT"][p[1]] = float(p[2])
peers["PyTorch"].update(table([PYTHON, os.path.join(HERE, "attention_torch.py"), THREADS]))
peers["PyTorch"].update(table([PYTHON, os.path.join(HERE, "conv_torch.py"), THREADS]))
peers["JAX"] = table([PYTHON, os.path.join(HERE, "jax_peers.py"), THREADS], "jax")
variants = lines([PYTHON, os.path.join(HERE, "torch_variants.py"), THREADS])
for line in variants:
    p = line.split()
    if len(p) == 3 and p[0] in ("autocast", "compile"):
        peers["PyTorch bf16" if p[0] == "autocast" else "PyTorch compile"][p[1]] = float(p[2])

# name, what, FLOPs (for the share of the peak), target over the best f32 peer
MLP_FWD = 2 * (784 * 256 + 256 * 256 + 256 * 10)
MLP_STEP = 2 * 3 * (784 * 256 + 256 * 256 + 256 * 10) - 2 * 784 * 256  # no gradient for x
ATTENTION = 3 * (4 * 2 * 8 * 128 * 64 * 64 + 2 * 2 * 8 * 4 * 128 * 128 * 16)
CONV = 2 * 8 * 32 * 32 * 64 * 64 * 9
rows = [
    ("forward_b1", "MLP forward b1", MLP_FWD, 0.85),
    ("forward_b64", "MLP forward b64", 64 * MLP_FWD, 1.0),
    ("train_b64", "MLP train step AdamW b64", 64 * MLP_STEP, 0.8),
    ("train_b256", "MLP train step AdamW b256", 256 * MLP_STEP, 0.9),
    ("attention_step", "attention block fwd+bwd+Adam", ATTENTION, 0.8),
    ("conv_forward", "conv 64->64 3x3 [8 32 32] fwd", CONV, 0.8),
    ("conv_gradient", "conv 64->64 3x3 [8 32 32] fwd+bwd", 2 * CONV, 0.8),
    ("cnn_step_b64", "digits CNN train step b64", None, 0.8),
    ("cnn_step_b256", "digits CNN train step b256", None, 0.8),
]

cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
print(f"CPU: {cpu}; {THREADS} thread(s); FMA peak of one core "
      f"{peak if peak else '-'} GFLOP/s (bench_gemm)\n")
names = ["PyTorch", "ORT", "JAX", "PyTorch compile", "PyTorch bf16"]
print("| " + " | ".join(["row", "ours (us)"] + names + ["best f32 peer", "ours / best", "target",
                                                        "ours / peak"]) + " |")
print("|---|" + "---:|" * (len(names) + 5))
for key, what, flops, target in rows:
    us = ours.get(key)
    f32 = {n: peers[n][key] for n in names[:4] if key in peers[n]}
    best = min(f32.items(), key=lambda kv: kv[1]) if f32 else None
    cells = [what, f"{us:.0f}" if us else "-"]
    cells += [f"{peers[n][key]:.0f}" if key in peers[n] else "-" for n in names]
    cells.append(best[0] if best else "-")
    cells.append(f"{us / best[1]:.2f}" if us and best else "-")
    cells.append(f"<= {target}")
    share = flops / (us * 1e-6) / 1e9 / peak if us and flops and peak and THREADS == "1" else None
    cells.append(f"{share:.0%}" if share else "-")
    print("| " + " | ".join(cells) + " |")

# Our bf16 rows beside PyTorch's bf16 autocast and our own float32 figure.
has_bf16 = "avx512_bf16" in open("/proc/cpuinfo").read()
has_amx = "amx_bf16" in open("/proc/cpuinfo").read()
print(f"\n--precision bf16: AVX512-BF16 {'yes' if has_bf16 else 'no (runs float32)'}, "
      f"AMX {'yes' if has_amx else 'no'}\n")
print("| row | ours bf16 (us) | ours f32 (us) | PyTorch bf16 | bf16 / our f32 | bf16 / PyTorch bf16 |")
print("|---|---:|---:|---:|---:|---:|")
for key, what, _, _ in rows[:4]:
    half, full, peer = ours_bf16.get(key), ours.get(key), peers["PyTorch bf16"].get(key)
    cells = [what, f"{half:.0f}" if half else "-", f"{full:.0f}" if full else "-",
             f"{peer:.0f}" if peer else "-", f"{half / full:.2f}" if half and full else "-",
             f"{half / peer:.2f}" if half and peer else "-"]
    print("| " + " | ".join(cells) + " |")
