// How closely an executor's outputs agree with the reference's: the
// largest difference of a float element at its tensor's scale
// (docs/numerics.md's `tensor` scale), and how many integer or bool
// elements differ (a comparison of two nearly equal values may flip).
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "runtime/core/tensor.hpp"
#include "support/numerics.hpp"

namespace ss::test {

struct Agreement {
  double worst = 0;
  std::int64_t flipped = 0, elements = 0;
};

// Adds `got`'s agreement with `want` (the same shapes and types, or it throws).
inline void compare(const std::vector<runtime::Tensor>& want,
                    const std::vector<runtime::Tensor>& got, Agreement& a) {
  if (got.size() != want.size()) throw std::logic_error("a different number of outputs");
  for (std::size_t k = 0; k < got.size(); ++k) {
    if (got[k].shape() != want[k].shape() || got[k].dtype() != want[k].dtype())
      throw std::logic_error("output " + std::to_string(k) + ": another shape or type");
    const auto w = want[k].values(), g = got[k].values();
    const double scale = tensor_scale(w);
    for (std::size_t e = 0; e < w.size(); ++e) {
      ++a.elements;
      if (w[e] == g[e] || (std::isnan(w[e]) && std::isnan(g[e]))) continue;
      if (!runtime::is_float(want[k].dtype()))
        ++a.flipped;
      else
        a.worst = std::max(a.worst, std::fabs(w[e] - g[e]) / scale);
    }
  }
}

}  // namespace ss::test
