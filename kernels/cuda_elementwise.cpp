#include "kernels/cuda_elementwise.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "ir/formulas.hpp"
#include "ir/ops.hpp"
#include "kernels/cuda_bf16.hpp"
#include "types/binary_functions.hpp"

namespace ss::cuda {
namespace {

using ir::Binary;
using ir::FusedStep;
using ir::Unary;

// A float constant that reads back to the same bits.
std::string float_literal(float value) {
  if (value != value) return "__int_as_float(0x7fc00000)";
  if (value == 1.0f / 0.0f) return "__int_as_float(0x7f800000)";
  if (value == -1.0f / 0.0f) return "__int_as_float(0xff800000)";
  char text[64];
  std::snprintf(text, sizeof text, "%.9g", static_cast<double>(value));
  std::string literal = text;
  if (literal.find_first_of(".e") == std::string::npos) literal += ".0";  // 3 -> 3.0f
  return literal + "f";
}

}  // namespace

// A formula's function as CUDA's float function: expf (2 ulp), logf (1),
// tanhf (2), erff (2), powf (2), a correctly rounded sqrt, and the exact
// fabsf, floorf, fmodf and copysignf.
std::string float_function(const std::string& name) {
  if (name == "sqrt") return "__fsqrt_rn";
  if (name == "nan") return "ss_nanf";
  return name + "f";
}

std::string double_function(const std::string& name) {
  return name == "nan" ? "ss_nan" : name;
}

const char* const kFormulaHelpers = R"(#ifndef SS_FORMULA_HELPERS
#define SS_FORMULA_HELPERS
__device__ __forceinline__ float ss_nanf() { return __int_as_float(0x7fc00000); }
__device__ __forceinline__ double ss_nan() { return __longlong_as_double(0x7ff8000000000000LL); }
#endif
)";

namespace {

// types/unary.def's and binary.def's formulas in float32 throughout: their
// numbers rounded to float once, each step rounded (no FMA: --fmad=false),
// CUDA's float functions.
std::string unary(int kind, const std::string& x) {
  const auto op = static_cast<Unary>(kind);
  if (op == Unary::logical_not) return "!" + x;
  return "(float)" + ir::render(ir::formula(op), x, float_function, true);
}

std::string binary(int kind, const std::string& x, const std::string& y, bool boolean) {
  const std::string value =
      ir::render(ir::formula(static_cast<Binary>(kind)), x, float_function, true, y);
  return boolean ? value : "(float)" + value;
}

bool yields_bool(const FusedStep& s) {
  if (s.kind == FusedStep::Kind::load_bool) return true;
  if (s.kind == FusedStep::Kind::unary) return static_cast<Unary>(s.sub) == Unary::logical_not;
  if (s.kind != FusedStep::Kind::binary) return false;
  return types::yields_bool(types::binary_result(s.sub));
}

}  // namespace

std::string elementwise_source(const ir::FusedKernel& kernel,
                               const std::vector<std::uint8_t>& inner_broadcast,
                               const std::string& name, const std::vector<std::uint8_t>& bf16_in,
                               bool bf16_out) {
  const std::size_t inputs = kernel.inputs.size();
  if (inner_broadcast.size() != inputs)
    throw std::invalid_argument("one inner-broadcast flag per input");
  if (!bf16_in.empty() && bf16_in.size() != inputs)
    throw std::invalid_argument("one bf16 flag per input, or none");
  const auto in_bf16 = [&](std::size_t j) { return !bf16_in.empty() && bf16_in[j] != 0; };
  const bool any_bf16 =
      bf16_out || std::find(bf16_in.begin(), bf16_in.end(), std::uint8_t{1}) != bf16_in.end();
  std::ostringstream out;
  out << "// Generated from a fused kernel of the IR (kernels/cuda_elementwise.cpp).\n"
      << kFormulaHelpers << (any_bf16 ? bf16_helpers_text() : "") << "struct " << name
      << "_args {\n"
      << "  const void* in[" << (inputs ? inputs : 1) << "];\n"
      << "  long long stride[" << (inputs ? inputs : 1) << "];\n"
      << "};\n"
      << "extern \"C\" __global__ void " << name << "(" << name << "_args args, "
      << (bf16_out ? "unsigned short" : "float")
      << "* __restrict__ out, long long outer, long long inner) {\n"
      << "  const long long total = outer * inner;\n"
      << "  for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;\n"
      << "       e += (long long)gridDim.x * blockDim.x) {\n"
      << "    const long long o = e / inner, i = e - o * inner;\n";
  std::vector<bool> is_bool;
  for (std::size_t s = 0; s < kernel.steps.size(); ++s) {
    const FusedStep& st = kernel.steps[s];
    const auto v = [&](int k) {
      if (k < 0 || static_cast<std::size_t>(k) >= s)
        throw std::invalid_argument("step " + std::to_string(s) + " reads a later step");
      return "v" + std::to_string(k);
    };
    const bool boolean = yields_bool(st);
    is_bool.push_back(boolean);
    out << "    const " << (boolean ? "bool" : "float") << " v" << s << " = ";
    switch (st.kind) {
      case FusedStep::Kind::load:
      case FusedStep::Kind::load_bool: {
        if (st.a < 0 || static_cast<std::size_t>(st.a) >= inputs)
          throw std::invalid_argument("a load of input " + std::to_string(st.a));
        const auto j = static_cast<std::size_t>(st.a);
        const bool narrow = !boolean && in_bf16(j);
        out << (narrow ? "ss_from_bf16(" : "") << "((const "
            << (boolean  ? "unsigned char"
                : narrow ? "unsigned short"
                         : "float")
            << "*)args.in[" << j << "])[o * args.stride[" << j << "]"
            << (inner_broadcast[j] ? "" : " + i") << "]" << (boolean ? " != 0" : "")
            << (narrow ? ")" : "");
        break;
      }
      case FusedStep::Kind::constant:
        out << float_literal(st.value);
        break;
      case FusedStep::Kind::unary:
        out << unary(st.sub, v(st.a));
        break;
      case FusedStep::Kind::binary:
        out << binary(st.sub, v(st.a), v(st.b), boolean);
        break;
      case FusedStep::Kind::where:
        out << "(" << v(st.a) << " ? " << v(st.b) << " : " << v(st.c) << ")";
        break;
    }
    out << ";\n";
  }
  if (kernel.steps.empty() || is_bool.back())
    throw std::invalid_argument("a kernel's result is a float");
  const std::string result = "v" + std::to_string(kernel.steps.size() - 1);
  out << "    out[e] = " << (bf16_out ? "ss_bf16(" + result + ")" : result) << ";\n  }\n}\n";
  return out.str();
}

}  // namespace ss::cuda
