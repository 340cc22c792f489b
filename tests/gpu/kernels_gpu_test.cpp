// Generated CUDA kernels on a real GPU (tests/gpu/run.sh): every fused
// elementwise kernel of the test programs and their gradients, compiled by
// NVRTC for the device, launched through the Driver API, agrees with the
// reference runtime's values for its root under docs/numerics.md's
// cuda-elementwise row (float32 throughout on the GPU, the reference's
// formulas in double); the reduction kernels agree with the fast CPU
// executor's rows under cuda-reduce.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <variant>

#include "gpu/gpu_setup.hpp"
#include "ir/fusion.hpp"
#include "kernels/cuda_driver.hpp"
#include "kernels/cuda_elementwise.hpp"
#include "kernels/cuda_reduce.hpp"
#include "kernels/nvrtc.hpp"
#include "runtime/fast/fast_loops.hpp"
#include "runtime/fast/fast_ops.hpp"
#include "runtime/reference/interpreter.hpp"
#include "support/checked_program.hpp"
#include "support/lowered_graphs.hpp"
#include "support/numerics.hpp"

namespace {

using ss::runtime::DType;
using ss::runtime::Tensor;

// Device 0's primary context made current, its module and launch calls,
// and NVRTC; released with the object.
struct Device {
  ss::cuda::Driver driver;
  ss::cuda::CUcontext context = nullptr;
  ss::nvrtc::Compiler nvrtc;
  int sm = 90;

