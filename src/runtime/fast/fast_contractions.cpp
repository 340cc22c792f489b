#include "runtime/fast/fast_contractions.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "runtime/core/aligned_scratch.hpp"
#include "runtime/fast/einsum_plan.hpp"
#include "runtime/fast/fast_loops.hpp"
#include "runtime/fast/fast_ops.hpp"
#include "runtime/fast/gemm/sgemm.hpp"
#include "runtime/fast/onednn_conv.hpp"
#include "runtime/reference/ops.hpp"

namespace ss::runtime::fast {
namespace {

// A float32 operand as the GEMM reads it: a rank-2 view by its strides,
// anything else made contiguous and read as rows x columns.
struct Operand {
  Tensor kept;  // owns what `matrix` points into
  gemm::Matrix matrix;
};

Operand operand(const Tensor& t, std::int64_t cols) {
  if (t.rank() == 2) {
    const auto& s = t.strides();
    return {t, {static_cast<const float*>(t.raw()), s[0], s[1]}};
  }
  Tensor c = t.contiguous() ? t : t.compact();
  const auto* data = static_cast<const float*>(c.raw());
  return {std::move(c), {data, cols, 1}};
}

// B's packed panels when `kept`'s buffer is frozen (a resident value's
// weight: api/value_state.hpp), made on its first product and kept with
// the buffer; null otherwise, and for one row (which reads B unpacked).
std::shared_ptr<const gemm::PackedB> resident_panels(const Tensor& kept, std::int64_t m,
                                                     std::int64_t k, std::int64_t n,
                                                     const gemm::Matrix& b, bool bf16, bool chain) {
  const auto& buffer = kept.buffer();
  // float32's product of one row reads B unpacked; bfloat16's packs it.
  if ((m <= 1 && !bf16 && !(chain && b.col_stride != 1)) || !buffer || !buffer->frozen())
    return nullptr;
  const auto* base = static_cast<const float*>(buffer->data());
  const Buffer::DerivedKey key{b.data - base,           b.row_stride, b.col_stride, k, n,
                               bf16 ? 1 : chain ? 2 : 0};
  return std::static_pointer_cast<const gemm::PackedB>(buffer->derived(key, [&] {
    return std::static_pointer_cast<const void>(bf16    ? gemm::pack_b_bf16(k, n, b)
                                                : chain ? gemm::pack_b_chain(k, n, b)
                                                        : gemm::pack_b(k, n, b));
  }));
}

// C = alpha A B + beta C, in float32 or with bfloat16 inputs (whose
// kernels take no epilogue: the caller's float32 products only).
void multiply(std::int64_t m, std::int64_t n, std::int64_t k, float alpha, const gemm::Matrix& a,
              const gemm::Matrix& b, float beta, gemm::Output c, GemmSettings how,
              gemm::Epilogue epilogue = {}) {
  if (how.bf16) return gemm::sgemm_bf16(m, n, k, alpha, a, b, beta, c, how.threads);
  if (how.portable) return gemm::sgemm_chain(m, n, k, alpha, a, b, beta, c, how.threads, epilogue);
  gemm::sgemm(m, n, k, alpha, a, b, beta, c, how.threads, epilogue);
}

// C = A B, with B's resident panels when it has them.
void product(std::int64_t m, std::int64_t n, std::int64_t k, const gemm::Matrix& a,
             const Tensor& b_kept, const gemm::Matrix& b, gemm::Output c, GemmSettings how,
             gemm::Epilogue epilogue = {}) {
  if (const auto panels = resident_panels(b_kept, m, k, n, b, how.bf16, how.portable))
    return gemm::sgemm_packed(m, 1.0f, a, *panels, 0.0f, c, how.threads, epilogue);
  multiply(m, n, k, 1.0f, a, b, 0.0f, c, how, epilogue);
}

// An operand as [batch axes..., row axes..., column axes...]: each batch
// index's matrix, by strides when its rows and its columns each merge
// into one stride, else from a compact copy.
struct Panel {
  Tensor kept;
  Shape batch_shape, batch_strides;
  std::int64_t row_stride = 1, col_stride = 1;

