// The CUDA executor on the stand-in driver (tests/fakes), whose launches do
// nothing: every graph of the test programs, the demos and their gradients
// runs through the executor's dispatch, every kernel it asks for compiles
// with NVRTC (for sm_90, as the stand-in reports), its results have the
// reference's shapes and element types, and a second executor with the
// same code cache compiles nothing. The values are checked on a GPU
// (tests/gpu/cuda_executor_gpu_test.cpp).
#include <doctest/doctest.h>

#include <cstdlib>
#include <memory>
#include <variant>

#include "kernels/cuda_driver.hpp"
#include "kernels/cuda_executor.hpp"
#include "kernels/nvrtc.hpp"
#include "runtime/reference/interpreter.hpp"
#include "runtime/reference/ops.hpp"
#include "shapescript/shapescript.hpp"
#include "support/batch_ops.hpp"
#include "support/checked_program.hpp"
#include "support/cuda_executors.hpp"
#include "support/fake_cuda.hpp"
#include "support/lowered_graphs.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"
#include "support/skip.hpp"

namespace {

using ss::test::NoopDevice;

int launches() {
  return ss::test::fake_cuda<int (*)()>("ss_fake_launches")();
}

// `graphs` false: every call uncaptured, as the first call of each size is
// (tests/kernels/cuda_graphs_test.cpp checks the captured ones).
std::unique_ptr<ss::runtime::GraphExecutor> executor(const ss::CodeCache& cache,
                                                     ss::Precision precision, bool cublas,
                                                     bool graphs = true) {
  if (!std::holds_alternative<ss::nvrtc::Compiler>(ss::nvrtc::Compiler::open(""))) return nullptr;
  std::string why;
  auto made = ss::test::cuda_executor_on(ss::test::built::fake_cuda, cache, precision, cublas, &why,
                                         graphs);
  REQUIRE_MESSAGE(made, why);
  return made;
}

struct Program {
  std::string file;
  bool gradients;
};
const std::vector<Program> kPrograms = {{"tests/programs/valid/operations.ss", false},
                                        {"examples/digits/digits.ss", false},
                                        {"examples/tinylm/tinylm.ss", false},
                                        {"tests/programs/gradients/ops.ss", true}};

// Runs every graph on `cuda`, checking each result's shape and type
// against the reference's; returns the graphs run.
int run_all(const ss::runtime::GraphExecutor& cuda, int* stale) {
  int graphs = 0;
  for (const auto& entry : kPrograms) {
    const auto& file = entry.file;  // named: clang 14 can't capture a binding
    const auto& gradients = entry.gradients;
    const auto program = ss::test::check_source_file(file);
    const auto& dims = program->typed.dims;
    for (const auto& lowered : ss::test::lowered_graphs(*program, gradients)) {
      const auto& function = lowered.function;  // named: clang 14 can't capture a binding
      const auto& g = lowered.graph;
      INFO(file << ": " << function);
      const auto inputs = ss::test::made_up_inputs(g, dims);
      std::vector<ss::runtime::Tensor> want, got;
      try {
        want = ss::runtime::run_graph(g, inputs, dims);
      } catch (const ss::runtime::reference::RangeError&) {
        continue;  // made-up values out of an Index's range: the reference refuses them too
      }
      try {
        got = ss::runtime::run_graph(g, inputs, dims, nullptr, &cuda);
      } catch (const ss::runtime::reference::RangeError& e) {
        // The kernels ran as no-ops, so an Index cast on the host read
        // whatever the reused memory held: not a finding here.
        MESSAGE("stale values out of range in " << function << ": " << e.what());
        ++*stale;
        continue;
      }
      REQUIRE(got.size() == want.size());
      for (std::size_t k = 0; k < got.size(); ++k) {
        CHECK(got[k].shape() == want[k].shape());
        CHECK(got[k].dtype() == want[k].dtype());
      }
      ++graphs;
    }
  }
  return graphs;
}

}  // namespace

