#include <cmath>

#include "kernels/cuda_graph_run.hpp"

namespace ss::cuda::detail {

namespace {

// A GEMM's path in the counts: "gemm bf16" where it read or wrote a value
// kept in bf16.
const char* gemm_path(const DTensor& a, const DTensor& b, const DTensor& c) {
  return any_bf16(a, b, c) ? "gemm bf16" : "gemm";
}

}  // namespace

void GraphRun::widen_inputs(const ir::Node& n) {
  for (const int k : n.in) {
    DTensor& x = values_[static_cast<std::size_t>(k)];
    if (x.memory && kept_in_bf16(k)) x = cast(x, DType::f32);
  }
}

void GraphRun::node(std::size_t i) {
  const ir::Node& n = g_.nodes[i];
  if (!bf16_reader(n)) widen_inputs(n);
  try {
    const char* path = device_node(i, n);
    ++counts_.nodes[path];
  } catch (const NotOnDevice&) {
    on_host(i, n);
    ++counts_.nodes[std::string("host ") + ir::op_name(n.op)];
  }
  const DType want = narrowed(i) ? DType::bf16 : runtime::dtype_of(n.type.elem);
  if (values_[i].dtype() != want) {
    if ((on_device(values_[i].dtype()) && on_device(want)) ||
        bf16_copy({}, values_[i].dtype(), want)) {
      values_[i] = cast(values_[i], want);
    } else {
      Tensor t = ref::cast(download(values_[i]), want);
      values_[i] = upload(t, what(i));
    }
  }
}

void GraphRun::on_host(std::size_t i, const ir::Node& n) {
  // A captured graph would replay the host's result as it was (a random
  // draw, a sort of the first call's values).
  if (capture_) throw NotCapturable{std::string("`") + ir::op_name(n.op) + "` runs on the host"};
  for (const int k : n.in) make_deferred(k);
  widen_inputs(n);
  for (const int k : n.in)
    if (host_[static_cast<std::size_t>(k)].shape().empty() &&
        host_[static_cast<std::size_t>(k)].buffer() == nullptr)
      host_[static_cast<std::size_t>(k)] = download(values_[static_cast<std::size_t>(k)]);
  runtime::run_reference_node(g_, i, host_, inputs_, sizes_, dims_, worker_);
  values_[i] = upload(host_[i], what(i));
  for (const int k : n.in) host_[static_cast<std::size_t>(k)] = Tensor();
  host_[i] = Tensor();
}

const DTensor& GraphRun::in(const ir::Node& n, std::size_t k) const {
  return values_[static_cast<std::size_t>(n.in[k])];
}

CUdeviceptr GraphRun::slot(std::size_t node, int operand, std::int64_t bound, const DTensor& ids) {
  if (static_cast<std::int64_t>(checks_.checks.size()) >= kSlots) throw NotOnDevice{};
  checks_.checks.push_back({node, operand, bound, ids});
  return checks_.errors.at() + 8 * (checks_.checks.size() - 1);
}

const char* GraphRun::device_node(std::size_t i, const ir::Node& n) {
  using ir::Op;
  // An op ir/ops.def's `cuda` column gives a reason for runs on the host (a
  // new op does, until this switch has its case and the column says kRuns).
  if (ir::op_info(n.op).cuda) throw NotOnDevice{};
  switch (n.op) {
    case Op::input:
      return input_node(i, n);
    case Op::constant:
    case Op::fill:
    case Op::size:
    case Op::literal:
    case Op::arange:
      return created_node(i, n);
    case Op::unary:
    case Op::binary:
    case Op::where:
    case Op::cast:
      return pointwise_node(i, n);
    case Op::matmul:
    case Op::einsum:
      return product_node(i, n);
    case Op::reduce:
    case Op::argmax:
    case Op::softmax:
    case Op::log_softmax:
      return reduce_node(i, n);
    case Op::cross_entropy:
    case Op::causal:
    case Op::layer_norm:
    case Op::rms_norm:
      return row_node(i, n);
    case Op::gather:
    case Op::scatter_add:
    case Op::take_along:
      return index_node(i, n);
    case Op::index:
    case Op::slice:
    case Op::einops:
    case Op::concat:
    case Op::stack:
    case Op::pad:
    case Op::place:
    case Op::loop_part:
    case Op::all_reduce:
      return move_node(i, n);
    case Op::window:
    case Op::window_fold:
      return window_node(i, n);
    case Op::loop:
      loop(i, n);
      return "loop";
    case Op::attention:
    case Op::attention_grad:
      if (attention(i, n)) return "attention";
      body(i, n);
      return "composed";
    case Op::max_pool:
    case Op::max_pool_grad:
      body(i, n);
      return "composed";
    default:  // the column's (above)
      break;
  }
  throw NotOnDevice{};
}

// A graph input: placed for a captured graph, kept or resident on the
// device, or copied in.
const char* GraphRun::input_node(std::size_t i, const ir::Node& n) {
  DTensor& out = values_[i];
  using ir::Op;
  switch (n.op) {
    case Op::input: {
      if (placed_)  // placed before a capture began, where every replay finds it
        if (const auto it = placed_->find(n.name); it != placed_->end()) {
          out = std::move(it->second);
          placed_->erase(it);
          return "placed for a graph";
        }
      const Tensor& host = inputs_.at(n.name);
      if (auto kept = twin_of(host)) {
        out = *kept;
        return "kept on device";
      }
      if (auto resident = resident_copy(gpu_, host, n.name)) {  // a value's, copied in once
        out = *resident;
        return "resident on device";
      }
      out = upload(host, n.name);
      return "copies in";
    }
    default:
      break;
  }
  throw NotOnDevice{};
}

// Values made from nothing: constants, fills, sizes, literals, ranges.
const char* GraphRun::created_node(std::size_t i, const ir::Node& n) {
  DTensor& out = values_[i];
  const DType dtype = runtime::dtype_of(n.type.elem);
  using ir::Op;
  switch (n.op) {
    case Op::constant:
    case Op::fill:
    case Op::size: {
      double value = n.number;
      Shape shape;
      if (n.op == Op::size) {
        auto it = sizes_.find(n.name);
        if (worker_ && worker_->whole.count(n.name)) {  // a batch axis: the whole batch's
          value = static_cast<double>(worker_->whole.at(n.name));
        } else if (it != sizes_.end()) {
          value = static_cast<double>(it->second);
        } else if (auto d = dims_.find(n.name); d != dims_.end() && d->second) {
          value = static_cast<double>(*d->second);
        } else {
          throw NotOnDevice{};
        }
      } else if (n.op == Op::fill) {
        shape = runtime::shape_of(n.type, sizes_, dims_);
      }
      out = make(i, dtype, shape);
      fill(out, value);
      return "created";
    }
    case Op::literal:
      out = upload(Tensor::from_values(dtype, runtime::shape_of(n.type, sizes_, dims_), n.values),
                   what(i));
      return "created";
    case Op::arange: {
      const auto s = runtime::size_of(n.type.axes.at(0), sizes_, dims_);
      if (!s) throw NotOnDevice{};
      out = make(i, DType::i32, {*s});
      const CUfunction f = gpu_.kernel(arange_source("ss_arange"), "ss_arange");
      Params p;
      p.add(out.at()).add(static_cast<long long>(*s));
      gpu_.launch(f, *s, p);
      return "created";
    }
    default:
      break;
  }
  throw NotOnDevice{};
}

// Elementwise nodes outside a fused kernel: one pointwise kernel each.
const char* GraphRun::pointwise_node(std::size_t i, const ir::Node& n) {
  DTensor& out = values_[i];
  const DType dtype = runtime::dtype_of(n.type.elem);
  using ir::Op;
  switch (n.op) {
    case Op::unary: {
      const auto op = static_cast<ir::Unary>(n.sub);
      const DTensor& x = in(n, 0);
      out = make(i, ref::unary_dtype(op, x.dtype()), x.shape());
      pointwise({Pointwise::Kind::unary, n.sub}, {&x}, out);
      return "kernels";
    }
    case Op::binary: {
      const DTensor &a = in(n, 0), &b = in(n, 1);
      const bool integers = !runtime::is_float(a.dtype()) && !runtime::is_float(b.dtype());
      out = make(i, ref::binary_dtype(static_cast<ir::Binary>(n.sub), a.dtype(), b.dtype()),
                 ref::broadcast_shapes(a.shape(), b.shape()));
      pointwise({Pointwise::Kind::binary, n.sub, integers}, {&a, &b}, out);
      return "kernels";
    }
    case Op::where: {
      const DTensor &c = in(n, 0), &a = in(n, 1), &b = in(n, 2);
      out = make(i, common_dtype(a.dtype(), b.dtype()),
                 ref::broadcast_shapes(c.shape(), ref::broadcast_shapes(a.shape(), b.shape())));
      pointwise({Pointwise::Kind::where}, {&c, &a, &b}, out);
      return "kernels";
    }
    case Op::cast:
      if (n.type.elem.kind == types::ElemKind::index) throw NotOnDevice{};  // range-checked
      out = make(i, dtype, in(n, 0).shape());
      pointwise({}, {&in(n, 0)}, out);
      return "kernels";
    default:
      break;
  }
  throw NotOnDevice{};
}

// Contractions: cuBLAS (or the executor's GEMM), cuDNN for a convolution's
// einsum.
const char* GraphRun::product_node(std::size_t i, const ir::Node& n) {
  DTensor& out = values_[i];
  using ir::Op;
  switch (n.op) {
    case Op::matmul: {
      const DTensor &a0 = in(n, 0), &b0 = in(n, 1);
      if (!gemm_operand(n.in[0]) || !gemm_operand(n.in[1]) || a0.shape().empty() ||
          b0.shape().empty() || a0.shape().back() != b0.shape().front())
        throw NotOnDevice{};
      const DTensor a = compact(a0), b = compact(b0);
      const std::int64_t k = b.shape().front();
      const std::int64_t rows = product(a.shape(), 0, a.shape().size() - 1);
      const std::int64_t cols = product(b.shape(), 1, b.shape().size());
      Shape shape(a.shape().begin(), a.shape().end() - 1);
      shape.insert(shape.end(), b.shape().begin() + 1, b.shape().end());
      out = make(i, narrowed(i) ? DType::bf16 : DType::f32, shape);
      gemm(rows, cols, k, a, 0, b, 0, out, 0, 1);
      return gemm_path(a0, b0, out);
    }
    case Op::einsum: {
      if (n.in.size() == 2) {
        if (conv_on_cudnn(i, n)) return "cudnn";
        for (const int x : n.in) make_deferred(x);  // the window after all
        if (!gemm_operand(n.in[0]) || !gemm_operand(n.in[1])) throw NotOnDevice{};
        out = einsum(i, n, in(n, 0), in(n, 1));
        return gemm_path(in(n, 0), in(n, 1), out);
      }
      if (n.in.size() != 3) throw NotOnDevice{};
      // Autodiff's three operands, one with the output's names: the
      // product of the other two, times it.
      const auto times = runtime::einsum_times(n);
      if (!times) throw NotOnDevice{};
      const DTensor& factor = in(n, times->factor);
      if (factor.dtype() != DType::f32) throw NotOnDevice{};
      const DTensor product = einsum(i, times->pair, in(times->pair, 0), in(times->pair, 1));
      out = make(i, DType::f32, product.shape());
      pointwise({Pointwise::Kind::binary, static_cast<int>(ir::Binary::mul)}, {&product, &factor},
                out);
      return "gemm";
    }
    default:
      break;
  }
  throw NotOnDevice{};
}

// Reductions along axes: sums and the like, argmax, softmax.
const char* GraphRun::reduce_node(std::size_t i, const ir::Node& n) {
  DTensor& out = values_[i];
  using ir::Op;
  switch (n.op) {
    case Op::reduce: {
      const auto op = static_cast<ir::Reduce>(n.sub);
      const DTensor& x = in(n, 0);
      // Integer sums, maxima and minima stay integers on the host, as do
      // a program's own bf16 values.
      if (x.dtype() == DType::i32 &&
          (op == ir::Reduce::sum || op == ir::Reduce::max || op == ir::Reduce::min))
        throw NotOnDevice{};
      if (x.dtype() == DType::bf16 && !kept_in_bf16(n.in[0])) throw NotOnDevice{};
      std::vector<std::int64_t> axes = n.axes;
      std::sort(axes.begin(), axes.end());
      const DTensor moved = axes_last(x, axes);
      std::int64_t group = 1;
      Shape kept;
      for (std::size_t d = 0; d < x.shape().size(); ++d) {
        const bool reduced =
            std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(d)) != axes.end();
        if (reduced) group *= x.shape()[d];
        if (!reduced)
          kept.push_back(x.shape()[d]);
        else if (n.keep)
          kept.push_back(1);
      }
      const std::int64_t rows = group ? moved.size() / group : runtime::element_count(kept);
      DTensor r = reduce_rows(op, moved, rows, group);
      out = r.with(r.view.reshape(kept));
      return "reductions";
    }
    case Op::argmax: {
      const DTensor& x = in(n, 0);
      const std::int64_t axis = n.axes[0];
      const DTensor moved = axes_last(x, {axis});
      const std::int64_t group = x.shape()[static_cast<std::size_t>(axis)];
      const std::int64_t rows = group ? moved.size() / group : 0;
      Shape shape = x.shape();
      if (n.keep)
        shape[static_cast<std::size_t>(axis)] = 1;
      else
        shape.erase(shape.begin() + axis);
      out = make(i, DType::i32, shape);
      const std::string name = "ss_argmax_" + dtype_tag(x.dtype());
      if (!on_device(x.dtype())) throw NotOnDevice{};
      const CUfunction f = gpu_.kernel(argmax_source(x.dtype(), name), name);
      Params p;
      p.add(moved.at())
          .add(out.at())
          .add(static_cast<long long>(rows))
          .add(static_cast<long long>(group));
      gpu_.launch(f, rows, p);
      return "reductions";
    }
    case Op::softmax:
    case Op::log_softmax:
      out = softmax(in(n, 0), n.axes[0], n.op == Op::log_softmax);
      return "reductions";
    default:
      break;
  }
  throw NotOnDevice{};
}

