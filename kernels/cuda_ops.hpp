// CUDA C for the CUDA executor's operations besides fused elementwise
// regions (cuda_elementwise) and trailing reductions (cuda_reduce). Each
// function returns one kernel's source, named `name`, for NVRTC.
//
// Pointwise kernels read each operand as a double and store the result
// with the reference's conversions (runtime/core/tensor.hpp's set): float
// rounds to nearest, i32 truncates toward zero and saturates (NaN gives 0),
// bool is "not zero". Operating in double and rounding once gives the
// reference's bits for every operation it has (it computes in double too).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/ops.hpp"
#include "runtime/core/dtype.hpp"

namespace ss::cuda {

// Up to this many axes (after merging none: shapes are passed as they are).
inline constexpr int kMaxRank = 8;
inline constexpr int kThreads = 256;

// The layout every pointwise kernel takes by value: the output's shape,
// each operand's strides in elements (0 along a broadcast axis) and the
// output's, in slot 3.
struct Layout {
  long long shape[kMaxRank] = {};
  long long stride[4][kMaxRank] = {};
  int rank = 0;
};

// "float", "int" or "unsigned char": a dtype's C type (f32, i32, bool).
const char* c_type(runtime::DType dtype);
// Whether the executor's kernels take the dtype (not bf16 or f16).
bool on_device(runtime::DType dtype);

// What a pointwise kernel computes from its operands a, b, c (doubles).
struct Pointwise {
  enum class Kind { copy, unary, binary, where } kind = Kind::copy;
  int sub = 0;            // the Unary or Binary
  bool integers = false;  // a binary op on two integer operands (Python's // and %)
};

// Whether `op` is a copy that reads or writes bf16 (a move of a bf16
// value, a narrowing of a float, a widening): the one pointwise work that
// takes bf16 (kernels/cuda_bf16_plan.hpp's values), in float.
bool bf16_copy(const Pointwise& op, runtime::DType in, runtime::DType out);

//   extern "C" __global__ void NAME(const A* a, const B* b, const C* c, OUT* out,
//                                   Layout layout, long long total)
// One thread an element, grid-stride; `inputs` has one dtype per operand
// the kind reads (1 for copy and unary, 2 for binary, 3 for where).
std::string pointwise_source(const Pointwise& op, const std::vector<runtime::DType>& inputs,
                             runtime::DType out, const std::string& name);

//   NAME(OUT* out, double value, long long total)
std::string fill_source(runtime::DType out, const std::string& name);
//   NAME(int* out, long long total): 0, 1, ...
std::string arange_source(const std::string& name);
//   NAME(const T* x, int* out, long long rows, long long group): each
// row's first largest element (std::max_element's rule), one thread a row.
std::string argmax_source(runtime::DType input, const std::string& name);
//   NAME(const float* log_p, const int* labels, float* out, long long outer,
//        long long classes, long long inner, long long* error, int sum)
// One block: -log_p at each position's label, summed in double, the mean
// unless `sum`; a label out of range puts its position in *error (the
// least such) and counts nothing.
std::string cross_entropy_source(const std::string& name);
//   NAME(const float* x, float* out, long long total, long long rows, long long cols)
std::string causal_source(const std::string& name);
//   NAME(const T* table, const int* ids, T* out, long long count, long long row,
//        long long rows, long long* error)
std::string gather_source(runtime::DType table, const std::string& name);
//   NAME(const float* values, const int* ids, float* out, long long count,
//        long long row, long long rows, long long* error)   (out zeroed first)
std::string scatter_add_source(const std::string& name);
// The same sums without atomics, each column's in index order (a thread a
// column; launch over `row` threads): the bits repeat, run after run.
std::string scatter_add_ordered_source(const std::string& name);
//   NAME(const float* x, float* out, long long rows, long long group)
// Layer norm (`centre`) or RMS norm of each row: a block a row, the mean
// and the squares summed in double, (x - mean) / sqrt(var + 1e-5).
std::string normalise_source(bool centre, const std::string& name);  // eps: a parameter
//   NAME(const T* x, const int* ids, T* out, long long total, long long size,
//        long long inner, long long* error)
// Along an axis of `size` (with `inner` elements after it), out[.., j, ..]
// = x[.., ids[.., j, ..], ..]; x and ids compact, of one shape.
std::string take_along_source(runtime::DType x, const std::string& name);

// window and window_fold (ir::Window): one thread per output element, the
// shapes and each windowed axis's size, stride, dilation and padding passed
// by value (WindowArgs). The fold gathers, for each element of its output,
// every window element that reads it, in the order of the window's axes:
// no atomics, the same bits on every run.
struct WindowArgs {
  static constexpr int kRank = 8, kAxes = 4;
  long long in_shape[kRank] = {}, out_shape[kRank + kAxes] = {};
  long long size[kAxes] = {}, stride[kAxes] = {}, dilation[kAxes] = {}, before[kAxes] = {};
  int axis[kRank] = {};  // per input axis: its window's index, or -1
  int rank = 0, axes = 0;
  float value = 0;  // the padding's, for a float window...
  int ivalue = 0;   // ...and an int one (no double in the kernels)
};
static_assert(sizeof(WindowArgs) == 336, "kWindowArgsSource's struct must match, field for field");
extern const char* const kWindowArgsSource;  // the struct, for the kernels
std::string window_source(runtime::DType x, const std::string& name);
std::string window_fold_source(const std::string& name);
//   NAME(const float* a, const float* b, float* c, long long m, long long n,
//        long long k, long long stride_a, long long stride_b, long long stride_c)
// Row-major batched GEMM (blockIdx.z the batch) in 16x16 tiles, summing in
// double: the contractions' kernel where cuBLAS can't be loaded.
inline constexpr int kGemmTile = 16;
std::string gemm_source(const std::string& name);

}  // namespace ss::cuda
