#include "runtime/fast/fast_loops.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>

#include "ir/formulas.hpp"
#include "runtime/core/frame_memory.hpp"
#include "runtime/core/helper_threads.hpp"
#include "runtime/fast/fast_ops.hpp"
#include "runtime/fast/node_memo.hpp"
#include "runtime/fast/portable/portable_rows.hpp"
#include "runtime/fast/portable/portable_steps.hpp"
#include "runtime/fast/vector_exp.hpp"
#include "runtime/reference/ops.hpp"

namespace ss::runtime::fast {
namespace {

template <typename F>
void broadcast_rows(const Shape& shape, const Tensor& a, const Tensor& b, float* out, F f) {
  const auto* pa = static_cast<const float*>(a.raw());
  const auto* pb = static_cast<const float*>(b.raw());
  each_broadcast_row(
      shape, a, b,
      [&](std::int64_t k, std::int64_t oa, std::int64_t ia, std::int64_t ob, std::int64_t ib,
          std::int64_t count) { each_pair(count, pa + oa, ia, pb + ob, ib, out + k, f); });
}

}  // namespace

// A thread's scratch row for the exps a logsumexp sums and forgets.
float* scratch_row(std::int64_t group) {
  thread_local std::vector<float> scratch;
  if (scratch.size() < static_cast<std::size_t>(group))
    scratch.resize(static_cast<std::size_t>(group));
  return scratch.data();
}

double sum_row(const float* row, std::int64_t group) {
  return lane_sum(row, group, [](double x) { return x; });
}

// The squares of a row's distances from `mean`, summed.
double squares_row(const float* row, std::int64_t group, double mean) {
  return lane_sum(row, group, [mean](double x) { return (x - mean) * (x - mean); });
}

// One group of a trailing reduction, contiguous: max and min as
// std::max_element and min_element compare (the first of equals, NaN kept
// only if first), as the reference does; sums, means, var and std in
// doubles in eight lanes, and logsumexp through float32 vector exps
// (vector_exp.hpp) summed in float lanes, within the `fast` row.
float reduce_row(ir::Reduce op, const float* row, std::int64_t group, bool portable) {
  const auto n = static_cast<double>(group);
  switch (op) {
    case ir::Reduce::logsumexp: {
      const float peak = row_max(row, group);
      if (!std::isfinite(peak)) return peak;
      if (portable)  // float32 throughout: the portable exps, their sum and log
        return peak + portable::log(portable::exp_sum(row, peak, scratch_row(group), group));
      const float sum = exp_sum(row, peak, scratch_row(group), group);
      return static_cast<float>(static_cast<double>(peak) + std::log(static_cast<double>(sum)));
    }
    case ir::Reduce::var:
    case ir::Reduce::std: {
      const double squares = squares_row(row, group, sum_row(row, group) / n);
      return static_cast<float>(op == ir::Reduce::var ? squares / n : std::sqrt(squares / n));
    }
    case ir::Reduce::max:
    case ir::Reduce::min: {
      double best = row[0];
      for (std::int64_t g = 1; g < group; ++g)
        if (op == ir::Reduce::max ? best < row[g] : row[g] < best) best = row[g];
      return static_cast<float>(best);
    }
    default: {  // sum, mean
      const double sum = sum_row(row, group);
      return static_cast<float>(op == ir::Reduce::mean ? sum / n : sum);
    }
  }
}

bool unary_f32(ir::Unary op, const Tensor& x, Tensor& out, int threads, bool portable) {
  if (op == ir::Unary::logical_not && x.dtype() == DType::boolean) {
    const Tensor c = x.contiguous() ? x : x.compact();
    out = Tensor::uninitialized(DType::boolean, x.shape());
    const auto* in = static_cast<const unsigned char*>(c.raw());
    auto* o = static_cast<unsigned char*>(out.raw());
    for (std::int64_t j = 0, count = x.size(); j < count; ++j) o[j] = in[j] ? 0 : 1;
    return true;
  }
  if (x.dtype() != DType::f32 || op == ir::Unary::logical_not) return false;
  const Tensor c = x.contiguous() ? x : x.compact();
  out = Tensor::uninitialized(DType::f32, x.shape());
  const auto* in = static_cast<const float*>(c.raw());
  auto* o = static_cast<float*>(out.raw());
  const std::int64_t count = x.size();
  if (with_exact_unary(op, [&](auto f) {
        for (std::int64_t j = 0; j < count; ++j) o[j] = f(in[j]);
      }))
    return true;
  if (portable) {  // the JIT's steps and portable functions, its bits
    const portable::Steps* steps = portable::unary_steps(op);
    if (!steps) return false;
    for_rows(count, kMinElements, threads, [&](std::int64_t from, std::int64_t to) {
      for (std::int64_t j = from; j < to; ++j) o[j] = (*steps)(&in[j]);
    });
    return true;
  }
  {  // exp, tanh, ...: their formulas in double, worth threads on a large tensor
    const ir::Formula& f = ir::formula(op);
    const auto single = ir::single_call(f);  // exp(x): called directly, no term walk
    for_rows(count, kMinElements, threads, [&](std::int64_t from, std::int64_t to) {
      if (single == ir::Term::Function::exp) {
        for (std::int64_t j = from; j < to; ++j)
          o[j] = static_cast<float>(std::exp(static_cast<double>(in[j])));
      } else if (single != ir::Term::Function::none) {
        for (std::int64_t j = from; j < to; ++j) o[j] = static_cast<float>(ir::call(single, in[j]));
      } else {
        for (std::int64_t j = from; j < to; ++j) o[j] = static_cast<float>(ir::evaluate(f, in[j]));
      }
    });
  }
  return true;
}

bool binary_f32(ir::Binary op, const Tensor& a, const Tensor& b, Tensor& out, bool portable) {
  if (a.dtype() != DType::f32 || b.dtype() != DType::f32) return false;  // integers, mixed
  const Shape shape = reference::broadcast_shapes(a.shape(), b.shape());
  out = Tensor::uninitialized(DType::f32, shape);
  auto* o = static_cast<float*>(out.raw());
  if (with_arithmetic(op, [&](auto f) { broadcast_rows(shape, a, b, o, f); })) return true;
  if (portable) {  // (pow: the JIT's steps, the portable pow)
    const portable::Steps* steps = portable::binary_steps(op);
    if (!steps) return false;
    broadcast_rows(shape, a, b, o, [steps](float x, float y) {
      const float both[2] = {x, y};
      return (*steps)(both);
    });
    return true;
  }
  // types/binary.def's formula, looked up once, in double
  const ir::Formula& f = ir::formula(op);
  broadcast_rows(shape, a, b, o,
                 [&f](float x, float y) { return static_cast<float>(ir::evaluate(f, x, y)); });
  return true;
}

bool reduce_f32(ir::Reduce op, const Tensor& x, const std::vector<std::int64_t>& axes, bool keep,
                Tensor& out, int threads, bool portable) {
  const bool spread = op == ir::Reduce::var || op == ir::Reduce::std;
  if (x.dtype() != DType::f32 ||
      (op != ir::Reduce::sum && op != ir::Reduce::mean && op != ir::Reduce::max &&
       op != ir::Reduce::min && op != ir::Reduce::logsumexp && !spread))
    return false;
  const auto rank = static_cast<std::size_t>(x.rank());
  Shape reduced(rank, 0);  // flags (no heap)
  for (const auto a : axes) {
    if (a < 0 || static_cast<std::size_t>(a) >= rank) return false;
    reduced[static_cast<std::size_t>(a)] = true;
  }
  std::size_t count = 0;
  for (const bool r : reduced) count += r;
  // The reduced axes one block [first, first + count): trailing, or with
  // kept axes after it (the outer ones before it, if any, each their own).
  std::size_t first = 0;
  while (first < rank && !reduced[first]) ++first;
  bool block = true, trailing = true;
  for (std::size_t d = 0; d < rank; ++d) {
    block = block && reduced[d] == (d >= first && d < first + count);
    trailing = trailing && reduced[d] == (d >= rank - count);
  }
  if (!block && !trailing) return false;
  std::int64_t outer = 1;
  for (std::size_t d = 0; d < first && !trailing; ++d) outer *= x.shape()[d];
  std::int64_t group = 1, kept = 1;
  Shape shape;
  for (std::size_t d = 0; d < rank; ++d) {
    (reduced[d] ? group : kept) *= x.shape()[d];
    if (!reduced[d])
      shape.push_back(x.shape()[d]);
    else if (keep)
      shape.push_back(1);
  }
  if (group == 0) return false;  // the reference's empty groups
  if ((op == ir::Reduce::logsumexp || spread) && !trailing) return false;
  const Tensor c = x.contiguous() ? x : x.compact();
  const auto* p = static_cast<const float*>(c.raw());
  out = Tensor::uninitialized(DType::f32, shape);
  auto* o = static_cast<float*>(out.raw());
  const auto finish = [&](double sum_or_best) {
    return static_cast<float>(op == ir::Reduce::mean ? sum_or_best / static_cast<double>(group)
                                                     : sum_or_best);
  };
  const auto better = [op](double best, double v) {
    return op == ir::Reduce::max ? best < v : v < best;
  };
  const bool extreme = op == ir::Reduce::max || op == ir::Reduce::min;
  if (trailing) {  // each kept position's group is contiguous
    for_rows(kept, kMinElements / group, threads, [&](std::int64_t r0, std::int64_t r1) {
      for (std::int64_t r = r0; r < r1; ++r) o[r] = reduce_row(op, p + r * group, group, portable);
    });
    return true;
  }
  // A block with kept axes after it: per outer index, the group's
  // elements are rows of the inner ones; each inner column sums down, in
  // order, in doubles (a global pool over channels-last images).
  const std::int64_t inner = kept / outer;
  thread_local std::vector<double> columns;  // (kept between calls: no allocation once grown)
  if (columns.size() < static_cast<std::size_t>(inner))
    columns.resize(static_cast<std::size_t>(inner));
  double* acc = columns.data();
  for (std::int64_t q = 0; q < outer; ++q) {
    const float* base = p + q * group * inner;
    for (std::int64_t j = 0; j < inner; ++j) acc[j] = extreme ? base[j] : 0.0;
    for (std::int64_t g = extreme ? 1 : 0; g < group; ++g) {
      const float* row = base + g * inner;
      if (extreme) {
        for (std::int64_t j = 0; j < inner; ++j)
          if (better(acc[j], row[j])) acc[j] = row[j];
      } else {
        for (std::int64_t j = 0; j < inner; ++j) acc[j] += row[j];
      }
    }
    for (std::int64_t j = 0; j < inner; ++j) o[q * inner + j] = finish(acc[j]);
  }
  return true;
}

bool softmax_rows(const Tensor& x, bool log, Tensor& out, int threads, bool portable) {
  if (x.dtype() != DType::f32 || x.rank() == 0) return false;
  const std::int64_t group = x.dim(x.rank() - 1);
  if (group == 0) return false;
  const std::int64_t rows = x.size() / group;
  const Tensor c = x.contiguous() ? x : x.compact();
  const auto* p = static_cast<const float*>(c.raw());
  out = Tensor::uninitialized(DType::f32, x.shape());
  auto* o = static_cast<float*>(out.raw());
  for_rows(rows, kMinElements / group, threads, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r) {
      const float* row = p + r * group;
      float* to = o + r * group;
      const float peak = row_max(row, group);
      if (!std::isfinite(peak)) {  // a row all masked, or with inf or NaN: the reference's NaNs
        const float lse = reduce_row(ir::Reduce::logsumexp, row, group, portable);
        for (std::int64_t g = 0; g < group; ++g)
          to[g] = log        ? row[g] - lse
                  : portable ? portable::exp(row[g] - lse)
                             : static_cast<float>(std::exp(static_cast<double>(row[g] - lse)));
        continue;
      }
      // exp(x - peak) once, into the output; a masked element's is 0.
      const float sum =
          portable ? portable::exp_sum(row, peak, to, group) : exp_sum(row, peak, to, group);
      if (log) {
        const auto lse = portable ? peak + portable::log(sum)
                                  : static_cast<float>(static_cast<double>(peak) +
                                                       std::log(static_cast<double>(sum)));
        for (std::int64_t g = 0; g < group; ++g) to[g] = row[g] - lse;
      } else {
        for (std::int64_t g = 0; g < group; ++g) to[g] /= sum;
      }
    }
  });
  return true;
}

