// The portable numerics' GEMM (gemm::sgemm_chain): on every chain kernel
// this CPU can run, each element of C is the one chain of fused
// multiply-adds over k in order that a plain loop of std::fma makes, bit
// for bit: across micro-tile, block and thread-split edges, transposed
// operands, a batch of one, B packed once, beta 1 continuing a chain, other
// alphas and betas, and the epilogue.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "runtime/fast/gemm/sgemm.hpp"

namespace {

struct Case {
  std::int64_t m, n, k;
  bool trans_a, trans_b;
  float alpha, beta;
  int threads;
  bool bias_relu = false;
};

struct Operands {
  std::vector<float> a, b, c, bias;
  std::int64_t lda, ldb, ldc;
};

Operands made(const Case& t) {
  std::mt19937 gen(static_cast<unsigned>(t.m * 131 + t.n * 17 + t.k));
  std::uniform_real_distribution<float> u(-1, 1);
  Operands o;
  const std::int64_t a_rows = t.trans_a ? t.k : t.m, a_cols = t.trans_a ? t.m : t.k;
  const std::int64_t b_rows = t.trans_b ? t.n : t.k, b_cols = t.trans_b ? t.k : t.n;
  o.lda = a_cols + 3;
  o.ldb = b_cols + 3;
  o.ldc = t.n + 3;
  o.a.resize(static_cast<std::size_t>(a_rows * o.lda));
  o.b.resize(static_cast<std::size_t>(b_rows * o.ldb));
  o.c.resize(static_cast<std::size_t>(t.m * o.ldc));
  o.bias.resize(static_cast<std::size_t>(t.n));
  for (auto* v : {&o.a, &o.b, &o.c, &o.bias})
    for (auto& x : *v) x = u(gen);
  return o;
}

// The chain as plain code: from zero (or C's value at beta 1), one
// std::fma per k in order; another alpha or beta scales it after.
std::vector<float> chained(const Case& t, const Operands& o) {
  std::vector<float> c = o.c;
  for (std::int64_t i = 0; i < t.m; ++i)
    for (std::int64_t j = 0; j < t.n; ++j) {
      float& out = c[static_cast<std::size_t>(i * o.ldc + j)];
      const bool goes_on = t.alpha == 1.0f && t.beta == 1.0f;
      float s = goes_on ? out : 0.0f;
      for (std::int64_t p = 0; p < t.k; ++p) {
        const float x = t.trans_a ? o.a[static_cast<std::size_t>(p * o.lda + i)]
                                  : o.a[static_cast<std::size_t>(i * o.lda + p)];
        const float y = t.trans_b ? o.b[static_cast<std::size_t>(j * o.ldb + p)]
                                  : o.b[static_cast<std::size_t>(p * o.ldb + j)];
        s = std::fma(x, y, s);
      }
      if (!goes_on) s = t.beta == 0.0f ? t.alpha * s : std::fma(t.alpha, s, t.beta * out);
      if (t.bias_relu) {
        s = s + o.bias[static_cast<std::size_t>(j)];
        s = s > 0.0f ? s : 0.0f;
      }
      out = s;
    }
  return c;
}

std::int64_t differing(const std::vector<float>& got, const std::vector<float>& want) {
  std::int64_t n = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0) ++n;
  return n;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  // Around the micro-tiles (4..14 rows, 8..32 columns) and the blocks of k
  // (192, 256, 384), one row alone, and products large enough to split.
  for (const std::int64_t m : {1, 3, 14, 29})
    for (const std::int64_t n : {1, 9, 33, 70})
      for (const std::int64_t k : {1, 7, 193, 400, 777})
        out.push_back({m, n, k, false, false, 1.0f, 0.0f, 1});
  for (const bool ta : {false, true})
    for (const bool tb : {false, true}) {
      out.push_back({1, 50, 300, ta, tb, 1.0f, 0.0f, 1});
      out.push_back({37, 45, 500, ta, tb, 1.0f, 0.0f, 2});
      out.push_back({37, 45, 500, ta, tb, 1.0f, 1.0f, 1});
    }
  out.push_back({130, 140, 600, false, false, 1.0f, 0.0f, 2});  // split by columns
  out.push_back({300, 40, 900, false, true, 1.0f, 0.0f, 2});    // split by rows
  out.push_back({1, 70, 500, false, false, 1.0f, 1.0f, 1});     // a row going on
  out.push_back({20, 30, 400, false, false, 2.5f, 0.0f, 1});
  out.push_back({20, 30, 400, true, false, 0.5f, -1.5f, 2});
  out.push_back({20, 33, 400, false, false, 1.0f, 0.0f, 1, true});
  out.push_back({1, 33, 400, false, false, 1.0f, 0.0f, 1, true});
  out.push_back({300, 40, 900, false, false, 1.0f, 0.0f, 2, true});
  return out;
}

}  // namespace

