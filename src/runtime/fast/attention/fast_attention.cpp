#include "runtime/fast/attention/fast_attention.hpp"

#include <atomic>
#include <cstdlib>
#include <map>

#include "ir/attention.hpp"
#include "runtime/core/helper_threads.hpp"
#include "runtime/fast/attention/attention_item.hpp"

namespace ss::runtime::fast {
namespace {

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
  if (__builtin_cpu_supports("avx512f"))
    out.push_back({"avx512", attn::forward_avx512, attn::backward_avx512});
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    out.push_back({"avx2", attn::forward_avx2, attn::backward_avx2});
  out.push_back({"portable", attn::forward_portable, attn::backward_portable});
  return out;
}

const std::vector<Kernel>& kernels() {
  static const std::vector<Kernel> k = supported();
  return k;
}

// SHAPESCRIPT_ATTENTION_KERNEL=0 leaves every attention to its body (the
// composition), to measure or rule out the kernel.
bool kernel_on() {
  static const bool on = [] {
    const char* v = std::getenv("SHAPESCRIPT_ATTENTION_KERNEL");
    return !v || std::string(v) != "0";
  }();
  return on;
}

const Kernel* kernel_named(const std::string& name) {
  for (const auto& k : kernels())
    if (name == k.name) return &k;
  return nullptr;
}

using Strides = std::map<std::string, std::int64_t>;

// Each letter's stride in `t` (0 for a letter it lacks: broadcast).
Strides strides_of(const std::vector<std::string>& letters, const runtime::Strides& strides) {
  Strides out;
  for (std::size_t a = 0; a < letters.size(); ++a) out[letters[a]] = strides[a];
  return out;
}

std::int64_t at(const Strides& s, const std::string& letter) {
  const auto it = s.find(letter);
  return it == s.end() ? 0 : it->second;
}

runtime::Strides row_major(const Shape& shape) {
  runtime::Strides out(shape.size());
  std::int64_t step = 1;
  for (std::size_t a = shape.size(); a-- > 0;) {
    out[a] = step;
    step *= shape[a];
  }
  return out;
}

// The node's layout bound to its tensors' sizes and strides.
struct Bound {
  ir::AttentionLayout l;
  std::map<std::string, std::int64_t> size;
  std::vector<std::string> batch;  // out's letters but i and e, in out's order
  Shape out_shape;
  Item item;
  Strides q, k, v;

  // Binds; false where the tensors don't fit the layout.
  bool bind(const ir::Node& n, const Tensor& tq, const Tensor& tk, const Tensor& tv,
            const Tensor* scale) {
    l = ir::attention_of(n);
    for (const Tensor* t : {&tq, &tk, &tv})
      if (t->dtype() != DType::f32) return false;
    if (scale && (scale->dtype() != DType::f32 || scale->size() != 1)) return false;
    const std::pair<const Tensor*, const std::vector<std::string>*> operands[] = {
        {&tq, &l.q}, {&tk, &l.k}, {&tv, &l.v}};
    for (const auto& [t, letters] : operands) {
      if (static_cast<std::size_t>(t->rank()) != letters->size()) return false;
      for (std::size_t a = 0; a < letters->size(); ++a) {
        const auto [it, fresh] = size.emplace((*letters)[a], t->dim(static_cast<std::int64_t>(a)));
        if (!fresh && it->second != t->dim(static_cast<std::int64_t>(a))) return false;
      }
    }
    for (const auto& x : l.out) {
      if (!size.count(x)) return false;
      out_shape.push_back(size.at(x));
      if (x != l.i && x != l.e) batch.push_back(x);
    }
    q = strides_of(l.q, tq.strides());
    k = strides_of(l.k, tk.strides());
    v = strides_of(l.v, tv.strides());
    item.ti = size.at(l.i);
    item.tj = size.at(l.j);
    item.d = size.at(l.d);
    item.e = size.at(l.e);
    item.q_i = at(q, l.i);
    item.q_d = at(q, l.d);
    item.k_j = at(k, l.j);
    item.k_d = at(k, l.d);
    item.v_j = at(v, l.j);
    item.v_e = at(v, l.e);
    item.causal = l.causal;
    if (scale) {
      const auto c = static_cast<float>(scale->get(0));
      item.factor = l.divide ? 1.0f / c : c;
    }
    return true;
  }

  std::int64_t positions() const {
    std::int64_t count = 1;
    for (const auto& x : batch) count *= size.at(x);
    return count;
  }

