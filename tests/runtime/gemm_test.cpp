// The CPU GEMM against a double-precision loop, with every kernel this CPU
// can run: sizes around the micro-tile and block edges, transposed operands
// (by their strides), row strides wider than the rows, alpha and beta, and
// split over threads.
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/fast/gemm/sgemm.hpp"
#include "support/fast_executor.hpp"

namespace {

struct Case {
  std::int64_t m, n, k;
  bool trans_a, trans_b;
  float alpha, beta;
  int threads;
};

void check(const std::string& kernel, const Case& t) {
  std::mt19937 gen(static_cast<unsigned>(t.m * 131 + t.n * 17 + t.k));
  std::uniform_real_distribution<float> u(-1, 1);
  // Stored with a row stride 3 wider than needed, so strides are really used.
  const std::int64_t a_rows = t.trans_a ? t.k : t.m, a_cols = t.trans_a ? t.m : t.k;
  const std::int64_t b_rows = t.trans_b ? t.n : t.k, b_cols = t.trans_b ? t.k : t.n;
  const std::int64_t lda = a_cols + 3, ldb = b_cols + 3, ldc = t.n + 3;
  std::vector<float> a(static_cast<std::size_t>(a_rows * lda)),
      b(static_cast<std::size_t>(b_rows * ldb)), c(static_cast<std::size_t>(t.m * ldc));
  for (auto& x : a) x = u(gen);
  for (auto& x : b) x = u(gen);
  for (auto& x : c) x = u(gen);
  const auto at = [&](std::int64_t i, std::int64_t p) {
    return t.trans_a ? a[static_cast<std::size_t>(p * lda + i)]
                     : a[static_cast<std::size_t>(i * lda + p)];
  };
  const auto bt = [&](std::int64_t p, std::int64_t j) {
    return t.trans_b ? b[static_cast<std::size_t>(j * ldb + p)]
                     : b[static_cast<std::size_t>(p * ldb + j)];
  };
  std::vector<double> want(c.size());
  for (std::int64_t i = 0; i < t.m; ++i)
    for (std::int64_t j = 0; j < t.n; ++j) {
      double s = 0;
      for (std::int64_t p = 0; p < t.k; ++p) s += static_cast<double>(at(i, p)) * bt(p, j);
      const auto o = static_cast<std::size_t>(i * ldc + j);
      want[o] = t.alpha * s + (t.beta == 0 ? 0.0 : t.beta * static_cast<double>(c[o]));
    }
  const ss::gemm::Matrix ma{a.data(), t.trans_a ? 1 : lda, t.trans_a ? lda : 1};
  const ss::gemm::Matrix mb{b.data(), t.trans_b ? 1 : ldb, t.trans_b ? ldb : 1};
  const std::vector<float> before = c;
  ss::gemm::sgemm_with(kernel, t.m, t.n, t.k, t.alpha, ma, mb, t.beta, {c.data(), ldc}, t.threads);
  std::int64_t wrong = 0;
  for (std::int64_t i = 0; i < t.m; ++i)
    for (std::int64_t j = 0; j < ldc; ++j) {
      const auto o = static_cast<std::size_t>(i * ldc + j);
      if (j >= t.n) {  // the padding past each row is never written
        wrong += c[o] != before[o];
        continue;
      }
      const double tolerance = 1e-5 * (static_cast<double>(t.k) + 1) + 1e-5 * std::fabs(want[o]);
      wrong += !(std::fabs(c[o] - want[o]) <= tolerance);
    }
  CHECK_MESSAGE(wrong == 0, kernel << ": " << wrong << " wrong of " << t.m << " x " << t.n << " (k "
                                   << t.k << ", transposes " << t.trans_a << t.trans_b << ", alpha "
                                   << t.alpha << ", beta " << t.beta << ", threads " << t.threads
                                   << ")");
}

}  // namespace

