#!/usr/bin/env bash
# fuzz_onnx_models for long campaigns (tests/fuzz/README.md): libFuzzer's
# coverage on the importer's objects, no sanitizers (six times the
# sanitize build's speed), linked with the default preset's static
# library (scripts/build default first). A find is replayed under the
# sanitize build. Usage: tests/fuzz/build_fast_onnx_fuzzer.sh OUT_FOLDER
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:?an output folder}
mkdir -p "$out"
flags=(-O2 -std=c++20 -DONNX_ML=1 -DONNX_NAMESPACE=onnx -I"$PWD" -I"$PWD/src" -I"$PWD/tests"
       -I"$PWD/include" -I"$PWD/build/default/include" -I"$PWD/build/default/tests/generated")
export out
printf '%s\n' onnx/*.cpp | xargs -P "$(nproc)" -I{} sh -c \
  'clang++-14 "$@" -fsanitize=fuzzer-no-link -fvisibility=hidden -c {} -o "$out/$(basename {} .cpp).o"' \
  _ "${flags[@]}"
clang++-14 "${flags[@]}" -fsanitize=fuzzer -c tests/fuzz/fuzz_onnx_models.cpp -o "$out/main.o"
libs=/usr/lib/x86_64-linux-gnu
clang++-14 -fsanitize=fuzzer "$out"/*.o -o "$out/fuzz_onnx_models" \
  build/default/lib/libss_test_support.a "$libs/libonnx.so.1" "$libs/libonnx_proto.so.1" \
  "$libs/libprotobuf.so" build/default/lib/libshapescript.a "$libs"/libspdlog.so.1.* \
  "$libs"/libfmt.so.9.* -ldl -lpthread
echo "built $out/fuzz_onnx_models"
