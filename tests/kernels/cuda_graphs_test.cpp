// CUDA graphs on the stand-in driver (tests/fakes), whose launches do
// nothing but are logged as they run, eager or replayed from a graph: the
// kernel, its grid and block, and each parameter word, a device address
// written as its allocation and offset. Every replay is checked against
// the uncaptured run it replaces: the same kernels with the same grids and
// arguments (allocations renamed by first use, since a graph's memory is
// its own), and the same bytes copied in. So a graph that is empty, stale
// (another size's, the last batch's) or wrong fails here, though no kernel
// computes anything.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

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

template <typename F>
F fake(const char* name) {
  return ss::test::fake_cuda<F>(name);
}

// What ran since the last call, as the stand-in logged it.
struct Ran {
  std::vector<std::string> kernels;  // in order, allocations renamed by first use
  std::vector<std::string> uploads;  // sorted: bytes and their hash
};

Ran take_log() {
  char* text = fake<char* (*)()>("ss_fake_log_take")();
  std::istringstream lines(text);
  std::free(text);
  Ran ran;
  std::map<std::string, int> renamed;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string kind;
    words >> kind;
    if (kind == "upload") {
      std::string to, bytes, hash;
      words >> to >> bytes >> hash;
      ran.uploads.push_back(bytes + " " + hash);
      continue;
    }
    std::string out = kind;
    for (std::string w; words >> w;) {
      if (w[0] == '@') {
        const auto plus = w.find('+');
        const std::string serial = w.substr(0, plus);
        const auto [it, added] = renamed.emplace(serial, static_cast<int>(renamed.size()));
        w = "@" + std::to_string(it->second) + w.substr(plus);
      }
      out += " " + w;
    }
    ran.kernels.push_back(out);
  }
  std::sort(ran.uploads.begin(), ran.uploads.end());
  return ran;
}

void check_same(const Ran& replayed, const Ran& eager) {
  REQUIRE(!eager.kernels.empty());
  CHECK(replayed.kernels.size() == eager.kernels.size());
  const std::size_t n = std::min(replayed.kernels.size(), eager.kernels.size());
  for (std::size_t k = 0; k < n; ++k) {
    CAPTURE(k);
    if (replayed.kernels[k] != eager.kernels[k] && std::getenv("SS_DEBUG_LOG"))
      for (std::size_t j = 0; j < n; ++j)
        MESSAGE(j << "\n  " << replayed.kernels[j] << "\n  " << eager.kernels[j]);
    REQUIRE(replayed.kernels[k] == eager.kernels[k]);
  }
  CHECK(replayed.uploads == eager.uploads);
}

// Both executors of a test share a code cache, so NVRTC compiles each kernel once.
std::unique_ptr<ss::runtime::GraphExecutor> executor(bool graphs, const ss::test::TempDir& cache,
                                                     ss::Precision precision = ss::Precision::f32) {
  std::string why;
  auto made = ss::test::cuda_executor_on(ss::test::built::fake_cuda,
                                         ss::directory_code_cache(cache.path() + "/cache"),
                                         precision, true, &why, graphs);
  REQUIRE_MESSAGE(made, why);
  return made;
}

bool have_nvrtc() {
  return std::holds_alternative<ss::nvrtc::Compiler>(ss::nvrtc::Compiler::open(""));
}

struct Log {
  Log() {
    fake<void (*)(int)>("ss_fake_log")(1);
    take_log();
  }
  ~Log() { fake<void (*)(int)>("ss_fake_log")(0); }
};

// A batch of `rows` made-up examples for digits' train_step, different for each `seed`.
void new_batch(std::map<std::string, ss::runtime::Tensor>& inputs, int seed) {
  for (auto& [name, t] : inputs) {
    if (name.rfind("batch.", 0) != 0) continue;
    auto fresh = ss::runtime::Tensor::zeros(t.dtype(), t.shape());
    for (std::int64_t i = 0; i < fresh.size(); ++i)
      fresh.set(i, t.dtype() == ss::runtime::DType::i32
                       ? (i + seed) % 10
                       : 0.01 * static_cast<double>(i % 97 + seed));
    t = fresh;
  }
}

}  // namespace