  gemm::Matrix at(std::int64_t t) const {
    std::int64_t offset = 0;
    for (std::size_t d = batch_shape.size(); d-- > 0;) {
      offset += t % batch_shape[d] * batch_strides[d];
      t /= batch_shape[d];
    }
    return {static_cast<const float*>(kept.raw()) + offset, row_stride, col_stride};
  }
};

// The stride that walks axes [from, to) as one, or 0 when they don't merge.
std::int64_t merged(const Tensor& t, std::size_t from, std::size_t to) {
  std::int64_t stride = 0;  // of the innermost axis longer than 1
  std::int64_t span = 1;    // elements the merged axes cover
  for (std::size_t d = to; d-- > from;) {
    const std::int64_t size = t.shape()[d];
    if (size == 1) continue;
    if (stride == 0)
      stride = t.strides()[d];
    else if (t.strides()[d] != stride * span)
      return 0;
    span *= size;
  }
  return stride == 0 ? 1 : stride;
}

Panel panel(Tensor t, std::size_t batch, std::size_t rows) {
  const std::size_t rank = t.shape().size();
  std::int64_t r = merged(t, batch, batch + rows), c = merged(t, batch + rows, rank);
  if (r == 0 || c == 0) {
    t = t.compact();
    r = merged(t, batch, batch + rows);
    c = merged(t, batch + rows, rank);
  }
  Panel p;
  p.kept = t;
  p.row_stride = r;
  p.col_stride = c;
  for (std::size_t d = 0; d < batch; ++d) {
    p.batch_shape.push_back(t.shape()[d]);
    p.batch_strides.push_back(t.strides()[d]);
  }
  return p;
}

// Three operands, one of them with exactly the output's names (autodiff's
// product of an upstream gradient with two others): the einsum of the
// other two, times that one elementwise.
bool einsum_times(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values,
                  GemmSettings how) {
  const auto times = runtime::einsum_times(n);
  if (!times) return false;
  const Tensor& factor = values[static_cast<std::size_t>(n.in[times->factor])];
  if (factor.dtype() != DType::f32) return false;
  Tensor product;
  return einsum(times->pair, product, values, how) &&
         binary_f32(ir::Binary::mul, product, factor, out);
}

}  // namespace

// a [..., K] @ b [K, ...]: rows of a's leading axes, columns of b's
// trailing ones.
bool matmul(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values, GemmSettings how) {
  const Tensor& a = values[static_cast<std::size_t>(n.in[0])];
  const Tensor& b = values[static_cast<std::size_t>(n.in[1])];
  if (a.dtype() != DType::f32 || b.dtype() != DType::f32 || a.rank() < 1 || b.rank() < 1)
    return false;
  const std::int64_t k = b.dim(0);
  if (a.dim(a.rank() - 1) != k) return false;  // the reference's error
  std::int64_t rows = 1, cols = 1;
  for (std::int64_t d = 0; d + 1 < a.rank(); ++d) rows *= a.dim(d);
  for (std::int64_t d = 1; d < b.rank(); ++d) cols *= b.dim(d);
  Shape shape(a.shape().begin(), a.shape().end() - 1);
  shape.insert(shape.end(), b.shape().begin() + 1, b.shape().end());
  out = Tensor::uninitialized(DType::f32, shape);
  const Operand left = operand(a, k), right = operand(b, cols);
  product(rows, cols, k, left.matrix, right.kept, right.matrix,
          {static_cast<float*>(out.raw()), cols}, how);
  return true;
}

RightOperand right_operand(const Tensor& b, std::int64_t m, GemmSettings how) {
  const Operand right = operand(b, b.dim(1));
  return {right.kept, right.matrix,
          resident_panels(right.kept, m, b.dim(0), b.dim(1), right.matrix, how.bf16, how.portable)};
}

void product(std::int64_t m, std::int64_t n, std::int64_t k, const gemm::Matrix& a,
             const RightOperand& b, gemm::Output c, GemmSettings how, gemm::Epilogue epilogue) {
  if (b.panels) return gemm::sgemm_packed(m, 1.0f, a, *b.panels, 0.0f, c, how.threads, epilogue);
  multiply(m, n, k, 1.0f, a, b.matrix, 0.0f, c, how, epilogue);
}

void prepack(const Tensor& b, GemmSettings how) {
  if (b.dtype() != DType::f32 || b.rank() != 2 || b.dim(0) == 0 || b.dim(1) == 0) return;
  const Operand right = operand(b, b.dim(1));
  (void)resident_panels(right.kept, 2, b.dim(0), b.dim(1), right.matrix, how.bf16, how.portable);
}

bool matmul_in_blocks(const Tensor& a, const Tensor& b, GemmSettings how,
                      support::FunctionRef<void(std::int64_t, std::int64_t, const float*)> block) {
  if (a.dtype() != DType::f32 || b.dtype() != DType::f32 || a.rank() < 1 || b.rank() != 2)
    return false;
  const std::int64_t k = b.dim(0), cols = b.dim(1);
  if (a.dim(a.rank() - 1) != k || cols == 0) return false;
  std::int64_t rows = 1;
  for (std::int64_t d = 0; d + 1 < a.rank(); ++d) rows *= a.dim(d);
  const Operand left = operand(a, k), right = operand(b, cols);
  // Blocks of at least 256 rows (the GEMM packs b again for each, unless
  // it is resident), and about 64K floats.
  const std::int64_t step = std::max<std::int64_t>(256, (std::int64_t{1} << 16) / cols);
  thread_local AlignedScratch scratch;  // the thread's tile, kept between calls
  auto* tile = static_cast<float*>(
      scratch.get(static_cast<std::size_t>(std::min(step, rows) * cols) * sizeof(float)));
  for (std::int64_t r0 = 0; r0 < rows; r0 += step) {
    const std::int64_t r1 = std::min(rows, r0 + step);
    const gemm::Matrix part{left.matrix.data + r0 * left.matrix.row_stride, left.matrix.row_stride,
                            left.matrix.col_stride};
    product(r1 - r0, cols, k, part, right.kept, right.matrix, {tile, cols}, how);
    block(r0, r1, tile);
  }
  return true;
}

bool matmul_with_epilogue(const Tensor& a, const Tensor& b, const Tensor& bias, bool relu,
                          Tensor& out, GemmSettings how) {
  if (how.bf16 || a.dtype() != DType::f32 || b.dtype() != DType::f32 ||
      bias.dtype() != DType::f32 || a.rank() < 1 || b.rank() != 2 || bias.rank() != 1)
    return false;
  const std::int64_t k = b.dim(0), cols = b.dim(1);
  if (a.dim(a.rank() - 1) != k || cols == 0 || bias.dim(0) != cols ||
      (cols > 1 && bias.strides()[0] != 1))
    return false;
  Shape shape(a.shape().begin(), a.shape().end() - 1);
  std::int64_t rows = 1;
  for (const std::int64_t d : shape) rows *= d;
  shape.push_back(cols);
  const Operand left = operand(a, k), right = operand(b, cols);
  out = Tensor::uninitialized(DType::f32, shape);
  product(rows, cols, k, left.matrix, right.kept, right.matrix,
          {static_cast<float*>(out.raw()), cols}, how,
          {static_cast<const float*>(bias.raw()), relu});
  return true;
}

// A two-operand einsum is a batch of GEMMs: names in both operands and
// the output are the batch, in one operand and the output rows or
// columns, in both operands only contracted. Computed as [batch, rows,
// columns], then put in the output's order. Other einsums (a name summed
// in one operand alone, a name twice) are the reference's.
bool einsum(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values, GemmSettings how) {
  if (n.in.size() == 3) return einsum_times(n, out, values, how);
  if (n.in.size() != 2) return false;
  const Tensor& a = values[static_cast<std::size_t>(n.in[0])];
  const Tensor& b = values[static_cast<std::size_t>(n.in[1])];
  if (a.dtype() != DType::f32 || b.dtype() != DType::f32) return false;
  const auto plan = plan_einsum(n, a.shape(), b.shape());
  if (!plan) return false;
  const Panel left = panel(a.permute(plan->a_order), plan->batch_axes, plan->row_axes),
              right = panel(b.permute(plan->b_order), plan->batch_axes, plan->inner_axes);
  Tensor result = Tensor::uninitialized(DType::f32, plan->computed);
  const std::int64_t m = plan->m, k = plan->k, c = plan->n;
  auto* base = static_cast<float*>(result.raw());
  if (plan->batches == 1)
    product(m, c, k, left.at(0), right.kept, right.at(0), {base, c}, how);
  else
    for (std::int64_t t = 0; t < plan->batches; ++t)
      multiply(m, c, k, 1.0f, left.at(t), right.at(t), 0.0f, {base + t * m * c, c}, how);
  // The output's own order, when it isn't [batch, rows, columns].
  out = plan->out_order.empty() ? result : result.permute(plan->out_order).compact();
  return true;
}

namespace {

// The einsum's output from its [batch, rows, columns] result.
bool finish(Tensor& out, const Tensor& result, const std::vector<std::int64_t>& out_order) {
  out = out_order.empty() ? result : result.permute(out_order).compact();
  return true;
}

// The window's 2-D convolution (ir::conv2d_of) with `filters` outputs, as
// oneDNN takes it; none for another window, or for bfloat16 contractions.
std::optional<ConvForward> conv_of(const Shape& x, const ir::Window& w, std::int64_t filters,
                                   GemmSettings how) {
  // Portable numerics: oneDNN's sums follow its kernels' vector width and
  // blocking, so every convolution is the chained GEMM's.
  if (how.portable) return std::nullopt;
  const auto c = ir::conv2d_of(x, w);
  if (!c) return std::nullopt;
  return ConvForward{c->n,
                     c->h,
                     c->w,
                     c->c,
                     filters,
                     c->kh,
                     c->kw,
                     c->oh,
                     c->ow,
                     {c->stride[0], c->stride[1]},
                     {c->dilation[0], c->dilation[1]},
                     {c->before[0], c->before[1]},
                     {c->after[0], c->after[1]},
                     1,
                     how.bf16};
}

// A 4-axis kernel tensor as oneDNN reads it: its axes `c`, `kh`, `kw` and
// `f` are those positions (the program's [kh kw c f], or its permuted
// view), read at their strides; a frozen buffer's reordered copy is kept.
ConvKernel conv_kernel_of(const Tensor& kernel, int c, int kh, int kw, int f) {
  const auto& st = kernel.strides();
  const auto& buffer = kernel.buffer();
  return {
      static_cast<const float*>(kernel.raw()), st[static_cast<std::size_t>(f)],
      st[static_cast<std::size_t>(c)],         st[static_cast<std::size_t>(kh)],
      st[static_cast<std::size_t>(kw)],        buffer && buffer->frozen() ? buffer.get() : nullptr};
}

// A 2-D convolution's forward (window(x) over axes 1 and 2 of a
// channels-last x [n h w c], zero padded) on oneDNN: rows [n oh ow] of
// `out` from the kernel's rows (c, kh, kw), `kernel` (axes c, kh, kw, f at
// any strides: the weight as the program holds it, never copied). False
// where it can't.
bool conv_forward_on_onednn(const Tensor& x, const ir::Window& w, const Tensor& kernel, float* out,
                            GemmSettings how, const ConvPostOps& post) {
  if (kernel.rank() != 4 || !x.contiguous()) return false;
  const auto s = conv_of(x.shape(), w, kernel.dim(3), how);
  if (!s || kernel.dim(0) != s->c || kernel.dim(1) != s->kh || kernel.dim(2) != s->kw) return false;
  return onednn_conv_forward(*s, static_cast<const float*>(x.raw()),
                             conv_kernel_of(kernel, 0, 1, 2, 3), out, how.threads, post);
}

// The kernel's gradient on oneDNN (out [f, (c kh kw)] from `dy`, the
// output's gradient as rows f of columns [n oh ow], contiguous). False
// where it can't.
bool conv_kernel_gradient_on_onednn(const Tensor& x, const ir::Window& w, std::int64_t filters,
                                    const gemm::Matrix& dy, float* out, GemmSettings how) {
  const auto s = conv_of(x.shape(), w, filters, how);
  if (!s || !x.contiguous() || dy.row_stride != 1 || dy.col_stride != filters) return false;
  return onednn_conv_kernel_gradient(*s, static_cast<const float*>(x.raw()), dy.data, out,
                                     how.threads);
}

}  // namespace

bool windowed_einsum(const ir::Node& n, std::size_t which, const Tensor& x, const ir::Window& w,
                     const Tensor& other, Tensor& out, GemmSettings how, const ConvPostOps* post) {
  if (n.in.size() != 2 || x.dtype() != DType::f32 || other.dtype() != DType::f32 || x.rank() < 1 ||
      !w.valid(x.rank()) || w.axes.front().axis == 0)
    return false;
  const Shape window_shape = w.shape_of(x.shape());
  const Shape& a_shape = which == 0 ? window_shape : other.shape();
  const Shape& b_shape = which == 0 ? other.shape() : window_shape;
  const auto plan = plan_einsum(n, a_shape, b_shape);
  if (!plan || plan->batches != 1 || window_shape[0] == 0) return false;
  const auto identity = [](const std::vector<std::int64_t>& order) {
    for (std::size_t k = 0; k < order.size(); ++k)
      if (order[k] != static_cast<std::int64_t>(k)) return false;
    return true;
  };
  // The window read in its own order: as a's [rows, inner] or b's [inner,
  // columns], its first axis leading the rows or the inner names.
  if (which == 0 ? !identity(plan->a_order) || plan->row_axes == 0
                 : !identity(plan->b_order) || plan->inner_axes == 0)
    return false;
  const std::int64_t images = window_shape[0], m = plan->m, k = plan->k, cols = plan->n;
  const std::int64_t per = (which == 0 ? m : k) / images;  // window rows per image
  const std::int64_t row = which == 0 ? k : cols;          // a window row's length
  const std::int64_t step =
      std::max<std::int64_t>(1, (std::int64_t{1} << 18) / std::max<std::int64_t>(1, per * row));
  Tensor result = Tensor::uninitialized(DType::f32, plan->computed);
  auto* base = static_cast<float*>(result.raw());
  const Tensor other_view = other.permute(which == 0 ? plan->b_order : plan->a_order);
  // Where the window's row is [channels, window] and x is channels last,
  // the slab is made [window, channels] instead: a contiguous copy of the
  // channels per window element, not a scatter one window apart. The
  // contracted axis (which 0) or the result's columns (which 1) are then
  // in that order, so the kernel's rows are reordered once, or the
  // result's columns after. Sums run in another order: the `fast` row.
  const std::int64_t channels = x.dim(x.rank() - 1),
                     span = row / std::max<std::int64_t>(1, channels);
  const bool positions =
      (which == 0 ? plan->row_axes : plan->inner_axes) == static_cast<std::size_t>(x.rank() - 1);
  bool inner_first = positions && x.rank() >= 2 && channels * span == row;
  if (post)  // the tail with it, or nothing
    return inner_first && which == 0 && plan->inner_axes == 3 && plan->out_order.empty() &&
           conv_forward_on_onednn(x, w, other_view, base, how, *post) &&
           finish(out, result, plan->out_order);
  if (inner_first && which == 0 && plan->inner_axes == 3 &&
      conv_forward_on_onednn(x, w, other_view, base, how, {}))
    return finish(out, result, plan->out_order);
  const Panel fixed = panel(other_view, 0, which == 0 ? plan->inner_axes : plan->row_axes);
  const gemm::Matrix f = fixed.at(0);
  if (inner_first && which == 1 && conv_kernel_gradient_on_onednn(x, w, m, f, base, how))
    return finish(out, result, plan->out_order);
  // which 0: the kernel's rows; which 1: the result before reordering (the
  // thread's, kept between calls)
  thread_local std::vector<float> reordered;
  if (inner_first && which == 0) {
    reordered.resize(static_cast<std::size_t>(k * cols));
    for (std::int64_t c = 0; c < channels; ++c)
      for (std::int64_t j = 0; j < span; ++j)
        for (std::int64_t col = 0; col < cols; ++col)
          reordered[static_cast<std::size_t>((j * channels + c) * cols + col)] =
              f.data[(c * span + j) * f.row_stride + col * f.col_stride];
  } else if (inner_first) {
    reordered.resize(static_cast<std::size_t>(m * cols));
  }
  Tensor slab;
  for (std::int64_t i0 = 0; i0 < images; i0 += step) {
    const std::int64_t i1 = std::min(images, i0 + step), rows = (i1 - i0) * per;
    const Tensor images_x = reference::slice(x, 0, i0, i1);
    if (inner_first && !window_channels_inner(images_x, w, slab)) {
      if (i0 > 0) return false;  // (it holds for every chunk or none)
      inner_first = false;
    }
    if (!inner_first && !window(images_x, w, slab)) return false;
    const auto* made = static_cast<const float*>(slab.raw());
    if (which == 0) {  // rows [i0 per, i1 per) of the product
      if (inner_first)
        multiply(rows, cols, k, 1.0f, {made, k, 1}, {reordered.data(), cols, 1}, 0.0f,
                 {base + i0 * per * cols, cols}, how);
      else
        product(rows, cols, k, {made, k, 1}, fixed.kept, f, {base + i0 * per * cols, cols}, how);
    } else {  // the contracted rows [i0 per, i1 per), added to those before
      const gemm::Matrix part{f.data + i0 * per * f.col_stride, f.row_stride, f.col_stride};
      multiply(m, cols, rows, 1.0f, part, {made, cols, 1}, i0 == 0 ? 0.0f : 1.0f,
               {inner_first ? reordered.data() : base, cols}, how);
    }
  }
  if (inner_first && which == 1)  // columns (j, c) back to the window's (c, j)
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < span; ++j)
        for (std::int64_t c = 0; c < channels; ++c)
          base[i * cols + c * span + j] =
              reordered[static_cast<std::size_t>(i * cols + j * channels + c)];
  return finish(out, result, plan->out_order);
}

