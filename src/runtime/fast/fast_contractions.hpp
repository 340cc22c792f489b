// The fast executor's contractions through the packed GEMM (runtime/gemm):
// matmul, and einsums as batched GEMMs (two operands, or autodiff's three
// with one factor of the output's names). False for what they don't take.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/attributes.hpp"
#include "ir/graph.hpp"
#include "runtime/core/tensor.hpp"
#include "runtime/fast/gemm/sgemm.hpp"
#include "runtime/fast/onednn_conv.hpp"
#include "support/function_ref.hpp"

namespace ss::runtime::fast {

// How a contraction's GEMMs run: threads for one large enough to split,
// and whether its inputs are rounded to bfloat16 and its products summed
// in float32 (gemm::sgemm_bf16: EngineOptions::precision bf16 on a CPU
// with AVX512-BF16).
struct GemmSettings {
  int threads = 1;
  bool bf16 = false;
  // Numerics::portable: each product's element one chain of fused
  // multiply-adds over k in order (gemm::sgemm_chain), no oneDNN.
  bool portable = false;
};

bool matmul(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values, GemmSettings how);

// A product's right operand b [k n] (float32, rank 2, read by its strides)
// readied for products of m rows: its matrix, and its resident panels
// where its buffer is frozen, as matmul would find them (none for a
// matrix given as memory alone).
struct RightOperand {
  Tensor kept;
  gemm::Matrix matrix{};
  std::shared_ptr<const gemm::PackedB> panels;
};
RightOperand right_operand(const Tensor& b, std::int64_t m, GemmSettings how);

// c [m n] = a b (b k x n), then the epilogue (float32 only: bfloat16's
// kernels take none): what matmul and matmul_with_epilogue compute, the
// same bits, for a caller that has its operands' memory already (a loop's
// planned steps).
void product(std::int64_t m, std::int64_t n, std::int64_t k, const gemm::Matrix& a,
             const RightOperand& b, gemm::Output c, GemmSettings how, gemm::Epilogue epilogue = {});

// out = a @ b + bias, then ReLU when `relu` (x > 0 ? x : 0), the GEMM
// adding the bias as it stores each element's last sum (float32; the same
// bits as the product and a pass after): a product's epilogue
// (ir::gemm_epilogue) without the product stored first. False, nothing
// made, for what it doesn't take (bfloat16, a bias that isn't a
// contiguous vector of b's columns).
bool matmul_with_epilogue(const Tensor& a, const Tensor& b, const Tensor& bias, bool relu,
                          Tensor& out, GemmSettings how);

// A resident value's tensor `b` (its buffer frozen) packed now into the
// panels a product a @ b of several rows reads (kept with the buffer, as
// the product's first run would make them): a weight's packing moves from
// the first call to the value's making. Nothing for what isn't such a b.
void prepack(const Tensor& b, GemmSettings how);

// a @ b for a b of rank 2, a block of rows at a time: block(r0, r1, tile)
// gets rows [r0, r1) of the product in `tile` (its rows b's columns long),
// for an epilogue to read while they are in the cache. Each row's sums are
// the whole product's. False, having run nothing, where matmul() would be.
bool matmul_in_blocks(const Tensor& a, const Tensor& b, GemmSettings how,
                      support::FunctionRef<void(std::int64_t, std::int64_t, const float*)> block);
bool einsum(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values, GemmSettings how);

// A two-operand einsum whose operand `which` is window(x) left unmade (a
// convolution's im2col): the window is made a slab of x's first axis (the
// batch, never windowed) at a time, about a megabyte, each slab's product
// taken before the next is made. As a's rows (a convolution's forward) the
// sums are einsum's own; as b's contracted rows (the kernel's gradient) the
// slabs' products add up in order. False, having run nothing, for what
// that doesn't take (the caller makes the window and runs einsum).
// With `post` (a convolution's forward and its tail, ir::conv_epilogue),
// only oneDNN's convolution adding the tail as it stores is tried: false,
// nothing made, where that can't run.
bool windowed_einsum(const ir::Node& n, std::size_t which, const Tensor& x, const ir::Window& w,
                     const Tensor& other, Tensor& out, GemmSettings how,
                     const ConvPostOps* post = nullptr);

// A grouped 2-D convolution (ir::GroupedConv) of a channels-last x [n h w
// c] through the window w, with the kernel as the program holds it [kh kw
// c/groups f], into out [n oh ow f] (a group's outputs next to each
// other), on oneDNN. False, having made nothing, where it can't (the
// caller then runs the chain's nodes).
bool grouped_conv(const Tensor& x, const ir::Window& w, const Tensor& kernel, Tensor& out,
                  GemmSettings how, const ConvPostOps& post = {});

// window_fold(einsum(a, b)) into the shape `like` without the einsum's
// product: a 2-D convolution's input gradient (a the output's gradient [n
// oh ow f], contiguous; b the kernel, contracted over f, its columns the
// window's [c kh kw]) on oneDNN. False, having run nothing, where that
// isn't so or oneDNN isn't there (the caller makes the product and folds).
bool folded_einsum(const ir::Node& n, const Tensor& a, const Tensor& b, const Shape& like,
                   const ir::Window& w, Tensor& out, GemmSettings how);

}  // namespace ss::runtime::fast
