#!/usr/bin/env bash
# Every GPU check, on a machine with a GPU, from the bundle tests/gpu/bundle.sh
# built (build/gpu-bundle, or SS_GPU_BUNDLE). Finds NCCL where the loader
# does, else in Python's nvidia-nccl package. Prints each check and a
# summary; exits non-zero when a check fails or there is no GPU.
set -uo pipefail
cd "$(dirname "$0")/../.."
packed=${SS_GPU_BUNDLE:-build/gpu-bundle}/bundle.tar.gz
if [ ! -f "$packed" ]; then
  echo "no bundle at $packed: run tests/gpu/bundle.sh where the project builds"
  exit 2
fi
work=$(mktemp -d)
bundle="$work/bundle"
mkdir -p "$bundle" && tar xzf "$packed" -C "$bundle"
# The precompiled kernels, in a cache the checks, the CLI and the benchmark share.
[ -d "$bundle/cache" ] && cp -r "$bundle/cache" "$work/cache"
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# The toolkit's libraries (NVRTC, cuBLAS and cuBLASLt), where the loader may not look.
for cuda_lib in "${CUDA_HOME:-/usr/local/cuda}/lib64" /usr/local/cuda/lib64; do
  [ -d "$cuda_lib" ] && LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$cuda_lib" && break
done

# A library from Python's nvidia-* packages (PyTorch's): nvidia/PACKAGE/lib/FILE.
python_nvidia() {
  python3 - "$1" "$2" <<'PY' 2>/dev/null
import glob, os, site, sys
roots = site.getsitepackages() + [site.getusersitepackages()] + sys.path
for root in roots:
    for hit in glob.glob(os.path.join(root, "nvidia", sys.argv[1], "lib", sys.argv[2])):
        print(hit)
        raise SystemExit
PY
}
if [ -z "${SHAPESCRIPT_NCCL:-}" ] && ! ldconfig -p 2>/dev/null | grep -q 'libnccl\.so\.2'; then
  nccl=$(python_nvidia nccl libnccl.so.2)
  [ -n "$nccl" ] && export SHAPESCRIPT_NCCL="$nccl"
fi
# cuDNN likewise, where the toolkit's folder lacks it (its sub-libraries
# beside it, found through its own folder).
if [ -z "${SHAPESCRIPT_CUDNN:-}" ] && [ ! -e "${CUDA_HOME:-/usr/local/cuda}/lib64/libcudnn.so.9" ] &&
  ! ldconfig -p 2>/dev/null | grep -q 'libcudnn\.so\.9'; then
  cudnn=$(python_nvidia cudnn libcudnn.so.9)
  [ -n "$cudnn" ] && export SHAPESCRIPT_CUDNN="$cudnn" LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$(dirname "$cudnn")"
fi

echo "== machine"
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader 2>&1 || true
echo "bundle: $packed (commit $(cat "$bundle/commit" 2>/dev/null || echo unknown)," \
  "$(ls "$bundle/cache" 2>/dev/null | wc -l) precompiled kernels)"
echo "NCCL: ${SHAPESCRIPT_NCCL:-as the loader finds libnccl.so.2}"
echo "cuDNN: ${SHAPESCRIPT_CUDNN:-as the loader finds libcudnn.so.9}"

echo "== GPU checks (several devices, generated kernels, the CUDA executor)"
export SS_TEST_SOURCE_DIR=$PWD SS_REQUIRE_GPU=1 SS_GPU_CODE_CACHE="$work/cache"
"$bundle/bin/shapescript_gpu_tests" --list-test-cases --no-version | grep -v '^\[doctest\]\|^=*$'
log=$(mktemp)
timeout 240 "$bundle/bin/shapescript_gpu_tests" --no-breaks --success=false -s 2>&1 |
  grep -E '^(TEST CASE|.*(MESSAGE|ERROR|FATAL)|\[doctest\] (test cases|assertions))' | tee "$log"
status=${PIPESTATUS[0]}

