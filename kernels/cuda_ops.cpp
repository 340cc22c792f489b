#include "kernels/cuda_ops.hpp"

#include <sstream>
#include <stdexcept>

#include "ir/formulas.hpp"
#include "kernels/cuda_bf16.hpp"
#include "kernels/cuda_elementwise.hpp"
#include "kernels/cuda_kahan.hpp"
#include "types/binary_functions.hpp"

namespace ss::cuda {
namespace {

using runtime::DType;

// Conversions and the layout, once per source (NVRTC compiles each alone).
constexpr const char* kPrelude = R"(#ifndef SS_OPS_PRELUDE
#define SS_OPS_PRELUDE
struct ss_layout {
  long long shape[8];
  long long stride[4][8];
  int rank;
};
__device__ __forceinline__ void ss_store(float* p, double v) { *p = (float)v; }
__device__ __forceinline__ void ss_store(int* p, double v) {
  *p = v != v ? 0 : v <= -2147483648.0 ? (int)0x80000000 : v >= 2147483647.0 ? 0x7fffffff : (int)v;
}
__device__ __forceinline__ void ss_store(unsigned char* p, double v) { *p = v != 0.0 ? 1 : 0; }
__device__ __forceinline__ double ss_load(const float* p) { return (double)*p; }
__device__ __forceinline__ double ss_load(const int* p) { return (double)*p; }
__device__ __forceinline__ double ss_load(const unsigned char* p) { return *p != 0 ? 1.0 : 0.0; }
__device__ __forceinline__ void ss_store(float* p, float v) { *p = v; }
__device__ __forceinline__ void ss_store(unsigned char* p, float v) { *p = v != 0.0f ? 1 : 0; }
__device__ __forceinline__ float ss_loadf(const float* p) { return *p; }
__device__ __forceinline__ float ss_loadf(const unsigned char* p) { return *p != 0 ? 1.0f : 0.0f; }
#endif
)";

std::string unary_expression(ir::Unary op, bool floats) {
  // types/unary.def's, in float with CUDA's float functions, or in double
  return floats ? ir::render(ir::formula(op), "a", float_function, true)
                : ir::render(ir::formula(op), "a");
}

// types/binary.def's formula of a and b: in float (its functions and
// literals) for float work, else in double, where integers are exact and
// take the row's integer formula; a bool result as 1 or 0.
std::string binary_expression(ir::Binary op, bool integers, bool floats) {
  const std::string value =
      floats ? ir::render(ir::formula(op), "a", float_function, true, "b")
             : ir::render(ir::formula(op, integers), "a", double_function, false, "b");
  if (!types::yields_bool(types::binary_result(static_cast<int>(op)))) return value;
  return "(" + value + (floats ? " ? 1.0f : 0.0f)" : " ? 1.0 : 0.0)");
}

const char* type_of(DType dtype) {
  if (!on_device(dtype))
    throw std::invalid_argument(std::string("no CUDA kernels for ") + runtime::dtype_name(dtype));
  return c_type(dtype);
}

// A bf16 value's load and store in float work (cuda_bf16.cuh's
// conversions), for the copies that move, narrow or widen one.
constexpr const char* kBf16Access = R"(#ifndef SS_BF16_ACCESS
#define SS_BF16_ACCESS
__device__ __forceinline__ float ss_loadf(const unsigned short* p) { return ss_from_bf16(*p); }
__device__ __forceinline__ void ss_store(unsigned short* p, float v) { *p = ss_bf16(v); }
#endif
)";

// The head of a grid-stride loop over `total` elements.
constexpr const char* kLoop =
    "  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;\n"
    "       e += (long long)gridDim.x * blockDim.x) {\n";

