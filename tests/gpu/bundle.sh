#!/usr/bin/env bash
# Builds here what tests/gpu/run.sh runs on the GPU machine, which has a
# driver, the CUDA toolkit and Python's NCCL but no package registry, no LLVM
# and no spdlog: the GPU test binary and the shared libraries it needs beyond
# the C library, in build/gpu-bundle (ignored; the device tool carries it:
# `carry: ["build/gpu-bundle"]`).
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/build default >/dev/null
out=build/gpu-bundle
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
# The CLI (digits on cuda:0) and the GPU benchmark ride along, and the
# GEMM's test and benchmark: that machine's CPU may have the AVX-512 kernel
# this one can't run.
for exe in shapescript_gpu_tests shapescript_tests shapescript bench_gemm bench_gpu; do
  [ -x "build/default/bin/$exe" ] || continue
  cp "build/default/bin/$exe" "$out/bin/"
  strip "$out/bin/$exe"
done
ldd "$out"/bin/* | awk '/=> \// {print $3}' | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so* | libm.so* | libdl.so* | libpthread.so* | librt.so* | ld-linux*) ;;
    *) cp -L "$lib" "$out/lib/" ;;
  esac
done
git rev-parse --short HEAD >"$out/commit" 2>/dev/null || true
echo "bundle: $out ($(du -sh "$out" | cut -f1)): $(ls "$out/lib" | tr '\n' ' ')"
