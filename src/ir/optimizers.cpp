// One optimiser step as graph nodes, following torch.optim's formulas.
#include "ir/optimizers.hpp"

#include <stdexcept>

#include "ir/ops.hpp"

namespace ss::ir {
namespace {

using types::ElemKind;
using types::Type;

const std::vector<OptimizerSpec>& specs() {
  static const std::vector<OptimizerSpec> all = {
      {"SGD",
       {{"lr", 1e-3}, {"momentum", 0}, {"dampening", 0}, {"weight_decay", 0}, {"nesterov", 0}},
       {"momentum_buffer"}},
      {"Adam",
       {{"lr", 1e-3}, {"beta1", 0.9}, {"beta2", 0.999}, {"eps", 1e-8}, {"weight_decay", 0}},
       {"exp_avg", "exp_avg_sq"}},
      {"AdamW",
       {{"lr", 1e-3}, {"beta1", 0.9}, {"beta2", 0.999}, {"eps", 1e-8}, {"weight_decay", 0.01}},
       {"exp_avg", "exp_avg_sq"}},
  };
  return all;
}

// Builds elementwise nodes; each result takes the wider operand's axes.
class Builder {
 public:
  Builder(Graph& g, diag::Span span) : g_(g), span_(span) {}

  int constant(double v) {
    return add({.op = Op::constant, .number = v, .type = Type::scalar(ElemKind::f32)});
  }
  int binary(Binary op, int a, int b) {
    const Type& ta = type(a);
    const Type& tb = type(b);
    Type t = ta.axes.size() >= tb.axes.size() ? ta : tb;
    t.elem = types::Elem{ElemKind::f32, {}, false};
    return add({.op = Op::binary, .in = {a, b}, .sub = static_cast<int>(op), .type = t});
  }
  int add_(int a, int b) { return binary(Binary::add, a, b); }
  int sub(int a, int b) { return binary(Binary::sub, a, b); }
  int mul(int a, int b) { return binary(Binary::mul, a, b); }
  int div(int a, int b) { return binary(Binary::div, a, b); }
  int pow(int a, int b) { return binary(Binary::pow, a, b); }
  int sqrt(int a) {
    Type t = type(a);
    return add({.op = Op::unary, .in = {a}, .sub = static_cast<int>(Unary::sqrt), .type = t});
  }
  int where(int c, int a, int b) {
    Type t = type(a).axes.size() >= type(b).axes.size() ? type(a) : type(b);
    return add({.op = Op::where, .in = {c, a, b}, .type = t});
  }
  int compare(Binary op, int a, int b) {
    Type t = type(a);
    t.elem = types::Elem{ElemKind::boolean, {}, false};
    return add({.op = Op::binary, .in = {a, b}, .sub = static_cast<int>(op), .type = t});
  }

 private:
  const Type& type(int i) const { return g_.nodes[static_cast<std::size_t>(i)].type; }
  int add(Node n) {
    n.span = span_;
    return g_.add(std::move(n));
  }
  Graph& g_;
  diag::Span span_;
};

}  // namespace

const OptimizerSpec* optimizer_spec(const std::string& kind) {
  for (const auto& s : specs())
    if (s.kind == kind) return &s;
  return nullptr;
}

std::vector<int> append_optimizer_step(Graph& g, const OptimizerSpec& spec, OptimizerNodes& opt,
                                       const std::vector<int>& params,
                                       const std::vector<int>& grads, diag::Span span) {
  Builder b(g, span);
  const auto setting = [&](const std::string& name) {
    for (std::size_t i = 0; i < spec.settings.size(); ++i)
      if (spec.settings[i].first == name) return opt.settings.at(i);
    throw std::logic_error("no setting " + name + " in " + spec.kind);
  };
  const int one = b.constant(1);
  const int lr = setting("lr"), wd = setting("weight_decay");
  const int taken = opt.step;  // steps before this one
  opt.step = b.add_(taken, one);
  std::vector<int> out;
  for (std::size_t i = 0; i < params.size(); ++i) {
    int p = params[i], grad = grads[i];
    if (spec.kind == "SGD") {
      // torch.optim.SGD: d_p = g + wd p; buf = d_p at the first step, else
      // momentum buf + (1 - dampening) d_p; nesterov: d_p + momentum buf.
      const int momentum = setting("momentum");
      grad = b.add_(grad, b.mul(wd, p));
      const int later =
          b.add_(b.mul(momentum, opt.state[0][i]), b.mul(b.sub(one, setting("dampening")), grad));
      const int buf = b.where(b.compare(Binary::eq, taken, b.constant(0)), grad, later);
      opt.state[0][i] = buf;
      const int nesterov = b.add_(grad, b.mul(momentum, buf));
      const int direction =
          b.where(b.compare(Binary::ne, setting("nesterov"), b.constant(0)), nesterov, buf);
      out.push_back(b.sub(p, b.mul(lr, direction)));
      continue;
    }
    // Adam and AdamW (torch.optim, amsgrad off).
    const int beta1 = setting("beta1"), beta2 = setting("beta2"), eps = setting("eps");
    if (spec.kind == "AdamW")
      p = b.mul(p, b.sub(one, b.mul(lr, wd)));  // decoupled weight decay
    else
      grad = b.add_(grad, b.mul(wd, p));  // L2, into the gradient
    const int m = b.add_(b.mul(beta1, opt.state[0][i]), b.mul(b.sub(one, beta1), grad));
    const int v =
        b.add_(b.mul(beta2, opt.state[1][i]), b.mul(b.sub(one, beta2), b.mul(grad, grad)));
    opt.state[0][i] = m;
    opt.state[1][i] = v;
    const int correction1 = b.sub(one, b.pow(beta1, opt.step));
    const int correction2 = b.sub(one, b.pow(beta2, opt.step));
    const int step_size = b.div(lr, correction1);
    const int denom = b.add_(b.div(b.sqrt(v), b.sqrt(correction2)), eps);
    out.push_back(b.sub(p, b.mul(step_size, b.div(m, denom))));
  }
  return out;
}

}  // namespace ss::ir
