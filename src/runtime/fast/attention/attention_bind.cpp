#include "runtime/fast/attention/attention_bind.hpp"

#include <cstdlib>

namespace ss::runtime::fast::attn {

LetterStrides strides_of(const std::vector<std::string>& letters, const runtime::Strides& strides) {
  LetterStrides out;
  for (std::size_t a = 0; a < letters.size(); ++a) out[letters[a]] = strides[a];
  return out;
}

std::int64_t stride_at(const LetterStrides& s, const std::string& letter) {
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

bool attention_kernel_on() {
  static const bool on = [] {
    const char* v = std::getenv("SHAPESCRIPT_ATTENTION_KERNEL");
    return !v || std::string(v) != "0";
  }();
  return on;
}

bool Bound::bind(const ir::Node& n, const Tensor& tq, const Tensor& tk, const Tensor& tv) {
  l = ir::attention_of(n);
  for (const Tensor* t : {&tq, &tk, &tv})
    if (t->dtype() != DType::f32) return false;
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
  item.q_i = stride_at(q, l.i);
  item.q_d = stride_at(q, l.d);
  item.k_j = stride_at(k, l.j);
  item.k_d = stride_at(k, l.d);
  item.v_j = stride_at(v, l.j);
  item.v_e = stride_at(v, l.e);
  o = strides_of(l.out, row_major(out_shape));
  item.o_i = stride_at(o, l.i);
  item.o_e = stride_at(o, l.e);
  item.causal = l.causal;
  return true;
}

bool Bound::bind_grads(const Tensor& tq, const Tensor& tk, const Tensor& tv, const Tensor& dout) {
  if (dout.dtype() != DType::f32 || dout.shape() != out_shape || tk.shape() != tq.shape() ||
      tv.shape() != tq.shape())
    return false;
  const runtime::Strides part = row_major(tq.shape());
  part_size = tq.size();
  o = strides_of(l.out, dout.strides());
  gq = strides_of(l.q, part);
  gk = strides_of(l.k, part);
  gv = strides_of(l.v, part);
  item.o_i = stride_at(o, l.i);
  item.o_e = stride_at(o, l.e);
  item.gq_i = stride_at(gq, l.i);
  item.gq_d = stride_at(gq, l.d);
  item.gk_j = stride_at(gk, l.j);
  item.gk_d = stride_at(gk, l.d);
  item.gv_j = stride_at(gv, l.j);
  item.gv_e = stride_at(gv, l.e);
  // Each part holds every batch letter (q, k and v share a type), so the
  // positions' places never overlap.
  for (const auto& x : batch)
    if (!stride_at(gq, x) || !stride_at(gk, x) || !stride_at(gv, x)) return false;
  return true;
}

std::int64_t Bound::positions() const {
  std::int64_t count = 1;
  for (const auto& x : batch) count *= size.at(x);
  return count;
}

std::int64_t Bound::offset(std::int64_t p, const LetterStrides& strides) const {
  std::int64_t off = 0;
  for (std::size_t b = batch.size(); b-- > 0;) {
    const std::int64_t n = size.at(batch[b]);
    off += (p % n) * stride_at(strides, batch[b]);
    p /= n;
  }
  return off;
}

}  // namespace ss::runtime::fast::attn