TEST_CASE("the GEMM matches a double-precision loop, on every kernel this CPU has") {
  const ss::runtime::UseWorkers use(ss::test::loop_workers());  // for threads > 1
  const auto kernels = ss::gemm::sgemm_kernels();
  REQUIRE(!kernels.empty());
  CHECK(kernels.front() == ss::gemm::sgemm_kernel());
  CHECK(kernels.back() == "portable");
  const std::vector<Case> cases = {
      {1, 1, 1, false, false, 1, 0, 1},          {1, 784, 256, false, false, 1, 0, 1},
      {64, 256, 784, false, false, 1, 0, 1},     {7, 17, 5, true, false, 2, 0.5f, 1},
      {13, 33, 300, false, true, 1, 1, 1},       {29, 31, 1000, true, true, -0.5f, 0, 1},
      {100, 3, 64, false, false, 1, 0, 1},       {3, 100, 64, false, false, 1, 0, 1},
      {150, 70, 520, false, false, 1, 0.25f, 1}, {200, 200, 50, true, false, 1, 0, 2},
      {64, 300, 100, false, true, 1, 1, 2},      {257, 33, 129, false, false, 1, 0, 2},
      {5, 6, 0, false, false, 1, 0.5f, 1},       {1, 37, 300, true, true, 1, 0.5f, 1},
      {1, 50, 64, false, true, 2, 0, 1},         {1, 70, 9, true, false, 1, 1, 2},
      {4, 4, 4, false, false, 0, 2, 1}};
  for (const auto& kernel : kernels)
    for (const auto& t : cases) check(kernel, t);
}

TEST_CASE("beta 0 ignores C's old values, NaNs included, an unknown kernel is refused") {
  std::vector<float> a(6, 1.0f), b(6, 2.0f), c(4, std::nanf(""));
  ss::gemm::sgemm(2, 2, 3, 1.0f, {a.data(), 3, 1}, {b.data(), 2, 1}, 0.0f, {c.data(), 2});
  for (const float x : c) CHECK(x == 6.0f);
  CHECK_THROWS_AS(ss::gemm::sgemm_with("sse9", 2, 2, 3, 1.0f, {a.data(), 3, 1}, {b.data(), 2, 1},
                                       0.0f, {c.data(), 2}),
                  std::invalid_argument);
}

TEST_CASE("B packed once gives sgemm's bits, on every kernel, across block edges and threads") {
  const ss::runtime::UseWorkers use(ss::test::loop_workers());  // for threads > 1
  struct Packed {
    std::int64_t m, n, k;
    bool trans_b;
    float beta;
    int threads;
  };
  // n past NC (3072 for AVX2 and AVX-512), k past KC, m past MC, one row
  // (read unpacked), and both row splits.
  const std::vector<Packed> cases = {{64, 256, 784, false, 0, 1},   {1, 256, 784, false, 0, 1},
                                     {7, 3100, 20, false, 0.5f, 1}, {200, 70, 520, true, 0, 2},
                                     {300, 40, 300, false, 1, 2},   {13, 33, 5, true, 0, 1}};
  for (const auto& kernel : ss::gemm::sgemm_kernels())
    for (const auto& t : cases) {
      std::mt19937 gen(static_cast<unsigned>(t.m + t.n + t.k));
      std::uniform_real_distribution<float> u(-1, 1);
      std::vector<float> a(static_cast<std::size_t>(t.m * t.k)),
          b(static_cast<std::size_t>(t.k * t.n)), c(static_cast<std::size_t>(t.m * t.n));
      for (auto& x : a) x = u(gen);
      for (auto& x : b) x = u(gen);
      for (auto& x : c) x = u(gen);
      std::vector<float> plain = c, packed = c;
      const ss::gemm::Matrix ma{a.data(), t.k, 1};
      const ss::gemm::Matrix mb{b.data(), t.trans_b ? 1 : t.n, t.trans_b ? t.k : 1};
      ss::gemm::sgemm_with(kernel, t.m, t.n, t.k, 1.0f, ma, mb, t.beta, {plain.data(), t.n},
                           t.threads);
      const auto panels = ss::gemm::pack_b_with(kernel, t.k, t.n, mb);
      ss::gemm::sgemm_packed(t.m, 1.0f, ma, *panels, t.beta, {packed.data(), t.n}, t.threads);
      CHECK_MESSAGE(packed == plain, kernel << ": " << t.m << " x " << t.n << " (k " << t.k
                                            << ", threads " << t.threads << ")");
    }
}

namespace {

// bfloat16 by its definition: the float's top 16 bits after rounding to
// nearest, ties to even; a subnormal is a zero of its sign.
float bf16(float x) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &x, 4);
  if ((bits & 0x7f800000u) == 0) {
    bits &= 0x80000000u;
  } else {
    const std::uint32_t low = bits & 0xffffu, keep = bits & 0xffff0000u;
    const bool up = low > 0x8000u || (low == 0x8000u && (keep & 0x10000u));
    bits = keep + (up ? 0x10000u : 0u);
  }
  float out = 0;
  std::memcpy(&out, &bits, 4);
  return out;
}

