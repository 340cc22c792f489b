#include "runtime/fast/jit_steps.hpp"

#include <stdexcept>

#include "ir/formulas.hpp"
#include "ir/ops.hpp"

namespace ss::runtime {
namespace {

std::int32_t function_id(const std::string& name) {
  if (name == "exp") return SS_JIT_EXP;
  if (name == "log") return SS_JIT_LOG;
  if (name == "tanh") return SS_JIT_TANH;
  if (name == "erf") return SS_JIT_ERF;
  if (name == "sqrt") return SS_JIT_SQRT;
  if (name == "fabs") return SS_JIT_FABS;
  throw std::logic_error("the JIT has no function `" + name + "`");
}

class Expander {
 public:
  std::vector<SsJitStep> run(const std::vector<ir::FusedStep>& steps) {
    std::vector<std::int32_t> at;  // each fused step's value, by its new index
    const auto map = [&](int old) { return old < 0 ? old : at[static_cast<std::size_t>(old)]; };
    for (const auto& s : steps) {
      if (s.kind == ir::FusedStep::Kind::unary) {
        at.push_back(formula(static_cast<ir::Unary>(s.sub), map(s.a)));
        continue;
      }
      const bool load =
          s.kind == ir::FusedStep::Kind::load || s.kind == ir::FusedStep::Kind::load_bool;
      at.push_back(push({.op = static_cast<std::int32_t>(s.kind),
                         .kind = s.sub,
                         .a = load ? s.a : map(s.a),
                         .b = map(s.b),
                         .c = map(s.c),
                         .value = s.value}));
    }
    return std::move(out_);
  }

 private:
  std::int32_t push(SsJitStep step) {
    out_.push_back(step);
    return static_cast<std::int32_t>(out_.size()) - 1;
  }

  std::int32_t formula(ir::Unary op, std::int32_t x) {
    if (op == ir::Unary::neg || op == ir::Unary::logical_not)
      return push(
          {.op = SS_JIT_UNARY, .kind = static_cast<std::int32_t>(op), .a = x, .b = -1, .c = -1});
    const ir::Formula& f = ir::formula(op);
    // Every formula in float: the reference computes kDouble ones in double,
    // and docs/numerics.md's `fast-elementwise` row bounds the difference
    // (exp, log, tanh and erf through float vector math, jit/vector_math.hpp).
    std::vector<std::int32_t> v;
    for (const ir::Term& t : f.terms) {
      const auto arg = [&](std::size_t k) { return v[static_cast<std::size_t>(t.args[k])]; };
      const auto binary = [&](ir::Binary b, std::int32_t l, std::int32_t r) {
        return push(
            {.op = SS_JIT_BINARY, .kind = static_cast<std::int32_t>(b), .a = l, .b = r, .c = -1});
      };
      switch (t.kind) {
        case ir::Term::Kind::x:
          v.push_back(x);
          break;
        case ir::Term::Kind::number:
          v.push_back(push({.op = SS_JIT_CONSTANT,
                            .a = -1,
                            .b = -1,
                            .c = -1,
                            .value = static_cast<float>(t.number)}));
          break;
        case ir::Term::Kind::neg:
          v.push_back(push({.op = SS_JIT_UNARY,
                            .kind = static_cast<std::int32_t>(ir::Unary::neg),
                            .a = arg(0),
                            .b = -1,
                            .c = -1}));
          break;
        case ir::Term::Kind::add:
          v.push_back(binary(ir::Binary::add, arg(0), arg(1)));
          break;
        case ir::Term::Kind::sub:
          v.push_back(binary(ir::Binary::sub, arg(0), arg(1)));
          break;
        case ir::Term::Kind::mul:
          v.push_back(binary(ir::Binary::mul, arg(0), arg(1)));
          break;
        case ir::Term::Kind::div:
          v.push_back(binary(ir::Binary::div, arg(0), arg(1)));
          break;
        case ir::Term::Kind::call:
          v.push_back(push(
              {.op = SS_JIT_CALL, .kind = function_id(t.function), .a = arg(0), .b = -1, .c = -1}));
          break;
        case ir::Term::Kind::select: {
          const auto test =
              binary(t.function == ">" ? ir::Binary::gt : ir::Binary::eq, arg(0), arg(1));
          v.push_back(push({.op = SS_JIT_WHERE, .a = test, .b = arg(2), .c = arg(3)}));
          break;
        }
      }
    }
    return v.empty() ? x : v.back();
  }

  std::vector<SsJitStep> out_;
};

}  // namespace

std::vector<SsJitStep> jit_steps(const std::vector<ir::FusedStep>& steps) {
  return Expander().run(steps);
}

}  // namespace ss::runtime
