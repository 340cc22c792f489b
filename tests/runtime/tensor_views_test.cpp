// Strided tensors: views share their buffer and read through their strides;
// every op reads a view as it would the same elements packed.
#include <doctest/doctest.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "runtime/core/small_dims.hpp"
#include "runtime/core/tensor.hpp"
#include "runtime/reference/ops.hpp"

namespace {

using ss::runtime::DType;
using ss::runtime::Tensor;

// 0, 1, 2, ... in a fresh [2 3 4] tensor.
Tensor counting() {
  Tensor t = Tensor::zeros(DType::f32, {2, 3, 4});
  for (std::int64_t i = 0; i < t.size(); ++i) t.set(i, static_cast<double>(i));
  return t;
}

}  // namespace

TEST_CASE("slice, select and permute are views: same buffer, elements through the strides") {
  const Tensor t = counting();
  CHECK(t.contiguous());
  CHECK(t.strides() == ss::runtime::Strides{12, 4, 1});

  const Tensor s = t.slice(2, 1, 3);  // [2 3 2]
  CHECK(s.buffer() == t.buffer());
  CHECK_FALSE(s.contiguous());
  CHECK(s.shape() == ss::runtime::Shape{2, 3, 2});
  CHECK(s.values() == std::vector<double>{1, 2, 5, 6, 9, 10, 13, 14, 17, 18, 21, 22});

  const Tensor row = t.select(0, 1);  // the second [3 4] block: contiguous
  CHECK(row.contiguous());
  CHECK(row.get(0) == 12);
  CHECK(row.raw() == static_cast<float*>(t.raw()) + 12);

  const Tensor p = t.permute({2, 0, 1});  // [4 2 3]
  CHECK(p.shape() == ss::runtime::Shape{4, 2, 3});
  CHECK(p.strides() == ss::runtime::Strides{1, 12, 4});
  CHECK(p.get(1) == 4);    // p[0, 0, 1] = t[0, 1, 0]
  CHECK(p.get(6) == 1);    // p[1, 0, 0] = t[0, 0, 1]
  CHECK(p.get(23) == 23);  // p[3, 1, 2] = t[1, 2, 3]

  // A view of a view; writing through it changes the shared buffer.
  Tensor corner = p.slice(0, 3, 4).select(1, 1);  // p[3, 1, :] = t[1, :, 3]
  CHECK(corner.values() == std::vector<double>{15, 19, 23});
  corner.set(1, -1);
  CHECK(t.get(19) == -1);
}

TEST_CASE("compact packs a view into a new contiguous tensor, and returns a packed one as is") {
  const Tensor t = counting();
  CHECK(t.compact().buffer() == t.buffer());
  const Tensor p = t.permute({1, 0, 2}).slice(2, 0, 2);
  const Tensor packed = p.compact();
  CHECK(packed.contiguous());
  CHECK(packed.buffer() != t.buffer());
  CHECK(packed.values() == p.values());
  CHECK(static_cast<const float*>(packed.raw())[3] == 13);  // p[0, 1, 1] = t[1, 0, 1]
}

TEST_CASE("compact copies every permutation and slice of a view: tiles, merged and unit axes") {
  // Transposes copy in tiles of 16 (sizes around a tile's edge), axes that
  // walk as one merge, axes of size 1 drop; each element must land where
  // get() reads it, for 4-, 2- and 1-byte elements.
  const std::vector<ss::runtime::Shape> shapes = {{17, 33},      {3, 1, 18, 5}, {2, 16, 16},
                                                  {1, 40, 1, 7}, {5, 4, 3, 2},  {31, 2, 17}};
  for (const DType dtype : {DType::f32, DType::bf16, DType::boolean}) {
    for (const auto& shape : shapes) {
      Tensor t = Tensor::zeros(dtype, shape);
      for (std::int64_t i = 0; i < t.size(); ++i)
        t.set(i, dtype == DType::boolean ? static_cast<double>(i % 3 == 0)
                                         : static_cast<double>(i % 251));
      std::vector<std::int64_t> order(shape.size());
      for (std::size_t k = 0; k < order.size(); ++k) order[k] = static_cast<std::int64_t>(k);
      do {
        CAPTURE(shape.size());
        const Tensor p = t.permute(order);
        for (const Tensor& view : {p, p.slice(0, p.dim(0) > 2 ? 1 : 0, p.dim(0))}) {
          const Tensor c = view.compact();
          REQUIRE(c.contiguous());
          REQUIRE(c.shape() == view.shape());
          bool same = true;
          for (std::int64_t i = 0; i < c.size(); ++i) same = same && c.get(i) == view.get(i);
          CHECK(same);
        }
      } while (std::next_permutation(order.begin(), order.end()));
    }
  }
}

