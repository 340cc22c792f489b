#!/usr/bin/env bash
# The installed package as a host meets it: `cmake --install` of this build
# into a scratch prefix, then
#   - examples/embed (the digits host and the policy host) built as the host's own CMake project with
#     find_package(shapescript), and run;
#   - the C test program built with plain cc and pkg-config, and run;
#   - the installed CLI checking a program, and importing an ONNX model;
#   - an installed host importing and fine-tuning an ONNX model (where the
#     build has the ONNX importer);
#   - the examples' CMake project built against the build tree's own
#     package (find_package with shapescript_DIR=BUILD_DIR).
# Usage: installed_package_test.sh BUILD_DIR SOURCE_DIR [SANITIZERS [CC CXX]]
# SANITIZERS (the build's SS_SANITIZE, "address;undefined"): a sanitized
# library needs its runtime in the host too, so the hosts are built with it,
# by the build's own compilers (CC, CXX: clang's runtime isn't gcc's).
set -euo pipefail
build=$1
src=$2
sanitize=${3:-}
cc=${4:-cc}
cxx=${5:-c++}
san_flags=""
c_san_flags=""
if [ -n "$sanitize" ]; then
  san_flags="-fsanitize=${sanitize//;/,}"
  c_san_flags=$san_flags
  # The library's UBSan checks need the C++ half of clang's runtime, which a
  # C link (c_host, the C test) leaves out.
  case "$("$cc" --version)" in *clang*) c_san_flags="$san_flags -fsanitize-link-c++-runtime -lstdc++" ;; esac
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"

cmake --install "$build" --prefix "$prefix" >/dev/null
cmake -S "$src/examples/embed" -B "$work/embed" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_RPATH="$prefix/lib" \
  -DCMAKE_CXX_FLAGS="$san_flags" -DCMAKE_EXE_LINKER_FLAGS="$c_san_flags" >/dev/null
cmake --build "$work/embed" >/dev/null
"$work/embed/main" "$src/examples/digits/digits.ss" >"$work/embed.out" 2>&1 || true
grep -q "batch 1000: logits \[1000 10\]" "$work/embed.out" ||
  { cat "$work/embed.out"; echo "FAIL: the installed embed example"; exit 1; }
"$work/embed/policy" "$src/examples/embed" "$work" >"$work/policy.out" 2>&1 &&
  grep -q "reloaded: identical" "$work/policy.out" ||
  { cat "$work/policy.out"; echo "FAIL: the installed policy example"; exit 1; }
echo "ok: examples/embed (main, policy) built with find_package(shapescript) and ran"
if [ -f "$build/lib/libshapescript_onnx.so" ]; then
  [ -f "$prefix/lib/libshapescript_onnx.so" ] || { echo "FAIL: the ONNX importer isn't installed"; exit 1; }
  "$work/embed/onnx_finetune" "$src/examples/embed" "$work" >"$work/onnx.out" 2>&1 &&
    grep -q "held-out accuracy 0\.[0-9]" "$work/onnx.out" ||
    { cat "$work/onnx.out"; echo "FAIL: the installed ONNX host"; exit 1; }
  "$prefix/bin/shapescript" import "$src/tests/onnx/models/small_cnn.onnx" -o "$work/cnn.ss" ||
    { echo "FAIL: the installed CLI's ONNX import"; exit 1; }
  echo "ok: an installed host and the installed CLI imported ONNX models"
fi
if [ -x "$work/embed/mpi_host" ] && [ -f "$prefix/lib/libshapescript_mpi.so" ]; then
  echo "ok: examples/embed's mpi_host built against the installed library and its MPI adapter"
fi

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# The C test checks that MPI which can't be opened is E1811 (as ctest runs it).
export SHAPESCRIPT_MPI=/nowhere/libshapescript_mpi.so
[ "$(pkg-config --modversion shapescript)" = "$(sed -n 's/^project(shapescript VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")" ] ||
  { echo "FAIL: pkg-config's version"; exit 1; }
# shellcheck disable=SC2046
"$cc" -std=c99 -pedantic -Wall -Werror $c_san_flags "$src/tests/c_api/c_api_test.c" -o "$work/c_api" \
  $(pkg-config --cflags --libs shapescript) -lm -Wl,-rpath,"$prefix/lib"
"$work/c_api" "$work"
echo "ok: the C test built with pkg-config and ran"

# The build tree's own shapescript.pc points at the build tree.
# shellcheck disable=SC2046
"$cc" -std=c99 -pedantic -Wall -Werror $c_san_flags "$src/tests/c_api/c_api_test.c" -o "$work/c_api_build" \
  $(PKG_CONFIG_PATH="$build" pkg-config --cflags --libs shapescript) -lm \
  -Wl,-rpath,"$build/lib"
"$work/c_api_build" "$work"
echo "ok: the C test built against the build tree's shapescript.pc and ran"

# find_package against the build tree itself.
cmake -S "$src/examples/embed" -B "$work/embed_build_tree" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -Dshapescript_DIR="$build" \
  -DCMAKE_CXX_FLAGS="$san_flags" -DCMAKE_EXE_LINKER_FLAGS="$c_san_flags" >/dev/null
cmake --build "$work/embed_build_tree" --target main >/dev/null
"$work/embed_build_tree/main" "$src/examples/digits/digits.ss" 2>&1 | grep -q "batch 1000: logits" ||
  { echo "FAIL: examples/embed against the build tree's package"; exit 1; }
echo "ok: find_package(shapescript) against the build tree"

"$prefix/bin/shapescript" check "$src/examples/digits/digits.ss"
echo "ok: the installed CLI"
