#include "kernels/cuda_executor.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <mutex>
#include <numeric>
#include <optional>

#include "ir/attributes.hpp"
#include "ir/fusion.hpp"
#include "ir/memory_plan.hpp"
#include "kernels/cuda_device.hpp"
#include "kernels/cuda_elementwise.hpp"
#include "kernels/cuda_ops.hpp"
#include "kernels/cuda_reduce.hpp"
#include "runtime/device_error.hpp"
#include "runtime/einsum_plan.hpp"
#include "runtime/reference/ops.hpp"

namespace ss::cuda {
namespace {

namespace ref = runtime::reference;
using runtime::DType;
using runtime::Shape;
using runtime::Tensor;

// What a node's kernels can't take (a dtype, a rank past kMaxRank, a size
// past cuBLAS's ints): the node runs on the host instead.
struct NotOnDevice {};

// A value in device memory: the runtime's tensor as a view (shape,
// strides, offset) of a device address, and the memory that keeps it.
// Only its metadata is ever read on the host.
struct DTensor {
  Tensor view;
  std::shared_ptr<DeviceMemory> memory;

  DType dtype() const { return view.dtype(); }
  const Shape& shape() const { return view.shape(); }
  std::int64_t size() const { return view.size(); }
  CUdeviceptr at() const { return reinterpret_cast<CUdeviceptr>(view.raw()); }
  DTensor with(Tensor v) const { return {std::move(v), memory}; }
};

// A value the host holds a deferred copy of (Buffer::deferred): its
// device memory, for a later graph on the same GPU to take as it is.
struct DeviceTwin {
  std::shared_ptr<DeviceMemory> memory;
  const Gpu* gpu;
};

// Per graph: its fused regions with their sources, which node roots or
// belongs to one, and when values die.
struct GraphPlan {
  std::vector<ir::FusedKernel> kernels;
  std::vector<std::string> sources, names;
  std::vector<std::vector<std::uint8_t>> inner_broadcast;  // per kernel, per input
  std::vector<int> root_of;                                // node -> kernel it roots, or -1
  std::vector<char> member;  // node computed inside a kernel (not its root)
  ir::ReleasePlan releases;
};

std::shared_ptr<const GraphPlan> make_plan(const ir::Graph& g) {
  auto plan = std::make_shared<GraphPlan>();
  const std::size_t n = g.nodes.size();
  plan->root_of.assign(n, -1);
  plan->member.assign(n, 0);
  std::vector<int> read_at(n);
  std::iota(read_at.begin(), read_at.end(), 0);
  for (auto kernel : ir::plan_fusion(g)) {
    // The GPU makes a kernel's root whole: a fused reduction or a GEMM
    // epilogue runs as its own node after it.
    kernel.reduce = -1;
    kernel.epilogue = -1;
    const int k = static_cast<int>(plan->kernels.size());
    const std::string name = "ss_fused_" + std::to_string(k);
    plan->inner_broadcast.push_back(ir::inner_broadcast(g, kernel));
    plan->sources.push_back(elementwise_source(kernel, plan->inner_broadcast.back(), name));
    plan->names.push_back(name);
    plan->root_of[static_cast<std::size_t>(kernel.root)] = k;
    for (const int m : kernel.members) {
      plan->member[static_cast<std::size_t>(m)] = 1;
      read_at[static_cast<std::size_t>(m)] = kernel.root;
    }
    plan->kernels.push_back(std::move(kernel));
  }
  plan->releases = ir::plan_releases(g, read_at);
  return plan;
}

DType unary_dtype(ir::Unary op, DType x) {
  if (op == ir::Unary::logical_not) return DType::boolean;
  if (op == ir::Unary::neg || op == ir::Unary::abs || op == ir::Unary::relu) return x;
  return runtime::is_float(x) ? x : DType::f32;
}

DType common_dtype(DType a, DType b) {  // the reference's arithmetic_dtype
  if (a == b) return a;
  if (runtime::is_float(a) != runtime::is_float(b)) return runtime::is_float(a) ? a : b;
  return runtime::is_float(a) ? DType::f32 : DType::i32;
}

std::string dtype_tag(DType t) {
  return runtime::dtype_name(t);
}

std::int64_t product(const Shape& s, std::size_t from, std::size_t to) {
  std::int64_t p = 1;
  for (std::size_t d = from; d < to; ++d) p *= s[d];
  return p;
}

// A grid-stride kernel's parameters, in order.
struct Params {
  std::vector<std::vector<unsigned char>> storage;
  std::vector<void*> pointers;
  template <typename T>
  Params& add(const T& value) {
    auto& bytes = storage.emplace_back(sizeof(T));
    std::memcpy(bytes.data(), &value, sizeof(T));
    return *this;
  }
  void** get() {
    pointers.clear();
    for (auto& s : storage) pointers.push_back(s.data());
    return pointers.data();
  }
};

struct Counts {
  std::map<std::string, std::int64_t> nodes;
  std::int64_t graphs = 0, fused = 0;
};

// One run of one graph.
class GraphRun {
 public:
  GraphRun(const std::shared_ptr<Gpu>& gpu, const ir::Graph& g, const GraphPlan& plan,
           const std::map<std::string, Tensor>& inputs, const runtime::Dims& dims,
           runtime::WorkerContext* worker, Precision precision, bool cublas, Counts& counts)
      : shared_gpu_(gpu),
        gpu_(*gpu),
        g_(g),
        plan_(plan),
        inputs_(inputs),
        dims_(dims),
        worker_(worker),
        precision_(precision),
        cublas_(cublas && gpu->blas()),
        counts_(counts) {
    sizes_ = runtime::bind_sizes(g, inputs, dims);
    values_.resize(g.nodes.size());
    host_.resize(g.nodes.size());
  }