// Row kernels: cross-entropy, the causal mask, layer and RMS norms.
const char* GraphRun::row_node(std::size_t i, const ir::Node& n) {
  DTensor& out = values_[i];
  using ir::Op;
  switch (n.op) {
    case Op::cross_entropy: {
      const DTensor& labels0 = in(n, 1);
      if (labels0.dtype() != DType::i32) throw NotOnDevice{};
      const std::int64_t axis = n.axes[0];
      const DTensor log_p = softmax(in(n, 0), axis, true);
      const DTensor labels = compact(labels0);
      const Shape& s = log_p.shape();
      const std::int64_t outer = product(s, 0, static_cast<std::size_t>(axis));
      const std::int64_t classes = s[static_cast<std::size_t>(axis)];
      const std::int64_t inner = product(s, static_cast<std::size_t>(axis) + 1, s.size());
      if (labels.size() != outer * inner) throw NotOnDevice{};
      out = make(i, DType::f32, {});
      const CUfunction f =
          gpu_.kernel(cross_entropy_source("ss_cross_entropy"), "ss_cross_entropy");
      Params p;
      p.add(log_p.at()).add(labels.at()).add(out.at());
      for (const std::int64_t v : {outer, classes, inner}) p.add(static_cast<long long>(v));
      p.add(slot(i, 1, classes, labels)).add(static_cast<int>(n.sub == 1));
      gpu_.launch_grid(f, 1, 1, 1, kThreads, 1, p);
      return "reductions";
    }
    case Op::causal: {
      const DTensor& x0 = in(n, 0);
      if (x0.dtype() != DType::f32 || x0.shape().size() < 2) throw NotOnDevice{};
      const DTensor x = compact(x0);
      out = make(i, DType::f32, x.shape());
      const CUfunction f = gpu_.kernel(causal_source("ss_causal"), "ss_causal");
      Params p;
      p.add(x.at()).add(out.at()).add(static_cast<long long>(x.size()));
      p.add(static_cast<long long>(x.shape()[x.shape().size() - 2]))
          .add(static_cast<long long>(x.shape().back()));
      gpu_.launch(f, x.size(), p);
      return "kernels";
    }
    case Op::layer_norm:
    case Op::rms_norm: {
      const DTensor& x = in(n, 0);
      if (x.dtype() != DType::f32) throw NotOnDevice{};
      const std::int64_t axis = n.axes[0];
      const DTensor moved = axes_last(x, {axis});
      const std::int64_t group = x.shape()[static_cast<std::size_t>(axis)];
      const std::int64_t rows = group ? moved.size() / group : 0;
      const bool centre = n.op == Op::layer_norm;
      const std::string name = centre ? "ss_layer_norm" : "ss_rms_norm";
      const CUfunction f = gpu_.kernel(normalise_source(centre, name), name);
      DTensor normed = allocate(DType::f32, moved.shape(), what(i));
      Params p;
      p.add(moved.at())
          .add(normed.at())
          .add(static_cast<long long>(rows))
          .add(static_cast<long long>(group))
          .add(static_cast<float>(n.number));
      if (rows > 0)
        gpu_.launch_grid(f, static_cast<unsigned>(std::min<std::int64_t>(rows, 65535)), 1, 1,
                         kThreads, 1, p);
      out = compact(normed.with(normed.view.permute(back_from_last(x.shape().size(), axis))));
      return "reductions";
    }
    default:
      break;
  }
  throw NotOnDevice{};
}