// The bfloat16 GEMM on one kernel against double sums of the rounded
// inputs, with C's padding past each row untouched.
void check_bf16(const std::string& kernel, const Case& t) {
  std::mt19937 gen(static_cast<unsigned>(t.m * 7 + t.n * 3 + t.k));
  std::uniform_real_distribution<float> u(-1, 1);
  const std::int64_t lda = t.trans_a ? t.m : t.k, ldb = t.trans_b ? t.k : t.n, ldc = t.n + 3;
  std::vector<float> a(static_cast<std::size_t>(t.m * t.k)), b(static_cast<std::size_t>(t.k * t.n)),
      c(static_cast<std::size_t>(t.m * ldc));
  for (auto& x : a) x = u(gen);
  for (auto& x : b) x = u(gen);
  for (auto& x : c) x = u(gen);
  const auto at = [&](std::int64_t i, std::int64_t p) {
    return a[static_cast<std::size_t>(t.trans_a ? p * lda + i : i * lda + p)];
  };
  const auto bt = [&](std::int64_t p, std::int64_t j) {
    return b[static_cast<std::size_t>(t.trans_b ? j * ldb + p : p * ldb + j)];
  };
  std::int64_t wrong = 0, apart = 0;
  std::vector<float> got = c;
  ss::gemm::sgemm_bf16_with(
      kernel, t.m, t.n, t.k, t.alpha, {a.data(), t.trans_a ? 1 : lda, t.trans_a ? lda : 1},
      {b.data(), t.trans_b ? 1 : ldb, t.trans_b ? ldb : 1}, t.beta, {got.data(), ldc}, t.threads);
  for (std::int64_t i = 0; i < t.m; ++i)
    for (std::int64_t j = 0; j < ldc; ++j) {
      const auto o = static_cast<std::size_t>(i * ldc + j);
      if (j >= t.n) {
        wrong += got[o] != c[o];
        continue;
      }
      double rounded = 0, exact = 0, size = 0;
      for (std::int64_t p = 0; p < t.k; ++p) {
        rounded += static_cast<double>(bf16(at(i, p))) * bf16(bt(p, j));
        exact += static_cast<double>(at(i, p)) * bt(p, j);
        size += std::fabs(static_cast<double>(at(i, p)) * bt(p, j));
      }
      const double old = t.beta == 0 ? 0.0 : t.beta * static_cast<double>(c[o]);
      const double want = t.alpha * rounded + old;
      // float32 sums of exact products: k roundings of at most half an ulp.
      const double tolerance =
          (static_cast<double>(t.k) + 2) * 6e-8 * (std::fabs(t.alpha) * size + std::fabs(old));
      wrong += !(std::fabs(got[o] - want) <= tolerance);
      apart += std::fabs(t.alpha * exact + old - want) > tolerance;  // f32 inputs would fail
    }
  CHECK_MESSAGE(wrong == 0, kernel << ": " << wrong << " wrong of " << t.m << " x " << t.n << " (k "
                                   << t.k << ", transposes " << t.trans_a << t.trans_b
                                   << ", threads " << t.threads << ")");
  if (t.k > 100) CHECK(apart > 0);  // the bound tells bfloat16 inputs from float32 ones
}

}  // namespace