  std::vector<Tensor> run() {
    errors_ = allocate(DType::i32, {2 * kSlots}, "range checks");
    gpu_.set_bytes(errors_.at(), 0xff, kSlots * 8);
    for (std::size_t i = 0; i < g_.nodes.size(); ++i) {
      if (!plan_.member[i]) {
        if (const int k = plan_.root_of[i]; k < 0 || !fused(k, i)) {
          if (k >= 0)  // its members one by one, then the root
            for (const int m : plan_.kernels[static_cast<std::size_t>(k)].members)
              node(static_cast<std::size_t>(m));
          node(i);
        }
      }
      for (const int v : plan_.releases[i]) values_[static_cast<std::size_t>(v)] = DTensor();
    }
    check_ranges();
    std::vector<Tensor> out;
    for (const int o : g_.outputs) out.push_back(deferred(values_[static_cast<std::size_t>(o)]));
    ++counts_.graphs;
    return out;
  }

  // An output as the host gets it: copied back only when something reads
  // it, and until then taken back as it is by a later graph (a model's
  // parameters, a training loop's optimiser state).
  Tensor deferred(const DTensor& value) {
    DTensor d = compact(value);
    if (d.at() != d.memory->pointer()) {  // a view into other memory: its own copy
      DTensor own = allocate(d.dtype(), d.shape(), "an output");
      pointwise({}, {&d}, own);
      d = own;
    }
    const std::size_t bytes = static_cast<std::size_t>(d.size()) * runtime::dtype_size(d.dtype());
    auto twin = std::make_shared<const DeviceTwin>(DeviceTwin{d.memory, &gpu_});
    auto fetch = [gpu = shared_gpu_, memory = d.memory, bytes](void* to) {
      std::lock_guard lock(gpu->run_lock());
      gpu->make_current();
      gpu->download(to, memory->pointer(), bytes);
    };
    return Tensor::over(runtime::Buffer::deferred(bytes, std::move(fetch), std::move(twin)),
                        d.dtype(), d.shape());
  }

 private:
  static constexpr std::int64_t kSlots = 64;

  // ---- memory and copies ----
  DTensor allocate(DType dtype, Shape shape, const std::string& what) {
    const std::size_t bytes =
        static_cast<std::size_t>(std::max<std::int64_t>(1, runtime::element_count(shape))) *
        runtime::dtype_size(dtype);
    auto memory = gpu_.allocate(bytes, what);
    auto strides = runtime::row_major_strides(shape);
    Tensor view = Tensor::borrow_strided(reinterpret_cast<void*>(memory->pointer()), dtype,
                                         std::move(shape), std::move(strides));
    return {std::move(view), std::move(memory)};
  }
  DTensor make(std::size_t i, DType dtype, Shape shape) { return allocate(dtype, shape, what(i)); }
  std::string what(std::size_t i) const {
    const auto& n = g_.nodes[i];
    return n.op == ir::Op::input ? n.name
                                 : "%" + std::to_string(i) + " (" + ir::op_name(n.op) + ")";
  }

