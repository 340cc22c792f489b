#!/usr/bin/env bash
# Every GPU check, on a machine with a GPU, from the bundle tests/gpu/bundle.sh
# built (build/gpu-bundle, or SS_GPU_BUNDLE). Finds NCCL where the loader
# does, else in Python's nvidia-nccl package. Prints each check and a
# summary; exits non-zero when a check fails or there is no GPU.
set -uo pipefail
cd "$(dirname "$0")/../.."
bundle=${SS_GPU_BUNDLE:-build/gpu-bundle}
if [ ! -x "$bundle/bin/shapescript_gpu_tests" ]; then
  echo "no bundle in $bundle: run tests/gpu/bundle.sh where the project builds"
  exit 2
fi
export LD_LIBRARY_PATH="$PWD/$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

if [ -z "${SHAPESCRIPT_NCCL:-}" ] && ! ldconfig -p 2>/dev/null | grep -q 'libnccl\.so\.2'; then
  nccl=$(python3 - <<'PY' 2>/dev/null
import glob, os, site, sys
roots = site.getsitepackages() + [site.getusersitepackages()] + sys.path
for root in roots:
    for hit in glob.glob(os.path.join(root, "nvidia", "nccl", "lib", "libnccl.so.2")):
        print(hit)
        raise SystemExit
PY
  )
  [ -n "$nccl" ] && export SHAPESCRIPT_NCCL="$nccl"
fi

echo "== machine"
nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader 2>&1 || true
echo "bundle: $bundle (commit $(cat "$bundle/commit" 2>/dev/null || echo unknown))"
echo "NCCL: ${SHAPESCRIPT_NCCL:-as the loader finds libnccl.so.2}"

echo "== several devices"
export SS_TEST_SOURCE_DIR=$PWD SS_REQUIRE_GPU=1
"$bundle/bin/shapescript_gpu_tests" --list-test-cases --no-version | grep -v '^\[doctest\]\|^=*$'
log=$(mktemp)
timeout 240 "$bundle/bin/shapescript_gpu_tests" --no-breaks --success=false -s 2>&1 |
  grep -E '^(TEST CASE|.*(MESSAGE|ERROR|FATAL)|\[doctest\] (test cases|assertions))' | tee "$log"
status=${PIPESTATUS[0]}

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
echo "== CPU kernels: GEMM tests exit $cpu_status"
rm -f "$log"
[ "$status" -eq 0 ] && [ "$cpu_status" -eq 0 ]