// The block's total of every thread's v, in every thread (blockDim.x a
// power of two, at most kThreads): a pairwise tree in float.
constexpr const char* kBlockSum = R"(#ifndef SS_BLOCK_SUM
#define SS_BLOCK_SUM
__device__ float ss_block_sum(float v) {
  __shared__ float partial[256];
  __syncthreads();  // the last call's readers are done
  partial[threadIdx.x] = v;
  __syncthreads();
  for (int d = blockDim.x / 2; d > 0; d /= 2) {
    if (threadIdx.x < d) partial[threadIdx.x] += partial[threadIdx.x + d];
    __syncthreads();
  }
  return partial[0];
}
#endif
)";

// A kernel's first lines: what made it, and its signature.
std::string head(const std::string& name, const std::string& params,
                 const std::string& prelude = "") {
  return "// Generated (kernels/cuda_ops.cpp).\n" + prelude + "extern \"C\" __global__ void " +
         name + "(" + params + ") {\n";
}

// An id outside 0..bound-1: the least such position goes to *error, and
// the element is `then` (a statement).
std::string bad_id(const std::string& id, const std::string& bound, const std::string& position,
                   const std::string& then) {
  return "    if (" + id + " < 0 || " + id + " >= " + bound + ") {\n" +
         "      atomicMin((unsigned long long*)error, (unsigned long long)" + position + ");\n" +
         "      " + then + "\n      continue;\n    }\n";
}

}  // namespace

const char* c_type(DType dtype) {
  switch (dtype) {
    case DType::f32:
      return "float";
    case DType::i32:
      return "int";
    case DType::boolean:
      return "unsigned char";
    default:
      return "unsigned short";
  }
}

bool on_device(DType dtype) {
  return dtype == DType::f32 || dtype == DType::i32 || dtype == DType::boolean;
}

bool bf16_copy(const Pointwise& op, DType in, DType out) {
  const bool floats =
      (in == DType::f32 || in == DType::bf16) && (out == DType::f32 || out == DType::bf16);
  return op.kind == Pointwise::Kind::copy && floats && (in == DType::bf16 || out == DType::bf16);
}

std::string pointwise_source(const Pointwise& op, const std::vector<DType>& inputs, DType out,
                             const std::string& name) {
  const std::size_t arity = op.kind == Pointwise::Kind::binary  ? 2
                            : op.kind == Pointwise::Kind::where ? 3
                                                                : 1;
  if (inputs.size() != arity) throw std::invalid_argument("pointwise: wrong number of operands");
  // A bf16 copy (a move, a narrowing or a widening) loads a float and
  // stores one, rounded to bf16 where the result is one.
  const bool bf16 = bf16_copy(op, inputs[0], out);
  const auto type = [&](DType t) {
    return bf16 && t == DType::bf16 ? "unsigned short" : type_of(t);
  };
  // Float work in float: every operand and the result f32 or bool (an
  // integer is exact in double, so integer work stays there).
  bool floats = bf16 || (!op.integers && (out == DType::f32 || out == DType::boolean));
  for (const DType t : inputs) floats = floats && (bf16 || t == DType::f32 || t == DType::boolean);
  std::string expression;
  switch (op.kind) {
    case Pointwise::Kind::copy:
      expression = "a";
      break;
    case Pointwise::Kind::unary:
      expression = unary_expression(static_cast<ir::Unary>(op.sub), floats);
      break;
    case Pointwise::Kind::binary:
      expression = binary_expression(static_cast<ir::Binary>(op.sub), op.integers, floats);
      break;
    case Pointwise::Kind::where:
      expression = floats ? "a != 0.0f ? b : c" : "a != 0.0 ? b : c";
      break;
  }
  std::ostringstream s;
  s << "// Generated (kernels/cuda_ops.cpp).\n" << kPrelude << kFormulaHelpers;
  if (bf16) s << bf16_helpers_text() << kBf16Access;
  const char* names[] = {"a", "b", "c"};
  s << "extern \"C\" __global__ void " << name << "(";
  for (std::size_t k = 0; k < 3; ++k)
    s << "const " << (k < arity ? type(inputs[k]) : "float") << "* __restrict__ " << names[k]
      << "_p, ";
  s << type(out) << "* __restrict__ out, ss_layout l, long long total) {\n" << kLoop;
  s << "    long long rest = e, at[4] = {0, 0, 0, 0};\n"
    << "    for (int d = l.rank - 1; d >= 0; --d) {\n"
    << "      const long long i = rest % l.shape[d];\n"
    << "      rest /= l.shape[d];\n"
    << "      for (int k = 0; k < 4; ++k) at[k] += i * l.stride[k][d];\n"
    << "    }\n";
  for (std::size_t k = 0; k < arity; ++k)
    s << "    const " << (floats ? "float" : "double") << " " << names[k]
      << (floats ? " = ss_loadf(" : " = ss_load(") << names[k] << "_p + at[" << k << "]);\n";
  s << "    ss_store(out + at[3], " << expression << ");\n  }\n}\n";
  return s.str();
}