  DTensor upload(const Tensor& host, const std::string& name) {
    const Tensor c = host.contiguous() ? host : host.compact();
    DTensor d = allocate(c.dtype(), c.shape(), name);
    gpu_.upload(d.at(), c.raw(),
                static_cast<std::size_t>(c.size()) * runtime::dtype_size(c.dtype()));
    return d;
  }
  // A host value this GPU made and nothing has read since: its device
  // memory, without a copy.
  std::optional<DTensor> twin_of(const Tensor& host) {
    const auto& buffer = host.buffer();
    if (!buffer || !host.contiguous() || host.offset() != 0) return std::nullopt;
    const auto twin = std::static_pointer_cast<const DeviceTwin>(buffer->twin());
    if (!twin || twin->gpu != &gpu_) return std::nullopt;
    const std::size_t bytes =
        static_cast<std::size_t>(host.size()) * runtime::dtype_size(host.dtype());
    if (bytes > twin->memory->bytes()) return std::nullopt;
    return DTensor{
        Tensor::borrow_strided(reinterpret_cast<void*>(twin->memory->pointer()), host.dtype(),
                               host.shape(), runtime::row_major_strides(host.shape())),
        twin->memory};
  }

  Tensor download(const DTensor& d) {
    const DTensor c = compact(d);
    Tensor host = Tensor::uninitialized(c.dtype(), c.shape());
    gpu_.download(host.raw(), c.at(),
                  static_cast<std::size_t>(c.size()) * runtime::dtype_size(c.dtype()));
    return host;
  }