TEST_CASE("every graph of the test programs runs through the CUDA executor, its kernels compiled") {
  NoopDevice device;
  ss::test::TempDir dir;
  const ss::CodeCache cache = ss::directory_code_cache(dir.path() + "/cache");
  const auto cuda = executor(cache, ss::Precision::f32, true);
  if (!cuda) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  const int before = launches();
  int stale = 0;
  const int graphs = run_all(*cuda, &stale);
  CHECK(stale <= 2);
  const auto counts = ss::cuda::cuda_counts(*cuda);
  CHECK(counts.graphs >= graphs - stale);
  CHECK(launches() - before > 100);
  CHECK(counts.kernels_compiled > 20);
  CHECK(counts.fused_kernels > 10);
  // The paths the programs need, on the device.
  for (const char* path : {"fused", "kernels", "gemm", "reductions", "moves", "created", "loop"})
    CHECK_MESSAGE(counts.nodes.count(path), path);
  // What the host still runs: random draws, sorts and the rare gradient
  // nodes (an einsum that isn't a batch of GEMMs), never a matmul, an
  // elementwise node, a reduction or a norm.
  for (const auto& entry : counts.nodes) {
    const auto& path = entry.first;  // named: clang 14 can't capture a binding
    const auto& n = entry.second;
    if (path.rfind("host ", 0) != 0) continue;
    MESSAGE(path << ": " << n);
    for (const std::string op :
         {"host matmul", "host unary", "host binary", "host where", "host reduce", "host softmax",
          "host cross_entropy", "host gather", "host scatter_add", "host causal", "host layer_norm",
          "host rms_norm", "host take_along", "host window", "host window_fold"})
      CHECK_MESSAGE(path != op, path);
  }
  if (counts.nodes.count("host einsum")) CHECK(counts.nodes.at("host einsum") <= 1);

  // A second executor on the same cache compiles nothing.
  const auto again = executor(cache, ss::Precision::f32, true);
  run_all(*again, &stale);
  const auto second = ss::cuda::cuda_counts(*again);
  CHECK(second.kernels_compiled == 0);
  CHECK(second.kernels_from_store == counts.kernels_compiled);
}

TEST_CASE("the CUDA executor's own GEMM kernel compiles, for machines without cuBLAS") {
  NoopDevice device;
  const auto cuda = executor({}, ss::Precision::f32, false);
  if (!cuda) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  const auto program = ss::test::check_source_file("examples/digits/digits.ss");
  for (const auto& [function, g] : ss::test::lowered_graphs(*program, false))
    ss::runtime::run_graph(g, ss::test::made_up_inputs(g, program->typed.dims), program->typed.dims,
                           nullptr, cuda.get());
  const auto counts = ss::cuda::cuda_counts(*cuda);
  CHECK_FALSE(counts.cublas);
  CHECK(counts.nodes.at("gemm") > 0);
}

TEST_CASE("a graph's outputs stay on the device until the host reads them") {
  NoopDevice device;
  const auto cuda = executor({}, ss::Precision::f32, true, false);
  if (!cuda) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  const auto program = ss::test::check_source_file("examples/digits/digits.ss");
  const auto& dims = program->typed.dims;
  const auto graphs = ss::test::lowered_graphs(*program, false);
  const ss::ir::Graph* step = ss::test::lowered_graph(graphs, "train_step");
  REQUIRE(step);
  auto inputs = ss::test::made_up_inputs(*step, dims);
  const auto fed_back = [&](const std::vector<ss::runtime::Tensor>& out) {
    // The step's results after its loss: the model and optimiser, by name.
    for (std::size_t k = 0; k < step->updated.size(); ++k) inputs[step->updated[k]] = out[1 + k];
  };
  const auto kept = [&] {
    const auto nodes = ss::cuda::cuda_counts(*cuda).nodes;
    return nodes.count("kept on device") ? nodes.at("kept on device") : 0;
  };
  fed_back(ss::runtime::run_graph(*step, inputs, dims, nullptr, cuda.get()));
  CHECK(kept() == 0);
  const auto second = ss::runtime::run_graph(*step, inputs, dims, nullptr, cuda.get());
  // Every state the first call made came back without a copy; the batch
  // was copied in.
  CHECK(kept() == static_cast<std::int64_t>(step->updated.size()));
  fed_back(second);
  (void)inputs.at(step->updated[0]).values();  // the host reads one: it comes back, and is
  ss::runtime::run_graph(*step, inputs, dims, nullptr, cuda.get());  // copied in next time
  CHECK(kept() == 2 * static_cast<std::int64_t>(step->updated.size()) - 1);
}

