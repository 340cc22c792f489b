// check_agrees: the numerics contract's comparison as doctest checks (the
// table and agrees() are in numerics.cpp, which tools without doctest share).
#include <doctest/doctest.h>

#include "support/numerics.hpp"

namespace ss::test {

void check_agrees(const runtime::Tensor& got, const runtime::Tensor& want, const std::string& row,
                  const std::string& what) {
  CAPTURE(what);
  REQUIRE(got.shape() == want.shape());
  const auto& t = tolerance(row);
  const auto g = got.values(), w = want.values();
  const double scale = tensor_scale(w);
  int bad = 0;
  for (std::size_t i = 0; i < g.size(); ++i)
    if (!agrees(g[i], w[i], scale, t) && bad++ < 3)
      FAIL_CHECK(what << "[" << i << "] = " << g[i] << ", expected " << w[i]);
  CHECK(bad == 0);
}

}  // namespace ss::test