  // ---- pointwise work ----
  // out (any strides) = op(inputs broadcast into out's shape).
  void pointwise(const Pointwise& op, const std::vector<const DTensor*>& ins, const DTensor& out) {
    const Shape& shape = out.shape();
    if (shape.size() > static_cast<std::size_t>(kMaxRank) || !on_device(out.dtype()))
      throw NotOnDevice{};
    Layout l;
    l.rank = static_cast<int>(shape.size());
    std::vector<DType> types;
    for (std::size_t k = 0; k < ins.size(); ++k) {
      const DTensor& x = *ins[k];
      if (!on_device(x.dtype()) || x.shape().size() > shape.size()) throw NotOnDevice{};
      types.push_back(x.dtype());
      const std::size_t lead = shape.size() - x.shape().size();
      for (std::size_t d = 0; d < x.shape().size(); ++d)
        l.stride[k][lead + d] = x.shape()[d] == 1 ? 0 : x.view.strides()[d];
    }
    for (std::size_t d = 0; d < shape.size(); ++d) {
      l.shape[d] = shape[d];
      l.stride[3][d] = out.view.strides()[d];
    }
    std::string name = "ss_pw_" + std::to_string(static_cast<int>(op.kind)) + "_" +
                       std::to_string(op.sub) + (op.integers ? "i" : "") + "_";
    for (const DType t : types) name += dtype_tag(t) + "_";
    name += dtype_tag(out.dtype());
    const CUfunction f = gpu_.kernel(pointwise_source(op, types, out.dtype(), name), name);
    Params p;
    for (std::size_t k = 0; k < 3; ++k) p.add(k < ins.size() ? ins[k]->at() : out.at());
    p.add(out.at()).add(l).add(static_cast<long long>(out.size()));
    gpu_.launch(f, out.size(), p.get());
  }
  DTensor compact(const DTensor& x) {
    if (x.view.contiguous() || !x.memory) return x;
    DTensor c = allocate(x.dtype(), x.shape(), "a compact copy");
    pointwise({}, {&x}, c);
    return c;
  }
  DTensor cast(const DTensor& x, DType to) {
    if (x.dtype() == to) return x;
    DTensor c = allocate(to, x.shape(), "a cast");
    pointwise({}, {&x}, c);
    return c;
  }
  void fill(const DTensor& out, double value) {
    if (!on_device(out.dtype())) throw NotOnDevice{};
    const std::string name = "ss_fill_" + dtype_tag(out.dtype());
    const CUfunction f = gpu_.kernel(fill_source(out.dtype(), name), name);
    Params p;
    p.add(out.at()).add(value).add(static_cast<long long>(out.size()));
    gpu_.launch(f, out.size(), p.get());
  }
  // x with `axes` moved last (in order), compact.
  DTensor axes_last(const DTensor& x, const std::vector<std::int64_t>& axes) {
    std::vector<std::int64_t> order;
    for (std::int64_t d = 0; d < static_cast<std::int64_t>(x.shape().size()); ++d)
      if (std::find(axes.begin(), axes.end(), d) == axes.end()) order.push_back(d);
    order.insert(order.end(), axes.begin(), axes.end());
    return compact(x.with(x.view.permute(order)));
  }
  // Each row's reduction of a compact [rows, group] value: f32 [rows].
  DTensor reduce_rows(ir::Reduce op, const DTensor& x, std::int64_t rows, std::int64_t group) {
    if (!on_device(x.dtype())) throw NotOnDevice{};
    const std::string name =
        "ss_reduce_" + std::to_string(static_cast<int>(op)) + "_" + dtype_tag(x.dtype());
    const CUfunction f = gpu_.kernel(reduction_source(op, name, c_type(x.dtype())), name);
    DTensor out = allocate(DType::f32, {rows}, "a reduction");
    Params p;
    p.add(x.at())
        .add(out.at())
        .add(static_cast<long long>(rows))
        .add(static_cast<long long>(group));
    if (rows > 0)
      gpu_.launch_grid(f, static_cast<unsigned>(std::min<std::int64_t>(rows, 65535)), 1, 1,
                       kReduceThreads, 1, p.get());
    return out;
  }
  // log_softmax (or softmax) of a float value along `axis`, compact, in
  // the reference's steps: x - logsumexp(x), then exp.
  DTensor softmax(const DTensor& x, std::int64_t axis, bool log) {
    if (x.dtype() != DType::f32) throw NotOnDevice{};
    const std::int64_t rank = static_cast<std::int64_t>(x.shape().size());
    const DTensor moved = axes_last(x, {axis});
    const std::int64_t group = x.shape()[static_cast<std::size_t>(axis)];
    const std::int64_t rows = group ? moved.size() / group : 0;
    const DTensor lse = reduce_rows(ir::Reduce::logsumexp, moved, rows, group);
    const DTensor matrix = moved.with(moved.view.reshape({rows, group}));
    const DTensor column = lse.with(lse.view.reshape({rows, 1}));
    DTensor shifted = allocate(DType::f32, {rows, group}, "a softmax");
    pointwise({Pointwise::Kind::binary, static_cast<int>(ir::Binary::sub)}, {&matrix, &column},
              shifted);
    if (!log)
      pointwise({Pointwise::Kind::unary, static_cast<int>(ir::Unary::exp)}, {&shifted}, shifted);
    Shape moved_shape = moved.shape();
    DTensor result = shifted.with(shifted.view.reshape(moved_shape));
    return compact(result.with(result.view.permute(back_from_last(rank, axis))));
  }
  // The permutation that undoes axes_last(x, {axis}) for x of `rank` axes.
  static std::vector<std::int64_t> back_from_last(std::size_t rank, std::int64_t axis) {
    std::vector<std::int64_t> back(rank);
    for (std::int64_t d = 0, k = 0; d < static_cast<std::int64_t>(rank); ++d)
      if (d != axis) back[static_cast<std::size_t>(d)] = k++;
    back[static_cast<std::size_t>(axis)] = static_cast<std::int64_t>(rank) - 1;
    return back;
  }

