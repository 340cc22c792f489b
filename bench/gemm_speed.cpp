// GEMM: ours (runtime/gemm) beside OpenBLAS's cblas_sgemm, square float32
// products of 256, 1024 and 2048 on 1 and 2 threads, and the machine's FMA
// peak measured in the same run (a loop of independent fused multiply-adds
// at the widest vector width the CPU has). Prints a table; asserts nothing.
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "best_time.hpp"
#include "runtime/fast/gemm/sgemm.hpp"

extern "C" void openblas_set_num_threads(int threads);
extern "C" char* openblas_get_corename(void);

namespace {

using ss::bench::best_seconds_per_call;

// GFLOP/s of one core's fused multiply-adds: 12 independent chains, so
// latency hides behind throughput, at 8 lanes (AVX2) or 16 (AVX-512).
typedef float V8 __attribute__((vector_size(32)));
typedef float V16 __attribute__((vector_size(64)));

template <typename V>
[[gnu::always_inline]] inline float chains(long n) {
  V acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = V{} + static_cast<float>(i);
  const V x = V{} + 0.999999f, y = V{} + 1e-7f;
  for (long r = 0; r < n; ++r)
    for (int i = 0; i < 12; ++i) acc[i] = acc[i] * x + y;
  float s = 0;
  for (int i = 0; i < 12; ++i) s += acc[i][0];
  return s;
}

[[gnu::target("avx2,fma"), gnu::optimize("fp-contract=fast")]] float chains_avx2(long n) {
  return chains<V8>(n);
}
[[gnu::target("avx512f"), gnu::optimize("fp-contract=fast")]] float chains_avx512(long n) {
  return chains<V16>(n);
}

double fma_peak(int* lanes) {
  const long n = 20'000'000;
  volatile float sink = 0;
  std::function<void()> f;
  if (__builtin_cpu_supports("avx512f")) {
    *lanes = 16;
    f = [&] { sink = chains_avx512(n); };
  } else {
    *lanes = 8;
    f = [&] { sink = chains_avx2(n); };
  }
  const double s = best_seconds_per_call(f);
  return 2.0 * 12 * *lanes * static_cast<double>(n) / s / 1e9;
}

}  // namespace

int main(int argc, char** argv) {
  int lanes = 0;
  const double peak = fma_peak(&lanes);
  if (argc > 1 && std::string(argv[1]) == "peak") {  // the peak alone, for bench/cpu_table.sh
    std::printf("peak %.1f\n", peak);
    return 0;
  }
  const char* coretype = std::getenv("OPENBLAS_CORETYPE");
  std::printf("machine: %u threads, our kernel %s, OpenBLAS core %s (OPENBLAS_CORETYPE=%s)\n",
              std::thread::hardware_concurrency(), ss::gemm::sgemm_kernel(),
              openblas_get_corename(), coretype ? coretype : "unset");
  std::printf("FMA peak, one core, %d lanes: %.1f GFLOP/s\n\n", lanes, peak);
  std::printf(
      "| size | threads | ours GFLOP/s | OpenBLAS GFLOP/s | ours / OpenBLAS | ours / peak |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|\n");
  std::mt19937 gen(1);
  std::uniform_real_distribution<float> u(-1, 1);
  // --precision bf16's kernel beside our float32 one, where the CPU has it:
  // measured in the same loop, printed after.
  std::string bf16_rows;
  for (const int n : {256, 1024, 2048}) {
    std::vector<float> a(static_cast<std::size_t>(n) * n), b(a.size()), c(a.size());
    for (auto& x : a) x = u(gen);
    for (auto& x : b) x = u(gen);
    const double flops = 2.0 * n * n * n;
    for (const int threads : {1, 2}) {
      const auto rate = [&](auto gemm) {
        return flops / best_seconds_per_call([&] {
                 gemm(n, n, n, 1.0f, ss::gemm::Matrix{a.data(), n, 1},
                      ss::gemm::Matrix{b.data(), n, 1}, 0.0f, ss::gemm::Output{c.data(), n},
                      threads);
               }) /
               1e9;
      };
      const double ours = rate([](auto... args) { ss::gemm::sgemm(args...); });
      openblas_set_num_threads(threads);
      const double blas = flops / best_seconds_per_call([&] {
                            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f,
                                        a.data(), n, b.data(), n, 0.0f, c.data(), n);
                          }) /
                          1e9;
      std::printf("| %d | %d | %.1f | %.1f | %.2f | %.0f%% |\n", n, threads, ours, blas,
                  ours / blas, 100.0 * ours / (peak * threads));
      if (ss::gemm::bf16_supported()) {
        std::string row = "| " + std::to_string(n) + " | " + std::to_string(threads) + " |";
        double best = 0;
        for (const auto& kernel : ss::gemm::bf16_kernels()) {
          const double half =
              rate([&](auto... args) { ss::gemm::sgemm_bf16_with(kernel, args...); });
          best = std::max(best, half);
          char cell[32];
          std::snprintf(cell, sizeof cell, " %.1f |", half);
          row += cell;
        }
        char tail[64];
        std::snprintf(tail, sizeof tail, " %.1f | %.2f |\n", ours, best / ours);
        bf16_rows += row + tail;
      }
    }
  }
  if (bf16_rows.empty()) {
    std::printf("\nbfloat16 (AVX512-BF16): not on this CPU\n");
    return 0;
  }
  std::printf("\n| size (bf16) | threads |");
  std::string rule = "|---:|---:|";
  for (const auto& kernel : ss::gemm::bf16_kernels()) {
    std::printf(" %s GFLOP/s |", kernel.c_str());
    rule += "---:|";
  }
  std::printf(" ours f32 GFLOP/s | best bf16 / f32 |\n%s---:|---:|\n%s", rule.c_str(),
              bf16_rows.c_str());
}