// causal: -inf above the diagonal of the last two axes, the rest copied.
bool causal(const Tensor& x, Tensor& out) {
  if (x.dtype() != DType::f32 || x.rank() < 2) return false;
  const std::int64_t rows = x.dim(x.rank() - 2), cols = x.dim(x.rank() - 1);
  out = x.clone();  // a copy of its own, to write the mask into
  auto* p = static_cast<float*>(out.raw());
  const std::int64_t planes = rows && cols ? out.size() / (rows * cols) : 0;
  for (std::int64_t t = 0; t < planes; ++t)
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = i + 1; j < cols; ++j)
        p[(t * rows + i) * cols + j] = -std::numeric_limits<float>::infinity();
  return true;
}

// Bool, i32 and f32 to f32: exact conversions (an i32 rounds to nearest).
bool cast_to_f32(const Tensor& x, Tensor& out) {
  const Tensor c = x.contiguous() ? x : x.compact();
  const std::int64_t count = c.size();
  out = Tensor::uninitialized(DType::f32, x.shape());
  auto* o = static_cast<float*>(out.raw());
  switch (x.dtype()) {
    case DType::f32:
      std::copy_n(static_cast<const float*>(c.raw()), count, o);
      return true;
    case DType::boolean: {
      const auto* p = static_cast<const unsigned char*>(c.raw());
      for (std::int64_t k = 0; k < count; ++k) o[k] = p[k] ? 1.0f : 0.0f;
      return true;
    }
    case DType::i32: {
      const auto* p = static_cast<const std::int32_t*>(c.raw());
      for (std::int64_t k = 0; k < count; ++k) o[k] = static_cast<float>(p[k]);
      return true;
    }
    default:
      return false;
  }
}

