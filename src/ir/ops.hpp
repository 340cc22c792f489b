// The kinds of elementwise and reduction operations a graph node applies
// (Node::sub): the IR's list, which every executor implements.
#pragma once

namespace ss::ir {

// gelu_grad, gelu's derivative, comes from differentiation only.
enum class Unary { neg, exp, log, sqrt, abs, tanh, sigmoid, relu, gelu, gelu_grad, logical_not };
enum class Binary {
  add,
  sub,
  mul,
  div,
  pow,
  mod,
  floordiv,
  maximum,
  minimum,
  lt,
  le,
  gt,
  ge,
  eq,
  ne,
  logical_and,
  logical_or,
};
enum class Reduce { sum, mean, max, min, logsumexp, var, std };

}  // namespace ss::ir
