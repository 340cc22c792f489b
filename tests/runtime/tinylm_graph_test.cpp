// The tiny language model's loss (embedding gathers, einsum attention with
// rearrange and causal, layer_norm, cross_entropy) lowered to one graph and
// run at two batch sizes, against numpy (tests/goldens/tinylm.txt): the
// one-block model tinylm was before stacks (tests/programs/valid/).
#include <doctest/doctest.h>

#include <cmath>
#include <sstream>

#include "lower/lower.hpp"
#include "runtime/reference/interpreter.hpp"
#include "support/checked_program.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

namespace {

using ss::runtime::DType;
using ss::runtime::Tensor;

constexpr std::int64_t V = 64, T = 32, E = 32, H = 4, K = 8;

// The golden script's parameter formula: scale * sin(a i + b j + c).
Tensor param(std::int64_t rows, std::int64_t cols, double a, double b, double c, double scale) {
  Tensor t = Tensor::zeros(DType::f32, {rows, cols});
  for (std::int64_t k = 0; k < t.size(); ++k)
    t.set(k, scale * std::sin(a * (k / cols) + b * (k % cols) + c));
  return t;
}

Tensor tokens(std::int64_t b, std::int64_t step_n, std::int64_t step_t) {
  Tensor t = Tensor::zeros(DType::i32, {b, T});
  for (std::int64_t k = 0; k < t.size(); ++k)
    t.set(k, static_cast<double>(((k / T) * step_n + (k % T) * step_t) % V));
  return t;
}

}  // namespace

TEST_CASE("the tiny language model's loss runs as one graph and matches numpy") {
  const auto program = ss::test::check_source_file("tests/programs/valid/tinylm_one_block.ss");
  const ss::ir::Graph loss = ss::lower::lower_function(program->typed, "loss");
  CHECK(ss::ir::verify(loss).empty());
  std::map<std::string, double> expected;
  std::istringstream golden(
      ss::test::read_file(std::string(ss::test::kSourceDir) + "/tests/goldens/tinylm.txt"));
  for (std::string what, b; golden >> what >> b;) golden >> expected[b];
  for (const std::int64_t b : {1, 3}) {
    CAPTURE(b);
    std::map<std::string, Tensor> inputs = {
        {"m.embed", param(V, E, 0.31, 0.17, 0.2, 0.5)},
        {"m.position", param(T, E, 0.11, 0.29, 1.0, 0.1)},
        {"m.attn.wq", param(E, E, 0.13, 0.07, 0.3, 0.2)},
        {"m.attn.wk", param(E, E, 0.05, 0.19, 0.6, 0.2)},
        {"m.attn.wv", param(E, E, 0.23, 0.03, 0.9, 0.2)},
        {"m.attn.wo", param(H * K, E, 0.17, 0.11, 1.2, 0.2)},
        {"m.unembed", param(E, V, 0.07, 0.13, 1.5, 0.3)},
        {"batch.tokens", tokens(b, 7, 3)},
        {"batch.next", tokens(b, 5, 11)},
    };
    const auto out = ss::runtime::run_graph(loss, inputs, program->typed.dims);
    REQUIRE(out.size() == 1);
    const double want = expected.at(std::to_string(b));
    CHECK(std::fabs(out[0].get(0) - want) <= 1e-5 * std::fabs(want));
  }
}
