#include "runtime/fast/portable/portable_steps.hpp"

#include <cmath>

#include "ir/fusion.hpp"
#include "ir/ops.hpp"
#include "runtime/fast/jit_steps.hpp"
#include "support/portable_math.hpp"

namespace ss::runtime::fast::portable {

std::optional<Steps> Steps::make(std::vector<SsJitStep> steps) {
  Steps s;
  const auto n = static_cast<std::int32_t>(steps.size());
  const auto type_of = [&](std::int32_t k) { return s.types_[static_cast<std::size_t>(k)]; };
  for (std::int32_t i = 0; i < n; ++i) {
    const SsJitStep& st = steps[static_cast<std::size_t>(i)];
    const auto earlier = [&](std::int32_t k) { return k >= 0 && k < i; };
    // A float beside a double: the JIT takes neither.
    const auto mixed = [&](std::int32_t a, std::int32_t b) {
      return (type_of(a) == Type::f32 && type_of(b) == Type::f64) ||
             (type_of(a) == Type::f64 && type_of(b) == Type::f32);
    };
    // Two operands' common type: a bool beside a number takes its type.
    const auto common = [&](std::int32_t a, std::int32_t b) {
      return type_of(a) == Type::boolean ? type_of(b) : type_of(a);
    };
    Type t = Type::f32;
    switch (st.op) {
      case SS_JIT_LOAD:
      case SS_JIT_CONSTANT:
        break;
      case SS_JIT_LOAD_BOOL:
        t = Type::boolean;
        break;
      case SS_JIT_WIDE_CONSTANT:
        t = Type::f64;
        break;
      case SS_JIT_UNARY:
        if (!earlier(st.a)) return std::nullopt;
        t = st.kind == static_cast<std::int32_t>(ir::Unary::logical_not) ? Type::boolean
                                                                         : type_of(st.a);
        if ((t == Type::boolean) != (type_of(st.a) == Type::boolean)) return std::nullopt;
        break;
      case SS_JIT_BINARY:
        if (!earlier(st.a) || !earlier(st.b) || mixed(st.a, st.b)) return std::nullopt;
        t = common(st.a, st.b);
        if (t == Type::boolean) return std::nullopt;
        break;
      case SS_JIT_COMPARE:
      case SS_JIT_LOGIC:
        if (!earlier(st.a) || !earlier(st.b)) return std::nullopt;
        t = Type::boolean;
        break;
      case SS_JIT_WHERE:
        if (!earlier(st.a) || !earlier(st.b) || !earlier(st.c) || mixed(st.b, st.c))
          return std::nullopt;
        t = common(st.b, st.c);
        break;
      case SS_JIT_WIDEN:
        if (!earlier(st.a) || type_of(st.a) != Type::f32) return std::nullopt;
        t = Type::f64;
        break;
      case SS_JIT_NARROW:
        if (!earlier(st.a) || type_of(st.a) != Type::f64) return std::nullopt;
        break;
      case SS_JIT_CALL: {
        const bool two =
            st.kind == SS_JIT_PORTABLE_POW || st.kind == SS_JIT_FMOD || st.kind == SS_JIT_COPYSIGN;
        const bool one = st.kind == SS_JIT_SQRT || st.kind == SS_JIT_FABS ||
                         st.kind == SS_JIT_FLOOR ||
                         (st.kind >= SS_JIT_PORTABLE_EXP && st.kind <= SS_JIT_PORTABLE_ATAN);
        // (Only the functions jit_steps calls under portable: no libm's.)
        if (!earlier(st.a) || (!one && !two) || (two && (!earlier(st.b) || mixed(st.a, st.b))))
          return std::nullopt;
        t = type_of(st.a) == Type::f64 ? Type::f64 : Type::f32;
        break;
      }
      default:
        return std::nullopt;
    }
    s.types_.push_back(t);
  }
  if (n == 0 || s.types_.back() != Type::f32) return std::nullopt;
  s.steps_ = std::move(steps);
  return s;
}

namespace {

// A float function as the JIT's portable call makes it (of a double: the
// value narrowed, the function's, widened back).
float function_f(std::int32_t kind, float x) {
  switch (kind) {
    case SS_JIT_PORTABLE_EXP:
      return pmath::exp(x);
    case SS_JIT_PORTABLE_LOG:
      return pmath::log(x);
    case SS_JIT_PORTABLE_TANH:
      return pmath::tanh(x);
    case SS_JIT_PORTABLE_ERF:
      return pmath::erf(x);
    case SS_JIT_PORTABLE_SIN:
      return pmath::sin1(x);
    case SS_JIT_PORTABLE_COS:
      return pmath::cos1(x);
    case SS_JIT_PORTABLE_TAN:
      return pmath::tan1(x);
    case SS_JIT_PORTABLE_ASIN:
      return pmath::asin1(x);
    case SS_JIT_PORTABLE_ACOS:
      return pmath::acos1(x);
    case SS_JIT_PORTABLE_ATAN:
      return pmath::atan1(x);
    case SS_JIT_SQRT:
      return std::sqrt(x);
    case SS_JIT_FABS:
      return std::fabs(x);
    case SS_JIT_FLOOR:
      return std::floor(x);
  }
  return NAN;  // (make() took only the kinds jit_steps makes under portable)
}

}  // namespace

float Steps::operator()(const float* x) const {
  // (A kernel's steps are a few dozen at most: on the stack.)
  Value v[128];
  std::vector<Value> heap;
  Value* at = v;
  if (steps_.size() > 128) {
    heap.resize(steps_.size());
    at = heap.data();
  }
  const auto as_f = [&](std::int32_t k) {
    return types_[static_cast<std::size_t>(k)] == Type::boolean ? (at[k].b ? 1.0f : 0.0f) : at[k].f;
  };
  const auto as_d = [&](std::int32_t k) {
    return types_[static_cast<std::size_t>(k)] == Type::boolean ? (at[k].b ? 1.0 : 0.0) : at[k].d;
  };
  const auto truth = [&](std::int32_t k) {
    switch (types_[static_cast<std::size_t>(k)]) {
      case Type::boolean:
        return at[k].b;
      case Type::f64:
        return at[k].d != 0.0;  // (NaN true: unordered not-equal)
      case Type::f32:
        break;
    }
    return at[k].f != 0.0f;
  };
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    const SsJitStep& st = steps_[i];
    const Type t = types_[i];
    Value& out = at[i];
    switch (st.op) {
      case SS_JIT_LOAD:
        out.f = x[st.a];
        break;
      case SS_JIT_LOAD_BOOL:
        out.b = x[st.a] != 0.0f;
        break;
      case SS_JIT_CONSTANT:
        out.f = st.value;
        break;
      case SS_JIT_WIDE_CONSTANT:
        out.d = st.wide_value;
        break;
      case SS_JIT_UNARY:
        if (t == Type::boolean)
          out.b = !at[st.a].b;
        else if (t == Type::f64)
          out.d = -at[st.a].d;
        else
          out.f = -at[st.a].f;
        break;
      case SS_JIT_BINARY:
        if (t == Type::f64) {
          const double l = as_d(st.a), r = as_d(st.b);
          out.d = st.kind == SS_JIT_ADD   ? l + r
                  : st.kind == SS_JIT_SUB ? l - r
                  : st.kind == SS_JIT_MUL ? l * r
                                          : l / r;
        } else {
          const float l = as_f(st.a), r = as_f(st.b);
          out.f = st.kind == SS_JIT_ADD   ? l + r
                  : st.kind == SS_JIT_SUB ? l - r
                  : st.kind == SS_JIT_MUL ? l * r
                                          : l / r;
        }
        break;
      case SS_JIT_COMPARE: {
        const Type ta = types_[static_cast<std::size_t>(st.a)],
                   tb = types_[static_cast<std::size_t>(st.b)];
        if (ta == Type::boolean && tb == Type::boolean) {
          out.b = st.kind == SS_JIT_EQ ? at[st.a].b == at[st.b].b : at[st.a].b != at[st.b].b;
          break;
        }
        const bool wide = ta == Type::f64 || tb == Type::f64;
        const double l = wide ? as_d(st.a) : as_f(st.a), r = wide ? as_d(st.b) : as_f(st.b);
        // (A float compared as a double: the same order, the same answer.)
        switch (st.kind) {
          case SS_JIT_LT:
            out.b = l < r;
            break;
          case SS_JIT_LE:
            out.b = l <= r;
            break;
          case SS_JIT_GT:
            out.b = l > r;
            break;
          case SS_JIT_GE:
            out.b = l >= r;
            break;
          case SS_JIT_EQ:
            out.b = l == r;
            break;
          default:
            out.b = l != r;
            break;
        }
        break;
      }
      case SS_JIT_LOGIC:
        out.b = st.kind == SS_JIT_AND ? truth(st.a) && truth(st.b) : truth(st.a) || truth(st.b);
        break;
      case SS_JIT_WHERE: {
        const std::int32_t pick = truth(st.a) ? st.b : st.c;
        if (t == Type::boolean)
          out.b = at[pick].b;
        else if (t == Type::f64)
          out.d = as_d(pick);
        else
          out.f = as_f(pick);
        break;
      }
      case SS_JIT_WIDEN:
        out.d = static_cast<double>(at[st.a].f);
        break;
      case SS_JIT_NARROW:
        out.f = static_cast<float>(at[st.a].d);
        break;
      case SS_JIT_CALL: {
        if (st.kind == SS_JIT_PORTABLE_POW || st.kind == SS_JIT_FMOD ||
            st.kind == SS_JIT_COPYSIGN) {
          const bool wide = t == Type::f64;
          const double l = wide ? as_d(st.a) : as_f(st.a), r = wide ? as_d(st.b) : as_f(st.b);
          const double value = st.kind == SS_JIT_PORTABLE_POW ? pmath::pow_d(l, r)
                               : st.kind == SS_JIT_FMOD       ? std::fmod(l, r)
                                                              : std::copysign(l, r);
          // (fmod and copysign are exact in either width.)
          if (wide)
            out.d = value;
          else
            out.f = static_cast<float>(value);
          break;
        }
        if (t == Type::f64) {
          if (st.kind == SS_JIT_SQRT)
            out.d = std::sqrt(at[st.a].d);
          else if (st.kind == SS_JIT_FABS)
            out.d = std::fabs(at[st.a].d);
          else if (st.kind == SS_JIT_FLOOR)
            out.d = std::floor(at[st.a].d);
          else
            out.d = function_f(st.kind, static_cast<float>(at[st.a].d));
        } else {
          out.f = function_f(st.kind, as_f(st.a));
        }
        break;
      }
    }
  }
  return at[steps_.size() - 1].f;
}

