// Elementwise ops: functions of one value, arithmetic, comparisons and
// logic (numpy's broadcasting, which shapescript's is), casts, where.
#include "onnx/ops.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string_view>

#include "onnx/folding.hpp"
#include "onnx/ops_common.hpp"

namespace ss::onnx_import {
namespace {

using TP = onnx::TensorProto;

bool is_float_type(int t) {
  return t == TP::FLOAT || t == TP::FLOAT16 || t == TP::BFLOAT16;
}

// Refuses inputs of an element type shapescript can't compute with.
const Value& operand_value(Translator& t, int i) {
  const Value& v = t.need(i);
  if (v.dtype().empty())
    t.unsupported("E2006",
                  "input `" + t.node().input(i) + "` is " + onnx_type_name(v.onnx_type) +
                      ", an element type shapescript doesn't have",
                  "shapescript's element types are float32, float16, bfloat16, int32 (int64 "
                  "narrowed) and bool");
  return v;
}

std::string x0(Translator& t) {
  return t.operand(operand_value(t, 0));
}
std::string lit(Translator& t, double v) {
  return Translator::literal(v, operand_value(t, 0).dtype());
}

void need_float(Translator& t) {
  if (!is_float_type(operand_value(t, 0).onnx_type))
    t.unsupported("E2006", "`" + t.node().op_type() + "` of " +
                               onnx_type_name(operand_value(t, 0).onnx_type) +
                               " isn't supported: shapescript computes it on floats");
}

// Float32 arithmetic on small constants folds at import, rounded as at run
// time (PyTorch's attention scale, sqrt(1 / sqrt(f32(K))), becomes a
// number, and a product by it a product by a scalar).
constexpr std::int64_t kFoldedFloats = 16;

bool small_float(const Value* v) {
  return v && v->constant && v->onnx_type == TP::FLOAT && v->constant->is_float() &&
         v->constant->count() <= kFoldedFloats;
}

bool fold_float_unary(Translator& t, float (*f)(float)) {
  const Value* x = t.input(0);
  if (t.inputs_count() != 1 || !small_float(x)) return false;
  Constant c = *x->constant;
  for (auto& v : c.floats) v = f(static_cast<float>(v));
  t.fold(c);
  return true;
}

// (+, -, * and / only: a comparison's result isn't a float)
bool fold_float_binary(Translator& t, char op) {
  if (op != '+' && op != '-' && op != '*' && op != '/') return false;
  const Value* a = t.input(0);
  const Value* b = t.input(1);
  if (t.inputs_count() != 2 || !small_float(a) || !small_float(b)) return false;
  const std::int64_t na = a->constant->count(), nb = b->constant->count();
  if (na != 1 && nb != 1 && a->shape != b->shape) return false;
  Constant c;
  c.onnx_type = TP::FLOAT;
  c.shape = t.out_shape();
  const std::int64_t n = std::max(na, nb);
  for (std::int64_t i = 0; i < n; ++i) {
    const auto x =
        static_cast<float>(a->constant->floats[static_cast<std::size_t>(na == 1 ? 0 : i)]);
    const auto y =
        static_cast<float>(b->constant->floats[static_cast<std::size_t>(nb == 1 ? 0 : i)]);
    c.floats.push_back(op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : x / y);
  }
  if (static_cast<std::int64_t>(c.floats.size()) != c.count()) return false;
  t.fold(c);
  return true;
}

template <const char* F>
void function_of_x(Translator& t) {
  need_float(t);
  t.emit(std::string(F) + "(" + x0(t) + ")");
}

constexpr char kErf[] = "erf", kSin[] = "sin", kCos[] = "cos", kTan[] = "tan", kAsin[] = "asin",
               kAcos[] = "acos", kAtan[] = "atan";
constexpr char kExp[] = "exp", kLog[] = "log", kSqrt[] = "sqrt", kTanh[] = "tanh",
               kSigmoid[] = "sigmoid";

void sqrt_op(Translator& t) {
  if (fold_float_unary(t, [](float x) { return std::sqrt(x); })) return;
  function_of_x<kSqrt>(t);
}

void neg(Translator& t) {
  const Value& x = operand_value(t, 0);
  if (x.constant && !x.constant->is_float()) {
    Constant c = *x.constant;
    for (auto& v : c.ints) v = -v;
    return t.fold(c);
  }
  t.emit("-" + x0(t));
}
void abs_op(Translator& t) {
  t.emit("abs(" + x0(t) + ")");
}
void relu(Translator& t) {
  t.emit("relu(" + x0(t) + ")");
}
void identity(Translator& t) {
  if (t.node().op_type() == "Dropout" && t.input(2)) {
    const Value& mode = t.need(2);
    if (!mode.constant || mode.constant->int_at(0) != 0)
      t.unsupported("E2005",
                    "a Dropout in training mode draws ONNX Runtime's random masks, which "
                    "shapescript can't repeat",
                    "export the model in eval mode (model.eval()), where Dropout is the identity");
  }
  t.emit(x0(t));
  for (int i = 1; i < t.node().output_size(); ++i)  // Dropout's mask, all true at inference
    if (!t.node().output(i).empty())
      t.emit("zeros(" + Translator::type_text(t.physical_shape(t.out_shape(i)), "f32") + ") == 0.0",
             i);
}
void reciprocal(Translator& t) {
  need_float(t);
  t.emit(lit(t, 1) + " / " + x0(t));
}
void softplus(Translator& t) {
  need_float(t);
  t.emit("log(exp(" + x0(t) + ") + " + lit(t, 1) + ")");
}
void softsign(Translator& t) {
  need_float(t);
  const auto x = x0(t);
  t.emit(x + " / (" + lit(t, 1) + " + abs(" + x + "))");
}
void sinh(Translator& t) {
  need_float(t);
  const auto x = x0(t);
  t.emit("(exp(" + x + ") - exp(-" + x + ")) / " + lit(t, 2));
}
void cosh(Translator& t) {
  need_float(t);
  const auto x = x0(t);
  t.emit("(exp(" + x + ") + exp(-" + x + ")) / " + lit(t, 2));
}
void asinh(Translator& t) {
  need_float(t);
  const auto x = x0(t);
  t.emit("log(" + x + " + sqrt(" + x + " * " + x + " + " + lit(t, 1) + "))");
}
void acosh(Translator& t) {
  need_float(t);
  const auto x = x0(t);
  t.emit("log(" + x + " + sqrt(" + x + " * " + x + " - " + lit(t, 1) + "))");
}
void atanh(Translator& t) {
  need_float(t);
  const auto x = x0(t);
  t.emit(lit(t, 0.5) + " * log((" + lit(t, 1) + " + " + x + ") / (" + lit(t, 1) + " - " + x + "))");
}
void floor_op(Translator& t) {
  need_float(t);
  t.emit(x0(t) + " // " + lit(t, 1));
}
void ceil_op(Translator& t) {
  need_float(t);
  t.emit("-((-" + x0(t) + ") // " + lit(t, 1) + ")");
}
void round_op(Translator& t) {  // half to even
  need_float(t);
  const auto x = x0(t);
  const auto f = t.let(x + " // " + lit(t, 1));
  const auto d = t.let(x + " - " + f);
  t.emit("where((" + d + " > " + lit(t, 0.5) + ") or ((" + d + " == " + lit(t, 0.5) + ") and (" +
         f + " % " + lit(t, 2) + " != " + lit(t, 0) + ")), " + f + " + " + lit(t, 1) + ", " + f +
         ")");
}
void sign(Translator& t) {
  const auto x = x0(t);
  t.emit("where(" + x + " > " + lit(t, 0) + ", " + lit(t, 1) + ", where(" + x + " < " + lit(t, 0) +
         ", " + lit(t, -1) + ", " + lit(t, 0) + "))");
}
void leaky_relu(Translator& t) {
  need_float(t);
  const auto x = x0(t);
  t.emit("where(" + x + " >= " + lit(t, 0) + ", " + x + ", " + x + " * " +
         lit(t, t.float_attr("alpha", 0.01f)) + ")");
}
void elu(Translator& t) {
  need_float(t);
  const auto x = x0(t);
  t.emit("where(" + x + " > " + lit(t, 0) + ", " + x + ", " + lit(t, t.float_attr("alpha", 1.0f)) +
         " * (exp(" + x + ") - " + lit(t, 1) + "))");
}
void selu(Translator& t) {
  need_float(t);
  const auto x = x0(t);
  const auto a = lit(t, t.float_attr("alpha", 1.67326319217681884765625f));
  const auto g = lit(t, t.float_attr("gamma", 1.05070102214813232421875f));
  t.emit(g + " * where(" + x + " > " + lit(t, 0) + ", " + x + ", " + a + " * (exp(" + x + ") - " +
         lit(t, 1) + "))");
}
void celu(Translator& t) {
  need_float(t);
  const auto x = x0(t);
  const auto a = lit(t, t.float_attr("alpha", 1.0f));
  t.emit("maximum(" + x + ", " + lit(t, 0) + ") + minimum(" + lit(t, 0) + ", " + a + " * (exp(" +
         x + " / " + a + ") - " + lit(t, 1) + "))");
}
void hard_sigmoid(Translator& t) {
  need_float(t);
  const auto x = x0(t);
  t.emit("maximum(" + lit(t, 0) + ", minimum(" + lit(t, 1) + ", " +
         lit(t, t.float_attr("alpha", 0.2f)) + " * " + x + " + " +
         lit(t, t.float_attr("beta", 0.5f)) + "))");
}
void hard_swish(Translator& t) {
  need_float(t);
  const auto x = x0(t);
  t.emit(x + " * maximum(" + lit(t, 0) + ", minimum(" + lit(t, 1) + ", " + lit(t, 1.0 / 6.0) +
         " * " + x + " + " + lit(t, 0.5) + "))");
}
void thresholded_relu(Translator& t) {
  need_float(t);
  const auto x = x0(t);
  t.emit("where(" + x + " > " + lit(t, t.float_attr("alpha", 1.0f)) + ", " + x + ", " + lit(t, 0) +
         ")");
}
void shrink(Translator& t) {
  const auto x = x0(t);
  const auto l = lit(t, t.float_attr("lambd", 0.5f)), b = lit(t, t.float_attr("bias", 0.0f));
  t.emit("where(" + x + " < -" + l + ", " + x + " + " + b + ", where(" + x + " > " + l + ", " + x +
         " - " + b + ", " + lit(t, 0) + "))");
}
void not_op(Translator& t) {
  t.emit("not " + x0(t));
}
void is_nan(Translator& t) {
  need_float(t);
  const auto x = x0(t);
  t.emit(x + " != " + x);
}
void is_inf(Translator& t) {
  need_float(t);
  const auto x = x0(t);
  std::string e = "(" + x + " == " + x + ") and (" + x + " * " + lit(t, 0) + " != " + x + " * " +
                  lit(t, 0) + ")";
  if (!t.int_attr("detect_negative", 1)) e = "(" + e + ") and (" + x + " > " + lit(t, 0) + ")";
  if (!t.int_attr("detect_positive", 1)) e = "(" + e + ") and (" + x + " < " + lit(t, 0) + ")";
  t.emit(e);
}

// Two operands of one element type.
std::pair<std::string, std::string> pair_of(Translator& t) {
  const Value& a = operand_value(t, 0);
  const Value& b = operand_value(t, 1);
  if (a.onnx_type != b.onnx_type)
    t.unsupported("E2002", "its inputs are " + onnx_type_name(a.onnx_type) + " and " +
                               onnx_type_name(b.onnx_type));
  // ONNX's inference doesn't broadcast every binary op's inputs (not
  // LessOrEqual's: fuzz_onnx's eighteenth find).
  bool ok = true;
  if (broadcast_shape(a.shape, b.shape, &ok) != t.out_shape() || !ok)
    t.unsupported("E2008", "its inputs' shapes don't broadcast to its output's");
  return {t.operand(a), t.operand(b)};
}

// Integer arithmetic on constants (shape arithmetic) folds at import.
bool fold_ints(Translator& t, const std::string& op) {
  if (t.inputs_count() != 2) return false;
  const Value* a = t.input(0);
  const Value* b = t.input(1);
  if (!a || !b || !a->constant || !b->constant || a->constant->is_float() ||
      b->constant->is_float())
    return false;
  const bool compare =
      op == "==" || op == "<" || op == "<=" || op == ">" || op == ">=" || op == "and" || op == "or";
  const int type = compare ? TP::BOOL : a->onnx_type;
  t.fold(broadcast_ints(
      *a->constant, *b->constant, type, [&](std::int64_t x, std::int64_t y) -> std::int64_t {
        // Shape arithmetic past int64 (fuzz_onnx's twenty-first find, under
        // UBSan: a product of two constants of 2^34 and more) is refused.
        std::int64_t r = 0;
        const auto overflows = [&] {
          t.unsupported("E2010", "folding `" + op + "` of the constants " + std::to_string(x) +
                                     " and " + std::to_string(y) + " overflows int64");
          return 0;
        };
        if (op == "+") return __builtin_add_overflow(x, y, &r) ? overflows() : r;
        if (op == "-") return __builtin_sub_overflow(x, y, &r) ? overflows() : r;
        if (op == "*") return __builtin_mul_overflow(x, y, &r) ? overflows() : r;
        if ((op == "/" || op == "%") && y == -1 && x == std::numeric_limits<std::int64_t>::min())
          return overflows();
        if (op == "/") return y == 0 ? 0 : x / y;  // toward zero, as ONNX's
        if (op == "==") return x == y;
        if (op == "<") return x < y;
        if (op == "<=") return x <= y;
        if (op == ">") return x > y;
        if (op == ">=") return x >= y;
        if (op == "and") return x && y;
        if (op == "or") return x || y;
        if (op == "%" && y == 0) return 0;
        if (op == "%") {  // ONNX's fmod=0 takes the divisor's sign, fmod=1 the dividend's
          const std::int64_t rem = x % y;
          return t.int_attr("fmod", 0) || rem == 0 || (rem < 0) == (y < 0) ? rem : rem + y;
        }
        if (op == "max") return std::max(x, y);
        if (op == "min") return std::min(x, y);
        return 0;
      }));
  return true;
}

template <const char* Op>
void infix(Translator& t) {
  if (fold_ints(t, Op)) return;
  if (std::string_view(Op).size() == 1 && fold_float_binary(t, Op[0])) return;
  auto [a, b] = pair_of(t);
  t.emit("(" + a + ") " + Op + " (" + b + ")");
  // x times a number: noted, for a MatMul that would rather scale its product.
  if (std::string_view(Op) == "*")
    for (int k = 0; k < 2; ++k) {
      const Value* s = t.input(k);
      const Value* x = t.input(1 - k);
      if (small_float(s) && s->constant->count() == 1 && x && !x->constant &&
          x->onnx_type == TP::FLOAT && x->perm.empty() && x->shape == t.out_shape() &&
          !t.name_of(*x).empty())
        t.note_derived({t.name_of(*x), s->constant->floats[0], false});
    }
}
constexpr char kAdd[] = "+", kSub[] = "-", kMul[] = "*", kEq[] = "==", kLt[] = "<",
               kLe[] = "<=", kGt[] = ">", kGe[] = ">=", kAnd[] = "and", kOr[] = "or", kNe[] = "!=";

void div(Translator& t) {
  if (fold_ints(t, "/") || fold_float_binary(t, '/')) return;
  auto [a, b] = pair_of(t);
  if (is_float_type(t.need(0).onnx_type)) return t.emit("(" + a + ") / (" + b + ")");
  // Integers divide toward zero in ONNX; `//` floors.
  const auto q = t.let("(" + a + ") // (" + b + ")");
  t.emit("where(((" + a + ") % (" + b + ") != 0) and ((" + a + " < 0) != (" + b + " < 0)), " + q +
         " + 1, " + q + ")");
}

void mod(Translator& t) {
  if (fold_ints(t, "%")) return;
  auto [a, b] = pair_of(t);
  const std::string zero = lit(t, 0);
  const auto r = t.let("(" + a + ") % (" + b + ")");
  if (!t.int_attr("fmod", 0)) {
    if (is_float_type(t.need(0).onnx_type))
      t.unsupported("E2005", "Mod of floats needs fmod=1 (ONNX's rule)");
    return t.emit(r);
  }
  // C's fmod: the dividend's sign.
  t.emit("where((" + r + " != " + zero + ") and ((" + r + " < " + zero + ") != (" + a + " < " +
         zero + ")), " + r + " - (" + b + "), " + r + ")");
}

void pow_op(Translator& t) {
  const Value& a = operand_value(t, 0);
  const Value& b = operand_value(t, 1);
  std::string e = t.operand(b);
  if (b.onnx_type != a.onnx_type) {
    if (b.constant && b.constant->count() == 1)
      e = Translator::literal(b.constant->at(0), a.dtype());
    else
      e = a.dtype() + "(" + e + ")";
  }
  if (!is_float_type(a.onnx_type)) t.unsupported("E2006", "Pow of integers isn't supported");
  t.emit("(" + t.operand(a) + ") ** (" + e + ")");
}

void xor_op(Translator& t) {
  auto [a, b] = pair_of(t);
  t.emit("(" + a + ") != (" + b + ")");
}

// Max, Min, Sum, Mean: any number of operands, broadcast.
template <int Kind>
void variadic(Translator& t) {
  if (Kind == 0 && fold_ints(t, "max")) return;
  if (Kind == 1 && fold_ints(t, "min")) return;
  if (Kind == 2 && fold_ints(t, "+")) return;
  std::string e;
  int type = -1;
  for (int i = 0; i < t.inputs_count(); ++i) {
    const Value& v = operand_value(t, i);
    if (type >= 0 && v.onnx_type != type)
      t.unsupported("E2002", "its inputs are of different element types");
    type = v.onnx_type;
    const std::string x = t.operand(v);
    if (i == 0)
      e = x;
    else if (Kind == 0)
      e = "maximum(" + e + ", " + x + ")";
    else if (Kind == 1)
      e = "minimum(" + e + ", " + x + ")";
    else
      e = e + " + " + x;
  }
  if (Kind == 3) {
    if (!is_float_type(type)) t.unsupported("E2006", "Mean of integers isn't supported");
    e = "(" + e + ") / " + Translator::literal(t.inputs_count(), t.need(0).dtype());
  }
  t.emit(e);
}

void where(Translator& t) {
  const Value& c = operand_value(t, 0);
  const Value& a = operand_value(t, 1);
  const Value& b = operand_value(t, 2);
  if (c.constant && a.constant && b.constant && !a.constant->is_float() &&
      !b.constant->is_float()) {
    const Constant picked = broadcast_ints(*a.constant, *b.constant, a.onnx_type,
                                           [](std::int64_t x, std::int64_t) { return x; });
    const Constant other = broadcast_ints(*a.constant, *b.constant, a.onnx_type,
                                          [](std::int64_t, std::int64_t y) { return y; });
    Constant sel = broadcast_ints(*c.constant, picked, TP::BOOL,
                                  [](std::int64_t x, std::int64_t) { return x; });
    const Constant first = broadcast_ints(*c.constant, picked, a.onnx_type,
                                          [](std::int64_t, std::int64_t y) { return y; });
    const Constant second = broadcast_ints(*c.constant, other, a.onnx_type,
                                           [](std::int64_t, std::int64_t y) { return y; });
    Constant out = first;
    for (std::size_t i = 0; i < out.ints.size(); ++i)
      out.ints[i] = sel.ints[i] ? first.ints[i] : second.ints[i];
    return t.fold(out);
  }
  t.emit("where(" + t.operand(c) + ", " + t.operand(a) + ", " + t.operand(b) + ")");
}

void prelu(Translator& t) {
  const Value& x = operand_value(t, 0);
  const Value& slope = operand_value(t, 1);
  if (x.onnx_type != slope.onnx_type)
    t.unsupported("E2002", "its inputs are of different element types");
  std::string s = t.operand(slope);
  // Opset 6's channel slope [C] of an N C ... input, as the converter leaves it.
  if (slope.rank() == 1 && x.rank() > 2 && slope.shape[0] == x.shape[1] &&
      slope.shape[0] != x.shape.back() && slope.shape[0] != 1) {
    std::vector<std::int64_t> to(x.rank() - 1, 1);
    to[0] = slope.shape[0];
    s = reshape_expr(t, s, slope.shape, to, slope.dtype());
  }
  const std::string v = t.operand(x);
  t.emit("where(" + v + " < " + lit(t, 0) + ", " + v + " * " + s + ", " + v + ")");
}

void clip(Translator& t) {
  std::string e = x0(t);
  const Value* lo = t.input(1);
  const Value* hi = t.input(2);
  if (lo) e = "maximum(" + e + ", " + t.operand(*lo) + ")";
  if (hi) e = "minimum(" + e + ", " + t.operand(*hi) + ")";
  t.emit(e);
}

std::string cast_expr(Translator& t, const Value& x, int to) {
  const std::string from = x.dtype(), target = ss_dtype(to);
  if (target.empty())
    t.unsupported("E2006",
                  "a cast to " + onnx_type_name(to) + ", an element type shapescript doesn't have");
  if (from == target) return t.operand(x);
  if (target == "bool") return t.operand(x) + " != " + Translator::literal(0, from);
  return target + "(" + t.operand(x) + ")";
}

void cast(Translator& t) {
  const Value& x = operand_value(t, 0);
  const int to = static_cast<int>(t.int_attr("to", 0));
  if (to == TP::FLOAT && x.constant &&
      x.constant->count() <= kFoldedFloats) {  // (a size made a float: an attention's scale)
    Constant c = *x.constant;
    std::vector<double> floats;
    for (std::int64_t i = 0; i < c.count(); ++i)
      floats.push_back(static_cast<float>(c.at(static_cast<std::size_t>(i))));
    c.onnx_type = TP::FLOAT;
    c.floats = std::move(floats);
    c.ints.clear();
    return t.fold(c);
  }
  if (x.constant && !ss_dtype(to).empty() &&
      (to == TP::INT64 || to == TP::INT32 || to == TP::BOOL) && !x.constant->is_float()) {
    Constant c = *x.constant;  // integer shape arithmetic stays folded
    c.onnx_type = to;
    if (to == TP::BOOL)
      for (auto& v : c.ints) v = v != 0;
    return t.fold(c);
  }
  t.emit_as(cast_expr(t, x, to), x.shape, to);  // its input's shape, whatever ONNX inferred
}

void cast_like(Translator& t) {
  const Value& x = operand_value(t, 0);
  const int like = operand_value(t, 1).onnx_type;
  t.emit_as(cast_expr(t, x, like), x.shape, like);
}

}  // namespace

bool follows_layout(const std::string& op_type) {
  // Every elementwise op but PRelu, whose slope may be laid out by channel.
  static const std::set<std::string> ops = [] {
    std::map<std::string, Handler> table;
    register_elementwise(table);
    std::set<std::string> names;
    for (const auto& [name, h] : table)
      if (name != "PRelu") names.insert(name);
    return names;
  }();
  return ops.count(op_type) > 0;
}

void register_elementwise(std::map<std::string, Handler>& table) {
  table["Exp"] = function_of_x<kExp>;
  table["Erf"] = function_of_x<kErf>;
  table["Sin"] = function_of_x<kSin>;
  table["Cos"] = function_of_x<kCos>;
  table["Tan"] = function_of_x<kTan>;
  table["Asin"] = function_of_x<kAsin>;
  table["Acos"] = function_of_x<kAcos>;
  table["Atan"] = function_of_x<kAtan>;
  table["Log"] = function_of_x<kLog>;
  table["Sqrt"] = sqrt_op;
  table["Tanh"] = function_of_x<kTanh>;
  table["Sigmoid"] = function_of_x<kSigmoid>;
  table["Neg"] = neg;
  table["Abs"] = abs_op;
  table["Relu"] = relu;
  table["Identity"] = identity;
  table["Dropout"] = identity;
  table["Reciprocal"] = reciprocal;
  table["Softplus"] = softplus;
  table["Softsign"] = softsign;
  table["Sinh"] = sinh;
  table["Cosh"] = cosh;
  table["Asinh"] = asinh;
  table["Acosh"] = acosh;
  table["Atanh"] = atanh;
  table["Floor"] = floor_op;
  table["Ceil"] = ceil_op;
  table["Round"] = round_op;
  table["Sign"] = sign;
  table["LeakyRelu"] = leaky_relu;
  table["Elu"] = elu;
  table["Selu"] = selu;
  table["Celu"] = celu;
  table["HardSigmoid"] = hard_sigmoid;
  table["HardSwish"] = hard_swish;
  table["ThresholdedRelu"] = thresholded_relu;
  table["Shrink"] = shrink;
  table["Not"] = not_op;
  table["IsNaN"] = is_nan;
  table["IsInf"] = is_inf;
  table["Add"] = infix<kAdd>;
  table["Sub"] = infix<kSub>;
  table["Mul"] = infix<kMul>;
  table["Div"] = div;
  table["Mod"] = mod;
  table["Pow"] = pow_op;
  table["Equal"] = infix<kEq>;
  table["Less"] = infix<kLt>;
  table["LessOrEqual"] = infix<kLe>;
  table["Greater"] = infix<kGt>;
  table["GreaterOrEqual"] = infix<kGe>;
  table["And"] = infix<kAnd>;
  table["Or"] = infix<kOr>;
  table["Xor"] = xor_op;
  table["Max"] = variadic<0>;
  table["Min"] = variadic<1>;
  table["Sum"] = variadic<2>;
  table["Mean"] = variadic<3>;
  table["Where"] = where;
  table["PRelu"] = prelu;
  table["Clip"] = clip;
  table["Cast"] = cast;
  table["CastLike"] = cast_like;
  (void)kNe;
}

}  // namespace ss::onnx_import
