#include "runtime/fast/attention/fast_attention.hpp"

#include <atomic>
#include <initializer_list>
#include <optional>

#include "ir/attention.hpp"
#include "runtime/core/cpu_isa.hpp"
#include "runtime/core/helper_threads.hpp"
#include "runtime/fast/attention/attention_bind.hpp"
#include "runtime/fast/node_memo.hpp"

namespace ss::runtime::fast {
namespace {

using attn::Bound;
using attn::Item;
using attn::Scratch;

struct Kernel {
  const char* name;
  attn::Forward forward;
  attn::Backward backward;
};

std::vector<Kernel> supported() {
  __builtin_cpu_init();
  std::vector<Kernel> out;
  const runtime::Isa isa = runtime::kernel_isa();
  if (isa >= runtime::Isa::avx512)
    out.push_back({"avx512", attn::forward_avx512, attn::backward_avx512});
  if (isa >= runtime::Isa::avx2) out.push_back({"avx2", attn::forward_avx2, attn::backward_avx2});
  out.push_back({"portable", attn::forward_portable, attn::backward_portable});
  return out;
}

// Four-wide with FMA: the portable numerics' scalar path, whose products
// fuse as the wider kernels' do.
const Kernel& fma4_kernel() {
  static const Kernel k{"fma4", attn::forward_fma4, attn::backward_fma4};
  return k;
}

const std::vector<Kernel>& kernels() {
  static const std::vector<Kernel> k = supported();
  return k;
}

// Numerics::portable's: the widest kernel, where it has FMA (the products'
// chains fused in every one); else fma4 in place of the portable one.
const Kernel& portable_kernel() {
  static const Kernel& k =
      std::string(kernels().front().name) == "portable" ? fma4_kernel() : kernels().front();
  return k;
}

const Kernel* kernel_named(const std::string& name) {
  for (const auto& k : kernels())
    if (name == k.name) return &k;
  if (name == "fma4" && __builtin_cpu_supports("fma")) return &fma4_kernel();
  return nullptr;
}

// Runs `item` on every batch position, split over threads; false if any
// position's kernel declined.
template <typename Body>
bool each_position(std::int64_t count, int threads, const Body& body) {
  std::atomic<bool> ok{true};
  for_rows(count, 1, threads, [&](std::int64_t from, std::int64_t to) {
    thread_local Scratch scratch;
    for (std::int64_t p = from; p < to && ok.load(std::memory_order_relaxed); ++p)
      if (!body(p, scratch)) ok = false;
  });
  return ok;
}

// The scale's factor: the scalar, or its reciprocal for a divide.
bool bind_scale(const Tensor* scale, const ir::AttentionLayout& l, Item& item) {
  if (!scale) return true;
  if (scale->dtype() != DType::f32 || scale->size() != 1) return false;
  const auto c = static_cast<float>(scale->get(0));
  item.factor = l.divide ? 1.0f / c : c;
  return true;
}

// A node's layout bound to its operands (and dout's, for the gradient),
// remembered on the thread (node_memo.hpp): nullopt where they don't fit.
struct Bounds;
const std::optional<Bound>& bound(const ir::Node& n, const Tensor& tq, const Tensor& tk,
                                  const Tensor& tv, const Tensor* dout) {
  using Memo = NodeMemo<std::optional<Bound>, Bounds>;
  const Shape none;
  const std::initializer_list<Shape> key{tq.shape(),
                                         tq.strides(),
                                         tk.shape(),
                                         tk.strides(),
                                         tv.shape(),
                                         tv.strides(),
                                         dout ? dout->shape() : none,
                                         dout ? dout->strides() : none};
  if (const auto* b = Memo::find(n, key)) return *b;
  std::optional<Bound> b(std::in_place);
  if (!b->bind(n, tq, tk, tv) || (dout && !b->bind_grads(tq, tk, tv, *dout))) b.reset();
  return Memo::keep(n, key, std::move(b));
}

bool forward(const Kernel& kernel, const ir::Node& n, const Tensor& tq, const Tensor& tk,
             const Tensor& tv, const Tensor* scale, Tensor& out, int threads,
             bool portable = false) {
  const std::optional<Bound>& bound_layout = bound(n, tq, tk, tv, nullptr);
  if (!bound_layout) return false;
  const Bound& b = *bound_layout;
  Item item = b.item;
  item.portable = portable;
  if (!bind_scale(scale, b.l, item)) return false;
  Tensor result = Tensor::uninitialized(DType::f32, b.out_shape);
  const auto* q = static_cast<const float*>(tq.raw());
  const auto* k = static_cast<const float*>(tk.raw());
  const auto* v = static_cast<const float*>(tv.raw());
  auto* y = static_cast<float*>(result.raw());
  const bool ok = each_position(b.positions(), threads, [&](std::int64_t p, Scratch& s) {
    return kernel.forward(item, q + b.offset(p, b.q), k + b.offset(p, b.k), v + b.offset(p, b.v),
                          y + b.offset(p, b.o), s);
  });
  if (ok) out = std::move(result);
  return ok;
}

bool backward(const Kernel& kernel, const ir::Node& n, const Tensor& tq, const Tensor& tk,
              const Tensor& tv, const Tensor* scale, const Tensor& dout, Tensor& grads, int threads,
              bool portable = false) {
  const std::optional<Bound>& bound_layout = bound(n, tq, tk, tv, &dout);
  if (!bound_layout) return false;
  const Bound& b = *bound_layout;
  Item item = b.item;
  item.portable = portable;
  if (!bind_scale(scale, b.l, item)) return false;
  Shape shape = tq.shape();
  shape.insert(shape.begin(), 3);
  Tensor result = Tensor::uninitialized(DType::f32, shape);
  const auto* q = static_cast<const float*>(tq.raw());
  const auto* k = static_cast<const float*>(tk.raw());
  const auto* v = static_cast<const float*>(tv.raw());
  const auto* dy = static_cast<const float*>(dout.raw());
  auto* dq = static_cast<float*>(result.raw());
  float* dk = dq + b.part_size;
  float* dv = dk + b.part_size;
  const bool ok = each_position(b.positions(), threads, [&](std::int64_t p, Scratch& s) {
    return kernel.backward(item, q + b.offset(p, b.q), k + b.offset(p, b.k), v + b.offset(p, b.v),
                           dy + b.offset(p, b.o), dq + b.offset(p, b.gq), dk + b.offset(p, b.gk),
                           dv + b.offset(p, b.gv), s);
  });
  if (ok) grads = std::move(result);
  return ok;
}

}  // namespace

bool attention(const ir::Node& n, const Tensor& q, const Tensor& k, const Tensor& v,
               const Tensor* scale, Tensor& out, int threads, bool portable) {
  return attn::attention_kernel_on() && forward(portable ? portable_kernel() : kernels().front(), n,
                                                q, k, v, scale, out, threads, portable);
}

bool attention_grad(const ir::Node& n, const Tensor& q, const Tensor& k, const Tensor& v,
                    const Tensor* scale, const Tensor& dout, Tensor& grads, int threads,
                    bool portable) {
  return attn::attention_kernel_on() && backward(portable ? portable_kernel() : kernels().front(),
                                                 n, q, k, v, scale, dout, grads, threads, portable);
}

std::vector<std::string> attention_kernels() {
  std::vector<std::string> out;
  for (const auto& k : kernels()) out.emplace_back(k.name);
  return out;
}

bool attention_with(const std::string& kernel, const ir::Node& n, const Tensor& q, const Tensor& k,
                    const Tensor& v, const Tensor* scale, Tensor& out, int threads, bool portable) {
  const Kernel* chosen = kernel_named(kernel);
  return chosen && forward(*chosen, n, q, k, v, scale, out, threads, portable);
}

bool attention_grad_with(const std::string& kernel, const ir::Node& n, const Tensor& q,
                         const Tensor& k, const Tensor& v, const Tensor* scale, const Tensor& dout,
                         Tensor& grads, int threads, bool portable) {
  const Kernel* chosen = kernel_named(kernel);
  return chosen && backward(*chosen, n, q, k, v, scale, dout, grads, threads, portable);
}

}  // namespace ss::runtime::fast