  // ---- contractions ----
  // C[t] = A[t] (m x k) @ B[t] (k x n), each compact.
  void gemm(std::int64_t m, std::int64_t n, std::int64_t k, const DTensor& a, std::int64_t sa,
            const DTensor& b, std::int64_t sb, const DTensor& c, std::int64_t sc,
            std::int64_t batches) {
    if (m == 0 || n == 0 || batches == 0) return;
    if (k == 0) return gpu_.set_bytes(c.at(), 0, static_cast<std::size_t>(c.size()) * 4);
    constexpr std::int64_t kInt = INT_MAX;
    if (cublas_ && m <= kInt && n <= kInt && k <= kInt && batches <= kInt) {
      const auto status =
          gpu_.blas()->gemm(m, n, k, a.at(), sa, b.at(), sb, c.at(), sc, batches, precision_);
      if (status != cublas_abi::kSuccess)
        throw runtime::DeviceError(
            diag::Code::E1910,
            "cuBLAS's GEMM failed with status " + std::to_string(status) + " on " + gpu_.name(),
            "a cuBLAS that matches the driver avoids it; --precision f32 "
            "uses no tensor-core path");
      return;
    }
    if (batches > 65535 || (n + kGemmTile - 1) / kGemmTile > INT_MAX ||
        (m + kGemmTile - 1) / kGemmTile > 65535)
      throw NotOnDevice{};
    const CUfunction f = gpu_.kernel(gemm_source("ss_gemm"), "ss_gemm");
    Params p;
    p.add(a.at()).add(b.at()).add(c.at());
    for (const std::int64_t v : {m, n, k, sa, sb, sc}) p.add(static_cast<long long>(v));
    gpu_.launch_grid(f, static_cast<unsigned>((n + kGemmTile - 1) / kGemmTile),
                     static_cast<unsigned>((m + kGemmTile - 1) / kGemmTile),
                     static_cast<unsigned>(batches), kGemmTile, kGemmTile, p.get());
  }
  DTensor einsum(std::size_t i, const ir::Node& n, const DTensor& a, const DTensor& b) {
    if (a.dtype() != DType::f32 || b.dtype() != DType::f32) throw NotOnDevice{};
    const auto plan = runtime::plan_einsum(n, a.shape(), b.shape());
    if (!plan) throw NotOnDevice{};
    const DTensor left = compact(a.with(a.view.permute(plan->a_order)));
    const DTensor right = compact(b.with(b.view.permute(plan->b_order)));
    DTensor result = make(i, DType::f32, plan->computed);
    gemm(plan->m, plan->n, plan->k, left, plan->m * plan->k, right, plan->k * plan->n, result,
         plan->m * plan->n, plan->batches);
    if (plan->out_order.empty()) return result;
    return compact(result.with(result.view.permute(plan->out_order)));
  }

  // ---- fused regions ----
  // The kernel on the GPU, or false when an input's layout isn't one its
  // code reads (then its nodes run one by one).
  bool fused(int k, std::size_t root) {
    const auto& kernel = plan_.kernels[static_cast<std::size_t>(k)];
    const Shape shape = runtime::shape_of(g_.nodes[root].type, sizes_, dims_);
    const std::int64_t total = runtime::element_count(shape);
    const std::int64_t inner = shape.empty() ? 1 : shape.back();
    const std::int64_t outer = inner ? total / inner : 0;
    const auto& flags = plan_.inner_broadcast[static_cast<std::size_t>(k)];
    const std::size_t slots = std::max<std::size_t>(1, kernel.inputs.size());
    std::vector<unsigned char> args(slots * 16, 0);
    std::vector<DTensor> kept;
    for (std::size_t j = 0; j < kernel.inputs.size(); ++j) {
      const DTensor& x = values_[static_cast<std::size_t>(kernel.inputs[j])];
      if (x.dtype() != DType::f32 && x.dtype() != DType::boolean) return false;
      if (x.shape().size() > shape.size()) return false;
      const std::int64_t n = x.size();
      long long stride = 0;
      if (flags[j] == 0) {
        if (!x.shape().empty() && x.shape().back() != inner && total > 0) return false;
        if (x.shape().empty() && inner != 1) return false;
        const std::int64_t rows = inner ? n / inner : 0;
        if (rows == outer && outer != 1)
          stride = inner;
        else if (rows != 1 && total > 0)
          return false;
      } else {
        if (!x.shape().empty() && x.shape().back() != 1 && inner != 1) return false;
        if (n == outer && outer != 1)
          stride = 1;
        else if (n != 1 && total > 0)
          return false;
      }
      kept.push_back(compact(x));
      const CUdeviceptr p = kept.back().at();
      std::memcpy(args.data() + j * 8, &p, 8);
      std::memcpy(args.data() + (slots + j) * 8, &stride, 8);
    }
    DTensor out = make(root, DType::f32, shape);
    const std::string& name = plan_.names[static_cast<std::size_t>(k)];
    const CUfunction f = gpu_.kernel(plan_.sources[static_cast<std::size_t>(k)], name);
    const CUdeviceptr out_at = out.at();
    const long long o = outer, in = inner;
    void* params[] = {args.data(), const_cast<CUdeviceptr*>(&out_at), const_cast<long long*>(&o),
                      const_cast<long long*>(&in)};
    gpu_.launch(f, total, params);
    values_[root] = std::move(out);
    counts_.nodes["fused"] += 1 + static_cast<std::int64_t>(kernel.members.size());
    ++counts_.fused;
    return true;
  }