std::string fill_source(DType out, const std::string& name) {
  // A float's value as a float; an integer's or bool's as a double (exact).
  const char* value = out == DType::f32 ? "float" : "double";
  return head(
             name,
             std::string(type_of(out)) + "* __restrict__ out, " + value + " value, long long total",
             kPrelude) +
         kLoop + "    ss_store(out + e, value);\n  }\n}\n";
}

std::string arange_source(const std::string& name) {
  return head(name, "int* __restrict__ out, long long total") + kLoop +
         "    out[e] = (int)e;\n  }\n}\n";
}

std::string argmax_source(DType input, const std::string& name) {
  const std::string t = type_of(input);
  return head(name,
              "const " + t +
                  "* __restrict__ x, int* __restrict__ out, long long rows, long long group") +
         "  for (long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x; r < rows;\n"
         "       r += (long long)gridDim.x * blockDim.x) {\n"
         "    const " +
         t +
         "* row = x + r * group;\n"
         "    long long best = 0;\n"
         "    for (long long g = 1; g < group; ++g)\n"
         "      if (row[best] < row[g]) best = g;\n"
         "    out[r] = (int)best;\n  }\n}\n";
}

std::string cross_entropy_source(const std::string& name) {
  return head(name,
              "const float* __restrict__ log_p, const int* __restrict__ labels, float* out,\n"
              "    long long outer, long long classes, long long inner, long long* error, int sum",
              std::string(kBlockSum) + kKahanSource) +
         "  const long long positions = outer * inner;\n"
         "  SsKahan<float> acc;\n"
         "  for (long long p = threadIdx.x; p < positions; p += blockDim.x) {\n"
         "    const long long label = labels[p];\n" +
         bad_id("label", "classes", "p", "") +
         "    const long long o = p / inner, i = p - o * inner;\n"
         "    acc.add(-log_p[(o * classes + label) * inner + i]);\n"
         "  }\n"
         "  const float total = ss_block_sum(acc.sum);\n"
         "  if (threadIdx.x == 0) out[0] = sum ? total : total / (float)positions;\n"
         "}\n";
}

std::string causal_source(const std::string& name) {
  return head(name,
              "const float* __restrict__ x, float* __restrict__ out, long long total, "
              "long long rows, long long cols") +
         kLoop + "    const long long j = e % cols, i = (e / cols) % rows;\n" +
         "    out[e] = j > i ? __int_as_float(0xff800000) : x[e];\n  }\n}\n";
}

std::string gather_source(DType table, const std::string& name) {
  const std::string t = type_of(table);
  return head(name, "const " + t + "* __restrict__ table, const int* __restrict__ ids, " + t +
                        "* __restrict__ out,\n    long long count, long long row, long long rows, "
                        "long long* error") +
         "  const long long total = count * row;\n" + kLoop +
         "    const long long i = e / row, k = e - i * row;\n"
         "    const long long id = ids[i];\n" +
         bad_id("id", "rows", "i", "out[e] = 0;") + "    out[e] = table[id * row + k];\n  }\n}\n";
}

