#include "kernels/cuda_elementwise.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "ir/formulas.hpp"
#include "ir/ops.hpp"
#include "kernels/cuda_bf16.hpp"

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
// tanhf (2), erff (2), a correctly rounded sqrt, fabsf.
std::string float_function(const std::string& name) {
  if (name == "sqrt") return "__fsqrt_rn";
  if (name == "fabs") return "fabsf";
  return name + "f";
}

namespace {

// types/unary.def's formula in float32 throughout: its numbers rounded to
// float once, each step rounded (no FMA: --fmad=false), CUDA's float functions.
std::string unary(int kind, const std::string& x) {
  const auto op = static_cast<Unary>(kind);
  if (op == Unary::logical_not) return "!" + x;
  return "(float)" + ir::render(ir::formula(op), x, float_function, true);
}

std::string binary(int kind, const std::string& x, const std::string& y, bool booleans) {
  switch (static_cast<Binary>(kind)) {
    case Binary::add:
      return "__fadd_rn(" + x + ", " + y + ")";
    case Binary::sub:
      return "__fsub_rn(" + x + ", " + y + ")";
    case Binary::mul:
      return "__fmul_rn(" + x + ", " + y + ")";
    case Binary::div:
      return "__fdiv_rn(" + x + ", " + y + ")";
    case Binary::pow:
      return "powf(" + x + ", " + y + ")";
    case Binary::floordiv:
      return "ss_floordiv(" + x + ", " + y + ")";
    case Binary::mod:  // fmod, then the divisor's sign; NaN for a zero divisor
      return "ss_mod(" + x + ", " + y + ")";
    case Binary::maximum:
      return "ss_max(" + x + ", " + y + ")";
    case Binary::minimum:
      return "ss_min(" + x + ", " + y + ")";
    case Binary::lt:
      return "(" + x + " < " + y + ")";
    case Binary::le:
      return "(" + x + " <= " + y + ")";
    case Binary::gt:
      return "(" + x + " > " + y + ")";
    case Binary::ge:
      return "(" + x + " >= " + y + ")";
    case Binary::eq:
      return "(" + x + " == " + y + ")";
    case Binary::ne:
      return "(" + x + " != " + y + ")";
    case Binary::logical_and:
      return booleans ? "(" + x + " && " + y + ")" : "(" + x + " != 0.0f && " + y + " != 0.0f)";
    case Binary::logical_or:
      return booleans ? "(" + x + " || " + y + ")" : "(" + x + " != 0.0f || " + y + " != 0.0f)";
  }
  throw std::invalid_argument("no CUDA form for binary " + std::to_string(kind));
}

bool yields_bool(const FusedStep& s) {
  if (s.kind == FusedStep::Kind::load_bool) return true;
  if (s.kind == FusedStep::Kind::unary) return static_cast<Unary>(s.sub) == Unary::logical_not;
  if (s.kind != FusedStep::Kind::binary) return false;
  const auto op = static_cast<Binary>(s.sub);
  return op >= Binary::lt && op <= Binary::logical_or;
}

}  // namespace

// Helpers the bodies call, with the reference's definitions, in float: fmodf
// is exact, and a sum of two floats rounds the same in float as in double.
// floordiv is Python's float floor division (the quotient from the exact
// remainder, so a quotient that rounds up to an integer isn't floored past).
const char* const kFloatHelpers = R"(#ifndef SS_FLOAT_HELPERS
#define SS_FLOAT_HELPERS
__device__ __forceinline__ float ss_mod(float a, float b) {
  if (b == 0.0f) return __int_as_float(0x7fc00000);
  const float r = fmodf(a, b);
  return (r != 0.0f && ((r < 0.0f) != (b < 0.0f))) ? r + b : r;
}
__device__ __forceinline__ float ss_floordiv(float a, float b) {
  if (b == 0.0f || !isfinite(a) || !isfinite(b)) return floorf(a / b);
  const float m = fmodf(a, b);
  float d = (a - m) / b;
  if (m != 0.0f && ((b < 0.0f) != (m < 0.0f))) d -= 1.0f;
  if (d == 0.0f) return copysignf(0.0f, a / b);
  float f = floorf(d);
  if (d - f > 0.5f) f += 1.0f;
  return f;
}
#endif
)";

namespace {

constexpr const char* kPrelude = R"(
__device__ __forceinline__ float ss_max(float x, float y) {
  return (x != x || y != y) ? __int_as_float(0x7fc00000) : fmaxf(x, y);
}
__device__ __forceinline__ float ss_min(float x, float y) {
  return (x != x || y != y) ? __int_as_float(0x7fc00000) : fminf(x, y);
}
)";

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
      << kFloatHelpers << (any_bf16 ? bf16_helpers_text() : "")
      << "#ifndef SS_PRELUDE\n#define SS_PRELUDE\n"
      << kPrelude << "#endif\n"
      << "struct " << name << "_args {\n"
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
        out << binary(st.sub, v(st.a), v(st.b), is_bool[static_cast<std::size_t>(st.a)]);
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