TEST_CASE("a training step replays as a CUDA graph that launches what the uncaptured step did") {
  NoopDevice device;
  if (!have_nvrtc()) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  const auto program = ss::test::check_source_file("examples/digits/digits.ss");
  const auto& dims = program->typed.dims;
  const auto graphs = ss::test::lowered_graphs(*program, false);
  const ss::ir::Graph* step = ss::test::lowered_graph(graphs, "train_step");
  REQUIRE(step);
  const auto to_device = fake<long long (*)()>("ss_fake_bytes_to_device");
  const auto graph_launches = fake<int (*)()>("ss_fake_graph_launches");

  // Six steps, each on a new batch, the state fed back; what each ran.
  const auto train = [&](const ss::runtime::GraphExecutor& cuda, std::vector<Ran>& ran,
                         std::vector<long long>& copied) {
    auto inputs = ss::test::made_up_inputs(*step, dims);
    Log log;
    for (int s = 0; s < 6; ++s) {
      new_batch(inputs, s);
      const long long before = to_device();
      const auto out = ss::runtime::run_graph(*step, inputs, dims, nullptr, &cuda);
      for (std::size_t k = 0; k < step->updated.size(); ++k) inputs[step->updated[k]] = out[1 + k];
      (void)out[0].values();  // the loss, read as a host reads it
      copied.push_back(to_device() - before);
      ran.push_back(take_log());
    }
  };
  std::vector<Ran> eager_ran, graph_ran;
  std::vector<long long> eager_copied, graph_copied;
  ss::test::TempDir cache;
  const auto eager = executor(false, cache);
  train(*eager, eager_ran, eager_copied);
  const int launches_before = graph_launches();
  const auto captured = executor(true, cache);
  train(*captured, graph_ran, graph_copied);

  const auto counts = ss::cuda::cuda_counts(*captured);
  // Step 1 uncaptured; steps 2 and 3 captured (one graph a state version);
  // step 4 re-captured over step 2's arena, reading step 3's results where
  // they lie; steps 5 and 6 replayed, the two graphs taking turns.
  CHECK(counts.graph_captures == 3);
  CHECK(counts.graph_replays == 2);
  CHECK(counts.graph_moved_out == 0);
  CHECK(graph_launches() - launches_before == 5);
  CHECK(ss::cuda::cuda_counts(*eager).graph_captures == 0);
  for (std::size_t s = 0; s < graph_ran.size(); ++s) {
    CAPTURE(s);
    check_same(graph_ran[s], eager_ran[s]);
  }
  // From the second step on, only the host's tensors are copied in (the
  // batch, the optimiser's settings): the state stays where the last step
  // left it.
  long long host_bytes = 0;
  for (const auto& [name, t] : ss::test::made_up_inputs(*step, dims))
    if (std::find(step->updated.begin(), step->updated.end(), name) == step->updated.end())
      host_bytes += t.size() * 4;
  for (std::size_t s = 1; s < graph_copied.size(); ++s) {
    CAPTURE(s);
    CHECK(graph_copied[s] == host_bytes);
    CHECK(eager_copied[s] == host_bytes);
  }
}

