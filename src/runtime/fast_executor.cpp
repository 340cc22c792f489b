#include "runtime/fast_executor.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <limits>
#include <set>

#include "ir/fusion.hpp"
#include "runtime/compiled_code.hpp"
#include "runtime/fast_ops.hpp"
#include "runtime/gemm/sgemm.hpp"
#include "runtime/helper_threads.hpp"
#include "runtime/jit_module.hpp"
#include "runtime/reference/ops.hpp"

namespace ss::runtime {
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

// Elementwise work on float32, with the reference's bits: +, -, *, / and
// sqrt in float are what the reference's double arithmetic rounds to (a
// double holds the exact result of one such operation to well past float's
// precision); everything else calls the reference's scalar function.
template <typename F>
void each_pair(std::int64_t count, const float* a, std::int64_t sa, const float* b, std::int64_t sb,
               float* out, F f) {
  // The common strides get loops of their own, which the compiler vectorises.
  if (sa == 1 && sb == 1)
    for (std::int64_t j = 0; j < count; ++j) out[j] = f(a[j], b[j]);
  else if (sa == 1 && sb == 0)
    for (std::int64_t j = 0; j < count; ++j) out[j] = f(a[j], b[0]);
  else if (sa == 0 && sb == 1)
    for (std::int64_t j = 0; j < count; ++j) out[j] = f(a[0], b[j]);
  else
    for (std::int64_t j = 0; j < count; ++j) out[j] = f(a[j * sa], b[j * sb]);
}

// An einsum operand's (or output's) names, its groups flattened.
std::vector<std::string> flat_names(const std::vector<std::vector<std::string>>& groups) {
  std::vector<std::string> names;
  for (const auto& g : groups) names.insert(names.end(), g.begin(), g.end());
  return names;
}

template <typename F>
void broadcast_rows(const Shape& shape, const Tensor& a, const Tensor& b, float* out, F f) {
  const std::size_t rank = shape.size();
  // Each operand's stride along each output axis: 0 where it broadcasts.
  const auto sa = broadcast_strides(a, rank), sb = broadcast_strides(b, rank);
  const auto* pa = static_cast<const float*>(a.raw());
  const auto* pb = static_cast<const float*>(b.raw());
  const std::int64_t inner = rank ? shape[rank - 1] : 1;
  const std::int64_t ia = rank ? sa[rank - 1] : 0, ib = rank ? sb[rank - 1] : 0;
  const std::int64_t rows = inner ? element_count(shape) / inner : 0;
  std::vector<std::int64_t> index(rank, 0);
  std::int64_t oa = 0, ob = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    each_pair(inner, pa + oa, ia, pb + ob, ib, out + r * inner, f);
    for (std::size_t d = rank < 2 ? 0 : rank - 1; d-- > 0;) {  // the odometer over the outer axes
      oa += sa[d];
      ob += sb[d];
      if (++index[d] < shape[d]) break;
      oa -= sa[d] * shape[d];
      ob -= sb[d] * shape[d];
      index[d] = 0;
    }
  }
}

// A graph's fused kernels, compiled: kept in the graph's executor cache.
constexpr std::size_t kPaths = 7;  // FastExecutor::Path's
// Elements a thread's share of an elementwise loop or reduction should have
// at least: below it, waking a helper costs more than it saves.
constexpr std::int64_t kMinElements = 1 << 15;
constexpr std::size_t kOps = static_cast<std::size_t>(ir::Op::all_reduce) + 1;

// What ran one graph's nodes, over its runs.
struct GraphCounters {
  std::string name;
  std::atomic<std::int64_t> calls{0};
  std::int64_t kernels = 0;
  std::array<std::atomic<std::int64_t>, kPaths> paths{};
  std::array<std::atomic<std::int64_t>, kOps> by_reference{};
};

struct FusionPlan {
  std::shared_ptr<GraphCounters> counters;
  std::size_t nodes = 0;  // the graph's node count when planned
  std::vector<ir::FusedKernel> kernels;
  std::vector<std::vector<std::uint8_t>> inner_broadcast;  // per kernel, per input
  std::vector<SsJitKernelFn> fns;
  std::vector<int> kernel_at;  // per node: the kernel it is the root of, or -1
  std::vector<bool> member;    // per node: computed inside a kernel
  std::vector<int> reduce_at;  // per node: the kernel a reduction fuses with, or -1
  // A member's inputs are read at its kernel's root, so they live until then.
  std::shared_ptr<const ir::ReleasePlan> releases;
};

// `t` with every element its own, in `shape` (t broadcasts into it), exact.
Tensor materialize(const Tensor& t, const Shape& shape) {
  return fast::expand(t, shape);
}

// A value computed inside a kernel: nobody reads it, but the interpreter
// wants a tensor of its type.
const Tensor& placeholder(DType dtype) {
  thread_local const Tensor f32 = Tensor::zeros(DType::f32, {0});
  thread_local const Tensor boolean = Tensor::zeros(DType::boolean, {0});
  return dtype == DType::boolean ? boolean : f32;
}