  Device(ss::cuda::Driver d, ss::nvrtc::Compiler c) : driver(std::move(d)), nvrtc(std::move(c)) {}
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  ~Device() {
    if (context) driver.calls().cuDevicePrimaryCtxRelease(driver.handle(0));
  }
};

// The device, or null (after a message, or a failure where a GPU is required).
std::unique_ptr<Device> open_device() {
  auto driver = ss::test::driver_or_skip();
  if (!driver) return nullptr;
  REQUIRE_MESSAGE(driver->kernel_calls(), "the driver lacks cuModuleLoadData or cuLaunchKernel");
  REQUIRE(driver->check_device(0) == std::nullopt);
  auto compiler = ss::nvrtc::Compiler::open("");
  auto* nvrtc = std::get_if<ss::nvrtc::Compiler>(&compiler);
  REQUIRE_MESSAGE(nvrtc, "no NVRTC on the GPU machine");
  auto device = std::make_unique<Device>(std::move(*driver), std::move(*nvrtc));
  REQUIRE(device->driver.calls().cuDevicePrimaryCtxRetain(&device->context,
                                                          device->driver.handle(0)) == 0);
  REQUIRE(device->driver.calls().cuCtxSetCurrent(device->context) == 0);
  return device;
}

// Runs one kernel on the GPU: each input expanded to the root's shape on
// the host (the kernel reads an inner-broadcast one at column 0), copied
// over, the kernel launched, the result copied back.
std::vector<float> run_on_gpu(const Device& device, const std::string& ptx, const std::string& name,
                              const std::vector<Tensor>& inputs, const ss::runtime::Shape& shape) {
  using namespace ss::cuda;
  const auto& c = device.driver.calls();
  const auto& k = *device.driver.kernel_calls();
  const auto ok = [&](CUresult r, const char* what) {
    REQUIRE_MESSAGE(r == CUDA_SUCCESS, what << ": " << device.driver.describe(r));
  };
  const std::int64_t total = ss::runtime::element_count(shape);
  const std::int64_t inner = shape.empty() ? 1 : shape.back();
  const std::int64_t outer = inner ? total / inner : 0;
  CUmodule module = nullptr;
  ok(k.cuModuleLoadData(&module, ptx.c_str()), "cuModuleLoadData");
  CUfunction function = nullptr;
  ok(k.cuModuleGetFunction(&function, module, name.c_str()), "cuModuleGetFunction");
  std::vector<CUdeviceptr> buffers;
  // The kernel's argument struct: in[N] pointers, then stride[N] (N at
  // least 1, as the generated struct has).
  const std::size_t n = std::max<std::size_t>(1, inputs.size());
  std::vector<unsigned char> args(n * 16, 0);
  for (std::size_t j = 0; j < inputs.size(); ++j) {
    const Tensor full = ss::runtime::fast::expand(inputs[j], shape);
    const std::size_t bytes = std::max<std::size_t>(
        1, static_cast<std::size_t>(full.size()) * ss::runtime::dtype_size(full.dtype()));
    CUdeviceptr p = 0;
    ok(c.cuMemAlloc(&p, bytes), "cuMemAlloc");
    ok(c.cuMemcpyHtoDAsync(p, full.raw(), bytes, nullptr), "cuMemcpyHtoD");
    buffers.push_back(p);
    const long long stride = inner;
    std::memcpy(args.data() + j * 8, &p, 8);
    std::memcpy(args.data() + (n + j) * 8, &stride, 8);
  }
  CUdeviceptr out = 0;
  ok(c.cuMemAlloc(&out, std::max<std::size_t>(4, static_cast<std::size_t>(total) * 4)),
     "cuMemAlloc");
  long long outer_arg = outer, inner_arg = inner;
  void* params[] = {args.data(), &out, &outer_arg, &inner_arg};
  const auto blocks = static_cast<unsigned>(std::min<std::int64_t>(1024, (total + 255) / 256));
  if (total > 0)
    ok(k.cuLaunchKernel(function, blocks, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr),
       "cuLaunchKernel");
  std::vector<float> result(static_cast<std::size_t>(total));
  ok(c.cuMemcpyDtoHAsync(result.data(), out, result.size() * 4, nullptr), "cuMemcpyDtoH");
  ok(k.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
  for (const auto p : buffers) c.cuMemFree(p);
  c.cuMemFree(out);
  k.cuModuleUnload(module);
  return result;
}

}  // namespace

TEST_CASE("gpu: every generated elementwise kernel agrees with the reference, in float32") {
  const auto opened = open_device();
  if (!opened) return;
  const Device& device = *opened;
  const ss::nvrtc::Compiler* nvrtc = &device.nvrtc;
  int kernels = 0;
  std::int64_t elements = 0, differing = 0;
  for (const auto& entry :
       std::vector<std::pair<std::string, bool>>{{"tests/programs/valid/operations.ss", false},
                                                 {"examples/digits/digits.ss", false},
                                                 {"examples/tinylm/tinylm.ss", false},
                                                 {"tests/programs/gradients/ops.ss", true}}) {
    const auto& file = entry.first;  // named: clang 14 can't capture a binding
    const auto& gradients = entry.second;
    const auto program = ss::test::check_source_file(file);
    const auto& dims = program->typed.dims;
    for (const auto& lowered : ss::test::lowered_graphs(*program, gradients)) {
      const auto& function = lowered.function;  // named: clang 14 can't capture a binding
      const auto& g = lowered.graph;
      const auto plan = ss::ir::plan_fusion(g);
      if (plan.empty()) continue;
      // The reference's value of every kernel's inputs and root.
      ss::ir::Graph probe = g;
      probe.outputs.clear();
      for (const auto& kernel : plan) {
        probe.outputs.insert(probe.outputs.end(), kernel.inputs.begin(), kernel.inputs.end());
        probe.outputs.push_back(kernel.root);
      }
      std::vector<Tensor> values;
      try {
        values = ss::runtime::run_graph(probe, ss::test::made_up_inputs(g, dims, 37, 1.7), dims);
      } catch (const std::exception&) {
        continue;  // made-up inputs a function refuses
      }
      std::size_t at = 0;
      for (std::size_t k = 0; k < plan.size(); ++k) {
        const std::string name = function + "_k" + std::to_string(k);
        CAPTURE(file);
        CAPTURE(name);
        std::vector<Tensor> ins(
            values.begin() + static_cast<std::ptrdiff_t>(at),
            values.begin() + static_cast<std::ptrdiff_t>(at + plan[k].inputs.size()));
        const Tensor& root = values[at + plan[k].inputs.size()];
        at += plan[k].inputs.size() + 1;
        const auto source =
            ss::cuda::elementwise_source(plan[k], ss::ir::inner_broadcast(g, plan[k]), name);
        const auto compiled = nvrtc->compile(source, name + ".cu",
                                             {.sm = device.sm, .cubin = false}, {"--fmad=false"});
        if (const auto* failure = std::get_if<ss::nvrtc::Failure>(&compiled))
          FAIL(failure->message << "\n" << failure->log);
        const auto got =
            run_on_gpu(device, std::get<ss::nvrtc::Output>(compiled).code, name, ins, root.shape());
        const auto want = root.values();
        REQUIRE(got.size() == want.size());
        const double scale = ss::test::tensor_scale(want);
        for (std::size_t e = 0; e < got.size(); ++e) {
          const auto w = static_cast<float>(want[e]);
          if (got[e] == w || (std::isnan(got[e]) && std::isnan(w))) continue;
          ++differing;
          CHECK_MESSAGE(ss::test::agrees(got[e], w, scale, ss::test::tolerance("cuda-elementwise")),
                        "element " << e << ": gpu " << got[e] << ", reference " << w);
        }
        elements += static_cast<std::int64_t>(got.size());
        ++kernels;
      }
    }
  }
  // Float32 functions (expf, tanhf, ...) differ from the reference's
  // double ones in the last bits of many elements: the row bounds them.
  MESSAGE(kernels << " kernels, " << elements << " elements, " << differing
                  << " differing from the reference, all within cuda-elementwise");
  CHECK(kernels > 30);
}

TEST_CASE("gpu: the reduction kernels agree with the reference's, NaN rules included") {
  using namespace ss::cuda;
  const auto opened = open_device();
  if (!opened) return;
  const Driver& driver = opened->driver;
  const ss::nvrtc::Compiler* nvrtc = &opened->nvrtc;
  const auto& c = driver.calls();
  const auto& k = *driver.kernel_calls();
  const auto ok = [&](CUresult r, const char* what) {
    REQUIRE_MESSAGE(r == CUDA_SUCCESS, what << ": " << driver.describe(r));
  };
  for (int op = 0; op <= static_cast<int>(ss::ir::Reduce::std); ++op) {
    const auto reduce = static_cast<ss::ir::Reduce>(op);
    const std::string name = "reduce_" + std::to_string(op);
    const auto compiled =
        nvrtc->compile(reduction_source(reduce, name), name + ".cu", {.sm = 90}, {"--fmad=false"});
    REQUIRE(std::holds_alternative<ss::nvrtc::Output>(compiled));
    CUmodule module = nullptr;
    ok(k.cuModuleLoadData(&module, std::get<ss::nvrtc::Output>(compiled).code.c_str()), "load");
    CUfunction function = nullptr;
    ok(k.cuModuleGetFunction(&function, module, name.c_str()), "function");
    for (const long long group : {1LL, 7LL, 128LL, 1000LL}) {
      CAPTURE(op);
      CAPTURE(group);
      const long long rows = 300;
      std::vector<float> x(static_cast<std::size_t>(rows * group));
      for (std::size_t i = 0; i < x.size(); ++i)
        x[i] = static_cast<float>(3.0 * std::sin(0.37 * static_cast<double>(i)));
      x[0] = std::nanf("");  // row 0 starts with a NaN
      if (group > 2)
        x[static_cast<std::size_t>(group + 1)] = std::nanf("");  // row 1 has one inside
      CUdeviceptr in = 0, out = 0;
      ok(c.cuMemAlloc(&in, x.size() * 4), "alloc");
      ok(c.cuMemAlloc(&out, static_cast<std::size_t>(rows) * 4), "alloc");
      ok(c.cuMemcpyHtoDAsync(in, x.data(), x.size() * 4, nullptr), "copy");
      long long rows_arg = rows, group_arg = group;
      void* params[] = {&in, &out, &rows_arg, &group_arg};
      ok(k.cuLaunchKernel(function, static_cast<unsigned>(rows), 1, 1, kReduceThreads, 1, 1, 0,
                          nullptr, params, nullptr),
         "launch");
      std::vector<float> got(static_cast<std::size_t>(rows));
      ok(c.cuMemcpyDtoHAsync(got.data(), out, got.size() * 4, nullptr), "copy back");
      ok(k.cuStreamSynchronize(nullptr), "sync");
      c.cuMemFree(in);
      c.cuMemFree(out);
      for (long long r = 0; r < rows; ++r) {
        const float want = ss::runtime::fast::reduce_row(reduce, x.data() + r * group, group);
        const float g = got[static_cast<std::size_t>(r)];
        const bool exact = reduce == ss::ir::Reduce::max || reduce == ss::ir::Reduce::min;
        const bool same =
            (std::isnan(want) && std::isnan(g)) || g == want ||
            (!exact && ss::test::agrees(g, want, 1, ss::test::tolerance("cuda-reduce")));
        CHECK_MESSAGE(same, "row " << r << ": gpu " << g << ", reference " << want);
      }
    }
    k.cuModuleUnload(module);
  }
}
