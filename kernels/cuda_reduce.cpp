#include "kernels/cuda_reduce.hpp"

#include <sstream>

#include "kernels/cuda_bf16.hpp"
#include "kernels/cuda_kahan.hpp"

namespace ss::cuda {
namespace {

// The block's total of one value per thread, by `combine` (whose identity
// is `none`), in every thread's return value: warp shuffles, then one warp
// over the warps' results, a pairwise tree. T is the accumulator: float
// for float rows, double for integer ones (exact there).
constexpr const char* kBlockPrelude = R"(#ifndef SS_REDUCE_PRELUDE
#define SS_REDUCE_PRELUDE
struct SsSum {
  template <typename T> __device__ T operator()(T a, T b) const { return a + b; }
};
struct SsMax {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
  __device__ double operator()(double a, double b) const { return fmax(a, b); }
};
struct SsMin {
  __device__ float operator()(float a, float b) const { return fminf(a, b); }
  __device__ double operator()(double a, double b) const { return fmin(a, b); }
};
template <typename T, typename F>
__device__ T ss_block(T v, F combine, T none) {
  __shared__ T partial[32];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int d = 16; d > 0; d /= 2) v = combine(v, __shfl_down_sync(0xffffffffu, v, d));
  __syncthreads();  // partial[] may still be read from the last call
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  const unsigned warps = (blockDim.x + 31) / 32;
  v = threadIdx.x < warps ? partial[threadIdx.x] : none;
  if (warp == 0)
    for (int d = 16; d > 0; d /= 2) v = combine(v, __shfl_down_sync(0xffffffffu, v, d));
  if (threadIdx.x == 0) partial[0] = v;
  __syncthreads();
  return partial[0];
}
#endif
)";

}  // namespace

std::string reduction_source(ir::Reduce op, const std::string& name, const std::string& input) {
  using ir::Reduce;
  // Float rows accumulate in float (no double anywhere); integer rows in
  // double, where every int32 is exact.
  // "unsigned short": a float32 value kept in bf16 (cuda_bf16_plan.hpp),
  // each element widened exactly as it is read.
  const bool bf16 = input == "unsigned short";
  const bool floats = input == "float" || input == "unsigned char" || bf16;
  const std::string T = floats ? "float" : "double";
  const auto load = [&](const std::string& element) {
    return bf16 ? "ss_from_bf16(" + element + ")" : "(" + T + ")" + element;
  };
  const std::string f = floats ? "f" : "";  // C's float function suffix
  const std::string inf =
      floats ? "__int_as_float(0x7f800000)" : "__longlong_as_double(0x7ff0000000000000LL)";
  std::ostringstream out;
  out << "// Generated (kernels/cuda_reduce.cpp).\n"
      << kBlockPrelude << kKahanSource << (bf16 ? bf16_helpers_text() : "")
      << "extern \"C\" __global__ void " << name << "(const " << input
      << "* __restrict__ x, float* __restrict__ out, long long rows, "
      << "long long group) {\n"
      << "  const " << T << " n = (" << T << ")group;\n"
      << "  (void)n;\n"
      << "  for (long long r = blockIdx.x; r < rows; r += gridDim.x) {\n"
      << "    const " << input << "* row = x + r * group;\n";
  // A pass over the thread's share of the row: `step` per element v.
  const auto each = [&](const std::string& init, const std::string& step) {
    out << "    {\n      " << init << "\n"
        << "      for (long long g = threadIdx.x; g < group; g += blockDim.x) {\n"
        << "        const " << T << " v = " << load("row[g]") << ";\n"
        << "        " << step << "\n      }\n";
  };
  const auto sum_of = [&](const std::string& term, const std::string& into) {
    each("SsKahan<" + T + "> acc;", "acc.add(" + term + ");");
    out << "      " << into << " = ss_block(acc.sum, SsSum(), (" << T << ")0);\n    }\n";
  };
  switch (op) {
    case Reduce::sum:
    case Reduce::mean:
      out << "    " << T << " total;\n";
      sum_of("v", "total");
      out << "    if (threadIdx.x == 0) out[r] = (float)("
          << (op == Reduce::mean ? "total / n" : "total") << ");\n";
      break;
    case Reduce::max:
    case Reduce::min: {
      const bool max = op == Reduce::max;
      // fmax/fmin skip NaNs; the reference's first element decides if it is one.
      out << "    " << T << " best;\n";
      each(T + " acc = " + (max ? "-" : "") + inf + ";",
           std::string("acc = ") + (max ? "fmax" : "fmin") + f + "(acc, v);");
      out << "      best = ss_block(acc, " << (max ? "SsMax(), -" : "SsMin(), ") << inf
          << ");\n    }\n"
          << "    if (threadIdx.x == 0) out[r] = group == 0 ? 0.0f : isnan(" << load("row[0]")
          << ") ? " << (bf16 ? load("row[0]") : "(float)row[0]") << " : (float)best;\n";
      break;
    }
    case Reduce::logsumexp:
      out << "    " << T << " peak, total;\n";
      each(T + " acc = -" + inf + ";", "if (acc < v) acc = v;");
      out << "      peak = ss_block(acc, SsMax(), -" << inf << ");\n    }\n";
      sum_of("exp" + f + "(v - peak)", "total");
      out << "    if (threadIdx.x == 0) out[r] = (float)(isfinite(peak) ? peak + log" << f
          << "(total) : peak);\n";
      break;
    case Reduce::var:
    case Reduce::std:
      out << "    " << T << " mean, squares;\n";
      sum_of("v", "mean");
      out << "    mean /= n;\n";
      sum_of("(v - mean) * (v - mean)", "squares");
      out << "    if (threadIdx.x == 0) out[r] = (float)("
          << (op == Reduce::var ? "squares / n" : "sqrt" + f + "(squares / n)") << ");\n";
      break;
  }
  out << "  }\n}\n";
  return out.str();
}

}  // namespace ss::cuda
