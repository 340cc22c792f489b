// Where the build put what a test binary runs. Each binary's values are in
// a file tests/CMakeLists.txt generates for it (ss_test_paths): no compile
// line carries an absolute path, so ccache hits from a clone in another
// folder. An empty string: that binary doesn't have it (no JIT built, ...).
#pragma once

namespace ss::test::built {

extern const char* const source_dir;  // the checkout the binary was built from
extern const char* const cli;         // the shapescript CLI
extern const char* const jit;         // libshapescript_jit.so
extern const char* const mpi;         // libshapescript_mpi.so
extern const char* const onnx;        // libshapescript_onnx.so
extern const char* const fake_cuda;   // the stand-in driver and NCCL (tests/fakes)
extern const char* const fake_cublas_lt;
extern const char* const fake_cudnn;

}  // namespace ss::test::built