TEST_CASE("the portable GEMM is one chain of fused multiply-adds per element, on every kernel") {
  const auto kernels = ss::gemm::chain_kernels();
  REQUIRE_FALSE(kernels.empty());  // every x86-64 CPU this project runs on has FMA
  for (const char* name : {"chain-avx512", "chain-avx2", "chain-scalar"})
    if (std::find(kernels.begin(), kernels.end(), name) == kernels.end())
      MESSAGE("not run here (this CPU, or SHAPESCRIPT_ISA, hasn't it): " << std::string(name));
  for (const auto& kernel : kernels)
    for (const Case& t : cases()) {
      CAPTURE(kernel);
      CAPTURE(t.m);
      CAPTURE(t.n);
      CAPTURE(t.k);
      CAPTURE(t.trans_a);
      CAPTURE(t.trans_b);
      CAPTURE(t.alpha);
      CAPTURE(t.beta);
      CAPTURE(t.threads);
      Operands o = made(t);
      const std::vector<float> want = chained(t, o);
      const ss::gemm::Matrix ma{o.a.data(), t.trans_a ? 1 : o.lda, t.trans_a ? o.lda : 1};
      const ss::gemm::Matrix mb{o.b.data(), t.trans_b ? 1 : o.ldb, t.trans_b ? o.ldb : 1};
      const ss::gemm::Epilogue e{t.bias_relu ? o.bias.data() : nullptr, t.bias_relu};
      std::vector<float> c = o.c;
      ss::gemm::sgemm_with(kernel, t.m, t.n, t.k, t.alpha, ma, mb, t.beta, {c.data(), o.ldc},
                           t.threads, e);
      CHECK(differing(c, want) == 0);
      // B packed once (a resident weight's panels): the same chains.
      const auto packed = ss::gemm::pack_b_with(kernel, t.k, t.n, mb);
      c = o.c;
      ss::gemm::sgemm_packed(t.m, t.alpha, ma, *packed, t.beta, {c.data(), o.ldc}, t.threads, e);
      CHECK(differing(c, want) == 0);
    }
}

TEST_CASE("a product summed in slabs with beta 1 is the one chain over all of k") {
  // What a convolution's kernel gradient does: k in slabs of images, each
  // added to the sums before it.
  const std::int64_t m = 9, n = 21, k = 700;
  const Case whole{m, n, k, false, false, 1.0f, 0.0f, 1};
  Operands o = made(whole);
  const std::vector<float> want = chained(whole, o);
  for (const auto& kernel : ss::gemm::chain_kernels())
    for (const std::int64_t slab : {1, 50, 333}) {
      CAPTURE(kernel);
      CAPTURE(slab);
      std::vector<float> c = o.c;
      for (std::int64_t p0 = 0; p0 < k; p0 += slab) {
        const std::int64_t part = std::min(slab, k - p0);
        ss::gemm::sgemm_with(kernel, m, n, part, 1.0f, {o.a.data() + p0, o.lda, 1},
                             {o.b.data() + p0 * o.ldb, o.ldb, 1}, p0 == 0 ? 0.0f : 1.0f,
                             {c.data(), o.ldc});
      }
      CHECK(differing(c, want) == 0);
    }
}
