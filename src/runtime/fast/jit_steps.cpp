#include "runtime/fast/jit_steps.hpp"

#include <stdexcept>

#include "ir/formulas.hpp"
#include "ir/ops.hpp"
#include "types/binary_functions.hpp"

namespace ss::runtime {
namespace {

std::int32_t function_id(ir::Term::Function f, bool portable) {
  using F = ir::Term::Function;
  if (portable) switch (f) {
      case F::exp:
        return SS_JIT_PORTABLE_EXP;
      case F::log:
        return SS_JIT_PORTABLE_LOG;
      case F::tanh:
        return SS_JIT_PORTABLE_TANH;
      case F::erf:
        return SS_JIT_PORTABLE_ERF;
      case F::sin:
        return SS_JIT_PORTABLE_SIN;
      case F::cos:
        return SS_JIT_PORTABLE_COS;
      case F::tan:
        return SS_JIT_PORTABLE_TAN;
      case F::asin:
        return SS_JIT_PORTABLE_ASIN;
      case F::acos:
        return SS_JIT_PORTABLE_ACOS;
      case F::atan:
        return SS_JIT_PORTABLE_ATAN;
      case F::pow:
        return SS_JIT_PORTABLE_POW;
      default:
        break;
    }
  switch (f) {
    case F::exp:
      return SS_JIT_EXP;
    case F::log:
      return SS_JIT_LOG;
    case F::tanh:
      return SS_JIT_TANH;
    case F::erf:
      return SS_JIT_ERF;
    case F::sqrt:
      return SS_JIT_SQRT;
    case F::fabs:
      return SS_JIT_FABS;
    case F::floor:
      return SS_JIT_FLOOR;
    case F::sin:
      return SS_JIT_SIN;
    case F::cos:
      return SS_JIT_COS;
    case F::tan:
      return SS_JIT_TAN;
    case F::asin:
      return SS_JIT_ASIN;
    case F::acos:
      return SS_JIT_ACOS;
    case F::atan:
      return SS_JIT_ATAN;
    case F::pow:
      return SS_JIT_POW;
    case F::fmod:
      return SS_JIT_FMOD;
    case F::copysign:
      return SS_JIT_COPYSIGN;
    case F::none:
      break;
  }
  throw std::logic_error("the JIT has no such function");
}

std::int32_t test_id(ir::Term::Test t) {
  using T = ir::Term::Test;
  switch (t) {
    case T::lt:
      return SS_JIT_LT;
    case T::le:
      return SS_JIT_LE;
    case T::gt:
      return SS_JIT_GT;
    case T::ge:
      return SS_JIT_GE;
    case T::eq:
      return SS_JIT_EQ;
    case T::ne:
      return SS_JIT_NE;
    case T::both:
      return SS_JIT_AND;
    case T::either:
      return SS_JIT_OR;
    case T::none:
      break;
  }
  throw std::logic_error("the JIT has no such test");
}

class Expander {
 public:
  explicit Expander(bool portable) : portable_(portable) {}

  std::vector<SsJitStep> run(const std::vector<ir::FusedStep>& steps) {
    std::vector<std::int32_t> at;  // each fused step's value, by its new index
    const auto map = [&](int old) { return old < 0 ? old : at[static_cast<std::size_t>(old)]; };
    for (const auto& s : steps) {
      if (s.kind == ir::FusedStep::Kind::unary) {
        at.push_back(unary(static_cast<ir::Unary>(s.sub), map(s.a)));
      } else if (s.kind == ir::FusedStep::Kind::binary) {
        at.push_back(binary(static_cast<ir::Binary>(s.sub), map(s.a), map(s.b)));
      } else {
        const bool load =
            s.kind == ir::FusedStep::Kind::load || s.kind == ir::FusedStep::Kind::load_bool;
        at.push_back(push({.op = static_cast<std::int32_t>(s.kind),
                           .kind = s.sub,
                           .a = load ? s.a : map(s.a),
                           .b = map(s.b),
                           .c = map(s.c),
                           .value = s.value}));
      }
    }
    return std::move(out_);
  }

