// An attention node's layout (ir/attention.hpp) bound to its operands'
// sizes and strides: one batch position's Item, and where each position
// lies in each tensor. The fast CPU kernels (fast_attention.cpp) and the
// CUDA ones (kernels/cuda_attention) both start from it; it reads only
// the tensors' shapes and strides, never their elements, so a device
// tensor's view binds as well as a host one.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/attention.hpp"
#include "runtime/core/tensor.hpp"
#include "runtime/fast/attention/attention_item.hpp"

namespace ss::runtime::fast::attn {

// Each letter's stride in a tensor (a letter it lacks is missing: 0,
// broadcast).
using LetterStrides = std::map<std::string, std::int64_t>;

LetterStrides strides_of(const std::vector<std::string>& letters, const runtime::Strides& strides);
std::int64_t stride_at(const LetterStrides& s, const std::string& letter);
runtime::Strides row_major(const Shape& shape);

// False with SHAPESCRIPT_ATTENTION_KERNEL=0 set: every attention node runs
// as its body, the composition, on the CPU and on CUDA alike (to measure
// or rule out the kernels).
bool attention_kernel_on();

struct Bound {
  ir::AttentionLayout l;
  std::map<std::string, std::int64_t> size;
  std::vector<std::string> batch;  // out's letters but i and e, in out's order
  Shape out_shape;
  Item item;  // the scale's factor left at 1
  LetterStrides q, k, v;
  // The output's strides, row-major (item.o_* are its i's and e's); once
  // bind_grads has run, dout's instead.
  LetterStrides o;
  // Set by bind_grads: each part's strides in the [3, q's shape] result,
  // row-major.
  LetterStrides gq, gk, gv;
  std::int64_t part_size = 0;

  // Binds q, k and v (float32, each letter one size); false where the
  // tensors don't fit the layout.
  bool bind(const ir::Node& n, const Tensor& tq, const Tensor& tk, const Tensor& tv);
  // Binds the value's gradient and the result's parts; false where dout
  // isn't the output's shape, k or v not q's, or a part lacks a batch
  // letter (the positions' places would overlap).
  bool bind_grads(const Tensor& tq, const Tensor& tk, const Tensor& tv, const Tensor& dout);

  std::int64_t positions() const;
  // Position `p`'s offset in a tensor of `strides` (row-major over `batch`).
  std::int64_t offset(std::int64_t p, const LetterStrides& strides) const;
};

}  // namespace ss::runtime::fast::attn