// One group of a trailing reduction, contiguous, as the reference computes
// it: in doubles, in order; max and min as std::max_element and
// min_element compare (the first of equals, NaN kept only if first);
// logsumexp as logsumexp_of; var and std about the mean, divided by n.
float reduce_row(ir::Reduce op, const float* row, std::int64_t group) {
  const auto n = static_cast<double>(group);
  switch (op) {
    case ir::Reduce::logsumexp: {
      double peak = -std::numeric_limits<double>::infinity();
      for (std::int64_t g = 0; g < group; ++g) peak = peak < row[g] ? row[g] : peak;
      if (!std::isfinite(peak)) return static_cast<float>(peak);
      double sum = 0;
      for (std::int64_t g = 0; g < group; ++g) sum += std::exp(row[g] - peak);
      return static_cast<float>(peak + std::log(sum));
    }
    case ir::Reduce::var:
    case ir::Reduce::std: {
      double sum = 0, squares = 0;
      for (std::int64_t g = 0; g < group; ++g) sum += row[g];
      for (std::int64_t g = 0; g < group; ++g) squares += (row[g] - sum / n) * (row[g] - sum / n);
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
      double sum = 0;
      for (std::int64_t g = 0; g < group; ++g) sum += row[g];
      return static_cast<float>(op == ir::Reduce::mean ? sum / n : sum);
    }
  }
}

class FastExecutor final : public Accelerator {
 public:
  explicit FastExecutor(FastExecutorOptions options) : options_(std::move(options)) {
    if (options_.fuse) jit_ = JitModule::load(options_.jit_library);
  }

  FusionCounts counts() const {
    return {kernels_.load(), runs_.load(), stepped_.load(), from_memory_.load(),
            from_store_.load()};
  }

  std::map<std::string, std::int64_t> nodes() const {
    std::map<std::string, std::int64_t> out;
    for (const auto& [name, f] : functions())
      for (const auto& [path, count] : f.nodes) out[path] += count;
    return out;
  }

  std::map<std::string, GraphStats> functions() const {
    static const char* const names[kPaths] = {"gemm",  "fused",   "loops",  "reductions",
                                              "moves", "created", "runtime"};
    std::map<std::string, GraphStats> out;
    std::lock_guard lock(registry_mutex_);
    for (const auto& c : registry_) {
      GraphStats& f = out[c->name];
      f.calls += c->calls;
      f.fused_kernels = std::max(f.fused_kernels, c->kernels);
      for (std::size_t p = 0; p < kPaths; ++p)
        if (c->paths[p]) f.nodes[names[p]] += c->paths[p];
      for (std::size_t op = 0; op < kOps; ++op)
        if (c->by_reference[op])
          f.nodes[std::string("reference ") + ir::op_name(static_cast<ir::Op>(op))] +=
              c->by_reference[op];
    }
    return out;
  }
  bool has_jit() const { return jit_.has_value(); }
  const SsJitApi* jit_api() const { return jit_ ? &jit_->api() : nullptr; }

  std::shared_ptr<const ir::ReleasePlan> releases(const ir::Graph& g) const override {
    return plan_for(g)->releases;  // null without kernels: every node reads where it runs
  }

  bool run(const ir::Graph& g, std::size_t i, std::vector<Tensor>& values,
           const std::map<std::string, std::int64_t>& sizes, const Dims& dims) const override {
    // The plan, looked up once per run of the graph (node 0 comes first).
    thread_local const FusionPlan* plan = nullptr;
    if (i == 0) {
      plan = plan_for(g);
      ++plan->counters->calls;
    }
    const ir::Node& n = g.nodes[i];
    const int path = take(*plan, g, i, values, sizes, dims);
    if (n.op == ir::Op::input) return false;
    if (path < 0)
      ++plan->counters->by_reference[static_cast<std::size_t>(n.op)];
    else
      ++plan->counters->paths[static_cast<std::size_t>(path)];
    return path >= 0 && path != runtime;
  }

 private:
  // `created`: values made from nothing (constants, fills, ranges);
  // `runtime`: nodes that compute nothing (inputs' sizes, collectives),
  // which run_graph does itself.
  enum Path { gemm, fused, loops, reductions, moves, created, runtime };