std::string scatter_add_source(const std::string& name) {
  return head(name,
              "const float* __restrict__ values, const int* __restrict__ ids, float* out,\n"
              "    long long count, long long row, long long rows, long long* error") +
         "  const long long total = count * row;\n" + kLoop +
         "    const long long i = e / row, k = e - i * row;\n"
         "    const long long id = ids[i];\n" +
         bad_id("id", "rows", "i", "") + "    atomicAdd(out + id * row + k, values[e]);\n  }\n}\n";
}

std::string scatter_add_ordered_source(const std::string& name) {
  // A thread a column: the ids in index order, so the sums repeat their bits.
  return head(name,
              "const float* __restrict__ values, const int* __restrict__ ids, float* out,\n"
              "    long long count, long long row, long long rows, long long* error") +
         "  for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < row;\n"
         "       k += (long long)gridDim.x * blockDim.x) {\n"
         "    for (long long i = 0; i < count; ++i) {\n"
         "      const long long id = ids[i];\n"
         "      if (id < 0 || id >= rows) {\n"
         "        if (k == 0) atomicMin((unsigned long long*)error, (unsigned long long)i);\n"
         "        continue;\n"
         "      }\n"
         "      out[id * row + k] += values[i * row + k];\n"
         "    }\n"
         "  }\n}\n";
}

std::string normalise_source(bool centre, const std::string& name) {
  std::string body =
      head(
          name,
          "const float* __restrict__ x, float* __restrict__ out, long long rows, long long group,\n"
          "    float eps",
          std::string(kBlockSum) + kKahanSource) +
      "  for (long long r = blockIdx.x; r < rows; r += gridDim.x) {\n"
      "    const float* row = x + r * group;\n"
      "    float mean = 0.0f;\n";
  if (centre)
    body +=
        "    {\n"
        "      SsKahan<float> acc;\n"
        "      for (long long g = threadIdx.x; g < group; g += blockDim.x) acc.add(row[g]);\n"
        "      mean = ss_block_sum(acc.sum) / (float)group;\n"
        "    }\n";
  return body +
         "    SsKahan<float> acc;\n"
         "    for (long long g = threadIdx.x; g < group; g += blockDim.x)\n"
         "      acc.add((row[g] - mean) * (row[g] - mean));\n"
         "    const float scale = 1.0f / __fsqrt_rn(ss_block_sum(acc.sum) / (float)group + eps);\n"
         "    for (long long g = threadIdx.x; g < group; g += blockDim.x)\n"
         "      out[r * group + g] = (row[g] - mean) * scale;\n"
         "  }\n}\n";
}

const char* const kWindowArgsSource = R"(struct WindowArgs {
  long long in_shape[8], out_shape[12];
  long long size[4], stride[4], dilation[4], before[4];
  int axis[8];
  int rank, axes;
  float value;
  int ivalue;
};
)";

std::string window_source(DType x, const std::string& name) {
  const std::string t = type_of(x);
  return head(name,
              "const " + t + "* __restrict__ x, " + t +
                  "* __restrict__ out, long long total, WindowArgs a",
              kWindowArgsSource) +
         kLoop +
         "    long long rest = e, index[12];\n"
         "    for (int d = a.rank + a.axes - 1; d >= 0; --d) {\n"
         "      index[d] = rest % a.out_shape[d];\n"
         "      rest /= a.out_shape[d];\n"
         "    }\n"
         "    long long from = 0;\n"
         "    bool inside = true;\n"
         "    for (int d = 0; d < a.rank; ++d) {\n"
         "      long long p = index[d];\n"
         "      const int k = a.axis[d];\n"
         "      if (k >= 0) {\n"
         "        p = index[d] * a.stride[k] + index[a.rank + k] * a.dilation[k] - a.before[k];\n"
         "        inside = inside && p >= 0 && p < a.in_shape[d];\n"
         "      }\n"
         "      from = from * a.in_shape[d] + p;\n"
         "    }\n"
         "    out[e] = inside ? x[from] : " +
         std::string(x == DType::f32 ? "a.value" : "a.ivalue") +
         ";\n"
         "  }\n}\n";
}

