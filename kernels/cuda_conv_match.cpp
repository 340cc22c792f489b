#include "kernels/cuda_conv_match.hpp"

#include <climits>

#include "ir/attributes.hpp"
#include "runtime/fast/einsum_plan.hpp"

namespace ss::cuda {
namespace {

using runtime::Shape;
using Order = std::vector<std::int64_t>;

bool identity(const Order& order) {
  for (std::size_t k = 0; k < order.size(); ++k)
    if (order[k] != static_cast<std::int64_t>(k)) return false;
  return true;
}

// The view permuted by p, then by q, as one permutation (an empty one is
// no permutation).
Order then(const Order& p, const Order& q) {
  if (p.empty()) return q;
  if (q.empty()) return p;
  Order out(q.size());
  for (std::size_t j = 0; j < q.size(); ++j) out[j] = p[static_cast<std::size_t>(q[j])];
  return out;
}

Shape permuted(const Shape& s, const Order& order) {
  Shape out;
  for (const std::int64_t k : order) out.push_back(s.at(static_cast<std::size_t>(k)));
  return out;
}

// The window's 2-D convolution (ir::conv2d_of) as cuDNN takes it. cuDNN
// pads both sides alike, so a window padded unevenly (`padding=same` with
// an even kernel) is one only where padding `before` on both sides gives
// the same windows. The filters are the caller's (fits).
std::optional<ConvShape> conv_shape(const Shape& x, const ir::Window& w) {
  const auto c = ir::conv2d_of(x, w);
  if (!c) return std::nullopt;
  ConvShape s;
  s.n = c->n;
  s.h = c->h;
  s.w = c->w;
  s.c = c->c;
  s.kh = c->kh;
  s.kw = c->kw;
  s.oh = c->oh;
  s.ow = c->ow;
  for (std::size_t k = 0; k < 2; ++k) {
    s.stride[k] = c->stride[k];
    s.dilation[k] = c->dilation[k];
    s.pad[k] = c->before[k];
    ir::WindowAxis even = w.axes[k];
    even.after = even.before;
    if (even.count(x[k + 1]) != (k == 0 ? c->oh : c->ow)) return std::nullopt;
  }
  return s;
}

// With `filters`: no empty axis, and sizes cuDNN's ints and its
// 2^31-element tensors take.
bool fits(ConvShape& s, std::int64_t filters) {
  constexpr std::int64_t kInt = INT_MAX;
  s.f = filters;
  for (const std::int64_t v : {s.n, s.h, s.w, s.c, s.f, s.oh, s.ow})
    if (v <= 0 || v > kInt) return false;
  for (const std::int64_t v :
       {s.kh, s.kw, s.pad[0], s.pad[1], s.stride[0], s.stride[1], s.dilation[0], s.dilation[1]})
    if (v > kInt) return false;
  return s.n * s.h * s.w * s.c <= kInt && s.n * s.oh * s.ow * s.f <= kInt &&
         s.f * s.kh * s.kw * s.c <= kInt;
}

// An einsum of a window (side 0: the forward pass; 1: the kernel's
// gradient) and `other`.
std::optional<ConvCall> einsum_pass(const ir::Graph& g, const ir::Node& n, std::size_t side,
                                    const std::function<Shape(int)>& made) {
  const ir::Node& wn = g.nodes[static_cast<std::size_t>(n.in[side])];
  const int x = wn.in.at(0), other = n.in[1 - side];
  const Shape xs = made(x), os = made(other);
  const ir::Window w = ir::window_of(wn);
  auto s = conv_shape(xs, w);
  if (!s || os.size() != 4) return std::nullopt;
  const Shape windows = w.shape_of(xs);
  const auto plan =
      side == 0 ? runtime::plan_einsum(n, windows, os) : runtime::plan_einsum(n, os, windows);
  if (!plan || plan->batches != 1) return std::nullopt;
  ConvCall call;
  call.a = x;
  call.b = other;
  call.a_order = {0, 1, 2, 3};
  if (side == 0) {
    // Rows (n oh ow) and the contracted (c kh kw) in the window's order,
    // the kernel's columns its filters.
    if (!identity(plan->a_order) || plan->row_axes != 3 || plan->inner_axes != 3 ||
        !fits(*s, plan->n) || permuted(os, plan->b_order) != Shape{s->c, s->kh, s->kw, s->f} ||
        plan->computed != Shape{s->n, s->oh, s->ow, s->f})
      return std::nullopt;
    call.pass = Cudnn::Pass::forward;
    call.b_order = then(plan->b_order, {3, 1, 2, 0});  // [f kh kw c]
    call.out_shape = plan->computed;
    call.out_order = plan->out_order;
  } else {
    // Rows f from the output's gradient, the contracted (n oh ow), the
    // columns (c kh kw) in the window's order.
    if (!identity(plan->b_order) || plan->row_axes != 1 || plan->inner_axes != 3 ||
        !fits(*s, plan->m) || permuted(os, plan->a_order) != Shape{s->f, s->n, s->oh, s->ow} ||
        plan->computed != Shape{s->f, s->c, s->kh, s->kw})
      return std::nullopt;
    call.pass = Cudnn::Pass::filter;
    call.b_order = then(plan->a_order, {1, 2, 3, 0});  // [n oh ow f]
    call.out_shape = {s->f, s->kh, s->kw, s->c};
    call.out_order = then({0, 3, 1, 2}, plan->out_order);  // [f c kh kw], then the node's
  }
  call.shape = *s;
  return call;
}

// A window_fold of an einsum of the output's gradient and the kernel.
std::optional<ConvCall> fold_pass(const ir::Graph& g, const ir::Node& n,
                                  const std::function<Shape(int)>& made) {
  const ir::Node& en = g.nodes[static_cast<std::size_t>(n.in[0])];
  if (en.op != ir::Op::einsum || en.in.size() != 2) return std::nullopt;
  const Shape like = made(n.in[1]), as = made(en.in[0]), bs = made(en.in[1]);
  const ir::Window w = ir::window_of(n);
  auto s = conv_shape(like, w);
  if (!s) return std::nullopt;
  const auto plan = runtime::plan_einsum(en, as, bs);
  // Rows (n oh ow), the filters contracted, the columns (c kh kw): the
  // window's own shape.
  if (!plan || plan->batches != 1 || !plan->out_order.empty() || plan->row_axes != 3 ||
      plan->inner_axes != 1 || plan->computed != w.shape_of(like) || !fits(*s, plan->k) ||
      permuted(as, plan->a_order) != Shape{s->n, s->oh, s->ow, s->f} ||
      permuted(bs, plan->b_order) != Shape{s->f, s->c, s->kh, s->kw})
    return std::nullopt;
  ConvCall call;
  call.pass = Cudnn::Pass::data;
  call.shape = *s;
  call.a = en.in[0];
  call.b = en.in[1];
  call.a_order = plan->a_order;
  call.b_order = then(plan->b_order, {0, 2, 3, 1});  // [f kh kw c]
  call.out_shape = like;
  return call;
}

}  // namespace

std::optional<ConvCall> match_conv(const ir::Graph& g, std::size_t i,
                                   const std::function<Shape(int)>& made) {
  const ir::Node& n = g.nodes[i];
  if (n.op == ir::Op::window_fold && n.in.size() == 2) return fold_pass(g, n, made);
  if (n.op != ir::Op::einsum || n.in.size() != 2) return std::nullopt;
  for (const std::size_t side : {0u, 1u})
    if (g.nodes[static_cast<std::size_t>(n.in[side])].op == ir::Op::window)
      return einsum_pass(g, n, side, made);
  return std::nullopt;
}

}  // namespace ss::cuda
