// Latency with a resident model, as a game or robot calls it: the MLP
// 784-256-256-10 made once as a value, its forward (`logits`) at batch 1
// and 64 called 100,000 and 10,000 times into the host's output buffer,
// every call timed; and a training step with the model and its AdamW resident
// (`step(mut m, mut opt, batch)`), 1,000 calls at batch 64. Prints
// `name p50 p99 mean first cold p999 max allocs` lines (microseconds;
// `allocs`: heap allocations per steady call; `first`:
// the module's or the batch size's first call, untimed warm-up aside;
// `cold`: a warm call after the caches are flushed, the mean of 20, what
// the first call's memory traffic costs) and `load US` for
// bench/latency.sh, and the
// same forward with the weights passed per call (the named-tensor path)
// for comparison, and the per-call floor (`floor_b4`: `x * 1.0` on four
// floats). `bench_latency [THREADS]`.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "allocation_counter.hpp"
#include "models.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// Pushes the model and the code out of the CPU's caches: 64 MB touched, a
// byte a cache line (more than any L3 this runs on holds for one core).
void flush_caches() {
  static std::vector<unsigned char> junk(std::size_t{64} << 20);
  for (std::size_t i = 0; i < junk.size(); i += 64)
    junk[i] = static_cast<unsigned char>(junk[i] + 1);
}

void report(const char* name, std::int64_t batch, const std::function<void()>& call, int calls) {
  // The first call: the load planned and compiled everything, so only the
  // buffer pool is cold.
  const auto began = Clock::now();
  call();
  const double first = std::chrono::duration<double, std::micro>(Clock::now() - began).count();
  for (int i = 0; i < 100; ++i) call();  // warm: pools filled, caches hot
  std::vector<double> us(static_cast<std::size_t>(calls));
  const long allocated = ss::bench::allocations();
  for (auto& t : us) {
    const auto start = Clock::now();
    call();
    t = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
  }
  // (the timing vector was sized before: the loop itself allocates nothing)
  const double per_call =
      static_cast<double>(ss::bench::allocations() - allocated) / static_cast<double>(calls);
  double total = 0;
  for (const double t : us) total += t;
  double cold = 0;
  for (int i = 0; i < 20; ++i) {
    flush_caches();
    const auto start = Clock::now();
    call();
    cold += std::chrono::duration<double, std::micro>(Clock::now() - start).count() / 20;
  }
  std::sort(us.begin(), us.end());
  const auto at = [&](double q) { return us[static_cast<std::size_t>(q * (us.size() - 1))]; };
  std::printf("%s_b%lld %.1f %.1f %.1f %.1f %.1f %.1f %.1f %.1f\n", name,
              static_cast<long long>(batch), at(0.5), at(0.99),
              total / static_cast<double>(us.size()), first, cold, at(0.999), us.back(), per_call);
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  ss::Engine engine({.executor = ss::Executor::fast, .threads = threads});
  const auto load_start = Clock::now();
  const ss::Module mod = engine.load_source(ss::bench::kMlpProgram, "mlp.ss");
  std::printf("load %.1f\n",
              std::chrono::duration<double, std::micro>(Clock::now() - load_start).count());
  if (!mod) {
    for (const auto& d : mod.diagnostics()) std::fprintf(stderr, "%s", d.render().c_str());
    return 1;
  }
  std::mt19937 gen(0);
  const ss::Value model = mod.make("Mlp", {.seed = 0});
  for (const std::int64_t b : {1, 64}) {
    const auto x = ss::bench::draw(static_cast<std::size_t>(b) * 784, gen, 1.0f);
    std::vector<float> out(static_cast<std::size_t>(b) * 10);
    const std::vector<ss::Arg> args{model, ss::Tensor::view(x.data(), {b, 784})};
    const std::vector<ss::Tensor> into{ss::Tensor::view(out.data(), {b, 10})};
    report(
        "resident", b,
        [&] {
          if (!mod.call_into("logits", args, into)) std::abort();
        },
        b == 1 ? 100000 : 10000);  // as bench_ort_c_latency counts

    std::map<std::string, ss::Tensor> named;
    for (const auto& [path, t] : model.tensors()) named["m." + path] = t;
    named["x"] = ss::Tensor::view(x.data(), {b, 784});
    report(
        "per_call", b,
        [&] {
          if (!mod.call("logits", {}, named)) std::abort();
        },
        10000);
  }
  // The per-call floor: a function of four floats that does next to nothing.
  const ss::Module trivial =
      engine.load_source("fn scale(x: [4]) -> [4]:\n    return x * 1.0\n", "floor.ss");
  if (!trivial) {
    for (const auto& d : trivial.diagnostics()) std::fprintf(stderr, "%s", d.render().c_str());
    return 1;
  }
  std::vector<float> four = {1, 2, 3, 4}, four_out(4);
  const std::vector<ss::Arg> four_args{ss::Tensor::view(four.data(), {4})};
  const std::vector<ss::Tensor> four_into{ss::Tensor::view(four_out.data(), {4})};
  report(
      "floor", 4,
      [&] {
        if (!trivial.call_into("scale", four_args, four_into)) std::abort();
      },
      100000);
  ss::Value m = mod.copy(model);
  ss::Value opt = mod.make_optimizer("AdamW", m, {{"lr", 1e-3}});
  const std::int64_t b = 64;
  const auto x = ss::bench::draw(static_cast<std::size_t>(b) * 784, gen, 1.0f);
  std::vector<std::int32_t> y(static_cast<std::size_t>(b));
  for (auto& label : y) label = static_cast<std::int32_t>(gen() % 10);
  const ss::Value batch = mod.batch(
      "Ex", {{"x", ss::Tensor::view(x.data(), {b, 784})}, {"y", ss::Tensor::view(y.data(), {b})}});
  report(
      "train", b,
      [&] {
        if (!mod.call("step", {ss::mut(m), ss::mut(opt), batch})) std::abort();
      },
      1000);
}
