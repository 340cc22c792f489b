// What the C++ benchmarks share: their timing (the best of five rounds,
// each of repeated calls lasting at least `round` seconds, after a few
// calls to warm up) and their seeded normal draws.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "shapescript/options.hpp"

namespace ss::bench {

// SS_BENCH_NUMERICS=portable runs a benchmark under Numerics::portable
// (bench/portable.sh); fast otherwise.
inline Numerics numerics() {
  const char* v = std::getenv("SS_BENCH_NUMERICS");
  return v && std::string(v) == "portable" ? Numerics::portable : Numerics::fast;
}

inline double best_seconds_per_call(const std::function<void()>& f, double round = 0.1) {
  using Clock = std::chrono::steady_clock;
  for (int i = 0; i < 3; ++i) f();
  double best = 1e30;
  for (int r = 0; r < 5; ++r) {
    int calls = 0;
    const auto start = Clock::now();
    double elapsed = 0;
    do {
      f();
      ++calls;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < round);
    best = std::min(best, elapsed / calls);
  }
  return best;
}

inline std::vector<float> draw(std::size_t n, std::mt19937& gen, float scale) {
  std::normal_distribution<float> normal(0, scale);
  std::vector<float> v(n);
  for (auto& x : v) x = normal(gen);
  return v;
}

}  // namespace ss::bench
