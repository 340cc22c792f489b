// Buffer::deferred: contents that live elsewhere (a GPU's memory) come in
// on the first access, once, whichever thread asks; the twin is there
// until then and gone after.
#include <doctest/doctest.h>

#include <atomic>
#include <cstring>
#include <stdexcept>
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

TEST_CASE("a refetchable deferred buffer, rearmed, fetches its twin's new contents") {
  float source[2] = {1.0f, 2.0f};
  int fetches = 0;
  auto twin = std::make_shared<int>(1);
  auto buffer = Buffer::deferred(
      sizeof source,
      [&](void* to) {
        ++fetches;
        std::memcpy(to, source, sizeof source);
      },
      twin, /*refetchable=*/true);
  const Tensor t = Tensor::over(buffer, DType::f32, {2});
  CHECK(t.get(1) == 2.0);
  CHECK(buffer->twin() == nullptr);  // fetched: the host's copy is the value
  buffer->freeze();
  source[1] = 5.0f;  // a replay writes the twin anew
  buffer->rearm();
  CHECK_FALSE(buffer->frozen());  // its contents change: nothing derived from them stays
  CHECK(buffer->twin() == twin);  // pending again
  CHECK(t.get(1) == 5.0);
  CHECK(fetches == 2);
  CHECK(t.get(0) == 1.0);
  CHECK(fetches == 2);

  auto once = Buffer::deferred(
      4, [](void*) {}, twin);
  CHECK_THROWS_AS(once->rearm(), std::logic_error);  // its fetch is gone once it ran
}

TEST_CASE("a settled refetchable buffer lets its twin go once fetched, and is rearmed no more") {
  const float value = 2.5f;
  auto twin = std::make_shared<int>(3);
  const auto fetch = [&](void* to) { std::memcpy(to, &value, sizeof value); };

  auto fetched = Buffer::deferred(sizeof value, fetch, twin, /*refetchable=*/true);
  CHECK(Tensor::over(fetched, DType::f32, {}).get(0) == 2.5);
  CHECK(twin.use_count() == 2);  // kept for a rearm
  fetched->settle();
  CHECK(twin.use_count() == 1);  // fetched already: let go at once
  CHECK_THROWS_AS(fetched->rearm(), std::logic_error);
  CHECK(Tensor::over(fetched, DType::f32, {}).get(0) == 2.5);  // its contents stay

  auto pending = Buffer::deferred(sizeof value, fetch, twin, /*refetchable=*/true);
  pending->settle();
  CHECK(pending->twin() == twin);  // still pending: its twin is still the value
  CHECK(Tensor::over(pending, DType::f32, {}).get(0) == 2.5);
  CHECK(twin.use_count() == 1);  // let go when fetched
}
