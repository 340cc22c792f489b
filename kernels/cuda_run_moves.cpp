// The CUDA executor's moves and reads at ids (GraphRun::device_node's
// index_node, move_node and window_node): views, joins, pads and places,
// gathers and their scatters, windows and their folds.
#include <climits>
#include <cmath>

#include "kernels/cuda_graph_run.hpp"

namespace ss::cuda::detail {

// Reads and writes at ids: gather, its scatter-add gradient, take_along.
const char* GraphRun::index_node(std::size_t i, const ir::Node& n) {
  DTensor& out = values_[i];
  using ir::Op;
  switch (n.op) {
    case Op::gather:
    case Op::scatter_add: {
      const bool gather = n.op == Op::gather;
      const DTensor& ids0 = in(n, 1);
      if (ids0.dtype() != DType::i32) throw NotOnDevice{};
      const DTensor ids = compact(ids0);
      const DTensor src = compact(in(n, 0));
      Shape shape;
      if (gather) {
        if (src.shape().empty() || !on_device(src.dtype())) throw NotOnDevice{};
        shape = ids.shape();
        shape.insert(shape.end(), src.shape().begin() + 1, src.shape().end());
      } else {
        if (src.dtype() != DType::f32) throw NotOnDevice{};
        shape = runtime::shape_of(n.type, sizes_, dims_);
        if (shape.empty()) throw NotOnDevice{};
      }
      const Shape& table = gather ? src.shape() : shape;
      const std::int64_t rows = table.front();
      const std::int64_t row = product(table, 1, table.size());
      out = make(i, gather ? src.dtype() : DType::f32, shape);
      if (!gather) gpu_.set_bytes(out.at(), 0, static_cast<std::size_t>(out.size()) * 4);
      // --deterministic: the sums in index order, a thread a column, no atomics.
      const bool ordered = !gather && deterministic_;
      const std::string name = gather    ? "ss_gather_" + dtype_tag(src.dtype())
                               : ordered ? std::string("ss_scatter_add_ordered")
                                         : std::string("ss_scatter_add");
      const CUfunction f = gpu_.kernel(gather    ? gather_source(src.dtype(), name)
                                       : ordered ? scatter_add_ordered_source(name)
                                                 : scatter_add_source(name),
                                       name);
      Params p;
      p.add(src.at()).add(ids.at()).add(out.at());
      for (const std::int64_t v : {ids.size(), row, rows}) p.add(static_cast<long long>(v));
      p.add(slot(i, 1, rows, ids));
      gpu_.launch(f, ordered ? row : ids.size() * row, p);
      return gather ? "moves" : ordered ? "kernels, in order" : "kernels";
    }
    case Op::take_along: {
      const DTensor& ids0 = in(n, 1);
      const DTensor& x0 = in(n, 0);
      if (ids0.dtype() != DType::i32 || !on_device(x0.dtype()) || ids0.shape() != x0.shape())
        throw NotOnDevice{};
      const std::int64_t axis = n.axes[0];
      const DTensor x = compact(x0), ids = compact(ids0);
      const std::int64_t size = x.shape().at(static_cast<std::size_t>(axis));
      const std::int64_t inner =
          product(x.shape(), static_cast<std::size_t>(axis) + 1, x.shape().size());
      out = make(i, x.dtype(), x.shape());
      const std::string name = "ss_take_along_" + dtype_tag(x.dtype());
      const CUfunction f = gpu_.kernel(take_along_source(x.dtype(), name), name);
      Params p;
      p.add(x.at()).add(ids.at()).add(out.at());
      for (const std::int64_t v : {x.size(), size, inner}) p.add(static_cast<long long>(v));
      p.add(slot(i, 1, size, ids));
      gpu_.launch(f, x.size(), p);
      return "moves";
    }
    default:
      break;
  }
  throw NotOnDevice{};
}

// Moves: views (index, slice, einops), joins, pads, places, a loop's
// parts, and one device's all-reduce.
const char* GraphRun::move_node(std::size_t i, const ir::Node& n) {
  DTensor& out = values_[i];
  using ir::Op;
  switch (n.op) {
    case Op::index: {
      const DTensor& x = in(n, 0);
      const auto part = ir::axis_part(n);
      const std::int64_t size = x.shape().at(static_cast<std::size_t>(part.axis));
      if (!part.fits(size)) throw NotOnDevice{};  // the reference's RangeError
      out = x.with(x.view.select(part.axis, part.first(size)));
      return "moves";
    }
    case Op::slice: {
      const DTensor& x = in(n, 0);
      const auto part = ir::axis_part(n);
      const std::int64_t size = x.shape().at(static_cast<std::size_t>(part.axis));
      if (!part.fits(size)) throw NotOnDevice{};
      out = x.with(x.view.slice(part.axis, part.first(size), part.last(size)));
      return "moves";
    }
    case Op::einops:
      out = einops(i, n);
      return "moves";
    case Op::concat:
    case Op::stack: {
      const bool stack = n.op == Op::stack;
      std::vector<const DTensor*> xs;
      for (std::size_t k = 0; k < n.in.size(); ++k) xs.push_back(&in(n, k));
      if (xs.empty()) throw NotOnDevice{};
      const std::int64_t axis = stack ? 0 : n.axes[0];
      Shape shape = xs[0]->shape();
      if (stack) {
        shape.insert(shape.begin(), static_cast<std::int64_t>(xs.size()));
      } else {
        shape[static_cast<std::size_t>(axis)] = 0;
        for (const auto* x : xs)
          shape[static_cast<std::size_t>(axis)] += x->shape()[static_cast<std::size_t>(axis)];
      }
      out = make(i, xs[0]->dtype(), shape);
      std::int64_t at = 0;
      for (std::size_t k = 0; k < xs.size(); ++k) {
        if (xs[k]->dtype() != out.dtype()) throw NotOnDevice{};
        const std::int64_t len = stack ? 1 : xs[k]->shape()[static_cast<std::size_t>(axis)];
        const DTensor part = out.with(stack ? out.view.select(0, static_cast<std::int64_t>(k))
                                            : out.view.slice(axis, at, at + len));
        pointwise({}, {xs[k]}, part);
        at += len;
      }
      return "moves";
    }
    case Op::pad: {
      const DTensor& x = in(n, 0);
      const auto pad = ir::pad_of(n);
      Shape shape = x.shape();
      const std::int64_t len = shape.at(static_cast<std::size_t>(pad.axis));
      shape[static_cast<std::size_t>(pad.axis)] += pad.before + pad.after;
      out = make(i, x.dtype(), shape);
      fill(out, pad.value);
      pointwise({}, {&x}, out.with(out.view.slice(pad.axis, pad.before, pad.before + len)));
      return "moves";
    }
    case Op::place: {
      const DTensor& values = in(n, 0);
      const Shape& shape = in(n, 1).shape();
      const auto part = ir::axis_part(n);
      const std::int64_t size = shape.at(static_cast<std::size_t>(part.axis));
      if (!part.fits(size)) throw NotOnDevice{};
      out = make(i, values.dtype(), shape);
      fill(out, 0);
      const std::int64_t at = part.first(size);
      pointwise({}, {&values},
                out.with(part.index ? out.view.select(part.axis, at)
                                    : out.view.slice(part.axis, at, part.last(size))));
      return "moves";
    }
    case Op::loop_part:
      out = loop_outputs_.at(static_cast<std::size_t>(n.in[0]))
                .at(static_cast<std::size_t>(n.number));
      return "moves";
    case Op::all_reduce:
      // Several workers sum through the collectives, on the host's copy
      // (NCCL's stage it on the GPU again); one device holds every part.
      if (worker_) throw NotOnDevice{};
      out = in(n, 0);
      return "moves";
    default:
      break;
  }
  throw NotOnDevice{};
}

// A window (a convolution's im2col, a pool's) or its fold, unless cuDNN
// runs the convolution whole.
const char* GraphRun::window_node(std::size_t i, const ir::Node& n) {
  DTensor& out = values_[i];
  using ir::Op;
  switch (n.op) {
    case Op::window:
    case Op::window_fold: {
      const bool fold = n.op == Op::window_fold;
      if (fold && conv_on_cudnn(i, n)) return "cudnn";
      if (fold) make_deferred(n.in[0]);  // the einsum after all
      const DTensor x = compact(in(n, 0));
      const ir::Window w = ir::window_of(n);
      const Shape& like = fold ? in(n, 1).shape() : x.shape();
      if ((fold ? x.dtype() != DType::f32 : x.dtype() != DType::f32 && x.dtype() != DType::i32) ||
          like.size() > WindowArgs::kRank || w.axes.size() > WindowArgs::kAxes ||
          !w.valid(static_cast<std::int64_t>(like.size())) ||
          (fold && x.shape() != w.shape_of(like)))
        throw NotOnDevice{};
      WindowArgs a;
      a.rank = static_cast<int>(like.size());
      a.axes = static_cast<int>(w.axes.size());
      a.value = static_cast<float>(w.value);
      // The reference's int conversion: toward zero, saturating, NaN 0.
      a.ivalue = std::isnan(w.value)  ? 0
                 : w.value <= INT_MIN ? INT_MIN
                 : w.value >= INT_MAX ? INT_MAX
                                      : static_cast<int>(w.value);
      const Shape windowed = w.shape_of(like);
      for (std::size_t d = 0; d < like.size(); ++d) {
        a.in_shape[d] = like[d];
        a.axis[d] = -1;
      }
      for (std::size_t d = 0; d < windowed.size(); ++d) a.out_shape[d] = windowed[d];
      for (std::size_t k = 0; k < w.axes.size(); ++k) {
        const auto& ax = w.axes[k];
        a.axis[static_cast<std::size_t>(ax.axis)] = static_cast<int>(k);
        a.size[k] = ax.size;
        a.stride[k] = ax.stride;
        a.dilation[k] = ax.dilation;
        a.before[k] = ax.before;
      }
      out = make(i, x.dtype(), fold ? like : windowed);
      const std::string name =
          fold ? std::string("ss_window_fold") : "ss_window_" + dtype_tag(x.dtype());
      const CUfunction f =
          gpu_.kernel(fold ? window_fold_source(name) : window_source(x.dtype(), name), name);
      Params p;
      p.add(x.at()).add(out.at()).add(static_cast<long long>(out.size())).add(a);
      if (out.size() > 0) gpu_.launch(f, out.size(), p);
      return "moves";
    }
    default:
      break;
  }
  throw NotOnDevice{};
}

}  // namespace ss::cuda::detail