 private:
  std::int32_t push(SsJitStep step) {
    out_.push_back(step);
    return static_cast<std::int32_t>(out_.size()) - 1;
  }
  std::int32_t push(std::int32_t op, std::int32_t kind, std::int32_t a, std::int32_t b = -1) {
    return push({.op = op, .kind = kind, .a = a, .b = b, .c = -1});
  }

  // Every function of one value in float: the reference computes kDouble
  // ones in double, and docs/numerics.md's `fast-elementwise` row bounds
  // the difference (exp, log, tanh and erf through float vector math,
  // jit/vector_math.hpp).
  std::int32_t unary(ir::Unary op, std::int32_t x) {
    if (op == ir::Unary::neg || op == ir::Unary::logical_not)
      return push(SS_JIT_UNARY, static_cast<std::int32_t>(op), x);
    return formula(ir::formula(op), x, -1, false);
  }

  // A function of two values in float where that gives the reference's
  // bits (kExact), else widened to double and its number rounded back.
  std::int32_t binary(ir::Binary op, std::int32_t x, std::int32_t y) {
    const ir::Formula& f = ir::formula(op);
    if (f.width != ir::Formula::kDouble) return formula(f, x, y, false);
    const std::int32_t value = formula(f, push(SS_JIT_WIDEN, 0, x), push(SS_JIT_WIDEN, 0, y), true);
    return types::yields_bool(types::binary_result(static_cast<int>(op)))
               ? value
               : push(SS_JIT_NARROW, 0, value);
  }

  // A formula's terms as steps, in order; its numbers doubles when `wide`.
  std::int32_t formula(const ir::Formula& f, std::int32_t x, std::int32_t y, bool wide) {
    std::vector<std::int32_t> v;
    for (const ir::Term& t : f.terms) {
      const auto arg = [&](std::size_t k) { return v[static_cast<std::size_t>(t.args[k])]; };
      switch (t.kind) {
        case ir::Term::Kind::x:
          v.push_back(x);
          break;
        case ir::Term::Kind::y:
          v.push_back(y);
          break;
        case ir::Term::Kind::number:
          v.push_back(wide ? push({.op = SS_JIT_WIDE_CONSTANT,
                                   .a = -1,
                                   .b = -1,
                                   .c = -1,
                                   .wide_value = t.number})
                           : push({.op = SS_JIT_CONSTANT,
                                   .a = -1,
                                   .b = -1,
                                   .c = -1,
                                   .value = static_cast<float>(t.number)}));
          break;
        case ir::Term::Kind::neg:
          v.push_back(push(SS_JIT_UNARY, static_cast<std::int32_t>(ir::Unary::neg), arg(0)));
          break;
        case ir::Term::Kind::add:
          v.push_back(push(SS_JIT_BINARY, SS_JIT_ADD, arg(0), arg(1)));
          break;
        case ir::Term::Kind::sub:
          v.push_back(push(SS_JIT_BINARY, SS_JIT_SUB, arg(0), arg(1)));
          break;
        case ir::Term::Kind::mul:
          v.push_back(push(SS_JIT_BINARY, SS_JIT_MUL, arg(0), arg(1)));
          break;
        case ir::Term::Kind::div:
          v.push_back(push(SS_JIT_BINARY, SS_JIT_DIV, arg(0), arg(1)));
          break;
        case ir::Term::Kind::compare:
          v.push_back(push(SS_JIT_COMPARE, test_id(t.test), arg(0), arg(1)));
          break;
        case ir::Term::Kind::logic:
          v.push_back(push(SS_JIT_LOGIC, test_id(t.test), arg(0), arg(1)));
          break;
        case ir::Term::Kind::call:
          v.push_back(push(SS_JIT_CALL, function_id(t.which, portable_), arg(0),
                           t.args.size() > 1 ? arg(1) : -1));
          break;
        case ir::Term::Kind::select:
          v.push_back(push({.op = SS_JIT_WHERE, .a = arg(0), .b = arg(1), .c = arg(2)}));
          break;
      }
    }
    return v.empty() ? x : v.back();
  }

  std::vector<SsJitStep> out_;
  bool portable_;
};

}  // namespace

std::vector<SsJitStep> jit_steps(const std::vector<ir::FusedStep>& steps, bool portable) {
  return Expander(portable).run(steps);
}

}  // namespace ss::runtime
