#!/usr/bin/env bash
# Builds the default preset and prints every benchmark's table, with a line
# about the machine it ran on.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build default >/dev/null
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%F)"
build/default/bin/bench_check
# The GEMM beside OpenBLAS with the kernel the environment picks
# (OPENBLAS_CORETYPE, Haswell here), and with the one it finds for this CPU.
if [[ -x build/default/bin/bench_gemm ]]; then
  build/default/bin/bench_gemm
  env -u OPENBLAS_CORETYPE build/default/bin/bench_gemm | tail -n +4
fi
bench/digits_training.sh
bench/mlp.sh
# The CPU-speed table: every row beside PyTorch (eager, compile, bf16
# autocast), ONNX Runtime and JAX, as ratios and shares of the FMA peak.
"${PYTHON:-python3}" bench/cpu_table.py 1
"${PYTHON:-python3}" bench/cpu_table.py 2
bench/attention.sh
bench/cold_start.sh
bench/several_devices.sh
bench/mpi.sh
# Models imported from ONNX beside ONNX Runtime's C API (issue 44).
bench/onnx.sh