TEST_CASE("a resident value's tensors are copied to the device once, then kept with the value") {
  NoopDevice device;
  const auto cuda = executor({}, ss::Precision::f32, true, false);
  if (!cuda) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  const auto to_device = ss::test::fake_cuda<long long (*)()>("ss_fake_bytes_to_device");
  const auto program = ss::test::check_source_file("examples/digits/digits.ss");
  const auto& dims = program->typed.dims;
  const auto graphs = ss::test::lowered_graphs(*program, false);
  const ss::ir::Graph* logits = ss::test::lowered_graph(graphs, "logits");
  REQUIRE(logits);
  auto inputs = ss::test::made_up_inputs(*logits, dims);
  const auto copied = [&] {
    const long long before = to_device();
    ss::runtime::run_graph(*logits, inputs, dims, nullptr, cuda.get());
    return to_device() - before;
  };
  const long long plain = copied();
  CHECK(copied() == plain);  // host tensors: copied in at every call
  // The model's tensors as a published value holds them: frozen.
  long long model_bytes = 0;
  for (auto& [name, t] : inputs)
    if (name.rfind("m.", 0) == 0) {
      t = t.clone();
      t.buffer()->freeze();
      model_bytes += t.size() * 4;
    }
  REQUIRE(model_bytes > 0);
  CHECK(copied() == plain);                // the first call copies them in
  CHECK(copied() == plain - model_bytes);  // and the next ones find them there
  CHECK(ss::cuda::cuda_counts(*cuda).nodes.at("resident on device") == 8);
}

TEST_CASE("a module on a GPU keeps its values there: copied in once, updated in place there") {
  NoopDevice device;
  if (!std::holds_alternative<ss::nvrtc::Compiler>(ss::nvrtc::Compiler::open(""))) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  // Uncaptured, to count how each input was found (cuda_graphs_test.cpp
  // checks the captured calls' copies).
  setenv("SHAPESCRIPT_CUDA_GRAPHS", "off", 1);
  const ss::Engine engine(
      {.device = ss::Device::cuda(0), .cuda_driver_library = ss::test::built::fake_cuda});
  REQUIRE(engine.ok());
  const ss::Module m =
      engine.load_file(std::string(ss::test::kSourceDir) + "/examples/digits/digits.ss");
  unsetenv("SHAPESCRIPT_CUDA_GRAPHS");
  REQUIRE_MESSAGE(m, (m.diagnostics().empty() ? "" : m.diagnostics()[0].render()));
  REQUIRE(m.executor_stats().executor.rfind("cuda", 0) == 0);
  ss::Value model = m.make("Mlp", {.seed = 0});
  ss::Value opt = m.make_optimizer("AdamW", model);
  const std::vector<float> pixels(8 * 64, 0.5f);
  const ss::Tensor x = ss::Tensor::view(pixels.data(), {8, 64});
  const auto nodes = [&](const std::string& path) {
    const auto all = m.executor_stats().nodes;
    return all.count(path) ? all.at(path) : 0;
  };
  REQUIRE(m.call("logits", {model, x}));
  REQUIRE(m.call("logits", {model, x}));
  CHECK(nodes("resident on device") == 8);  // the model's 4 tensors, each call
  // A training step's new version comes back as the GPU's: the next call
  // takes it where it is.
  const std::vector<std::int32_t> labels(8, 3);
  const ss::Value batch =
      m.batch("Digit", {{"pixels", x}, {"label", ss::Tensor::view(labels.data(), {8})}});
  REQUIRE(m.call("train_step", {ss::mut(model), ss::mut(opt), batch}));
  const auto kept = nodes("kept on device");
  REQUIRE(m.call("logits", {model, x}));
  CHECK(nodes("kept on device") == kept + 4);
}

