#include "onnx/fold_known.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "onnx/folding.hpp"

namespace ss::onnx_import {
namespace {

using TP = onnx::TensorProto;
using Inputs = std::vector<const Constant*>;
using Result = std::optional<Constant>;
using IntOp = std::function<std::optional<std::int64_t>(const std::vector<std::int64_t>&)>;
using FloatOp = std::function<double(const std::vector<double>&)>;

constexpr std::int64_t kMaxBytes = std::int64_t{64} << 20;  // of one node's results

// The element types folded: float16 and bfloat16 round at every step,
// which their handlers do.
bool foldable_type(int type) {
  switch (type) {
    case TP::FLOAT:
    case TP::DOUBLE:
    case TP::INT64:
    case TP::INT32:
    case TP::INT16:
    case TP::INT8:
    case TP::UINT8:
    case TP::UINT16:
    case TP::UINT32:
    case TP::BOOL:
      return true;
    default:
      return false;
  }
}

bool float_type(int type) {
  return type == TP::FLOAT || type == TP::DOUBLE;
}

// The element count of a shape, or -1 past the bytes a node may fold.
std::int64_t fitting_count(const std::vector<std::int64_t>& shape, int type) {
  std::int64_t n = 1;
  for (auto d : shape)
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return -1;
  const std::int64_t width = type == TP::DOUBLE || type == TP::INT64 ? 8 : 4;
  return n > kMaxBytes / width ? -1 : n;
}

void put(Constant& out, double x) {
  if (out.onnx_type == TP::FLOAT)
    out.floats.push_back(static_cast<double>(static_cast<float>(x)));
  else if (float_type(out.onnx_type))
    out.floats.push_back(x);
  else if (out.onnx_type == TP::BOOL)
    out.ints.push_back(x != 0);
  else
    out.ints.push_back(static_cast<std::int64_t>(x));
}

// numpy's broadcast of the inputs through `fi` (every input and the result
// integers) or `ff`; nullopt where an integer op can't (overflow, / 0).
Result broadcast(const Inputs& in, int type, const IntOp& fi, const FloatOp& ff) {
  std::vector<std::int64_t> shape;
  bool ok = true;
  for (const Constant* c : in) {
    shape = broadcast_shape(shape, c->shape, &ok);
    if (!ok) return std::nullopt;
  }
  const std::int64_t n = fitting_count(shape, type);
  if (n < 0) return std::nullopt;
  const std::size_t r = shape.size();
  std::vector<std::vector<std::int64_t>> steps;  // per input, per output axis
  for (const Constant* c : in) {
    const auto s = strides_of(c->shape);
    std::vector<std::int64_t> step(r, 0);
    for (std::size_t k = 0; k < c->shape.size(); ++k)
      if (c->shape[k] != 1) step[r - c->shape.size() + k] = s[k];
    steps.push_back(std::move(step));
  }
  bool ints = fi && !float_type(type);
  for (const Constant* c : in) ints = ints && !c->is_float();
  Constant out;
  out.onnx_type = type;
  out.shape = shape;
  std::vector<std::int64_t> index(r, 0), flat(in.size(), 0), iargs(in.size());
  std::vector<double> fargs(in.size());
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < in.size(); ++j) {
      std::int64_t f = 0;
      for (std::size_t k = 0; k < r; ++k) f += index[k] * steps[j][k];
      const auto at = static_cast<std::size_t>(f);
      if (ints)
        iargs[j] = in[j]->ints[at];
      else
        fargs[j] = in[j]->at(at);
    }
    if (ints) {
      const auto v = fi(iargs);
      if (!v) return std::nullopt;
      out.ints.push_back(type == TP::BOOL ? *v != 0 : *v);
    } else {
      put(out, ff(fargs));
    }
    for (std::size_t k = r; k-- > 0;) {
      if (++index[k] < shape[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

std::optional<std::int64_t> checked(bool overflow, std::int64_t v) {
  return overflow ? std::nullopt : std::optional<std::int64_t>(v);
}

// Arithmetic, comparisons and logic of two or more inputs.
Result binary(const std::string& op, const Inputs& in, const Translator& t) {
  const bool compare = op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" ||
                       op == "GreaterOrEqual";
  const int type = compare ? TP::BOOL : in[0]->onnx_type;
  const bool fmod = t.int_attr("fmod", 0) != 0;
  const IntOp fi = [&](const std::vector<std::int64_t>& v) -> std::optional<std::int64_t> {
    std::int64_t r = v[0];
    for (std::size_t k = 1; k < v.size(); ++k) {
      const std::int64_t x = r, y = v[k];
      if (op == "Add" || op == "Sum") {
        if (__builtin_add_overflow(x, y, &r)) return std::nullopt;
      } else if (op == "Sub") {
        if (__builtin_sub_overflow(x, y, &r)) return std::nullopt;
      } else if (op == "Mul") {
        if (__builtin_mul_overflow(x, y, &r)) return std::nullopt;
      } else if (op == "Div" || op == "Mod") {
        if (y == 0 || (y == -1 && x == std::numeric_limits<std::int64_t>::min()))
          return std::nullopt;
        if (op == "Div") {
          r = x / y;  // toward zero, as ONNX's
        } else {      // fmod=0 takes the divisor's sign, fmod=1 the dividend's
          const std::int64_t rem = x % y;
          r = fmod || rem == 0 || (rem < 0) == (y < 0) ? rem : rem + y;
        }
      } else if (op == "Max") {
        r = std::max(x, y);
      } else if (op == "Min") {
        r = std::min(x, y);
      } else if (op == "Equal") {
        r = x == y;
      } else if (op == "Less") {
        r = x < y;
      } else if (op == "Greater") {
        r = x > y;
      } else if (op == "LessOrEqual") {
        r = x <= y;
      } else if (op == "GreaterOrEqual") {
        r = x >= y;
      } else if (op == "And") {
        r = x && y;
      } else if (op == "Or") {
        r = x || y;
      } else if (op == "Xor") {
        r = (x != 0) != (y != 0);
      } else {
        return std::nullopt;  // Pow of integers: its handler's
      }
    }
    return checked(false, r);
  };
  const FloatOp ff = [&](const std::vector<double>& v) {
    double r = v[0];
    for (std::size_t k = 1; k < v.size(); ++k) {
      const double x = r, y = v[k];
      if (op == "Add" || op == "Sum") r = x + y;
      if (op == "Sub") r = x - y;
      if (op == "Mul") r = x * y;
      if (op == "Div") r = x / y;
      if (op == "Mod") r = fmod ? std::fmod(x, y) : x - std::floor(x / y) * y;
      if (op == "Pow") r = std::pow(x, y);
      if (op == "Max") r = std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y);
      if (op == "Min") r = std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y);
      if (op == "Equal") r = x == y;
      if (op == "Less") r = x < y;
      if (op == "Greater") r = x > y;
      if (op == "LessOrEqual") r = x <= y;
      if (op == "GreaterOrEqual") r = x >= y;
      if (op == "And") r = x != 0 && y != 0;
      if (op == "Or") r = x != 0 || y != 0;
      if (op == "Xor") r = (x != 0) != (y != 0);
      if (float_type(type)) r = type == TP::FLOAT ? static_cast<float>(r) : r;
    }
    return r;
  };
  // Float arithmetic on integers (Pow) isn't an integer op's: left alone.
  if (op == "Pow" && !in[0]->is_float()) return std::nullopt;
  return broadcast(in, type, fi, ff);
}

Result unary(const std::string& op, const Constant& x) {
  const FloatOp ff = [&](const std::vector<double>& v) -> double {
    const double a = v[0];
    if (op == "Neg") return -a;
    if (op == "Abs") return std::fabs(a);
    if (op == "Not") return a == 0;
    if (op == "Floor") return std::floor(a);
    if (op == "Ceil") return std::ceil(a);
    if (op == "Sqrt") return std::sqrt(a);
    if (op == "Exp") return std::exp(a);
    if (op == "Log") return std::log(a);
    if (op == "Reciprocal") return 1 / a;
    if (op == "Relu") return a > 0 ? a : 0;
    if (op == "Sign") return a > 0 ? 1 : a < 0 ? -1 : 0;
    if (op == "Round") return std::nearbyint(a);  // half to even, the default rounding
    return a;                                     // Identity
  };
  const IntOp fi = [&](const std::vector<std::int64_t>& v) -> std::optional<std::int64_t> {
    const std::int64_t a = v[0];
    if (a == std::numeric_limits<std::int64_t>::min() && (op == "Neg" || op == "Abs"))
      return std::nullopt;
    if (op == "Neg") return -a;
    if (op == "Abs") return a < 0 ? -a : a;
    if (op == "Not") return a == 0;
    if (op == "Relu") return a > 0 ? a : 0;
    if (op == "Sign") return a > 0 ? 1 : a < 0 ? -1 : 0;
    if (op == "Floor" || op == "Ceil" || op == "Round" || op == "Identity") return a;
    return std::nullopt;  // Sqrt, Exp, Log of integers aren't ONNX's
  };
  return broadcast({&x}, x.onnx_type, fi, ff);
}

Result cast(const Constant& x, int to) {
  if (!foldable_type(to)) return std::nullopt;
  Constant out;
  out.onnx_type = to;
  out.shape = x.shape;
  for (std::int64_t i = 0; i < x.count(); ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (!x.is_float() || float_type(to) || to == TP::BOOL) {
      if (x.is_float())
        put(out, x.floats[k]);
      else if (float_type(to))
        put(out, static_cast<double>(x.ints[k]));
      else
        out.ints.push_back(to == TP::BOOL ? x.ints[k] != 0 : x.ints[k]);
      continue;
    }
    const double v = std::trunc(x.floats[k]);  // a float to an integer: toward zero
    if (!(std::fabs(v) < 9.2e18)) return std::nullopt;
    out.ints.push_back(static_cast<std::int64_t>(v));
  }
  return out;
}

}  // namespace

bool fold_known(Translator& t) {
  const onnx::NodeProto& n = t.node();
  if (n.output_size() != 1) return false;
  Inputs in;
  for (int i = 0; i < t.inputs_count(); ++i) {
    const Value* v = t.input(i);
    if (!v) {
      in.push_back(nullptr);
      continue;
    }
    if (!v->constant || !foldable_type(v->constant->onnx_type)) return false;
    const Constant& c = *v->constant;  // its values, one per element (else its handler's)
    if (c.count() < 0 || (c.is_float() ? c.floats.size() : c.ints.size()) !=
                             static_cast<std::size_t>(c.count()))
      return false;
    in.push_back(&c);
  }
  const std::string& op = n.op_type();
  static const std::set<std::string> kUnary = {"Neg",   "Abs",        "Not",     "Floor", "Ceil",
                                               "Sqrt",  "Exp",        "Log",     "Relu",  "Sign",
                                               "Round", "Reciprocal", "Identity"};
  static const std::set<std::string> kBinary = {
      "Add", "Sub", "Mul",   "Div",  "Mod",     "Pow",         "Max",
      "Min", "Sum", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual",
      "And", "Or",  "Xor"};
  for (const Constant* c : in)
    if (!c && op != "Squeeze") return false;
  Result r;
  if (kUnary.count(op) && in.size() == 1)
    r = unary(op, *in[0]);
  else if (kBinary.count(op) && !in.empty())
    r = binary(op, in, t);
  else if (op == "Where" && in.size() == 3)
    r = broadcast(in, in[1]->onnx_type, nullptr,
                  [](const std::vector<double>& v) { return v[0] != 0 ? v[1] : v[2]; });
  else if (op == "Cast" && in.size() == 1)
    r = cast(*in[0], static_cast<int>(t.int_attr("to", 0)));
  else if (!(r = fold_layout(op, in, t)))
    r = fold_scatter(op, in, t);
  // A constant has no generic axis: a tensor of an open size (zeros of the
  // batch's size) is its handler's, made at each call.
  if (!r || !foldable_type(r->onnx_type) || Translator::has_open_axis(r->shape)) return false;
  t.fold(std::move(*r));
  return true;
}

}  // namespace ss::onnx_import
