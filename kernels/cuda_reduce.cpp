#include "kernels/cuda_reduce.hpp"

#include <sstream>

namespace ss::cuda {
namespace {

// The block's total of one double per thread, by `combine` (whose identity
// is `none`), in every thread's return value.
constexpr const char* kBlockPrelude = R"(#ifndef SS_REDUCE_PRELUDE
#define SS_REDUCE_PRELUDE
#define SS_INF __longlong_as_double(0x7ff0000000000000LL)
struct SsSum { __device__ double operator()(double a, double b) const { return a + b; } };
struct SsMax { __device__ double operator()(double a, double b) const { return fmax(a, b); } };
struct SsMin { __device__ double operator()(double a, double b) const { return fmin(a, b); } };
template <typename F>
__device__ double ss_block(double v, F combine, double none) {
  __shared__ double partial[32];
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
  std::ostringstream out;
  out << "// Generated (kernels/cuda_reduce.cpp).\n"
      << kBlockPrelude << "extern \"C\" __global__ void " << name << "(const " << input
      << "* __restrict__ x, float* __restrict__ out, long long rows, "
      << "long long group) {\n"
      << "  const double n = (double)group;\n"
      << "  (void)n;\n"
      << "  for (long long r = blockIdx.x; r < rows; r += gridDim.x) {\n"
      << "    const " << input << "* row = x + r * group;\n"
      << "    double acc;\n";
  const auto each = [&](const std::string& init, const std::string& step) {
    out << "    acc = " << init << ";\n"
        << "    for (long long g = threadIdx.x; g < group; g += blockDim.x) {\n"
        << "      const double v = row[g];\n"
        << "      " << step << "\n    }\n";
  };
  switch (op) {
    case Reduce::sum:
    case Reduce::mean:
      each("0.0", "acc += v;");
      out << "    const double total = ss_block(acc, SsSum(), 0.0);\n"
          << "    if (threadIdx.x == 0) out[r] = (float)("
          << (op == Reduce::mean ? "total / n" : "total") << ");\n";
      break;
    case Reduce::max:
    case Reduce::min: {
      const bool max = op == Reduce::max;
      // fmax/fmin skip NaNs; the reference's first element decides if it is one.
      each(max ? "-SS_INF" : "SS_INF",
           std::string("acc = ") + (max ? "fmax" : "fmin") + "(acc, v);");
      out << "    const double best = ss_block(acc, "
          << (max ? "SsMax(), -SS_INF" : "SsMin(), SS_INF") << ");\n"
          << "    if (threadIdx.x == 0) out[r] = group == 0 ? 0.0f : isnan((double)row[0]) ? "
             "(float)row[0] : (float)best;\n";
      break;
    }
    case Reduce::logsumexp:
      each("-SS_INF", "if (acc < v) acc = v;");
      out << "    const double peak = ss_block(acc, SsMax(), -SS_INF);\n";
      each("0.0", "acc += exp(v - peak);");
      out << "    const double total = ss_block(acc, SsSum(), 0.0);\n"
          << "    if (threadIdx.x == 0) out[r] = (float)(isfinite(peak) ? peak + log(total) : "
             "peak);\n";
      break;
    case Reduce::var:
    case Reduce::std:
      each("0.0", "acc += v;");
      out << "    const double mean = ss_block(acc, SsSum(), 0.0) / n;\n";
      each("0.0", "acc += (v - mean) * (v - mean);");
      out << "    const double squares = ss_block(acc, SsSum(), 0.0);\n"
          << "    if (threadIdx.x == 0) out[r] = (float)("
          << (op == Reduce::var ? "squares / n" : "sqrt(squares / n)") << ");\n";
      break;
  }
  out << "  }\n}\n";
  return out.str();
}

}  // namespace ss::cuda
