#include "onnx/fold_known.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>

#include "onnx/folding.hpp"

namespace ss::onnx_import {
namespace {

using TP = onnx::TensorProto;
using Inputs = std::vector<const Constant*>;
using Result = std::optional<Constant>;
using IntOp = std::function<std::optional<std::int64_t>(const std::vector<std::int64_t>&)>;
using FloatOp = std::function<double(const std::vector<double>&)>;

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
  return n > kFoldedBytes / width ? -1 : n;
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

// The ops folded, each resolved from its name once, not per element.
enum class Binary {
  add,
  sub,
  mul,
  div,
  mod,
  pow,
  max,
  min,
  equal,
  less,
  greater,
  less_equal,
  greater_equal,
  and_,
  or_,
  xor_
};
enum class Unary {
  neg,
  abs,
  not_,
  floor,
  ceil,
  sqrt,
  exp,
  log,
  reciprocal,
  relu,
  sign,
  round,
  identity
};

const std::map<std::string, Binary>& binary_ops() {
  static const std::map<std::string, Binary> ops = {{"Add", Binary::add},
                                                    {"Sum", Binary::add},
                                                    {"Sub", Binary::sub},
                                                    {"Mul", Binary::mul},
                                                    {"Div", Binary::div},
                                                    {"Mod", Binary::mod},
                                                    {"Pow", Binary::pow},
                                                    {"Max", Binary::max},
                                                    {"Min", Binary::min},
                                                    {"Equal", Binary::equal},
                                                    {"Less", Binary::less},
                                                    {"Greater", Binary::greater},
                                                    {"LessOrEqual", Binary::less_equal},
                                                    {"GreaterOrEqual", Binary::greater_equal},
                                                    {"And", Binary::and_},
                                                    {"Or", Binary::or_},
                                                    {"Xor", Binary::xor_}};
  return ops;
}

const std::map<std::string, Unary>& unary_ops() {
  static const std::map<std::string, Unary> ops = {
      {"Neg", Unary::neg},          {"Abs", Unary::abs},   {"Not", Unary::not_},
      {"Floor", Unary::floor},      {"Ceil", Unary::ceil}, {"Sqrt", Unary::sqrt},
      {"Exp", Unary::exp},          {"Log", Unary::log},   {"Reciprocal", Unary::reciprocal},
      {"Relu", Unary::relu},        {"Sign", Unary::sign}, {"Round", Unary::round},
      {"Identity", Unary::identity}};
  return ops;
}

// x op y of integers; nullopt past int64, for a division by 0, or an op
// that isn't an integer one (Pow: its handler's).
std::optional<std::int64_t> int_binary(Binary op, std::int64_t x, std::int64_t y, bool fmod) {
  std::int64_t r = 0;
  switch (op) {
    case Binary::add:
      return __builtin_add_overflow(x, y, &r) ? std::nullopt : std::optional(r);
    case Binary::sub:
      return __builtin_sub_overflow(x, y, &r) ? std::nullopt : std::optional(r);
    case Binary::mul:
      return __builtin_mul_overflow(x, y, &r) ? std::nullopt : std::optional(r);
    case Binary::div:
    case Binary::mod: {
      if (y == 0 || (y == -1 && x == std::numeric_limits<std::int64_t>::min())) return std::nullopt;
      if (op == Binary::div) return x / y;  // toward zero, as ONNX's
      // fmod=0 takes the divisor's sign, fmod=1 the dividend's
      const std::int64_t rem = x % y;
      return fmod || rem == 0 || (rem < 0) == (y < 0) ? rem : rem + y;
    }
    case Binary::max:
      return std::max(x, y);
    case Binary::min:
      return std::min(x, y);
    case Binary::equal:
      return x == y;
    case Binary::less:
      return x < y;
    case Binary::greater:
      return x > y;
    case Binary::less_equal:
      return x <= y;
    case Binary::greater_equal:
      return x >= y;
    case Binary::and_:
      return x && y;
    case Binary::or_:
      return x || y;
    case Binary::xor_:
      return (x != 0) != (y != 0);
    case Binary::pow:
      return std::nullopt;
  }
  return std::nullopt;
}

double float_binary(Binary op, double x, double y, bool fmod) {
  switch (op) {
    case Binary::add:
      return x + y;
    case Binary::sub:
      return x - y;
    case Binary::mul:
      return x * y;
    case Binary::div:
      return x / y;
    case Binary::mod:
      return fmod ? std::fmod(x, y) : x - std::floor(x / y) * y;
    case Binary::pow:
      return std::pow(x, y);
    case Binary::max:
      return std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y);
    case Binary::min:
      return std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y);
    case Binary::equal:
      return x == y;
    case Binary::less:
      return x < y;
    case Binary::greater:
      return x > y;
    case Binary::less_equal:
      return x <= y;
    case Binary::greater_equal:
      return x >= y;
    case Binary::and_:
      return x != 0 && y != 0;
    case Binary::or_:
      return x != 0 || y != 0;
    case Binary::xor_:
      return (x != 0) != (y != 0);
  }
  return x;
}