  // The path that computed node i, or -1 to leave it to the reference.
  int take(const FusionPlan& plan, const ir::Graph& g, std::size_t i, std::vector<Tensor>& values,
           const std::map<std::string, std::int64_t>& sizes, const Dims& dims) const {
    const ir::Node& n = g.nodes[i];
    if (plan.member[i]) {
      values[i] = placeholder(dtype_of(n.type.elem));
      return fused;
    }
    if (const int k = plan.kernel_at[i]; k >= 0) {
      run_kernel(plan, static_cast<std::size_t>(k), values[i], values);
      return fused;
    }
    if (const int k = plan.reduce_at[i]; k >= 0) {
      if (run_kernel_reduced(plan, static_cast<std::size_t>(k), n, values[i], values)) return fused;
      return reduce(n, values[i], values) ? reductions : -1;  // the root is there now
    }
    const auto in = [&](std::size_t k) -> const Tensor& {
      return values[static_cast<std::size_t>(n.in[k])];
    };
    Tensor& out = values[i];
    switch (n.op) {
      case ir::Op::size:
      case ir::Op::all_reduce:
        return runtime;
      case ir::Op::constant:
        out = Tensor::scalar(dtype_of(n.type.elem), n.number);
        return created;
      case ir::Op::literal:
        out = Tensor::from_values(dtype_of(n.type.elem), shape_of(n.type, sizes, dims), n.values);
        return created;
      case ir::Op::fill:
        return fast::fill(dtype_of(n.type.elem), shape_of(n.type, sizes, dims), n.number, out)
                   ? created
                   : -1;
      case ir::Op::arange: {
        const auto size = size_of(n.type.axes.at(0), sizes, dims);
        return size && fast::arange(*size, out) ? created : -1;
      }
      case ir::Op::argmax:
        return fast::argmax(in(0), n.axes[0], n.keep, out) ? reductions : -1;
      case ir::Op::cross_entropy:
        return fast::cross_entropy(in(0), in(1), n.axes[0], n.sub == 1, out) ? reductions : -1;
      case ir::Op::layer_norm:
      case ir::Op::rms_norm:
        return fast::normalise(in(0), n.axes[0], n.op == ir::Op::layer_norm, out) ? reductions : -1;
      case ir::Op::where:  // one not fused (no JIT, or integers)
        return fast::where(in(0), in(1), in(2), out) ? loops : -1;
      case ir::Op::pad:
        return fast::pad(in(0), n.axes[0], n.ints[0], n.ints[1], n.number, out) ? moves : -1;
      case ir::Op::concat:
      case ir::Op::stack: {
        std::vector<Tensor> xs;
        for (std::size_t k = 0; k < n.in.size(); ++k) xs.push_back(in(k));
        return (n.op == ir::Op::concat ? fast::concat(xs, n.axes[0], out) : fast::stack(xs, out))
                   ? moves
                   : -1;
      }
      case ir::Op::sort:
      case ir::Op::argsort:
        return fast::sort(in(0), n.axes[0], n.op == ir::Op::argsort, out) ? moves : -1;
      case ir::Op::place: {  // the gradient of an index or slice: zeros around the values
        const Shape& shape = in(1).shape();
        const std::int64_t axis = n.axes[0];
        const std::int64_t size = shape.at(static_cast<std::size_t>(axis));
        std::int64_t start = n.ints.empty() ? static_cast<std::int64_t>(n.number) : n.ints[0];
        if (n.ints.empty() && start < 0) start += size;
        const std::int64_t end = n.ints.empty() ? start + 1 : n.keep ? size - n.ints[1] : n.ints[1];
        Shape region = shape;
        region[static_cast<std::size_t>(axis)] = end - start;
        if (start < 0 || end > size || element_count(region) != in(0).size()) return -1;
        const Tensor part = in(0).contiguous() ? in(0) : in(0).compact();
        return fast::pad(part.reshape(region), axis, start, size - end, 0.0, out) ? moves : -1;
      }
      case ir::Op::index:  // views, as the reference makes them: no copy
        out = reference::take(in(0), n.axes[0], static_cast<std::int64_t>(n.number));
        return moves;
      case ir::Op::slice: {
        const std::int64_t end = n.keep ? in(0).dim(n.axes[0]) - n.ints[1] : n.ints[1];
        out = reference::slice(in(0), n.axes[0], n.ints[0], end);
        return moves;
      }
      case ir::Op::gather:
        return fast::gather(in(0), in(1), out) ? moves : -1;
      case ir::Op::scatter_add:
        return fast::scatter_add(in(0), in(1), shape_of(n.type, sizes, dims), out) ? moves : -1;
      case ir::Op::matmul:
        return matmul(n, values[i], values) ? gemm : -1;
      case ir::Op::einsum:
        return einsum(n, values[i], values) ? gemm : -1;
      case ir::Op::unary:
        return unary(n, values[i], values) ? loops : -1;
      case ir::Op::binary:
        return binary(n, values[i], values) ? loops : -1;
      case ir::Op::reduce:
        return reduce(n, values[i], values) ? reductions : -1;
      case ir::Op::softmax:
      case ir::Op::log_softmax:
        return softmax(n, values[i], values) ? reductions : -1;
      case ir::Op::einops:
        return rearrange(n, values[i], values, sizes, dims) ? moves : -1;
      case ir::Op::causal:
        return causal(values[static_cast<std::size_t>(n.in[0])], values[i]) ? moves : -1;
      case ir::Op::cast:
        return n.type.elem.kind == check::ElemKind::f32 &&
                       cast_to_f32(values[static_cast<std::size_t>(n.in[0])], values[i])
                   ? moves
                   : -1;
      default:
        return -1;
    }
  }

  // a [..., K] @ b [K, ...]: rows of a's leading axes, columns of b's
  // trailing ones.
  bool matmul(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values) const {
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
    gemm::sgemm(rows, cols, k, 1.0f, left.matrix, right.matrix, 0.0f,
                {static_cast<float*>(out.raw()), cols}, options_.threads);
    return true;
  }

  bool unary(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values) const {
    return unary_f32(static_cast<ir::Unary>(n.sub), values[static_cast<std::size_t>(n.in[0])], out);
  }

  bool unary_f32(ir::Unary op, const Tensor& x, Tensor& out) const {
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
    switch (op) {
      case ir::Unary::neg:
        for (std::int64_t j = 0; j < count; ++j) o[j] = -in[j];
        break;
      case ir::Unary::relu:  // NaN gives 0, as the reference's x > 0 test does
        for (std::int64_t j = 0; j < count; ++j) o[j] = in[j] > 0 ? in[j] : 0.0f;
        break;
      case ir::Unary::sqrt:
        for (std::int64_t j = 0; j < count; ++j) o[j] = std::sqrt(in[j]);
        break;
      default:  // exp, tanh, ...: in double, worth threads on a large tensor
        for_rows(count, kMinElements, options_.threads, [&](std::int64_t from, std::int64_t to) {
          for (std::int64_t j = from; j < to; ++j)
            o[j] = static_cast<float>(reference::apply_unary(op, in[j]));
        });
    }
    return true;
  }