TEST_CASE("the bfloat16 GEMM sums bfloat16-rounded products in float32, on every bf16 kernel") {
  const ss::runtime::UseWorkers use(ss::test::loop_workers());  // for threads > 1
  if (!ss::gemm::bf16_supported()) {
    MESSAGE("skipped: this CPU has no AVX512-BF16");
    CHECK(ss::gemm::bf16_kernels().empty());
    CHECK(std::string(ss::gemm::bf16_kernel()).empty());
    CHECK_THROWS_AS(
        ss::gemm::sgemm_bf16(1, 1, 1, 1.0f, {nullptr, 1, 1}, {nullptr, 1, 1}, 0.0f, {nullptr, 1}),
        std::invalid_argument);
    return;
  }
  const auto kernels = ss::gemm::bf16_kernels();
  CHECK(kernels.back() == "avx512bf16");
  CHECK(kernels.front() == ss::gemm::bf16_kernel());
  if (kernels.front() != "amx") MESSAGE("the AMX kernel is skipped: this CPU (or OS) has no AMX");
  CHECK_THROWS_AS(ss::gemm::sgemm_bf16_with("avx512", 1, 1, 1, 1.0f, {nullptr, 1, 1},
                                            {nullptr, 1, 1}, 0.0f, {nullptr, 1}),
                  std::invalid_argument);
  // Around both kernels' micro-tiles (14 and 32 rows, 32 columns, 16 for
  // a half tile), their k blocks (256, 512) and steps (32), MC (168, 128)
  // and NC (3072, 1024), with each operand transposed, and threads.
  const std::vector<Case> cases = {
      {1, 1, 1, false, false, 1, 0, 1},          {1, 784, 256, false, false, 1, 0, 1},
      {64, 256, 784, false, false, 1, 0, 1},     {7, 17, 5, true, false, 2, 0.5f, 1},
      {13, 33, 301, false, true, 1, 1, 1},       {29, 31, 1000, true, true, -0.5f, 0, 1},
      {150, 70, 520, false, false, 1, 0.25f, 1}, {257, 33, 129, false, false, 1, 0, 2},
      {200, 200, 51, true, false, 1, 0, 2},      {5, 6, 0, false, false, 1, 0.5f, 1},
      {16, 16, 32, false, false, 1, 0, 1},       {17, 15, 33, true, true, 1, 0, 1},
      {33, 48, 544, true, false, 1, 0.5f, 1},    {300, 1100, 40, false, true, 1, 0, 2},
      {40, 20, 1025, false, true, 1, 0, 1},      {130, 1030, 70, true, true, 1, 0, 1}};
  for (const auto& kernel : kernels)
    for (const auto& t : cases) check_bf16(kernel, t);
  // A and B with neither stride 1 (every other element of wider rows):
  // the same bits as their contiguous copies.
  for (const auto& kernel : kernels) {
    const std::int64_t m = 37, n = 45, k = 70;
    std::vector<float> a(static_cast<std::size_t>(m * k)), b(static_cast<std::size_t>(k * n));
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = std::sin(static_cast<float>(i));
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = std::cos(static_cast<float>(i));
    std::vector<float> wide_a(2 * a.size()), wide_b(2 * b.size());
    for (std::size_t i = 0; i < a.size(); ++i) wide_a[2 * i] = a[i];
    for (std::size_t i = 0; i < b.size(); ++i) wide_b[2 * i] = b[i];
    std::vector<float> plain(static_cast<std::size_t>(m * n)), strided(plain.size());
    ss::gemm::sgemm_bf16_with(kernel, m, n, k, 1.0f, {a.data(), k, 1}, {b.data(), n, 1}, 0.0f,
                              {plain.data(), n});
    ss::gemm::sgemm_bf16_with(kernel, m, n, k, 1.0f, {wide_a.data(), 2 * k, 2},
                              {wide_b.data(), 2 * n, 2}, 0.0f, {strided.data(), n});
    CHECK_MESSAGE(std::memcmp(plain.data(), strided.data(), plain.size() * 4) == 0, kernel);
  }
  // B packed once (a resident weight) gives the same bits, one row included.
  for (const auto& kernel : kernels)
    for (const auto& size : std::vector<std::array<std::int64_t, 3>>{{1, 70, 9},
                                                                     {1, 256, 784},
                                                                     {64, 256, 784},
                                                                     {30, 3100, 301},
                                                                     {15, 33, 513},
                                                                     {100, 1100, 1100}}) {
      const std::int64_t m = size[0], n = size[1],
                         k = size[2];  // (clang 14: no bindings in lambdas)
      const auto a = [&] {
        std::vector<float> v(static_cast<std::size_t>(m * k));
        std::mt19937 gen(static_cast<unsigned>(m + n + k));
        std::uniform_real_distribution<float> u(-1, 1);
        for (auto& x : v) x = u(gen);
        return v;
      }();
      std::vector<float> b(static_cast<std::size_t>(k * n));
      for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i % 97) / 97.0f - 0.5f;
      std::vector<float> plain(static_cast<std::size_t>(m * n)), packed(plain.size());
      ss::gemm::sgemm_bf16_with(kernel, m, n, k, 1.0f, {a.data(), k, 1}, {b.data(), n, 1}, 0.0f,
                                {plain.data(), n}, 2);
      const auto panels = ss::gemm::pack_b_bf16_with(kernel, k, n, {b.data(), n, 1});
      ss::gemm::sgemm_packed(m, 1.0f, {a.data(), k, 1}, *panels, 0.0f, {packed.data(), n}, 2);
      CHECK_MESSAGE(std::memcmp(plain.data(), packed.data(), plain.size() * 4) == 0,
                    kernel << ": " << m << " x " << n << " (k " << k << ")");
    }
  // Subnormals count as zero, a NaN or an infinity goes through, the same bits twice.
  for (const auto& kernel : kernels) {
    std::vector<float> a = {1e-39f, 2.0f, NAN, 1.0f}, b = {1e30f, 1.0f, 1.0f, 1.0f}, c(4), d(4);
    ss::gemm::sgemm_bf16_with(kernel, 2, 2, 2, 1.0f, {a.data(), 2, 1}, {b.data(), 2, 1}, 0.0f,
                              {c.data(), 2});
    CHECK(c[0] == 2.0f);  // 1e-39 * 1e30 + 2 * 1: the subnormal is zero
    CHECK(c[1] == 2.0f);
    CHECK(std::isnan(c[2]));
    CHECK(std::isnan(c[3]));
    ss::gemm::sgemm_bf16_with(kernel, 2, 2, 2, 1.0f, {a.data(), 2, 1}, {b.data(), 2, 1}, 0.0f,
                              {d.data(), 2});
    CHECK(std::memcmp(c.data(), d.data(), 8) == 0);
  }
}

