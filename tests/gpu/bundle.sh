#!/usr/bin/env bash
# Builds here what tests/gpu/run.sh runs on the GPU machine, which has a
# driver, the CUDA toolkit and Python's NCCL but no package registry, no LLVM
# and no spdlog: one compressed file, build/gpu-bundle/bundle.tar.gz
# (ignored; the device tool carries it: `carry: ["build/gpu-bundle"]`),
# holding the GPU test binary, the CLI, the benchmarks, the shared libraries
# they need beyond the C library, and the kernels the checks, the digits
# demo and the benchmark use, compiled by NVRTC for sm_90 into a code cache
# (cache/), so nothing compiles there.
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/build default >/dev/null
stage=build/gpu-bundle-files
out=build/gpu-bundle
rm -rf "$stage" "$out"
mkdir -p "$stage/bin" "$stage/lib" "$out"
# The GEMM's test and benchmark ride along: that machine's CPU may have the
# AVX-512 kernel this one can't run.
for exe in shapescript_gpu_tests shapescript_tests shapescript bench_gemm bench_gpu; do
  [ -x "build/default/bin/$exe" ] || continue
  cp "build/default/bin/$exe" "$stage/bin/"
  strip "$stage/bin/$exe"
done
# Open MPI, relocated by OPAL_PREFIX, for run.sh's one-process MPI check
# (that machine has none): its launcher and daemon, its plugins and help
# texts under the same paths below mpi/ as below its prefix here, and the
# adapter (found beside the CLI, lib/) with what it and the plugins load.
mpi_libs=()
if command -v ompi_info >/dev/null && [ -f build/default/lib/libshapescript_mpi.so ]; then
  path() { ompi_info --path "$1" | awk '{print $2}'; }
  prefix=$(path prefix) libdir=$(path libdir) datadir=$(path pkgdatadir) bindir=$(path bindir)
  plugins=$(dirname "$libdir")
  mkdir -p "$stage/mpi/bin" "$stage/mpi/$(dirname "${plugins#"$prefix"/}")" \
    "$stage/mpi/$(dirname "${datadir#"$prefix"/}")"
  cp -a "$plugins" "$stage/mpi/${plugins#"$prefix"/}"
  cp -a "$datadir" "$stage/mpi/${datadir#"$prefix"/}"
  cp -L "$bindir/orterun" "$bindir/orted" "$stage/mpi/bin/"
  ln -s orterun "$stage/mpi/bin/mpirun"
  cp -L build/default/lib/libshapescript_mpi.so "$stage/lib/"
  mpi_libs=("$stage/lib/libshapescript_mpi.so" "$stage/mpi/bin/orterun" "$stage/mpi/bin/orted")
  while IFS= read -r -d '' so; do mpi_libs+=("$so"); done < <(find "$stage/mpi" -name '*.so*' -type f -print0)
fi
ldd "$stage"/bin/* "${mpi_libs[@]}" 2>/dev/null | awk '/=> \// {print $3}' | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so* | libm.so* | libdl.so* | libpthread.so* | librt.so* | ld-linux*) ;;
    *) [ -e "$stage/lib/$(basename "$lib")" ] || cp -L "$lib" "$stage/lib/" ;;
  esac
done
if ! build/default/bin/cuda_precompile "$stage/cache" | tail -1; then
  echo "bundle: no precompiled kernels (no NVRTC here?); the GPU machine will compile them"
fi
git rev-parse --short HEAD >"$stage/commit" 2>/dev/null || true
tar czf "$out/bundle.tar.gz" -C "$stage" .
rm -rf "$stage"
echo "bundle: $out/bundle.tar.gz ($(du -h "$out/bundle.tar.gz" | cut -f1))"