namespace {

// Each graph of `programs` (file, with gradients) called three times
// uncaptured and three times with graphs on: where the third call is a
// replay, it launches what the uncaptured third call did. Returns how
// many were compared.
int replays_match(const std::vector<std::pair<std::string, bool>>& programs,
                  ss::Precision precision) {
  ss::test::TempDir cache;
  const auto eager = executor(false, cache, precision);
  const auto captured = executor(true, cache, precision);
  int compared = 0, uncaptured = 0;
  std::string uncaptured_names;
  for (const auto& entry : programs) {
    const auto& file = entry.first;  // named: clang 14 can't capture a binding
    const auto program = ss::test::check_source_file(file);
    const auto& dims = program->typed.dims;
    for (const auto& lowered : ss::test::lowered_graphs(*program, entry.second)) {
      const auto& function = lowered.function;  // named: clang 14 can't capture a binding
      const auto& g = lowered.graph;
      INFO(file << ": " << function);
      const auto inputs = ss::test::made_up_inputs(g, dims);
      try {
        ss::runtime::run_graph(g, inputs, dims);
      } catch (const ss::runtime::reference::RangeError&) {
        continue;  // made-up ids out of range: the reference refuses them too
      }
      // Three calls each, their results read (so the stream has run them):
      // the third is a replay where the graph can be captured.
      const auto three = [&](const ss::runtime::GraphExecutor& cuda) {
        Log log;
        std::vector<ss::runtime::Tensor> out;
        Ran last;
        for (int call = 0; call < 3; ++call) {
          out = ss::runtime::run_graph(g, inputs, dims, nullptr, &cuda);
          for (auto& t : out) (void)t.values();
          last = take_log();
        }
        return std::make_pair(last, out);
      };
      const auto before = ss::cuda::cuda_counts(*captured);
      std::pair<Ran, std::vector<ss::runtime::Tensor>> want, got;
      try {
        want = three(*eager);
        got = three(*captured);
      } catch (const ss::runtime::reference::RangeError&) {
        continue;  // no-op kernels leave ids in reused memory as they were
      }
      const auto after = ss::cuda::cuda_counts(*captured);
      REQUIRE(got.second.size() == want.second.size());
      for (std::size_t k = 0; k < got.second.size(); ++k) {
        CHECK(got.second[k].shape() == want.second[k].shape());
        CHECK(got.second[k].dtype() == want.second[k].dtype());
      }
      if (after.graph_replays == before.graph_replays) {
        // Uncaptured: something of it runs on the host.
        ++uncaptured;
        uncaptured_names += " " + function;
        CHECK(after.graph_uncaptured > before.graph_uncaptured);
        bool host = false;
        for (const auto& [path, n] : after.nodes) host = host || path.rfind("host ", 0) == 0;
        CHECK(host);
        continue;
      }
      CHECK(after.graph_replays == before.graph_replays + 1);
      check_same(got.first, want.first);
      ++compared;
    }
  }
  MESSAGE(compared << " graphs replayed and compared, " << uncaptured
                   << " uncaptured:" << uncaptured_names);
  return compared;
}

}  // namespace

TEST_CASE("every graph of the test programs replays what its uncaptured run launched") {
  NoopDevice device;
  if (!have_nvrtc()) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  CHECK(replays_match({{"tests/programs/valid/operations.ss", false},
                       {"examples/digits/digits.ss", false},
                       {"examples/tinylm/tinylm.ss", false},
                       {"tests/programs/gradients/ops.ss", true}},
                      ss::Precision::f32) > 20);
}

TEST_CASE("under bf16 the demos' graphs replay what their uncaptured runs launched") {
  // The kept values' narrowings, bf16 GEMMs and bf16 kernels among them.
  NoopDevice device;
  if (!have_nvrtc()) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  CHECK(replays_match({{"examples/digits/digits.ss", true}, {"examples/tinylm/tinylm.ss", false}},
                      ss::Precision::bf16) > 5);
}

// `fn same(x: [n]) -> [n]` on a capturing executor: call(v) runs it on
// four copies of v, its result the graph's copy of its input.
struct SameGraph {
  std::unique_ptr<ss::test::CheckedProgram> program =
      ss::test::check_source_text("fn same(x: [n]) -> [n]:\n    return x\n");
  std::vector<ss::test::LoweredGraph> graphs = ss::test::lowered_graphs(*program, false);
  ss::test::TempDir cache;
  std::unique_ptr<ss::runtime::GraphExecutor> captured = executor(true, cache);

