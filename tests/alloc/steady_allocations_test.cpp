// A steady-state call allocates nothing (issue 42): this binary replaces
// the global allocator (malloc and its kin, and operator new), and each case
// makes a call's frame (its first calls), then counts the heap allocations
// of 1,000 more calls, which must be none. The first one found is reported
// with its stack. A sanitizer's allocator can't be replaced, so under one
// every case reports itself skipped.
#define DOCTEST_CONFIG_IMPLEMENT
#include <dlfcn.h>
#include <doctest/doctest.h>
#include <execinfo.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "alloc/loaded_objects.hpp"
#include "shapescript/shapescript.h"
#include "shapescript/shapescript.hpp"
#include "support/build_paths.hpp"
#include "support/skip.hpp"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define SS_SANITIZED 1
#endif
#endif

#ifndef SS_SANITIZED
extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* p, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);
void __libc_free(void* p);
}
#endif

namespace {

std::atomic<bool> g_armed{false};
std::atomic<long> g_count{0};
// The first counted allocations' stacks (kStacks of them; one unless
// SS_ALLOCATION_STACKS is set), taken with backtrace(), which itself
// allocates only on its first use (warmed before arming).
constexpr int kStacks = 64, kDepth = 24;
void* g_stacks[kStacks][kDepth];
int g_depths[kStacks];
int g_wanted = 1;
thread_local bool t_inside = false;

// The address ranges of this binary (the library is linked in) and of a
// stand-in driver whose own allocations don't count (what a real driver
// does inside its calls is its own affair): set while a case wants them.
using Range = ss::test::AddressRange;
Range g_ours, g_driver;
std::atomic<bool> g_driver_excluded{false};

// Whether a frame is one of this file's allocation functions (exported,
// so dladdr names them): operator new's kin (_Zn...) and malloc's.
bool allocator_frame(void* frame) {
  Dl_info info;
  if (!dladdr(frame, &info) || !info.dli_sname) return false;
  const std::string_view name = info.dli_sname;
  return name.substr(0, 3) == "_Zn" || name == "malloc" || name == "calloc" || name == "realloc" ||
         name == "aligned_alloc" || name == "memalign" || name == "posix_memalign";
}

// Whether the allocation being made is the stand-in driver's: the
// innermost frame of either it or this binary (past the allocator's own)
// is the driver's. Frames 0 and 1 are this function and counted().
[[gnu::noinline]] bool drivers_own() {
  void* frames[48];
  const int n = backtrace(frames, 48);
  for (int i = 2; i < n; ++i) {
    if (g_driver.holds(frames[i])) return true;
    if (g_ours.holds(frames[i]) && !allocator_frame(frames[i])) return false;
  }
  return false;
}

[[gnu::noinline, maybe_unused]] void counted() {  // unused when sanitized
  if (!g_armed.load(std::memory_order_relaxed) || t_inside) return;
  if (g_driver_excluded.load(std::memory_order_relaxed)) {
    t_inside = true;
    const bool theirs = drivers_own();
    t_inside = false;
    if (theirs) return;
  }
  if (const long k = g_count.fetch_add(1); k < g_wanted) {
    t_inside = true;
    g_depths[k] = backtrace(g_stacks[k], kDepth);
    t_inside = false;
  }
}

// The loaded object whose path ends in `suffix` (empty: the executable),
// as the span of its loaded segments.
Range loaded_range(const std::string& suffix) {
  const auto found = ss::test::loaded_ranges([&](const std::string& name) {
    return suffix.empty()
               ? name.empty()
               : name.size() >= suffix.size() &&
                     name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  });
  return found.empty() ? Range{} : found.front();
}

}  // namespace

#ifndef SS_SANITIZED
extern "C" {
void* malloc(std::size_t size) {
  counted();
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) {
  counted();
  return __libc_calloc(count, size);
}
void* realloc(void* p, std::size_t size) {
  counted();
  return __libc_realloc(p, size);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) {
  counted();
  return __libc_memalign(alignment, size);
}
void* memalign(std::size_t alignment, std::size_t size) {
  counted();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t size) {
  counted();
  *out = __libc_memalign(alignment, size);
  return *out || size == 0 ? 0 : 12;  // ENOMEM
}
void free(void* p) {
  __libc_free(p);
}
}