  // ---- one node ----
  void node(std::size_t i) {
    const ir::Node& n = g_.nodes[i];
    try {
      const char* path = device_node(i, n);
      ++counts_.nodes[path];
    } catch (const NotOnDevice&) {
      on_host(i, n);
      ++counts_.nodes[std::string("host ") + ir::op_name(n.op)];
    }
    const DType want = runtime::dtype_of(n.type.elem);
    if (values_[i].dtype() != want) {
      if (on_device(values_[i].dtype()) && on_device(want)) {
        values_[i] = cast(values_[i], want);
      } else {
        Tensor t = ref::cast(download(values_[i]), want);
        values_[i] = upload(t, what(i));
      }
    }
  }

  // The reference operation on the host, its operands copied over.
  void on_host(std::size_t i, const ir::Node& n) {
    for (const int k : n.in)
      if (host_[static_cast<std::size_t>(k)].shape().empty() &&
          host_[static_cast<std::size_t>(k)].buffer() == nullptr)
        host_[static_cast<std::size_t>(k)] = download(values_[static_cast<std::size_t>(k)]);
    runtime::run_reference_node(g_, i, host_, inputs_, sizes_, dims_, worker_);
    values_[i] = upload(host_[i], what(i));
    for (const int k : n.in) host_[static_cast<std::size_t>(k)] = Tensor();
    host_[i] = Tensor();
  }

  const DTensor& in(const ir::Node& n, std::size_t k) const {
    return values_[static_cast<std::size_t>(n.in[k])];
  }

  // A range-checked kernel's error slot; check_ranges reads them.
  CUdeviceptr slot(std::size_t node, int operand, std::int64_t bound) {
    if (static_cast<std::int64_t>(checks_.size()) >= kSlots) throw NotOnDevice{};
    checks_.push_back(
        {node, operand, bound, in(g_.nodes[node], static_cast<std::size_t>(operand))});
    return errors_.at() + 8 * (checks_.size() - 1);
  }
  void check_ranges() {
    if (checks_.empty()) return;
    std::vector<unsigned long long> slots(static_cast<std::size_t>(kSlots));
    gpu_.download(slots.data(), errors_.at(), slots.size() * 8);
    for (std::size_t s = 0; s < checks_.size(); ++s) {
      if (slots[s] == ~0ull) continue;
      const auto position = static_cast<std::int64_t>(slots[s]);
      const Tensor ids = download(checks_[s].ids);
      throw ref::RangeError(static_cast<std::int64_t>(ids.get(position)), checks_[s].bound,
                            position);
    }
  }

