// Buffer::deferred: contents that live elsewhere (a GPU's memory) come in
// on the first access, once, whichever thread asks; the twin is there
// until then and gone after.
#include <doctest/doctest.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "runtime/core/tensor.hpp"

using ss::runtime::Buffer;
using ss::runtime::DType;
using ss::runtime::Tensor;

TEST_CASE("a deferred buffer fetches its contents once, on the first access") {
  std::atomic<int> fetches{0};
  const float values[3] = {1.5f, -2.0f, 4.25f};
  auto twin = std::make_shared<int>(7);
  auto buffer = Buffer::deferred(
      sizeof values,
      [&](void* to) {
        ++fetches;
        std::memcpy(to, values, sizeof values);
      },
      twin);
  const Tensor t = Tensor::over(buffer, DType::f32, {3});
  CHECK(fetches == 0);
  CHECK(buffer->twin() == twin);  // not fetched yet: the other copy is still the value
  CHECK(t.shape() == ss::runtime::Shape{3});
  CHECK(fetches == 0);  // the shape needs no contents

  std::vector<std::thread> readers;
  std::vector<double> seen(4);
  for (int k = 0; k < 4; ++k) readers.emplace_back([&, k] { seen[k] = t.get(2); });
  for (auto& r : readers) r.join();
  CHECK(fetches == 1);
  for (const double v : seen) CHECK(v == 4.25);
  CHECK(buffer->twin() == nullptr);  // the host may write it now
  CHECK(t.values() == std::vector<double>{1.5, -2.0, 4.25});
  CHECK(fetches == 1);
  CHECK_THROWS(Tensor::over(buffer, DType::f32, {4}));  // larger than the buffer
}