  bool binary(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values) const {
    const Tensor& a = values[static_cast<std::size_t>(n.in[0])];
    const Tensor& b = values[static_cast<std::size_t>(n.in[1])];
    const auto op = static_cast<ir::Binary>(n.sub);
    const DType result = dtype_of(n.type.elem);
    if (result == DType::f32 && binary_f32(op, a, b, out)) return true;
    return fast::binary_any(op, a, b, out);  // comparisons, logic, integers, mixed types
  }

  static bool binary_f32(ir::Binary op, const Tensor& a, const Tensor& b, Tensor& out) {
    if (a.dtype() != DType::f32 || b.dtype() != DType::f32) return false;  // integers, mixed
    const Shape shape = reference::broadcast_shapes(a.shape(), b.shape());
    out = Tensor::uninitialized(DType::f32, shape);
    auto* o = static_cast<float*>(out.raw());
    switch (op) {
      case ir::Binary::add:
        broadcast_rows(shape, a, b, o, [](float x, float y) { return x + y; });
        break;
      case ir::Binary::sub:
        broadcast_rows(shape, a, b, o, [](float x, float y) { return x - y; });
        break;
      case ir::Binary::mul:
        broadcast_rows(shape, a, b, o, [](float x, float y) { return x * y; });
        break;
      case ir::Binary::div:
        broadcast_rows(shape, a, b, o, [](float x, float y) { return x / y; });
        break;
      default:
        broadcast_rows(shape, a, b, o, [op](float x, float y) {
          return static_cast<float>(reference::apply_binary(op, x, y, false));
        });
    }
    return true;
  }

  // Sums, means, maxima and minima of float32 over leading or trailing axes,
  // with the reference's arithmetic (doubles, each group in row-major
  // order; max and min as std::max_element and min_element compare), so
  // the reference's bits, without its per-element gathering.
  bool reduce(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values) const {
    if (dtype_of(n.type.elem) != DType::f32) return false;
    const Tensor& x = values[static_cast<std::size_t>(n.in[0])];
    const auto op = static_cast<ir::Reduce>(n.sub);
    if (x.dtype() != DType::boolean) return reduce_f32(op, x, n.axes, n.keep, out);
    Tensor as_float;  // a bool's 0 and 1 are exact as floats: the same sums
    return cast_to_f32(x, as_float) && reduce_f32(op, as_float, n.axes, n.keep, out);
  }

  // softmax and log_softmax along the last axis, as the reference composes
  // them: x - logsumexp(x) (kept, rounded to float), then exp for softmax.
  bool softmax(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values) const {
    const Tensor& x = values[static_cast<std::size_t>(n.in[0])];
    if (x.dtype() != DType::f32 || n.axes.empty() || n.axes[0] != x.rank() - 1) return false;
    Tensor lse, shifted;
    if (!reduce_f32(ir::Reduce::logsumexp, x, n.axes, true, lse) ||
        !binary_f32(ir::Binary::sub, x, lse, shifted))
      return false;
    if (n.op == ir::Op::log_softmax) {
      out = std::move(shifted);
      return true;
    }
    return unary_f32(ir::Unary::exp, shifted, out);
  }