  // Runs node i on the device and names its path, or throws NotOnDevice.
  const char* device_node(std::size_t i, const ir::Node& n) {
    DTensor& out = values_[i];
    const DType dtype = runtime::dtype_of(n.type.elem);
    using ir::Op;
    switch (n.op) {
      case Op::input: {
        const Tensor& host = inputs_.at(n.name);
        if (auto kept = twin_of(host)) {
          out = *kept;
          return "kept on device";
        }
        out = upload(host, n.name);
        return "copies in";
      }
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
        gpu_.launch(f, *s, p.get());
        return "created";
      }
      case Op::unary: {
        const auto op = static_cast<ir::Unary>(n.sub);
        const DTensor& x = in(n, 0);
        out = make(i, unary_dtype(op, x.dtype()), x.shape());
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
      case Op::matmul: {
        const DTensor &a0 = in(n, 0), &b0 = in(n, 1);
        if (a0.dtype() != DType::f32 || b0.dtype() != DType::f32 || a0.shape().empty() ||
            b0.shape().empty() || a0.shape().back() != b0.shape().front())
          throw NotOnDevice{};
        const DTensor a = compact(a0), b = compact(b0);
        const std::int64_t k = b.shape().front();
        const std::int64_t rows = product(a.shape(), 0, a.shape().size() - 1);
        const std::int64_t cols = product(b.shape(), 1, b.shape().size());
        Shape shape(a.shape().begin(), a.shape().end() - 1);
        shape.insert(shape.end(), b.shape().begin() + 1, b.shape().end());
        out = make(i, DType::f32, shape);
        gemm(rows, cols, k, a, 0, b, 0, out, 0, 1);
        return "gemm";
      }
      case Op::einsum: {
        if (n.in.size() == 2) {
          out = einsum(i, n, in(n, 0), in(n, 1));
          return "gemm";
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
      case Op::reduce: {
        const auto op = static_cast<ir::Reduce>(n.sub);
        const DTensor& x = in(n, 0);
        // Integer sums, maxima and minima stay integers on the host.
        if (x.dtype() == DType::i32 &&
            (op == ir::Reduce::sum || op == ir::Reduce::max || op == ir::Reduce::min))
          throw NotOnDevice{};
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
        gpu_.launch(f, rows, p.get());
        return "reductions";
      }
      case Op::softmax:
      case Op::log_softmax:
        out = softmax(in(n, 0), n.axes[0], n.op == Op::log_softmax);
        return "reductions";
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
        p.add(slot(i, 1, classes)).add(static_cast<int>(n.sub == 1));
        gpu_.launch_grid(f, 1, 1, 1, kThreads, 1, p.get());
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
        gpu_.launch(f, x.size(), p.get());
        return "kernels";
      }
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
        const std::string name =
            gather ? "ss_gather_" + dtype_tag(src.dtype()) : std::string("ss_scatter_add");
        const CUfunction f =
            gpu_.kernel(gather ? gather_source(src.dtype(), name) : scatter_add_source(name), name);
        Params p;
        p.add(src.at()).add(ids.at()).add(out.at());
        for (const std::int64_t v : {ids.size(), row, rows}) p.add(static_cast<long long>(v));
        p.add(slot(i, 1, rows));
        gpu_.launch(f, ids.size() * row, p.get());
        return gather ? "moves" : "kernels";
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
            .add(static_cast<long long>(group));
        if (rows > 0)
          gpu_.launch_grid(f, static_cast<unsigned>(std::min<std::int64_t>(rows, 65535)), 1, 1,
                           kThreads, 1, p.get());
        out = compact(normed.with(normed.view.permute(back_from_last(x.shape().size(), axis))));
        return "reductions";
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
        p.add(slot(i, 1, size));
        gpu_.launch(f, x.size(), p.get());
        return "moves";
      }
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
      case Op::all_reduce:
        // Several workers sum through the collectives, on the host's copy
        // (NCCL's stage it on the GPU again); one device holds every part.
        if (worker_) throw NotOnDevice{};
        out = in(n, 0);
        return "moves";
      case Op::sort:
      case Op::argsort:
      case Op::random:
      case Op::window:
      case Op::window_fold:
        throw NotOnDevice{};  // cuda_runs_on_host says why
    }
    throw NotOnDevice{};
  }

  // An einops node as views and one copy (runtime/fast_loops.cpp's
  // rearrange, on the device); sums and means of floats by the reduction
  // kernels.
  DTensor einops(std::size_t i, const ir::Node& n) {
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

  struct Check {
    std::size_t node;
    int operand;
    std::int64_t bound;
    DTensor ids;
  };

  std::shared_ptr<Gpu> shared_gpu_;
  Gpu& gpu_;
  const ir::Graph& g_;
  const GraphPlan& plan_;
  const std::map<std::string, Tensor>& inputs_;
  const runtime::Dims& dims_;
  runtime::WorkerContext* worker_;  // one of several workers', or null
  Precision precision_;
  bool cublas_;
  Counts& counts_;
  std::map<std::string, std::int64_t> sizes_;
  std::vector<DTensor> values_;
  std::vector<Tensor> host_;
  DTensor errors_;
  std::vector<Check> checks_;
};

class CudaExecutor final : public runtime::Accelerator {
 public:
  CudaExecutor(std::shared_ptr<Gpu> gpu, Precision precision, bool cublas)
      : gpu_(std::move(gpu)), precision_(precision), cublas_(cublas) {}