DTensor GraphRun::einops(std::size_t i, const ir::Node& n) {
  const DTensor& x = in(n, 0);
  const runtime::RearrangePlan plan = runtime::rearrange_plan(n, x.view, sizes_, dims_);
  const Shape &atoms = plan.atoms, &shape = plan.shape, &kept = plan.kept,
              &expanded = plan.expanded;
  const std::int64_t reduced = plan.reduced;
  const DTensor c = compact(x);
  if (runtime::element_count(atoms) != c.size()) throw NotOnDevice{};
  const DTensor arranged = compact(c.with(c.view.reshape(atoms).permute(plan.order)));
  if (n.name.empty()) {
    if (reduced != 1) throw NotOnDevice{};  // the reference's error
    if (!plan.repeats) return arranged.with(arranged.view.reshape(shape));
    // The new names by stride 0, then one copy.
    const Tensor small = arranged.view.reshape(kept);
    runtime::Strides strides = small.strides();
    for (std::size_t d = 0; d < kept.size(); ++d)
      if (kept[d] == 1) strides[d] = 0;
    const DTensor wide{Tensor::borrow_strided(small.raw(), small.dtype(), expanded, strides),
                       arranged.memory};
    DTensor full = make(i, x.dtype(), expanded);
    pointwise({}, {&wide}, full);
    return full.with(full.view.reshape(shape));
  }
  if (plan.repeats || (n.name != "sum" && n.name != "mean") || x.dtype() != DType::f32)
    throw NotOnDevice{};
  const std::int64_t rows = runtime::element_count(shape);
  DTensor r =
      reduce_rows(n.name == "sum" ? ir::Reduce::sum : ir::Reduce::mean, arranged, rows, reduced);
  return r.with(r.view.reshape(shape));
}

}  // namespace ss::cuda::detail