void* operator new(std::size_t size) {
  counted();
  if (void* p = __libc_malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
  return operator new(size);
}
void* operator new(std::size_t size, std::align_val_t align) {
  counted();
  if (void* p = __libc_memalign(static_cast<std::size_t>(align), size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size, std::align_val_t align) {
  return operator new(size, align);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  counted();
  return __libc_malloc(size ? size : 1);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  counted();
  return __libc_malloc(size ? size : 1);
}
void operator delete(void* p) noexcept {
  __libc_free(p);
}
void operator delete[](void* p) noexcept {
  __libc_free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  __libc_free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  __libc_free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  __libc_free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  __libc_free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  __libc_free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  __libc_free(p);
}
#endif

namespace {

constexpr int kCalls = 1000;

// Heap allocations in kCalls steady calls, after `warm` calls make the
// frame; the first one's stack goes to standard error.
long steady_allocations(const char* what, const std::function<bool()>& call, int warm = 3,
                        int calls = kCalls) {
  for (int i = 0; i < warm; ++i) REQUIRE(call());
  g_count = 0;
  bool ok = true;
  g_armed = true;
  for (int i = 0; i < calls && ok; ++i) ok = call();
  g_armed = false;
  REQUIRE(ok);
  const long n = g_count.load();
  for (long k = 0; k < std::min<long>(n, g_wanted); ++k) {
    std::fprintf(stderr, "%s: %ld allocations in %d calls; number %ld at:\n", what, n, calls,
                 k + 1);
    backtrace_symbols_fd(g_stacks[k], g_depths[k], 2);
  }
  return n;
}

bool sanitized() {
#ifdef SS_SANITIZED
  return true;
#else
  return false;
#endif
}

ss::Engine engine(int threads = 1) {
  return ss::Engine(
      {.jit_library = ss::test::built::jit, .executor = ss::Executor::fast, .threads = threads});
}

std::string source_path(const char* relative) {
  return std::string(ss::test::built::source_dir) + "/" + relative;
}

const char* const kMlp = R"(
dim I = 784
dim H = 256
dim O = 10

model Mlp:
    param w1: [I H] = glorot
    param b1: [H] = zeros
    param w2: [H H] = glorot
    param b2: [H] = zeros
    param w3: [H O] = glorot
    param b3: [O] = zeros

fn logits(m: Mlp, x: [b I]) -> [b O]:
    h1 = relu(x @ m.w1 + m.b1)
    h2 = relu(h1 @ m.w2 + m.b2)
    return h2 @ m.w3 + m.b3
)";

void require_loaded(const ss::Module& m) {
  for (const auto& d : m.diagnostics()) MESSAGE(d.render());
  REQUIRE(m);
}

// A device function's call_into at batch `b`, its model resident.
long mlp_allocations(int threads, std::int64_t b) {
  const ss::Engine e = engine(threads);
  const ss::Module mod = e.load_source(kMlp, "mlp.ss");
  require_loaded(mod);
  const ss::Value model = mod.make("Mlp", {.seed = 0});
  std::vector<float> x(static_cast<std::size_t>(b * 784), 0.25f);
  std::vector<float> out(static_cast<std::size_t>(b * 10));
  const std::vector<ss::Arg> args{model, ss::Tensor::view(x.data(), {b, 784})};
  const std::vector<ss::Tensor> into{ss::Tensor::view(out.data(), {b, 10})};
  return steady_allocations("mlp", [&] { return bool(mod.call_into("logits", args, into)); });
}

}  // namespace

TEST_CASE("a steady call of the MLP at batch 1 and 64 allocates nothing") {
  if (sanitized()) return ss::test::skip("a sanitizer's allocator can't be replaced");
  CHECK(mlp_allocations(1, 1) == 0);
  CHECK(mlp_allocations(1, 64) == 0);
}

TEST_CASE("after Module::reserve, the first call at those sizes allocates nothing either") {
  if (sanitized()) return ss::test::skip("a sanitizer's allocator can't be replaced");
  const ss::Engine e = engine();
  const ss::Module mod = e.load_source(kMlp, "mlp.ss");
  require_loaded(mod);
  const ss::Value model = mod.make("Mlp", {.seed = 0});
  const std::int64_t b = 16;
  std::vector<float> x(static_cast<std::size_t>(b * 784), 0.25f),
      out(static_cast<std::size_t>(b * 10));
  const std::vector<ss::Arg> args{model, ss::Tensor::view(x.data(), {b, 784})};
  const std::vector<ss::Tensor> into{ss::Tensor::view(out.data(), {b, 10})};
  // Another size's call first: what a module does once (its thread's
  // scratch) is done.
  std::vector<float> x1(784, 0.5f), out1(10);
  REQUIRE(mod.call_into("logits", {model, ss::Tensor::view(x1.data(), {1, 784})},
                        {ss::Tensor::view(out1.data(), {1, 10})}));
  REQUIRE(mod.reserve("logits", {{"b", b}}).empty());
  CHECK(steady_allocations(
            "reserved", [&] { return bool(mod.call_into("logits", args, into)); }, 0, 1) == 0);
}

TEST_CASE("a steady call on two threads allocates nothing, the pool's jobs included") {
  if (sanitized()) return ss::test::skip("a sanitizer's allocator can't be replaced");
  CHECK(mlp_allocations(2, 64) == 0);
}

TEST_CASE("the per-call floor (x * 1.0) allocates nothing") {
  if (sanitized()) return ss::test::skip("a sanitizer's allocator can't be replaced");
  const ss::Engine e = engine();
  const ss::Module mod = e.load_source("fn scale(x: [4]) -> [4]:\n    return x * 1.0\n", "f.ss");
  require_loaded(mod);
  std::vector<float> x = {1, 2, 3, 4}, out(4);
  const std::vector<ss::Arg> args{ss::Tensor::view(x.data(), {4})};
  const std::vector<ss::Tensor> into{ss::Tensor::view(out.data(), {4})};
  CHECK(steady_allocations("floor", [&] { return bool(mod.call_into("scale", args, into)); }) == 0);
}

TEST_CASE("the policy example's act allocates nothing") {
  if (sanitized()) return ss::test::skip("a sanitizer's allocator can't be replaced");
  const ss::Engine e = engine();
  const ss::Module mod = e.load_file(source_path("examples/embed/policy.ss"));
  require_loaded(mod);
  const ss::Value policy = mod.make("Policy", {.seed = 1});
  std::vector<float> obs = {0.1f, -0.2f, 0.3f, 0.4f}, action(2);
  const std::vector<ss::Arg> args{policy, ss::Tensor::view(obs.data(), {1, 4})};
  const std::vector<ss::Tensor> into{ss::Tensor::view(action.data(), {1, 2})};
  CHECK(steady_allocations("policy", [&] { return bool(mod.call_into("act", args, into)); }) == 0);
}

TEST_CASE("tinylm's forward allocates nothing") {
  if (sanitized()) return ss::test::skip("a sanitizer's allocator can't be replaced");
  const ss::Engine e = engine();
  const ss::Module mod = e.load_file(source_path("examples/tinylm/tinylm.ss"));
  require_loaded(mod);
  const ss::Value lm = mod.make("Lm", {.seed = 2});
  const std::int64_t b = 2, t = 32, v = 64;
  std::vector<std::int32_t> tokens(static_cast<std::size_t>(b * t));
  for (std::size_t i = 0; i < tokens.size(); ++i) tokens[i] = static_cast<std::int32_t>(i % v);
  std::vector<float> out(static_cast<std::size_t>(b * t * v));
  const std::vector<ss::Arg> args{lm, ss::Tensor::view(tokens.data(), {b, t})};
  const std::vector<ss::Tensor> into{ss::Tensor::view(out.data(), {b, t, v})};
  CHECK(steady_allocations("tinylm", [&] { return bool(mod.call_into("forward", args, into)); }) ==
        0);
}

TEST_CASE("the CNN's forward without oneDNN allocates nothing") {
  if (sanitized()) return ss::test::skip("a sanitizer's allocator can't be replaced");
  const ss::Engine e = engine();  // oneDNN off: main() says so
  const ss::Module mod = e.load_file(source_path("examples/cnn/cnn.ss"));
  require_loaded(mod);
  const ss::Value cnn = mod.make("Cnn", {.seed = 3});
  const std::int64_t b = 4;
  std::vector<float> x(static_cast<std::size_t>(b * 64), 0.5f),
      out(static_cast<std::size_t>(b * 10));
  const std::vector<ss::Arg> args{cnn, ss::Tensor::view(x.data(), {b, 64})};
  const std::vector<ss::Tensor> into{ss::Tensor::view(out.data(), {b, 10})};
  CHECK(steady_allocations("cnn", [&] { return bool(mod.call_into("logits", args, into)); }) == 0);
}

TEST_CASE("a model imported from ONNX allocates nothing a steady call, at batch 1 and 8") {
  // PyTorch's modules exported to ONNX, each forward through call_into
  // with its weights resident: an MLP, a small CNN (channels last inside,
  // without oneDNN here), a GRU and an LSTM (scans), a transformer
  // encoder; their batch a generic axis, so both sizes serve one import.
  if (sanitized()) return ss::test::skip("a sanitizer's allocator can't be replaced");
  if (!*ss::test::built::onnx) return ss::test::skip("the ONNX importer wasn't built");
  const std::vector<std::string> files = {
      "examples/embed/classifier.onnx", "tests/onnx/models/small_cnn.onnx",
      "tests/onnx/models/torch/nn_GRU.onnx", "tests/onnx/models/torch/nn_LSTM.onnx",
      "tests/onnx/models/torch/nn_TransformerEncoder.onnx"};
  const ss::Engine e = engine();
  ss::OnnxOptions options;
  options.library = ss::test::built::onnx;
  for (const auto& file : files) {
    CAPTURE(file);
    const ss::OnnxModel m = e.load_onnx(source_path(file.c_str()), options);
    for (const auto& d : m.diagnostics) MESSAGE(d.render());
    REQUIRE(m);
    for (const std::int64_t b : {1, 8}) {
      CAPTURE(b);
      if (!m.translation.generic && b != 1) continue;  // (an import for one size)
      // Each port's sizes from the translation, -1 (a generic axis) the batch.
      const auto sized = [b](std::vector<std::int64_t> shape, std::vector<float>& buffer) {
        std::int64_t count = 1;
        for (auto& d : shape) count *= (d = d < 0 ? b : d);
        buffer.assign(static_cast<std::size_t>(count), 0.5f);
        return ss::Tensor::view(buffer.data(), shape);
      };
      std::vector<std::vector<float>> buffers(1 + m.translation.outputs.size());
      std::vector<ss::Tensor> inputs{sized(m.translation.inputs.at(0).shape, buffers[0])}, into;
      for (std::size_t o = 0; o < m.translation.outputs.size(); ++o)
        into.push_back(sized(m.translation.outputs[o].shape, buffers[o + 1]));
      const auto args = m.arguments(inputs);
      const auto first = m.module.call_into("forward", args, into);
      for (const auto& d : first.diagnostics) MESSAGE(d.render());
      REQUIRE(first);
      CHECK(steady_allocations(file.c_str(), [&] {
              return bool(m.module.call_into("forward", args, into));
            }) == 0);
    }
  }
}

namespace {

// The MLP through the C API: an engine, the module and a model value.
struct CMlp {
  ss_engine* engine = nullptr;
  ss_module* mod = nullptr;
  ss_value* model = nullptr;
  std::vector<ss_tensor*> views;

  CMlp() {
    ss_engine_options options = ss_engine_options_default();
    ss_status* status = nullptr;
    engine = ss_engine_new(&options, &status);
    REQUIRE(engine);
    mod = ss_engine_load_source(engine, kMlp, "mlp.ss", nullptr, &status);
    REQUIRE(mod);
    REQUIRE(ss_module_make(mod, "Mlp", 0, &model) == nullptr);
  }
  ~CMlp() {
    for (ss_tensor* t : views) ss_tensor_free(t);
    ss_value_free(model);
    ss_module_free(mod);
    ss_engine_free(engine);
  }
  // A view of `data` as `rows` rows of `width`, freed with this.
  const ss_tensor* view(std::vector<float>& data, std::int64_t rows, std::int64_t width) {
    const std::int64_t shape[] = {rows, width};
    views.push_back(ss_tensor_view(SS_F32, data.data(), shape, 2));
    return views.back();
  }
  // logits at `rows` rows, into `out`.
  bool call_into(std::vector<float>& x, std::vector<float>& out, std::int64_t rows) {
    const ss_arg args[] = {ss_arg_value(model), ss_arg_tensor(view(x, rows, 784))};
    const ss_tensor* outputs[] = {view(out, rows, 10)};
    return ss_module_call_into(mod, "logits", args, 2, outputs, 1) == nullptr;
  }
};

}  // namespace

TEST_CASE("the C API's call_into allocates nothing") {
  if (sanitized()) return ss::test::skip("a sanitizer's allocator can't be replaced");
  CMlp c;
  std::vector<float> x(784, 0.25f), out(10);
  const ss_arg args[] = {ss_arg_value(c.model), ss_arg_tensor(c.view(x, 1, 784))};
  const ss_tensor* outputs[] = {c.view(out, 1, 10)};
  CHECK(steady_allocations("c api", [&] {
          return ss_module_call_into(c.mod, "logits", args, 2, outputs, 1) == nullptr;
        }) == 0);
}

TEST_CASE("after ss_module_reserve, the C API's first call at those sizes allocates nothing") {
  if (sanitized()) return ss::test::skip("a sanitizer's allocator can't be replaced");
  CMlp c;
  // Another size's call first: what a module does once is done.
  std::vector<float> x1(784, 0.5f), out1(10);
  REQUIRE(c.call_into(x1, out1, 1));
  const char* names[] = {"b"};
  const std::int64_t sizes[] = {16};
  REQUIRE(ss_module_reserve(c.mod, "logits", 1, names, sizes) == nullptr);
  std::vector<float> x(16 * 784, 0.25f), out(16 * 10);
  const ss_arg args[] = {ss_arg_value(c.model), ss_arg_tensor(c.view(x, 16, 784))};
  const ss_tensor* outputs[] = {c.view(out, 16, 10)};
  CHECK(steady_allocations(
            "c api reserved",
            [&] { return ss_module_call_into(c.mod, "logits", args, 2, outputs, 1) == nullptr; }, 0,
            1) == 0);
}

// The stand-in driver (tests/fakes/fake_cuda.cpp) with launches that do
// nothing: the CUDA executor replays a captured graph. NVRTC compiles the
// kernels, so a machine without the CUDA toolkit skips this.
TEST_CASE("a replayed call on the CUDA stand-in makes no host allocation") {
  if (sanitized()) return ss::test::skip("a sanitizer's allocator can't be replaced");
  setenv("SS_FAKE_CUDA_LAUNCHES", "noop", 1);
  setenv("SS_FAKE_CUDA_SM", "90", 1);
  const ss::Engine e(
      {.device = ss::Device::cuda(0), .cuda_driver_library = ss::test::built::fake_cuda});
  if (!e.backends().nvrtc.found)
    return ss::test::skip("no NVRTC on this machine: the CUDA toolkit isn't installed");
  REQUIRE(e.ok());
  g_ours = loaded_range("");
  g_driver = loaded_range("libss_fake_cuda.so");
  REQUIRE(g_ours.hi);
  REQUIRE(g_driver.hi);
  const ss::Module mod = e.load_source(kMlp, "mlp.ss");
  require_loaded(mod);
  const ss::Value model = mod.make("Mlp", {.seed = 0});
  for (const std::int64_t b : {1, 64}) {
    CAPTURE(b);
    std::vector<float> x(static_cast<std::size_t>(b * 784), 0.25f),
        out(static_cast<std::size_t>(b * 10));
    const std::vector<ss::Arg> args{model, ss::Tensor::view(x.data(), {b, 784})};
    const std::vector<ss::Tensor> into{ss::Tensor::view(out.data(), {b, 10})};
    const auto replays = [&] {
      const auto nodes = mod.executor_stats().nodes;
      return nodes.count("graphs replayed") ? nodes.at("graphs replayed") : 0;
    };
    const std::int64_t replays_before = replays();
    g_driver_excluded = true;
    CHECK(steady_allocations(
              "cuda", [&] { return bool(mod.call_into("logits", args, into)); }, 3, 200) == 0);
    g_driver_excluded = false;
    CHECK(replays() - replays_before >= 200);  // replayed, not run anew
  }
  unsetenv("SS_FAKE_CUDA_LAUNCHES");
  unsetenv("SS_FAKE_CUDA_SM");
}

int main(int argc, char** argv) {
  void* warm[4];
  backtrace(warm, 4);  // loads what backtrace needs before anything is counted
  if (const char* n = std::getenv("SS_ALLOCATION_STACKS"))
    g_wanted = std::clamp(std::atoi(n), 1, kStacks);
  // oneDNN 2.6 builds an argument map inside each execute (docs/embedding.md):
  // the convolutions here are the library's own. (Read once per process.)
  setenv("SHAPESCRIPT_ONEDNN", "0", 1);
  if (*ss::test::built::jit)
    setenv("SHAPESCRIPT_JIT", ss::test::built::jit, 0);  // the C API's engine
  doctest::Context context(argc, argv);
  return context.run();
}
