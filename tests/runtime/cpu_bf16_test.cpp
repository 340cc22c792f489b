// `--precision bf16` on the CPU: the fast executor's contractions (matmul,
// einsum, a convolution's) take bfloat16 inputs and sum in float32 where the
// CPU has AVX512-BF16, agreeing with the f32 reference within numerics.md's
// `fast-bf16` row and repeating bit for bit; elsewhere they are float32.
#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "runtime/fast/gemm/sgemm.hpp"
#include "shapescript/shapescript.hpp"
#include "support/numerics.hpp"

namespace {

const char* kProgram = R"(dim B = 45
dim D = 130
dim H = 37
fn dense(x: [B D], w: [D H], v: [H 5]) -> [B 5] = relu(x @ w) @ v
fn scores(q: [2 B D], k: [2 H D]) -> [2 B H] = einsum(q, k, n i d, n j d -> n i j)
fn image(x: [2 9 9 D], k: [3 3 D 4]) -> [2 9 9 4] = conv(x, k, over=[1 2], padding=1)
)";

std::vector<float> random_values(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> v(n);
  for (auto& x : v) x = u(gen);
  return v;
}

struct Call {
  std::string fn;
  std::vector<std::vector<std::int64_t>> shapes;
};

const std::vector<Call> kCalls = {{"dense", {{45, 130}, {130, 37}, {37, 5}}},
                                  {"scores", {{2, 45, 130}, {2, 37, 130}}},
                                  {"image", {{2, 9, 9, 130}, {3, 3, 130, 4}}}};

std::vector<float> run(const ss::EngineOptions& options, const Call& call) {
  const ss::Engine engine(options);
  const ss::Module m = engine.load_source(kProgram, "bf16.ss");
  REQUIRE(m);
  std::vector<std::vector<float>> data;
  std::vector<ss::Arg> args;
  for (std::size_t i = 0; i < call.shapes.size(); ++i) {
    std::size_t n = 1;
    for (const auto d : call.shapes[i]) n *= static_cast<std::size_t>(d);
    data.push_back(random_values(n, static_cast<unsigned>(7 + i)));
  }
  for (std::size_t i = 0; i < call.shapes.size(); ++i)
    args.emplace_back(ss::Tensor::view(data[i].data(), call.shapes[i]));
  const auto r = m.call(call.fn, args);
  REQUIRE_MESSAGE(r, (r.diagnostics.empty() ? "" : r.diagnostics[0].render()));
  const ss::Tensor t = r.tensor();
  const auto* p = static_cast<const float*>(t.data());
  return {p, p + t.size()};
}

}  // namespace

TEST_CASE("--precision bf16 on the CPU: bfloat16 contractions within the fast-bf16 row") {
  const auto& row = ss::test::tolerance("fast-bf16");
  for (const auto& call : kCalls) {
    CAPTURE(call.fn);
    const auto want = run({.executor = ss::Executor::reference}, call);
    const auto f32 = run({}, call);
    const auto bf16 = run({.precision = ss::Precision::bf16}, call);
    REQUIRE(bf16.size() == want.size());
    if (!ss::gemm::bf16_supported()) {
      MESSAGE("skipped: this CPU has no AVX512-BF16; bf16 asked runs float32");
      CHECK(std::memcmp(bf16.data(), f32.data(), f32.size() * 4) == 0);
      continue;
    }
    std::vector<double> wanted(want.begin(), want.end());
    const double scale = ss::test::tensor_scale(wanted);
    std::size_t wrong = 0, changed = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
      wrong += !ss::test::agrees(bf16[i], want[i], scale, row);
      changed += bf16[i] != f32[i];
    }
    CHECK(wrong == 0);
    CHECK(changed > want.size() / 2);  // the bfloat16 kernel ran, not float32's
    // Its inputs' rounding shows: beyond the float32 `fast` row's bound.
    std::size_t outside_fast = 0;
    for (std::size_t i = 0; i < want.size(); ++i)
      outside_fast += !ss::test::agrees(bf16[i], want[i], scale, ss::test::tolerance("fast"));
    CHECK(outside_fast > 0);
    const auto again = run({.precision = ss::Precision::bf16}, call);
    CHECK(std::memcmp(again.data(), bf16.data(), bf16.size() * 4) == 0);
  }
}