TEST_CASE("host memory with the host's strides: transposed, a column, repeated, backwards") {
  float host[6] = {1, 2, 3, 4, 5, 6};  // a [2 3] matrix
  const Tensor transposed = Tensor::borrow_strided(host, DType::f32, {3, 2}, {1, 3});
  CHECK(transposed.values() == std::vector<double>{1, 4, 2, 5, 3, 6});
  const Tensor column = Tensor::borrow_strided(host + 1, DType::f32, {2}, {3});
  CHECK(column.values() == std::vector<double>{2, 5});
  const Tensor repeated = Tensor::borrow_strided(host, DType::f32, {2, 3}, {0, 1});
  CHECK(repeated.values() == std::vector<double>{1, 2, 3, 1, 2, 3});
  const Tensor backwards = Tensor::borrow_strided(host + 5, DType::f32, {6}, {-1});
  CHECK(backwards.values() == std::vector<double>{6, 5, 4, 3, 2, 1});
  CHECK(Tensor::borrow_strided(host, DType::f32, {2, 3}, {3, 1}).contiguous());
  CHECK_THROWS_AS(Tensor::borrow_strided(host, DType::f32, {2, 3}, {1}), std::invalid_argument);
}

TEST_CASE("views refuse axes and bounds outside the tensor") {
  const Tensor t = counting();
  CHECK_THROWS_AS(t.slice(3, 0, 1), std::out_of_range);
  CHECK_THROWS_AS(t.slice(0, 1, 3), std::out_of_range);
  CHECK_THROWS_AS(t.select(1, 3), std::out_of_range);
  CHECK_THROWS_AS(t.permute({0, 0, 1}), std::out_of_range);
  CHECK_THROWS_AS(t.permute({0, 1}), std::out_of_range);
  CHECK(t.slice(1, 2, 2).size() == 0);
}

TEST_CASE("the reference ops read views exactly as their packed copies") {
  namespace ref = ss::runtime::reference;
  const Tensor view = counting().permute({2, 1, 0}).slice(0, 1, 4);  // [3 3 2]
  const Tensor packed = view.compact();
  CHECK(ref::reduce(ref::Reduce::sum, view, {0, 2}, false).values() ==
        ref::reduce(ref::Reduce::sum, packed, {0, 2}, false).values());
  CHECK(ref::unary(ref::Unary::exp, view).values() == ref::unary(ref::Unary::exp, packed).values());
  CHECK(ref::binary(ref::Binary::mul, view, packed).values() ==
        ref::binary(ref::Binary::mul, packed, packed).values());
  CHECK(ref::softmax(view, 1).values() == ref::softmax(packed, 1).values());
  const Tensor matrix = view.select(2, 1);  // [3 3], not contiguous
  CHECK(ref::matmul(matrix, matrix).values() ==
        ref::matmul(matrix.compact(), matrix.compact()).values());
}

TEST_CASE("a shape keeps its sizes when it grows past the eight it holds inline") {
  ss::runtime::SmallDims dims;
  for (std::int64_t i = 1; i <= 9; ++i) dims.push_back(i);  // the ninth moves them to the heap
  REQUIRE(dims.size() == 9);
  for (std::int64_t i = 1; i <= 9; ++i) CHECK(dims[static_cast<std::size_t>(i - 1)] == i);
  dims.insert(dims.begin(), std::int64_t{0});
  CHECK(dims.size() == 10);
  CHECK(dims.front() == 0);
  CHECK(dims.back() == 9);
}