TEST_CASE("several CUDA workers each run on their own GPU's executor") {
  NoopDevice device;
  if (!std::holds_alternative<ss::nvrtc::Compiler>(ss::nvrtc::Compiler::open(""))) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  const ss::EngineOptions engine{.cuda_driver_library = ss::test::built::fake_cuda,
                                 .nccl_library = ss::test::built::fake_cuda};
  const ss::Module m = ss::test::load_batch_ops("cuda[0 1]", {}, engine);
  REQUIRE_MESSAGE(m, (m.diagnostics().empty() ? "" : m.diagnostics()[0].render()));
  const int before = launches();
  // Two functions: with kernels as no-ops, most replicated outputs are
  // whatever each GPU's reused memory held, so the workers' copies differ
  // (which the group reports); these two's don't. tests/gpu checks them all.
  for (const std::string function : {"grad_ce", "logits"}) {
    const auto all_reduces = ss::test::kBatchOpsFunctions.at(function);
    INFO(function);
    const auto r = m.call(function, {}, ss::test::batch_ops_inputs(9));
    REQUIRE_MESSAGE(r, ss::test::rendered(r));
    // Each worker's all-reduces went through the collectives (on the
    // host's copy of its GPU's value), as on the CPU.
    REQUIRE(r.workers.size() == 2);
    for (const auto& w : r.workers) CHECK(w.all_reduces == all_reduces);
  }
  CHECK(launches() > before);  // the workers' kernels ran on their GPUs
  // The one device's executor of the module is the CPU's: the workers' are their own.
  CHECK(m.executor_stats().executor == "fast");
}

TEST_CASE("under --precision bf16 every graph runs with values kept in bf16, its results float32") {
  NoopDevice device;
  ss::test::TempDir dir;
  const ss::CodeCache cache = ss::directory_code_cache(dir.path() + "/cache");
  const auto f32 = executor(cache, ss::Precision::f32, true, false);
  if (!f32) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  const auto bf16 = executor(cache, ss::Precision::bf16, true, false);
  int stale = 0;
  run_all(*f32, &stale);
  ss::test::fake_cuda<void (*)(int)>("ss_fake_log")(1);
  std::free(ss::test::fake_cuda<char* (*)()>("ss_fake_log_take")());
  const int graphs = run_all(*bf16, &stale);  // each result's shape and float32 type
  char* text = ss::test::fake_cuda<char* (*)()>("ss_fake_log_take")();
  const std::string log = text;
  std::free(text);
  ss::test::fake_cuda<void (*)(int)>("ss_fake_log")(0);
  CHECK(graphs > 20);
  // Fused kernels that store bf16 and that load it, and GEMM operands
  // narrowed (a weight) on the way in.
  CHECK(log.find("_bf16_o") != std::string::npos);
  CHECK(log.find("_bf16_1") != std::string::npos);
  CHECK(log.find("kernel ss_pw_0_0_f32_bf16 ") != std::string::npos);
  CHECK(ss::test::path_count(*bf16, "gemm bf16") > 10);
  CHECK(log.find("kernel ss_reduce_0_bf16 ") != std::string::npos);  // a sum of kept values
  CHECK(ss::test::path_count(*f32, "gemm bf16") == 0);
  // Nothing more runs on the host than under f32: every reader of a kept
  // value reads bf16 on the device.
  const auto host_paths = [](const ss::runtime::GraphExecutor& cuda) {
    std::map<std::string, std::int64_t> host;
    for (const auto& [path, n] : ss::cuda::cuda_counts(cuda).nodes)
      if (path.rfind("host ", 0) == 0) host[path] = n;
    return host;
  };
  CHECK(host_paths(*bf16) == host_paths(*f32));
  CHECK(ss::cuda::cuda_counts(*bf16).nodes.at("fused") ==
        ss::cuda::cuda_counts(*f32).nodes.at("fused"));
}