# A demo trained on cuda:0: NAME FOLDER FILE MINIMUM [LAUNCHER...] (the
# program's devices line then picks its devices); its status in $demo_status.
demo() {
  local name=$1 folder=$2 file=$3 minimum=$4 accuracy
  shift 4
  local device=(--device cuda:0)
  [ $# -gt 0 ] && device=()
  [ -n "${DEMO_PRECISION:-}" ] && device+=(--precision "$DEMO_PRECISION")
  demo_status=1
  if (cd "$folder" && timeout 240 "$@" "$bundle/bin/shapescript" run "$file" "${device[@]}" \
    --sink metrics="$work/$name.csv" --code-cache "$work/cache" --stats >"$work/$name.out" \
    2>"$work/$name.err"); then
    tail -3 "$work/$name.out"
    grep -E '^(executor|  *[0-9]+  )|graphs' "$work/$name.err" | head -14
    accuracy=$(tail -1 "$work/$name.out" | awk '{print $NF}')
    awk "BEGIN { exit !($accuracy >= $minimum) }" && demo_status=0
    echo "$name accuracy $accuracy: $([ $demo_status -eq 0 ] && echo pass || echo FAIL)"
  else
    tail -20 "$work/$name.out" "$work/$name.err"
    echo "$name: FAIL"
  fi
}

echo "== digits on cuda:0 (30 epochs; accuracy at least 0.97)"
demo digits examples/digits digits.ss 0.97
digits_status=$demo_status
echo "== digits on cuda:0 under --precision bf16 (activations kept in bf16; accuracy at least 0.96)"
DEMO_PRECISION=bf16 demo digits_bf16 examples/digits digits.ss 0.96
digits_bf16_status=$demo_status
echo "== the CNN on cuda:0 (examples/cnn: 3 seeds, 20 epochs; mean accuracy at least 0.98)"
demo cnn examples/cnn cnn.ss 0.98
cnn_status=$demo_status
echo "== MPI, one process of cuda[0] (digits; its NCCL communicator made over MPI)"
mpi_status=0
if [ -x "$bundle/mpi/bin/orterun" ]; then
  mkdir -p "$work/mpi" && cp examples/digits/*.safetensors "$work/mpi/"
  { echo "devices cuda[0]"; cat examples/digits/digits.ss; } >"$work/mpi/digits.ss"
  demo mpi "$work/mpi" digits.ss 0.97 env OPAL_PREFIX="$bundle/mpi" OMPI_ALLOW_RUN_AS_ROOT=1 \
    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo \
    OMPI_MCA_oob_tcp_if_include=lo "$bundle/mpi/bin/orterun" -np 1
  mpi_status=$demo_status
  grep -E 'rank|all-reduce' "$work/mpi.err" | head -4
else
  echo "no Open MPI in the bundle (none where it was built): skipped"
fi

echo "== benchmark on cuda:0 (microseconds a call; ours beside PyTorch on this GPU)"
# PyTorch keeps its state and inputs on the GPU: `_resident` is ours alike.
# The other rows add the host's copies: state as host tensors each call, or
# a new batch from the host each call.
printf '%-42s %12s %12s %8s\n' "" "ours" "PyTorch" "ratio"
for precision in f32 tf32 bf16; do
  ours=$(timeout 150 "$bundle/bin/bench_gpu" "$precision" "$work/cache" 2>"$work/bench.err") || cat "$work/bench.err"
  peer=$(timeout 120 python3 bench/gpu_torch.py "$precision" 2>/dev/null) || peer=""
  for name in mlp_train_b256 mlp_train_b256_values mlp_train_b256_resident attention_step \
    attention_step_values attention_step_resident cnn_step_b256_resident; do
    a=$(echo "$ours" | awk -v n=$name '$1 == n {print $2}')
    b=$(echo "$peer" | awk -v n="${name%%_values}" '$1 == n {print $2}')
    [ -z "$b" ] && b=$(echo "$peer" | awk -v n="${name%%_resident}" '$1 == n {print $2}')
    printf '%-42s %12s %12s %8s\n' "$name, $precision" "${a:--}" "${b:--}" \
      "$([ -n "$a" ] && [ -n "$b" ] && awk "BEGIN { printf \"%.2f\", $a / $b }" || echo -)"
  done
done
head -2 "$work/bench.err"

echo "== CPU kernels on this machine's CPU"
grep -m1 'model name' /proc/cpuinfo
grep -m1 -o 'avx512f' /proc/cpuinfo || echo "no avx512f"
cpu_status=0
if [ -x "$bundle/bin/shapescript_tests" ]; then
  timeout 120 "$bundle/bin/shapescript_tests" --no-breaks --no-version \
    -tc='the GEMM matches*,beta 0 ignores*' 2>&1 | tail -4
  cpu_status=${PIPESTATUS[0]}
fi
# Under gVisor OpenBLAS can't identify the CPU and falls back to its Prescott
# kernels; name its AVX-512 ones so the peer is fair.
blas_core=${OPENBLAS_CORETYPE:-}
[ -z "$blas_core" ] && grep -q avx512f /proc/cpuinfo && blas_core=SkylakeX
[ -x "$bundle/bin/bench_gemm" ] && OPENBLAS_CORETYPE=${blas_core:-Haswell} timeout 120 "$bundle/bin/bench_gemm"

passed=$(sed -n 's/.*test cases: *[0-9]* | *\([0-9]*\) passed.*/\1/p' "$log")
failed=$(sed -n 's/.*| *\([0-9]*\) failed.*/\1/p' "$log" | head -1)
echo "== summary: ${passed:-0} passed, ${failed:-?} failed (exit $status)"
echo "== digits on cuda:0: $([ $digits_status -eq 0 ] && echo passed || echo FAILED)"
echo "== digits on cuda:0 under bf16: $([ $digits_bf16_status -eq 0 ] && echo passed || echo FAILED)"
echo "== the CNN on cuda:0: $([ $cnn_status -eq 0 ] && echo passed || echo FAILED)"
echo "== MPI, one process: $([ $mpi_status -eq 0 ] && echo passed || echo FAILED)"
echo "== CPU kernels: GEMM tests exit $cpu_status"
rm -rf "$log" "$work"
[ "$status" -eq 0 ] && [ "$cpu_status" -eq 0 ] && [ "$digits_status" -eq 0 ] &&
  [ "$digits_bf16_status" -eq 0 ] &&
  [ "$cnn_status" -eq 0 ] && [ "$mpi_status" -eq 0 ]