  bool run(const ir::Graph&, std::size_t, std::vector<Tensor>&,
           const std::map<std::string, std::int64_t>&, const runtime::Dims&) const override {
    return false;
  }
  std::shared_ptr<const ir::ReleasePlan> releases(const ir::Graph&) const override {
    return nullptr;
  }

  bool run_whole(const ir::Graph& g, const std::map<std::string, Tensor>& inputs,
                 const runtime::Dims& dims, runtime::WorkerContext* worker,
                 std::vector<Tensor>& outputs) const override {
    std::shared_ptr<const GraphPlan> plan;
    {
      std::lock_guard lock(g.device_plan.mutex);
      if (!g.device_plan.value) g.device_plan.value = make_plan(g);
      plan = std::static_pointer_cast<const GraphPlan>(g.device_plan.value);
    }
    std::lock_guard lock(gpu_->run_lock());  // one stream: one graph at a time
    gpu_->make_current();
    outputs = GraphRun(gpu_, g, *plan, inputs, dims, worker, precision_, cublas_, counts_).run();
    return true;
  }

  CudaCounts counts() const {
    std::lock_guard lock(gpu_->run_lock());
    CudaCounts c;
    c.nodes = counts_.nodes;
    c.graphs = counts_.graphs;
    c.fused_kernels = counts_.fused;
    const GpuStats s = gpu_->stats();
    c.allocations = s.allocations;
    c.reused = s.reused;
    c.kernels_compiled = s.kernels_compiled;
    c.kernels_from_store = s.kernels_from_store;
    c.cublas = cublas_ && gpu_->blas();
    return c;
  }

 private:
  std::shared_ptr<Gpu> gpu_;
  Precision precision_;
  bool cublas_;
  mutable Counts counts_;  // under the GPU's run lock
};

}  // namespace

std::unique_ptr<runtime::Accelerator> make_cuda_executor(CudaExecutorOptions options,
                                                         std::string* why) {
  auto gpu = Gpu::open(options.driver, options.nvrtc, options.device, options.code_cache, why);
  if (!gpu) return nullptr;
  return std::make_unique<CudaExecutor>(std::move(gpu), options.precision, options.cublas);
}

// Each op the CUDA executor runs on the host, and why (null: on the
// device). Every op is a case: a new row of ir/ops.def doesn't build until
// it is decided here.
const char* cuda_runs_on_host(ir::Op op) {
  switch (op) {
    case ir::Op::sort:
      return "no device sort yet: the host's, its values copied across";
    case ir::Op::argsort:
      return "no device sort yet: the host's, its values copied across";
    case ir::Op::random:
      return "the host's counter-based draws, copied in";
    case ir::Op::window:
      return "no device kernel yet (the GPU issue adds it): the host's";
    case ir::Op::window_fold:
      return "no device kernel yet (the GPU issue adds it): the host's";
    case ir::Op::input:
    case ir::Op::constant:
    case ir::Op::size:
    case ir::Op::fill:
    case ir::Op::unary:
    case ir::Op::binary:
    case ir::Op::where:
    case ir::Op::cast:
    case ir::Op::matmul:
    case ir::Op::reduce:
    case ir::Op::argmax:
    case ir::Op::softmax:
    case ir::Op::log_softmax:
    case ir::Op::cross_entropy:
    case ir::Op::causal:
    case ir::Op::gather:
    case ir::Op::index:
    case ir::Op::slice:
    case ir::Op::einops:
    case ir::Op::einsum:
    case ir::Op::layer_norm:
    case ir::Op::rms_norm:
    case ir::Op::concat:
    case ir::Op::stack:
    case ir::Op::pad:
    case ir::Op::literal:
    case ir::Op::arange:
    case ir::Op::scatter_add:
    case ir::Op::place:
    case ir::Op::take_along:
    case ir::Op::all_reduce:
      return nullptr;
  }
  return nullptr;
}

bool is_cuda_executor(const runtime::Accelerator& accelerator) {
  return dynamic_cast<const CudaExecutor*>(&accelerator) != nullptr;
}

CudaCounts cuda_counts(const runtime::Accelerator& accelerator) {
  const auto* e = dynamic_cast<const CudaExecutor*>(&accelerator);
  return e ? e->counts() : CudaCounts{};
}

}  // namespace ss::cuda