  bool reduce_f32(ir::Reduce op, const Tensor& x, const std::vector<std::int64_t>& axes, bool keep,
                  Tensor& out) const {
    const bool spread = op == ir::Reduce::var || op == ir::Reduce::std;
    if (x.dtype() != DType::f32 ||
        (op != ir::Reduce::sum && op != ir::Reduce::mean && op != ir::Reduce::max &&
         op != ir::Reduce::min && op != ir::Reduce::logsumexp && !spread))
      return false;
    const auto rank = static_cast<std::size_t>(x.rank());
    std::vector<bool> reduced(rank, false);
    for (const auto a : axes) {
      if (a < 0 || static_cast<std::size_t>(a) >= rank) return false;
      reduced[static_cast<std::size_t>(a)] = true;
    }
    std::size_t count = 0;
    for (const bool r : reduced) count += r;
    bool leading = true, trailing = true;
    for (std::size_t d = 0; d < rank; ++d) {
      leading = leading && reduced[d] == (d < count);
      trailing = trailing && reduced[d] == (d >= rank - count);
    }
    if (!leading && !trailing) return false;
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
      for_rows(kept, kMinElements / group, options_.threads, [&](std::int64_t r0, std::int64_t r1) {
        for (std::int64_t r = r0; r < r1; ++r) o[r] = reduce_row(op, p + r * group, group);
      });
      return true;
    }
    // Leading: the group's elements are rows; each kept column sums down.
    std::vector<double> acc(static_cast<std::size_t>(kept));
    for (std::int64_t j = 0; j < kept; ++j) acc[static_cast<std::size_t>(j)] = extreme ? p[j] : 0.0;
    for (std::int64_t g = extreme ? 1 : 0; g < group; ++g) {
      const float* row = p + g * kept;
      if (extreme) {
        for (std::int64_t j = 0; j < kept; ++j)
          if (better(acc[static_cast<std::size_t>(j)], row[j]))
            acc[static_cast<std::size_t>(j)] = row[j];
      } else {
        for (std::int64_t j = 0; j < kept; ++j) acc[static_cast<std::size_t>(j)] += row[j];
      }
    }
    for (std::int64_t j = 0; j < kept; ++j) o[j] = finish(acc[static_cast<std::size_t>(j)]);
    return true;
  }

  // causal: -inf above the diagonal of the last two axes, the rest copied.
  static bool causal(const Tensor& x, Tensor& out) {
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
  static bool cast_to_f32(const Tensor& x, Tensor& out) {
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

  // An einops pattern as one copy: the input's named axes (size-1 ones
  // dropped) permuted into the output's order. A name only the output has
  // repeats the input along it (an expansion); names only the input has
  // are reduced, each output element over them in the input's order, as
  // the reference does (a float input; max and min from -inf and inf with
  // std::max and std::min, sums and means in double).
  bool rearrange(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values,
                 const std::map<std::string, std::int64_t>& sizes, const Dims& dims) const {
    const Tensor& x = values[static_cast<std::size_t>(n.in[0])];
    const auto plan = einops_names(n, x, sizes, dims);
    std::vector<std::string> in;  // the named axes, size-1 ones dropped
    Shape atoms;
    for (const auto& name : plan.names)
      if (!name.empty()) {
        in.push_back(name);
        atoms.push_back(plan.sizes.at(name));
      }
    std::vector<std::int64_t> order;  // the input's names the output keeps, in its order
    Shape shape, kept, expanded;      // the output's; its kept names'; with the new ones
    bool repeats = false;
    for (const auto& group : n.groups_out) {
      std::int64_t size = 1;
      for (const auto& name : group) {
        const std::int64_t s = plan.sizes.at(name);
        const auto it = std::find(in.begin(), in.end(), name);
        size *= s;
        expanded.push_back(s);
        if (it == in.end()) {
          repeats = true;
          kept.push_back(1);
          continue;
        }
        order.push_back(it - in.begin());
        kept.push_back(s);
      }
      shape.push_back(size);
    }
    std::int64_t reduced = 1;  // the reduced names, after the kept ones, in input order
    for (std::size_t a = 0; a < in.size(); ++a)
      if (std::find(order.begin(), order.end(), static_cast<std::int64_t>(a)) == order.end()) {
        order.push_back(static_cast<std::int64_t>(a));
        reduced *= atoms[a];
      }
    const Tensor c = x.contiguous() ? x : x.compact();
    const Tensor arranged = c.reshape(atoms).permute(order).compact();
    if (n.name.empty()) {              // no reduction
      if (reduced != 1) return false;  // a name dropped without one: the reference's error
      out = repeats ? fast::expand(arranged.reshape(kept), expanded).reshape(shape)
                    : arranged.reshape(shape);
      return true;
    }
    const std::string& op = n.name;
    if (x.dtype() != DType::f32 || repeats ||
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

  // A two-operand einsum is a batch of GEMMs: names in both operands and
  // the output are the batch, in one operand and the output rows or
  // columns, in both operands only contracted. Computed as [batch, rows,
  // columns], then put in the output's order. Other einsums (a name summed
  // in one operand alone, a name twice) are the reference's.
  bool einsum(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values) const {
    if (n.in.size() == 3) return einsum_times(n, out, values);
    if (n.in.size() != 2) return false;
    const Tensor& a = values[static_cast<std::size_t>(n.in[0])];
    const Tensor& b = values[static_cast<std::size_t>(n.in[1])];
    if (a.dtype() != DType::f32 || b.dtype() != DType::f32) return false;
    const auto an = flat_names(n.groups_in[0]), bn = flat_names(n.groups_in[1]),
               on = flat_names(n.groups_out);
    if (static_cast<std::int64_t>(an.size()) != a.rank() ||
        static_cast<std::int64_t>(bn.size()) != b.rank())
      return false;
    const auto find = [](const std::vector<std::string>& names, const std::string& x) {
      const auto it = std::find(names.begin(), names.end(), x);
      return it == names.end() ? -1 : static_cast<std::int64_t>(it - names.begin());
    };
    std::map<std::string, std::int64_t> size;
    for (std::size_t k = 0; k < an.size(); ++k)
      if (!size.emplace(an[k], a.dim(static_cast<std::int64_t>(k))).second) return false;
    for (std::size_t k = 0; k < bn.size(); ++k) {
      const auto [it, fresh] = size.emplace(bn[k], b.dim(static_cast<std::int64_t>(k)));
      if (!fresh && (find(an, bn[k]) < 0 || it->second != b.dim(static_cast<std::int64_t>(k))))
        return false;  // twice in b, or sizes that disagree
    }
    std::vector<std::string> batch, rows, cols, inner;
    for (const auto& x : on) {
      const bool in_a = find(an, x) >= 0, in_b = find(bn, x) >= 0;
      if (in_a && in_b)
        batch.push_back(x);
      else if (in_a)
        rows.push_back(x);
      else if (in_b)
        cols.push_back(x);
      else
        return false;
    }
    for (const auto& x : an)
      if (find(on, x) < 0) {
        if (find(bn, x) < 0) return false;  // summed in a alone
        inner.push_back(x);
      }
    for (const auto& x : bn)
      if (find(on, x) < 0 && find(an, x) < 0) return false;  // summed in b alone
    if (std::set<std::string>(on.begin(), on.end()).size() != on.size()) return false;

    const auto order = [&](const std::vector<std::string>& names,
                           std::initializer_list<const std::vector<std::string>*> groups) {
      std::vector<std::int64_t> o;
      for (const auto* g : groups)
        for (const auto& x : *g) o.push_back(find(names, x));
      return o;
    };
    const auto product = [&](const std::vector<std::string>& names) {
      std::int64_t p = 1;
      for (const auto& x : names) p *= size.at(x);
      return p;
    };
    const std::int64_t m = product(rows), k = product(inner), c = product(cols);
    const Panel left =
                    panel(a.permute(order(an, {&batch, &rows, &inner})), batch.size(), rows.size()),
                right = panel(b.permute(order(bn, {&batch, &inner, &cols})), batch.size(),
                              inner.size());
    Shape computed;
    for (const auto* g : {&batch, &rows, &cols})
      for (const auto& x : *g) computed.push_back(size.at(x));
    Tensor result = Tensor::uninitialized(DType::f32, computed);
    const std::int64_t batches = product(batch);
    auto* base = static_cast<float*>(result.raw());
    for (std::int64_t t = 0; t < batches; ++t)
      gemm::sgemm(m, c, k, 1.0f, left.at(t), right.at(t), 0.0f, {base + t * m * c, c},
                  options_.threads);
    // The output's own order, when it isn't [batch, rows, columns].
    std::vector<std::string> made = batch;
    made.insert(made.end(), rows.begin(), rows.end());
    made.insert(made.end(), cols.begin(), cols.end());
    out = made == on ? result : result.permute(order(made, {&on})).compact();
    return true;
  }

  // Three operands, one of them with exactly the output's names (autodiff's
  // product of an upstream gradient with two others): the einsum of the
  // other two, times that one elementwise.
  bool einsum_times(const ir::Node& n, Tensor& out, const std::vector<Tensor>& values) const {
    const auto on = flat_names(n.groups_out);
    for (std::size_t f = 0; f < 3; ++f) {
      if (flat_names(n.groups_in[f]) != on) continue;
      const Tensor& factor = values[static_cast<std::size_t>(n.in[f])];
      if (factor.dtype() != DType::f32) return false;
      ir::Node pair = n;
      pair.in.clear();
      pair.groups_in.clear();
      for (std::size_t k = 0; k < 3; ++k)
        if (k != f) {
          pair.in.push_back(n.in[k]);
          pair.groups_in.push_back(n.groups_in[k]);
        }
      Tensor product;
      return einsum(pair, product, values) && binary_f32(ir::Binary::mul, product, factor, out);
    }
    return false;
  }

  // An operand as [batch axes..., row axes..., column axes...]: each batch
  // index's matrix, by strides when its rows and its columns each merge
  // into one stride, else from a compact copy.
  struct Panel {
    Tensor kept;
    std::vector<std::int64_t> batch_shape, batch_strides;
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
  static std::int64_t merged(const Tensor& t, std::size_t from, std::size_t to) {
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

  static Panel panel(Tensor t, std::size_t batch, std::size_t rows) {
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

  // The graph's plan: made (and its kernels compiled, all in one module,
  // when the JIT is there) the first time the graph runs. Without kernels
  // (nothing fuses, no JIT, or it failed) the graph runs node by node.
  const FusionPlan* plan_for(const ir::Graph& g) const {
    std::lock_guard lock(g.executor_cache.mutex);
    if (auto* p = static_cast<const FusionPlan*>(g.executor_cache.value.get());
        p && p->nodes == g.nodes.size())
      return p;
    auto plan = std::make_shared<FusionPlan>();
    plan->counters = std::make_shared<GraphCounters>();
    plan->counters->name = g.name;
    {
      std::lock_guard registry(registry_mutex_);
      registry_.push_back(plan->counters);
    }
    plan->nodes = g.nodes.size();
    plan->kernel_at.assign(g.nodes.size(), -1);
    plan->member.assign(g.nodes.size(), false);
    plan->reduce_at.assign(g.nodes.size(), -1);
    auto kernels = jit_ ? ir::plan_fusion(g) : std::vector<ir::FusedKernel>{};
    std::vector<std::vector<SsJitStep>> steps(kernels.size());
    std::vector<SsJitKernelDesc> descs;
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      const ir::FusedKernel& kernel = kernels[k];
      const auto& root_axes = g.nodes[static_cast<std::size_t>(kernel.root)].type.axes;
      auto& flags = plan->inner_broadcast.emplace_back();
      for (const int in : kernel.inputs) {  // the inner (last) axis: the root's, or size 1
        const auto& axes = g.nodes[static_cast<std::size_t>(in)].type.axes;
        flags.push_back(root_axes.empty() || axes.empty() || !(axes.back() == root_axes.back()));
      }
      for (const auto& s : kernel.steps)
        steps[k].push_back({static_cast<std::int32_t>(s.kind), s.sub, s.a, s.b, s.c, s.value});
      descs.push_back({steps[k].data(), static_cast<std::int32_t>(steps[k].size()),
                       static_cast<std::int32_t>(kernel.inputs.size()), flags.data()});
    }
    std::vector<SsJitKernelFn> fns;
    if (!kernels.empty()) {
      const SsJitApi& api = jit_->api();
      const auto compile = [&](const std::string& prefix, std::string* object, std::string* error) {
        return compile_with(
            [&](auto write, void* context, char* why, std::size_t size) {
              return api.compile_elementwise(descs.data(), static_cast<std::int32_t>(descs.size()),
                                             prefix.c_str(), write, context, why, size);
            },
            object, error);
      };
      std::string error;
      if (auto code = cached_code(api, kernel_identity(api, descs), static_cast<int>(descs.size()),
                                  compile, options_.code_cache, &error)) {
        for (void* f : code->fns) fns.push_back(reinterpret_cast<SsJitKernelFn>(f));
        const auto n = static_cast<std::int64_t>(kernels.size());
        (code->origin == CodeOrigin::compiled ? kernels_
         : code->origin == CodeOrigin::memory ? from_memory_
                                              : from_store_) += n;
      } else {
        kernels.clear();  // node by node, as without the JIT
      }
    }
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      const auto root = static_cast<std::size_t>(kernels[k].root);
      if (kernels[k].reduce >= 0) {  // run with its reduction, the root never stored
        plan->reduce_at[static_cast<std::size_t>(kernels[k].reduce)] = static_cast<int>(k);
        plan->member[root] = true;
      } else {
        plan->kernel_at[root] = static_cast<int>(k);
      }
      for (const int m : kernels[k].members) plan->member[static_cast<std::size_t>(m)] = true;
    }
    if (!kernels.empty()) {
      std::vector<int> read_at(g.nodes.size());
      for (std::size_t i = 0; i < read_at.size(); ++i) read_at[i] = static_cast<int>(i);
      for (const auto& kernel : kernels) {
        const int at = kernel.reduce >= 0 ? kernel.reduce : kernel.root;
        for (const int m : kernel.members) read_at[static_cast<std::size_t>(m)] = at;
        read_at[static_cast<std::size_t>(kernel.root)] = at;
      }
      plan->releases = std::make_shared<const ir::ReleasePlan>(ir::plan_releases(g, read_at));
    }
    plan->counters->kernels = static_cast<std::int64_t>(kernels.size());
    plan->kernels = std::move(kernels);
    plan->fns = std::move(fns);
    g.executor_cache.value = plan;
    return plan.get();
  }

  // A kernel's inputs as its code reads them: each through two strides (its
  // row's, and 0 or 1 along the inner axis), made so when its layout
  // doesn't allow that.
  struct KernelCall {
    std::vector<Tensor> inputs;
    std::vector<const void*> pointers;
    std::vector<std::int64_t> outer_strides;
    Shape shape;  // the root's
    std::int64_t inner = 1, outer = 0;

    // Runs rows [from, to) of the kernel into `out` (row `from` first).
    void rows(SsJitKernelFn fn, std::int64_t from, std::int64_t to, float* out) const {
      std::vector<const void*> at(pointers.size());
      for (std::size_t j = 0; j < pointers.size(); ++j)
        at[j] = static_cast<const char*>(pointers[j]) +
                from * outer_strides[j] * static_cast<std::int64_t>(dtype_size(inputs[j].dtype()));
      fn(at.data(), outer_strides.data(), out, to - from, inner);
    }
  };

  // False when an input's layout isn't one the code was compiled for (an
  // input the IR types as broadcast along the inner axis isn't).
  static bool bind(const FusionPlan& plan, std::size_t k, const std::vector<Tensor>& values,
                   KernelCall& call) {
    const ir::FusedKernel& kernel = plan.kernels[k];
    const auto& flags = plan.inner_broadcast[k];
    for (const int in : kernel.inputs) {
      call.inputs.push_back(values[static_cast<std::size_t>(in)]);
      call.shape = reference::broadcast_shapes(call.shape, call.inputs.back().shape());
    }
    const Shape& shape = call.shape;
    const std::size_t rank = shape.size();
    call.inner = rank ? shape[rank - 1] : 1;
    call.outer = call.inner ? element_count(shape) / call.inner : 0;
    for (std::size_t j = 0; j < call.inputs.size(); ++j) {
      Tensor& t = call.inputs[j];
      const auto fits = [&](const std::vector<std::int64_t>& s) {
        if (rank == 0) return true;
        const std::int64_t in_row = s[rank - 1];
        if (flags[j] ? in_row != 0 : (in_row != 1 && call.inner != 1)) return false;
        std::int64_t expect = rank >= 2 ? s[rank - 2] : 0;
        for (std::size_t d = rank - 2; rank >= 3 && d-- > 0;) {
          expect *= shape[d + 1];
          if (s[d] != expect) return false;
        }
        return true;
      };
      auto s = broadcast_strides(t, rank);
      if (!fits(s)) {
        t = materialize(t, shape);
        s = broadcast_strides(t, rank);
      }
      if (!fits(s)) return false;
      call.pointers.push_back(t.raw());
      call.outer_strides.push_back(rank >= 2 ? s[rank - 2] : 0);
    }
    return true;
  }

  // One kernel over the root's shape, its rows split over the threads when
  // there is enough work (each part the same kernel on its rows).
  void run_kernel(const FusionPlan& plan, std::size_t k, Tensor& out,
                  const std::vector<Tensor>& values) const {
    KernelCall call;
    if (!bind(plan, k, values, call)) {
      out = run_steps(plan.kernels[k], call.inputs);
      return;
    }
    out = Tensor::uninitialized(DType::f32, call.shape);
    auto* o = static_cast<float*>(out.raw());
    for_rows(call.outer, kMinElements / std::max<std::int64_t>(1, call.inner), options_.threads,
             [&](std::int64_t from, std::int64_t to) {
               call.rows(plan.fns[k], from, to, o + from * call.inner);
             });
    ++runs_;
  }

  // A kernel and the reduction over its root's trailing axes as one loop
  // nest: a tile of groups' rows made into a small buffer (in the cache)
  // and reduced at once, as reduce_row computes each group. False when the
  // kernel can't read its inputs or the groups are empty: then the root is
  // made whole into values[root], for the reduction to run on.
  bool run_kernel_reduced(const FusionPlan& plan, std::size_t k, const ir::Node& n, Tensor& out,
                          std::vector<Tensor>& values) const {
    const ir::FusedKernel& kernel = plan.kernels[k];
    KernelCall call;
    const auto op = static_cast<ir::Reduce>(n.sub);
    std::int64_t group = 1;
    Shape shape;
    const bool bound = bind(plan, k, values, call);
    for (std::size_t d = 0; d < call.shape.size(); ++d) {
      const bool reduced =
          std::find(n.axes.begin(), n.axes.end(), static_cast<std::int64_t>(d)) != n.axes.end();
      if (reduced) group *= call.shape[d];
      if (!reduced)
        shape.push_back(call.shape[d]);
      else if (n.keep)
        shape.push_back(1);
    }
    if (!bound || group == 0 || call.inner == 0 || group % call.inner != 0) {
      if (bound) {
        run_kernel(plan, k, values[static_cast<std::size_t>(kernel.root)], values);
      } else {
        values[static_cast<std::size_t>(kernel.root)] = run_steps(kernel, call.inputs);
      }
      return false;
    }
    const std::int64_t kept = element_count(call.shape) / group;
    const std::int64_t rows_per_group = group / call.inner;
    out = Tensor::uninitialized(DType::f32, shape);
    auto* o = static_cast<float*>(out.raw());
    // Groups a tile holds: about 16K floats, at least one group.
    const std::int64_t tile = std::max<std::int64_t>(1, (1 << 14) / group);
    for_rows(kept, std::max<std::int64_t>(1, kMinElements / group), options_.threads,
             [&](std::int64_t r0, std::int64_t r1) {
               std::vector<float> buffer(static_cast<std::size_t>(std::min(tile, r1 - r0) * group));
               for (std::int64_t t0 = r0; t0 < r1; t0 += tile) {
                 const std::int64_t t1 = std::min(r1, t0 + tile);
                 call.rows(plan.fns[k], t0 * rows_per_group, t1 * rows_per_group, buffer.data());
                 for (std::int64_t r = t0; r < t1; ++r)
                   o[r] = reduce_row(op, buffer.data() + (r - t0) * group, group);
               }
             });
    ++runs_;
    return true;
  }

  // A kernel's steps one operation at a time, on whole tensors: the same
  // values the nodes would have given, for the layouts its code can't read.
  Tensor run_steps(const ir::FusedKernel& kernel, const std::vector<Tensor>& inputs) const {
    std::vector<Tensor> v;
    for (const auto& s : kernel.steps) {
      switch (s.kind) {
        case ir::FusedStep::Kind::load:
        case ir::FusedStep::Kind::load_bool:
          v.push_back(inputs[static_cast<std::size_t>(s.a)]);
          break;
        case ir::FusedStep::Kind::constant:
          v.push_back(Tensor::scalar(DType::f32, s.value));
          break;
        case ir::FusedStep::Kind::unary:
          v.push_back(
              reference::unary(static_cast<ir::Unary>(s.sub), v[static_cast<std::size_t>(s.a)]));
          break;
        case ir::FusedStep::Kind::binary:
          v.push_back(reference::binary(static_cast<ir::Binary>(s.sub),
                                        v[static_cast<std::size_t>(s.a)],
                                        v[static_cast<std::size_t>(s.b)]));
          break;
        case ir::FusedStep::Kind::where:
          v.push_back(reference::where(v[static_cast<std::size_t>(s.a)],
                                       v[static_cast<std::size_t>(s.b)],
                                       v[static_cast<std::size_t>(s.c)]));
          break;
      }
    }
    ++stepped_;
    return v.back();
  }

  FastExecutorOptions options_;
  std::optional<JitModule> jit_;
  mutable std::atomic<std::int64_t> kernels_{0}, from_memory_{0}, from_store_{0}, runs_{0},
      stepped_{0};
  // Every plan's counters, kept after their graph is gone.
  mutable std::mutex registry_mutex_;
  mutable std::vector<std::shared_ptr<GraphCounters>> registry_;
};

}  // namespace

std::unique_ptr<Accelerator> make_fast_executor(const FastExecutorOptions& options) {
  return std::make_unique<FastExecutor>(options);
}

std::map<std::string, std::int64_t> executor_nodes(const Accelerator& fast_executor) {
  const auto* fast = dynamic_cast<const FastExecutor*>(&fast_executor);
  return fast ? fast->nodes() : std::map<std::string, std::int64_t>{};
}

bool executor_has_jit(const Accelerator& fast_executor) {
  const auto* fast = dynamic_cast<const FastExecutor*>(&fast_executor);
  return fast && fast->has_jit();
}

std::map<std::string, GraphStats> executor_functions(const Accelerator& fast_executor) {
  const auto* fast = dynamic_cast<const FastExecutor*>(&fast_executor);
  return fast ? fast->functions() : std::map<std::string, GraphStats>{};
}

const SsJitApi* executor_jit(const Accelerator& fast_executor) {
  const auto* fast = dynamic_cast<const FastExecutor*>(&fast_executor);
  return fast ? fast->jit_api() : nullptr;
}

FusionCounts fusion_counts(const Accelerator& fast_executor) {
  const auto* fast = dynamic_cast<const FastExecutor*>(&fast_executor);
  return fast ? fast->counts() : FusionCounts{};
}

}  // namespace ss::runtime