  ss::runtime::Tensor call(float v) const {
    REQUIRE(graphs.size() == 1);
    const std::map<std::string, ss::runtime::Tensor> inputs{
        {"x", ss::runtime::Tensor::from_values(ss::runtime::DType::f32, {4}, {v, v, v, v})}};
    return ss::runtime::run_graph(graphs[0].graph, inputs, program->typed.dims, nullptr,
                                  captured.get())
        .at(0);
  }
};

TEST_CASE("a CUDA graph's replay never changes a result the host still holds: it is moved out") {
  NoopDevice device;
  if (!have_nvrtc()) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  const SameGraph same;
  const auto first = same.call(1);   // uncaptured
  const auto second = same.call(2);  // captured: its result in the graph's memory
  const auto third = same.call(3);   // replayed over that memory
  const auto counts = ss::cuda::cuda_counts(*same.captured);
  REQUIRE(counts.graph_replays == 1);
  CHECK(counts.graph_moved_out == 1);
  CHECK(first.get(0) == 1);
  CHECK(second.get(3) == 2);  // moved out before the third call's input landed
  CHECK(third.get(3) == 3);
}

TEST_CASE("a replay whose last results the host dropped hands out the same tensors, refetched") {
  NoopDevice device;
  if (!have_nvrtc()) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  const SameGraph same;
  (void)same.call(1);  // uncaptured
  (void)same.call(2);  // captured
  ss::runtime::Tensor a = same.call(3);
  CHECK(a.get(0) == 3);
  const void* at = a.raw();
  a = {};  // dropped: the next replay may hand it out again
  const ss::runtime::Tensor b = same.call(4);
  CHECK(b.raw() == at);  // the same host tensor
  CHECK(b.get(2) == 4);  // with the new launch's contents
  // Held, but fetched already: its host copy stays, and the next replay
  // hands out a new tensor (nothing on the device needs moving).
  const ss::runtime::Tensor c = same.call(5);
  CHECK(b.get(0) == 4);
  CHECK(c.raw() != b.raw());
  CHECK(c.get(1) == 5);
  const auto counts = ss::cuda::cuda_counts(*same.captured);
  CHECK(counts.graph_replays == 3);
  CHECK(counts.graph_moved_out == 0);
}

TEST_CASE(
    "a module's training step on a GPU becomes one graph launch, copying in its batch alone") {
  NoopDevice device;
  if (!have_nvrtc()) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  const ss::Engine engine(
      {.device = ss::Device::cuda(0), .cuda_driver_library = ss::test::built::fake_cuda});
  REQUIRE(engine.ok());
  const ss::Module m =
      engine.load_file(std::string(ss::test::kSourceDir) + "/examples/digits/digits.ss");
  REQUIRE_MESSAGE(m, (m.diagnostics().empty() ? "" : m.diagnostics()[0].render()));
  ss::Value model = m.make("Mlp", {.seed = 0});
  ss::Value opt = m.make_optimizer("AdamW", model);
  const auto to_device = fake<long long (*)()>("ss_fake_bytes_to_device");
  const auto graph_launches = fake<int (*)()>("ss_fake_graph_launches");
  const auto stat = [&](const std::string& path) {
    const auto all = m.executor_stats().nodes;
    return all.count(path) ? all.at(path) : 0;
  };
  const ss::Tensor kept = model.tensors().at("w1");  // the first version, held
  const long long batch_bytes = 8 * 64 * 4 + 8 * 4;
  for (int s = 0; s < 10; ++s) {
    CAPTURE(s);
    // A new batch each step, as a host would hand it over.
    std::vector<float> pixels(8 * 64, 0.01f * static_cast<float>(s));
    std::vector<std::int32_t> labels(8, s % 10);
    const ss::Value batch = m.batch("Digit", {{"pixels", ss::Tensor::view(pixels.data(), {8, 64})},
                                              {"label", ss::Tensor::view(labels.data(), {8})}});
    const long long bytes = to_device();
    const int launches = graph_launches();
    const auto replayed = stat("graphs replayed");
    const auto r = m.call("train_step", {ss::mut(model), ss::mut(opt), batch});
    REQUIRE_MESSAGE(r, ss::test::rendered(r));
    if (s >= 5) {  // after the warm-up, the first captures and one re-capture
      CHECK(graph_launches() - launches == 1);
      CHECK(stat("graphs replayed") == replayed + 1);
      CHECK(to_device() - bytes == batch_bytes);
    }
  }
  CHECK(stat("graphs captured") <= 4);
  CHECK(stat("graph results moved out") == 0);
  CHECK(kept.shape() == std::vector<std::int64_t>{64, 128});
  CHECK(model.version() == 11);
}