bool grouped_conv(const Tensor& x, const ir::Window& w, const Tensor& kernel, Tensor& out,
                  GemmSettings how, const ConvPostOps& post) {
  if (x.dtype() != DType::f32 || kernel.dtype() != DType::f32 || x.rank() != 4 ||
      kernel.rank() != 4 || !x.contiguous())
    return false;
  const std::int64_t per_group = kernel.dim(2), filters = kernel.dim(3);
  if (per_group <= 0 || x.dim(3) % per_group != 0) return false;
  auto s = conv_of(x.shape(), w, filters, how);
  if (!s || kernel.dim(0) != s->kh || kernel.dim(1) != s->kw) return false;
  s->groups = x.dim(3) / per_group;
  if (filters % s->groups != 0) return false;
  Tensor y = Tensor::uninitialized(DType::f32, {s->n, s->oh, s->ow, filters});
  if (!onednn_conv_forward(*s, static_cast<const float*>(x.raw()),
                           conv_kernel_of(kernel, 2, 0, 1, 3), static_cast<float*>(y.raw()),
                           how.threads, post))
    return false;
  out = y;
  return true;
}

bool folded_einsum(const ir::Node& n, const Tensor& a, const Tensor& b, const Shape& like,
                   const ir::Window& w, Tensor& out, GemmSettings how) {
  if (n.in.size() != 2 || a.dtype() != DType::f32 || b.dtype() != DType::f32) return false;
  const Shape window_shape = w.shape_of(like);
  const auto plan = plan_einsum(n, a.shape(), b.shape());
  // [n oh ow] rows from a (the output's gradient), [c kh kw] columns from b
  // (the kernel), in the window's order.
  if (!plan || plan->batches != 1 || !plan->out_order.empty() || plan->row_axes != 3 ||
      plan->computed != window_shape)
    return false;
  const Panel rows = panel(a.permute(plan->a_order), 0, plan->row_axes),
              columns = panel(b.permute(plan->b_order), 0, plan->inner_axes);
  const gemm::Matrix dy = rows.at(0), kernel = columns.at(0);
  const std::int64_t filters = plan->k;
  const auto s = conv_of(like, w, filters, how);
  if (!s || dy.row_stride != filters || dy.col_stride != 1) return false;
  Tensor dx = Tensor::uninitialized(DType::f32, like);
  // The kernel as the forward reads it: rows (c, kh, kw), columns f.
  if (!onednn_conv_data_gradient(
          *s, dy.data, conv_kernel(*s, {kernel.data, kernel.col_stride, kernel.row_stride}),
          static_cast<float*>(dx.raw()), how.threads))
    return false;
  out = dx;
  return true;
}

}  // namespace ss::runtime::fast