namespace {

struct RearrangePlans;

// The node's plan at x's shape and the sizes its pattern reads (each as
// bound, -1 where unknown), remembered on the thread.
const RearrangePlan& remembered_plan(const ir::Node& n, const Tensor& x,
                                     const std::map<std::string, std::int64_t>& sizes,
                                     const Dims& dims) {
  Shape sized;
  for (const auto& [name, axis] : n.sizes) {
    const auto s = size_of(axis, sizes, dims);
    sized.push_back(s ? *s : -1);
  }
  using Memo = NodeMemo<RearrangePlan, RearrangePlans>;
  const std::initializer_list<Shape> key{x.shape(), sized};
  if (const RearrangePlan* plan = Memo::find(n, key)) return *plan;
  return Memo::keep(n, key, rearrange_plan(n, x, sizes, dims));
}

// `t` made contiguous: for a frozen buffer's view of rank 2 at most (a
// resident weight transposed, as an imported model's `x @ w^T` reads it),
// the copy made once and kept with the buffer, frozen in turn (so a
// product by it finds its packed panels); else compact().
Tensor compact_kept(const Tensor& t) {
  const auto& buffer = t.buffer();
  if (t.contiguous() || !buffer || !buffer->frozen() || t.rank() > 2) return t.compact();
  const bool two = t.rank() == 2;
  // (a negative first entry: the GEMM's and oneDNN's keys start with an offset)
  const Buffer::DerivedKey key{-100 - static_cast<std::int64_t>(t.dtype()),
                               t.offset(),
                               t.dim(0),
                               two ? t.dim(1) : -1,
                               t.strides()[0],
                               two ? t.strides()[1] : 0};
  const auto kept = buffer->derived(key, [&] {
    const FrameMemory::Outside made_once;  // kept past the call
    auto copy = std::make_shared<Tensor>(t.compact());
    copy->buffer()->freeze();
    return std::static_pointer_cast<const void>(std::shared_ptr<const Tensor>(std::move(copy)));
  });
  return *std::static_pointer_cast<const Tensor>(kept);
}

}  // namespace