namespace ss::cuda::detail {

// A loop on the device: its body a graph run of its own per step, on the
// same GPU (the run lock is this run's), its plan and kernels made once.
// Values pass between steps as device memory the next run takes as it is;
// each stacked input's part is a device view, each per-step result copied
// into its place in the stacked output.
void GraphRun::loop(std::size_t i, const ir::Node& n) {
  const ir::LoopShape shape = ir::loop_of(n);
  const ir::Graph& body = *n.body;
  const std::shared_ptr<const GraphPlan>& plan = plan_.bodies.at(i);  // made with the graph's
  const std::size_t carries = shape.carries, stacked = shape.stacked;
  std::vector<std::string> names;
  for (const int id : body.inputs) names.push_back(body.nodes[static_cast<std::size_t>(id)].name);
  std::map<std::string, Tensor> inputs;
  for (std::size_t k = 0; k < n.in.size(); ++k)
    if (k < carries || k >= carries + stacked) inputs[names[k]] = deferred(in(n, k));
  const std::int64_t length = in(n, carries).shape().at(static_cast<std::size_t>(shape.axes[0]));
  const std::size_t results = body.outputs.size() - carries;
  std::vector<DTensor> stacked_results(results);
  for (std::int64_t t = 0; t < length; ++t) {
    const std::int64_t at = shape.reverse ? length - 1 - t : t;
    for (std::size_t j = 0; j < stacked; ++j) {
      const DTensor& x = in(n, carries + j);
      inputs[names[carries + j]] = deferred(x.with(x.view.select(shape.axes[j], at)));
    }
    std::vector<Tensor> out = GraphRun(shared_gpu_, body, *plan, inputs, dims_, worker_, options(),
                                       counts_, capture_, false)
                                  .run();
    for (std::size_t k = 0; k < carries; ++k) inputs[names[k]] = std::move(out[k]);
    for (std::size_t r = 0; r < results; ++r) {
      const auto step = twin_of(out[carries + r]);
      if (!step) throw std::logic_error("a loop step's result left the device");
      const auto axis = shape.result_axes.at(r);
      if (!stacked_results[r].memory) {
        Shape s = step->shape();
        s.insert(s.begin() + axis, length);
        stacked_results[r] = make(i, step->dtype(), std::move(s));
      }
      const DTensor slot = stacked_results[r].with(stacked_results[r].view.select(axis, at));
      pointwise({}, {&*step}, slot);
    }
  }
  std::vector<DTensor>& outputs = loop_outputs_[i];
  for (std::size_t k = 0; k < carries; ++k) {
    const auto last = twin_of(inputs[names[k]]);
    if (!last) throw std::logic_error("a loop's carry left the device");
    outputs.push_back(*last);
  }
  for (auto& r : stacked_results) outputs.push_back(std::move(r));
  values_[i] = outputs.at(0);
}

// Its plan made with the graph's, its kernels once; its inputs the device
// values as they are.
void GraphRun::body(std::size_t i, const ir::Node& n) {
  const ir::Graph& body = *n.body;
  const std::shared_ptr<const GraphPlan>& plan = plan_.bodies.at(i);  // made with the graph's
  std::map<std::string, Tensor> inputs;
  for (std::size_t k = 0; k < n.in.size(); ++k)
    inputs[body.nodes[static_cast<std::size_t>(body.inputs[k])].name] = deferred(in(n, k));
  std::vector<Tensor> out = GraphRun(shared_gpu_, body, *plan, inputs, dims_, worker_, options(),
                                     counts_, capture_, false)
                                .run();
  const auto value = twin_of(out.at(0));
  if (!value) throw std::logic_error("a fused node's value left the device");
  values_[i] = *value;
}

}  // namespace ss::cuda::detail