namespace {

constexpr int kUnaries = 0
#define SS_UNARY(op, name, spelled, width, result, formula) +1
#include "types/unary.def"
#undef SS_UNARY
    ;
constexpr int kBinaries = 0
#define SS_BINARY(op, name, written, spelled, width, result, formula, integers) +1
#include "types/binary.def"
#undef SS_BINARY
    ;

}  // namespace

const Steps* unary_steps(ir::Unary op) {
  static const std::vector<std::optional<Steps>> table = [] {
    std::vector<std::optional<Steps>> t;
    for (int k = 0; k < kUnaries; ++k)
      t.push_back(Steps::make(jit_steps({{.kind = ir::FusedStep::Kind::load, .a = 0},
                                         {.kind = ir::FusedStep::Kind::unary, .sub = k, .a = 0}},
                                        true)));
    return t;
  }();
  const auto k = static_cast<std::size_t>(op);
  return k < table.size() && table[k] ? &*table[k] : nullptr;
}

const Steps* binary_steps(ir::Binary op) {
  static const std::vector<std::optional<Steps>> table = [] {
    std::vector<std::optional<Steps>> t;
    for (int k = 0; k < kBinaries; ++k)
      t.push_back(
          Steps::make(jit_steps({{.kind = ir::FusedStep::Kind::load, .a = 0},
                                 {.kind = ir::FusedStep::Kind::load, .a = 1},
                                 {.kind = ir::FusedStep::Kind::binary, .sub = k, .a = 0, .b = 1}},
                                true)));
    return t;
  }();
  const auto k = static_cast<std::size_t>(op);
  return k < table.size() && table[k] ? &*table[k] : nullptr;
}

}  // namespace ss::runtime::fast::portable