std::string window_fold_source(const std::string& name) {
  return head(name,
              "const float* __restrict__ values, float* __restrict__ out, long long total, "
              "WindowArgs a",
              kWindowArgsSource) +
         kLoop +
         "    long long rest = e, at[8];\n"
         "    for (int d = a.rank - 1; d >= 0; --d) {\n"
         "      at[d] = rest % a.in_shape[d];\n"
         "      rest /= a.in_shape[d];\n"
         "    }\n"
         "    float sum = 0.0f;\n"
         "    long long j[4] = {0, 0, 0, 0};\n"
         "    long long count = 1;\n"
         "    for (int k = 0; k < a.axes; ++k) count *= a.size[k];\n"
         "    for (long long c = 0; c < count; ++c) {\n"
         "      long long rem = c;\n"
         "      for (int k = a.axes - 1; k >= 0; --k) {\n"
         "        j[k] = rem % a.size[k];\n"
         "        rem /= a.size[k];\n"
         "      }\n"
         "      long long from = 0;\n"
         "      bool reads = true;\n"
         "      for (int d = 0; d < a.rank && reads; ++d) {\n"
         "        long long o = at[d];\n"
         "        const int k = a.axis[d];\n"
         "        if (k >= 0) {  // the window o whose element j[k] is at[d]\n"
         "          const long long q = at[d] + a.before[k] - j[k] * a.dilation[k];\n"
         "          reads = q >= 0 && q % a.stride[k] == 0 && q / a.stride[k] < a.out_shape[d];\n"
         "          o = q / a.stride[k];\n"
         "        }\n"
         "        from = from * a.out_shape[d] + o;\n"
         "      }\n"
         "      if (!reads) continue;\n"
         "      for (int k = 0; k < a.axes; ++k) from = from * a.size[k] + j[k];\n"
         "      sum += values[from];\n"
         "    }\n"
         "    out[e] = sum;\n"
         "  }\n}\n";
}

std::string take_along_source(DType x, const std::string& name) {
  const std::string t = type_of(x);
  return head(name, "const " + t + "* __restrict__ x, const int* __restrict__ ids, " + t +
                        "* __restrict__ out,\n    long long total, long long size, long long "
                        "inner, long long* error") +
         kLoop + "    const long long j = ids[e];\n" + bad_id("j", "size", "e", "out[e] = 0;") +
         "    const long long at = (e / inner) % size;\n"
         "    out[e] = x[e + (j - at) * inner];\n  }\n}\n";
}

std::string gemm_source(const std::string& name) {
  const std::string t = std::to_string(kGemmTile);
  return head(name,
              "const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,\n"
              "    long long m, long long n, long long k, long long stride_a, long long stride_b,\n"
              "    long long stride_c") +
         "  __shared__ float ta[" + t + "][" + t + "], tb[" + t + "][" + t + "];\n" +
         "  a += blockIdx.z * stride_a;\n  b += blockIdx.z * stride_b;\n"
         "  c += blockIdx.z * stride_c;\n"
         "  const long long row = blockIdx.y * " +
         t + " + threadIdx.y;\n" + "  const long long col = blockIdx.x * " + t +
         " + threadIdx.x;\n" +
         "  float acc = 0.0f;\n"
         "  for (long long p0 = 0; p0 < k; p0 += " +
         t + ") {\n" +
         "    const long long pa = p0 + threadIdx.x, pb = p0 + threadIdx.y;\n"
         "    ta[threadIdx.y][threadIdx.x] = row < m && pa < k ? a[row * k + pa] : 0.0f;\n"
         "    tb[threadIdx.y][threadIdx.x] = pb < k && col < n ? b[pb * n + col] : 0.0f;\n"
         "    __syncthreads();\n"
         "    for (int q = 0; q < " +
         t + "; ++q)\n" +
         "      acc += ta[threadIdx.y][q] * tb[q][threadIdx.x];\n"
         "    __syncthreads();\n"
         "  }\n"
         "  if (row < m && col < n) c[row * n + col] = acc;\n"
         "}\n";
}

}  // namespace ss::cuda