// An einops pattern as one copy: the input's named axes (size-1 ones
// dropped) permuted into the output's order. A name only the output has
// repeats the input along it (an expansion); names only the input has
// are reduced, each output element over them in the input's order, as
// the reference does (a float input; max and min from -inf and inf with
// std::max and std::min, sums and means in double).
bool rearrange(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values,
               const std::map<std::string, std::int64_t>& sizes, const Dims& dims) {
  const Tensor& x = values[static_cast<std::size_t>(n.in[0])];
  const RearrangePlan& plan = remembered_plan(n, x, sizes, dims);
  const Shape &atoms = plan.atoms, &shape = plan.shape, &kept = plan.kept,
              &expanded = plan.expanded;
  const std::int64_t reduced = plan.reduced;
  const Tensor c = x.contiguous() ? x : x.compact();
  const Tensor arranged = compact_kept(c.reshape(atoms).permute(plan.order));
  if (n.name.empty()) {              // no reduction
    if (reduced != 1) return false;  // a name dropped without one: the reference's error
    out = plan.repeats ? fast::expand(arranged.reshape(kept), expanded).reshape(shape)
                       : arranged.reshape(shape);
    return true;
  }
  const std::string& op = n.name;
  if (x.dtype() != DType::f32 || plan.repeats ||
      (op != "sum" && op != "mean" && op != "max" && op != "min"))
    return false;
  const std::int64_t rows = element_count(shape);  // each over `reduced` (maybe none)
  out = Tensor::uninitialized(DType::f32, shape);
  const auto* p = static_cast<const float*>(arranged.raw());
  auto* o = static_cast<float*>(out.raw());
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = p + r * reduced;
    double acc = op == "max"   ? -std::numeric_limits<double>::infinity()
                 : op == "min" ? std::numeric_limits<double>::infinity()
                               : 0.0;
    for (std::int64_t g = 0; g < reduced; ++g)
      acc = op == "max"   ? std::max<double>(acc, row[g])
            : op == "min" ? std::min<double>(acc, row[g])
                          : acc + row[g];
    if (op == "mean") acc /= static_cast<double>(reduced);
    o[r] = static_cast<float>(acc);
  }
  return true;
}

}  // namespace ss::runtime::fast