namespace {

// C with the epilogue as a pass after the product: what the fused form
// must equal, bit for bit.
void after(std::vector<float>& c, std::int64_t m, std::int64_t n, std::int64_t ldc,
           const float* bias, bool relu) {
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      float& x = c[static_cast<std::size_t>(i * ldc + j)];
      float v = bias ? x + bias[j] : x;
      x = relu ? (v > 0.0f ? v : 0.0f) : v;
    }
}

bool same_bits(const std::vector<float>& x, const std::vector<float>& y) {
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("a GEMM's epilogue (bias, ReLU) fused gives the bits of a pass after the product") {
  const ss::runtime::UseWorkers use(ss::test::loop_workers());  // for threads > 1
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> u(-1, 1);
  struct Shape {
    std::int64_t m, n, k;
    float alpha, beta;
    int threads;
  };
  // One row (the product of one), partial micro-tiles in both directions,
  // several blocks of k, beta 1, an alpha not 1 (a pass then), two threads.
  const Shape shapes[] = {{1, 37, 50, 1, 0, 1},   {5, 33, 20, 1, 0, 1},    {64, 256, 784, 1, 0, 1},
                          {30, 70, 400, 1, 1, 1}, {17, 40, 9, 0.5f, 0, 1}, {128, 96, 300, 1, 0, 2}};
  for (const auto& kernel : ss::gemm::sgemm_kernels())
    for (const Shape& s : shapes)
      for (const int mode : {0, 1, 2}) {  // bias, ReLU, both
        CAPTURE(kernel);
        CAPTURE(s.m);
        CAPTURE(mode);
        std::vector<float> a(static_cast<std::size_t>(s.m * s.k)),
            b(static_cast<std::size_t>(s.k * s.n)), bias(static_cast<std::size_t>(s.n)),
            c0(static_cast<std::size_t>(s.m * s.n));
        for (auto& x : a) x = u(gen);
        for (auto& x : b) x = u(gen);
        for (auto& x : bias) x = u(gen);
        for (auto& x : c0) x = u(gen);
        bias[0] = std::nanf("");  // NaN through the bias, then ReLU's NaN gives 0
        const ss::gemm::Epilogue e{mode == 1 ? nullptr : bias.data(), mode >= 1};
        const ss::gemm::Matrix ma{a.data(), s.k, 1}, mb{b.data(), s.n, 1};
        std::vector<float> want = c0, got = c0, packed = c0;
        ss::gemm::sgemm_with(kernel, s.m, s.n, s.k, s.alpha, ma, mb, s.beta, {want.data(), s.n},
                             s.threads);
        after(want, s.m, s.n, s.n, e.bias, e.relu);
        ss::gemm::sgemm_with(kernel, s.m, s.n, s.k, s.alpha, ma, mb, s.beta, {got.data(), s.n},
                             s.threads, e);
        CHECK(same_bits(got, want));
        const auto panels = ss::gemm::pack_b_with(kernel, s.k, s.n, mb);
        ss::gemm::sgemm_packed(s.m, s.alpha, ma, *panels, s.beta, {packed.data(), s.n}, s.threads,
                               e);
        CHECK(same_bits(packed, want));
      }
  if (!ss::gemm::bf16_supported()) return;
  // The bfloat16 kernels take no epilogue: theirs is the pass.
  std::vector<float> a(6 * 8, 0.5f), b(8 * 3, -0.25f), bias = {1.0f, 0.5f, 0.0f}, c(6 * 3);
  const auto panels = ss::gemm::pack_b_bf16(8, 3, {b.data(), 3, 1});
  ss::gemm::sgemm_packed(6, 1.0f, {a.data(), 8, 1}, *panels, 0.0f, {c.data(), 3}, 1,
                         {bias.data(), true});
  for (std::size_t i = 0; i < c.size(); ++i) CHECK(c[i] == std::max(0.0f, -1.0f + bias[i % 3]));
}