// Arithmetic, comparisons and logic of two or more inputs.
Result binary(Binary op, const Inputs& in, const Translator& t) {
  const bool compare = op == Binary::equal || op == Binary::less || op == Binary::greater ||
                       op == Binary::less_equal || op == Binary::greater_equal;
  const int type = compare ? TP::BOOL : in[0]->onnx_type;
  const bool fmod = t.int_attr("fmod", 0) != 0;
  const IntOp fi = [&](const std::vector<std::int64_t>& v) -> std::optional<std::int64_t> {
    std::int64_t r = v[0];
    for (std::size_t k = 1; k < v.size(); ++k) {
      const auto next = int_binary(op, r, v[k], fmod);
      if (!next) return std::nullopt;
      r = *next;
    }
    return r;
  };
  const FloatOp ff = [&](const std::vector<double>& v) {
    double r = v[0];
    for (std::size_t k = 1; k < v.size(); ++k) {
      r = float_binary(op, r, v[k], fmod);
      if (type == TP::FLOAT) r = static_cast<float>(r);
    }
    return r;
  };
  // Float arithmetic on integers (Pow) isn't an integer op's: left alone.
  if (op == Binary::pow && !in[0]->is_float()) return std::nullopt;
  return broadcast(in, type, fi, ff);
}

Result unary(Unary op, const Constant& x) {
  const FloatOp ff = [&](const std::vector<double>& v) -> double {
    const double a = v[0];
    switch (op) {
      case Unary::neg:
        return -a;
      case Unary::abs:
        return std::fabs(a);
      case Unary::not_:
        return a == 0;
      case Unary::floor:
        return std::floor(a);
      case Unary::ceil:
        return std::ceil(a);
      case Unary::sqrt:
        return std::sqrt(a);
      case Unary::exp:
        return std::exp(a);
      case Unary::log:
        return std::log(a);
      case Unary::reciprocal:
        return 1 / a;
      case Unary::relu:
        return a > 0 ? a : 0;
      case Unary::sign:
        return a > 0 ? 1 : a < 0 ? -1 : 0;
      case Unary::round:
        return std::nearbyint(a);  // half to even, the default rounding
      case Unary::identity:
        return a;
    }
    return a;
  };
  const IntOp fi = [&](const std::vector<std::int64_t>& v) -> std::optional<std::int64_t> {
    const std::int64_t a = v[0];
    switch (op) {
      case Unary::neg:
      case Unary::abs:
        if (a == std::numeric_limits<std::int64_t>::min()) return std::nullopt;
        return op == Unary::neg || a < 0 ? -a : a;
      case Unary::not_:
        return a == 0;
      case Unary::relu:
        return a > 0 ? a : 0;
      case Unary::sign:
        return a > 0 ? 1 : a < 0 ? -1 : 0;
      case Unary::floor:
      case Unary::ceil:
      case Unary::round:
      case Unary::identity:
        return a;
      default:
        return std::nullopt;  // Sqrt, Exp, Log, Reciprocal of integers aren't ONNX's
    }
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
    if (c.count() < 0 ||
        (c.is_float() ? c.floats.size() : c.ints.size()) != static_cast<std::size_t>(c.count()))
      return false;
    in.push_back(&c);
  }
  const std::string& op = n.op_type();
  for (const Constant* c : in)
    if (!c && op != "Squeeze") return false;
  Result r;
  const auto u = unary_ops().find(op);
  const auto b = binary_ops().find(op);
  if (u != unary_ops().end() && in.size() == 1)
    r = unary(u->second, *in[0]);
  else if (b != binary_ops().end() && !in.empty())
    r = binary(b->second, in, t);
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