TEST_CASE("--deterministic sums an embedding's gradient in index order, without atomics") {
  NoopDevice device;
  if (!have_nvrtc()) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  const auto program = ss::test::check_source_file("examples/tinylm/tinylm.ss");
  const auto& dims = program->typed.dims;
  ss::test::TempDir cache;
  const auto kernels_of = [&](bool deterministic) {
    std::string why;
    const auto cuda = ss::test::cuda_executor_on(
        ss::test::built::fake_cuda, ss::directory_code_cache(cache.path() + "/cache"),
        ss::Precision::f32, true, &why, true, deterministic);
    REQUIRE_MESSAGE(cuda, why);
    Log log;
    std::map<std::string, int> names;
    for (const auto& lowered : ss::test::lowered_graphs(*program, true)) {
      try {
        for (auto& t :
             ss::runtime::run_graph(lowered.graph, ss::test::made_up_inputs(lowered.graph, dims),
                                    dims, nullptr, cuda.get()))
          (void)t.values();
      } catch (const ss::runtime::reference::RangeError&) {
        continue;  // no-op kernels leave ids in reused memory as they were
      }
      for (const auto& line : take_log().kernels) ++names[line.substr(7, line.find(' ', 7) - 7)];
    }
    return names;
  };
  auto atomics = kernels_of(false), ordered = kernels_of(true);
  CHECK(atomics["ss_scatter_add"] > 0);
  CHECK(atomics["ss_scatter_add_ordered"] == 0);
  CHECK(ordered["ss_scatter_add_ordered"] == atomics["ss_scatter_add"]);
  CHECK(ordered["ss_scatter_add"] == 0);
}

TEST_CASE(
    "a launch the driver refuses while capturing leaves the function uncaptured, not failed") {
  NoopDevice device;
  if (!have_nvrtc()) {
    ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
    return;
  }
  const auto program = ss::test::check_source_file("examples/digits/digits.ss");
  const auto& dims = program->typed.dims;
  const auto graphs = ss::test::lowered_graphs(*program, false);
  const ss::ir::Graph* logits = ss::test::lowered_graph(graphs, "logits");
  REQUIRE(logits);
  ss::test::TempDir cache;
  const auto captured = executor(true, cache);
  const auto refuse = fake<void (*)(int)>("ss_fake_refuse_in_capture");
  const auto inputs = ss::test::made_up_inputs(*logits, dims);
  refuse(1);
  for (int call = 0; call < 3; ++call) {
    const auto out = ss::runtime::run_graph(*logits, inputs, dims, nullptr, captured.get());
    REQUIRE(out.size() == 1);
    CHECK(out[0].shape() == std::vector<std::int64_t>{5, 10});
  }
  refuse(0);
  const auto counts = ss::cuda::cuda_counts(*captured);
  CHECK(counts.graph_captures == 0);
  CHECK(counts.graph_uncaptured >= 1);
  CHECK(counts.graphs == 3);
}