  // Position `p`'s offset in a tensor of `strides` (row-major over `batch`).
  std::int64_t offset(std::int64_t p, const Strides& strides) const {
    std::int64_t off = 0;
    for (std::size_t b = batch.size(); b-- > 0;) {
      const std::int64_t n = size.at(batch[b]);
      off += (p % n) * at(strides, batch[b]);
      p /= n;
    }
    return off;
  }
};

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

bool forward(const Kernel& kernel, const ir::Node& n, const Tensor& tq, const Tensor& tk,
             const Tensor& tv, const Tensor* scale, Tensor& out, int threads) {
  Bound b;
  if (!b.bind(n, tq, tk, tv, scale)) return false;
  Tensor result = Tensor::uninitialized(DType::f32, b.out_shape);
  const Strides o = strides_of(b.l.out, result.strides());
  Item item = b.item;
  item.o_i = at(o, b.l.i);
  item.o_e = at(o, b.l.e);
  const auto* q = static_cast<const float*>(tq.raw());
  const auto* k = static_cast<const float*>(tk.raw());
  const auto* v = static_cast<const float*>(tv.raw());
  auto* y = static_cast<float*>(result.raw());
  const bool ok = each_position(b.positions(), threads, [&](std::int64_t p, Scratch& s) {
    return kernel.forward(item, q + b.offset(p, b.q), k + b.offset(p, b.k), v + b.offset(p, b.v),
                          y + b.offset(p, o), s);
  });
  if (ok) out = std::move(result);
  return ok;
}

bool backward(const Kernel& kernel, const ir::Node& n, const Tensor& tq, const Tensor& tk,
              const Tensor& tv, const Tensor* scale, const Tensor& dout, Tensor& grads,
              int threads) {
  Bound b;
  if (!b.bind(n, tq, tk, tv, scale) || dout.dtype() != DType::f32 || dout.shape() != b.out_shape ||
      tk.shape() != tq.shape() || tv.shape() != tq.shape())
    return false;
  Shape shape = tq.shape();
  const runtime::Strides part = row_major(shape);
  const std::int64_t part_size = tq.size();
  shape.insert(shape.begin(), 3);
  Tensor result = Tensor::uninitialized(DType::f32, shape);
  const Strides g = strides_of(b.l.out, dout.strides());
  const Strides gq = strides_of(b.l.q, part), gk = strides_of(b.l.k, part),
                gv = strides_of(b.l.v, part);
  Item item = b.item;
  item.o_i = at(g, b.l.i);
  item.o_e = at(g, b.l.e);
  item.gq_i = at(gq, b.l.i);
  item.gq_d = at(gq, b.l.d);
  item.gk_j = at(gk, b.l.j);
  item.gk_d = at(gk, b.l.d);
  item.gv_j = at(gv, b.l.j);
  item.gv_e = at(gv, b.l.e);
  // Each part holds every batch letter (q, k and v share a type), so the
  // positions' places never overlap.
  for (const auto& x : b.batch)
    if (!at(gq, x) || !at(gk, x) || !at(gv, x)) return false;
  const auto* q = static_cast<const float*>(tq.raw());
  const auto* k = static_cast<const float*>(tk.raw());
  const auto* v = static_cast<const float*>(tv.raw());
  const auto* dy = static_cast<const float*>(dout.raw());
  auto* dq = static_cast<float*>(result.raw());
  float* dk = dq + part_size;
  float* dv = dk + part_size;
  const bool ok = each_position(b.positions(), threads, [&](std::int64_t p, Scratch& s) {
    return kernel.backward(item, q + b.offset(p, b.q), k + b.offset(p, b.k), v + b.offset(p, b.v),
                           dy + b.offset(p, g), dq + b.offset(p, gq), dk + b.offset(p, gk),
                           dv + b.offset(p, gv), s);
  });
  if (ok) grads = std::move(result);
  return ok;
}

}  // namespace

bool attention(const ir::Node& n, const Tensor& q, const Tensor& k, const Tensor& v,
               const Tensor* scale, Tensor& out, int threads) {
  return kernel_on() && forward(kernels().front(), n, q, k, v, scale, out, threads);
}

bool attention_grad(const ir::Node& n, const Tensor& q, const Tensor& k, const Tensor& v,
                    const Tensor* scale, const Tensor& dout, Tensor& grads, int threads) {
  return kernel_on() && backward(kernels().front(), n, q, k, v, scale, dout, grads, threads);
}

std::vector<std::string> attention_kernels() {
  std::vector<std::string> out;
  for (const auto& k : kernels()) out.emplace_back(k.name);
  return out;
}

bool attention_with(const std::string& kernel, const ir::Node& n, const Tensor& q, const Tensor& k,
                    const Tensor& v, const Tensor* scale, Tensor& out, int threads) {
  const Kernel* chosen = kernel_named(kernel);
  return chosen && forward(*chosen, n, q, k, v, scale, out, threads);
}

bool attention_grad_with(const std::string& kernel, const ir::Node& n, const Tensor& q,
                         const Tensor& k, const Tensor& v, const Tensor* scale, const Tensor& dout,
                         Tensor& grads, int threads) {
  const Kernel* chosen = kernel_named(kernel);
  return chosen && backward(*chosen, n, q, k, v, scale, dout, grads, threads);
}

}  // namespace ss::runtime::fast
