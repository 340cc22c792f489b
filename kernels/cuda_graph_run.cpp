#include "kernels/cuda_graph_run.hpp"

#include "support/inline_vector.hpp"

namespace ss::cuda::detail {

std::string bf16_kernel_name(const std::string& base, const std::vector<std::uint8_t>& inputs,
                             bool out) {
  std::string name = base + "_bf16_" + (out ? "o" : "");
  for (const std::uint8_t b : inputs) name += b ? '1' : '0';
  return name;
}

std::shared_ptr<const GraphPlan> make_plan(const ir::Graph& g) {
  auto plan = std::make_shared<GraphPlan>();
  const std::size_t n = g.nodes.size();
  plan->root_of.assign(n, -1);
  plan->member.assign(n, 0);
  plan->made_at_root.assign(n, 0);
  plan->epilogues.assign(n, {});
  std::vector<int> read_at(n);
  std::iota(read_at.begin(), read_at.end(), 0);
  const std::vector<int> uses = ir::use_counts(g);
  const auto fold = [&](std::size_t root, GemmEpilogue e) {
    if (e.product < 0) return;
    plan->epilogues[root] = e;
    plan->made_at_root[static_cast<std::size_t>(e.product)] = 1;
    read_at[static_cast<std::size_t>(e.product)] = static_cast<int>(root);
  };
  for (auto kernel : ir::plan_fusion(g)) {
    const int k = static_cast<int>(plan->kernels.size());
    // A bias (and ReLU) over a product goes into the GEMM by cuBLASLt where
    // it can, so the product is made at the root, its operands kept till
    // then. Otherwise the GPU makes a kernel's root whole: a fused
    // reduction or a GEMM epilogue runs as its own node after it.
    fold(static_cast<std::size_t>(kernel.root), gemm_epilogue(g, kernel));
    kernel.reduce = -1;
    kernel.epilogue = -1;
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
  for (std::size_t i = 0; i < n; ++i)  // a lone add of a bias
    if (plan->root_of[i] < 0 && !plan->member[i] && !plan->made_at_root[i])
      fold(i, gemm_epilogue(g, i, uses));
  // A convolution's window, or its input gradient's einsum, is made by its
  // reader (on cuDNN where it can), so its inputs are read where the last
  // reader reads them: a product made at its epilogue's root reads there.
  const ir::ConvDeferral conv = ir::plan_conv_deferral(g, [&](std::size_t i) {
    return plan->member[i] || plan->made_at_root[i] || plan->root_of[i] >= 0;
  });
  plan->deferred = conv.deferred;
  plan->bf16_storage = bf16_storage(g, plan->kernels, plan->root_of, plan->member);
  for (std::size_t k = 0; k < plan->kernels.size(); ++k) {
    const auto& kernel = plan->kernels[k];
    std::vector<std::uint8_t> in;
    for (const int x : kernel.inputs) in.push_back(plan->bf16_storage[static_cast<std::size_t>(x)]);
    const bool out = plan->bf16_storage[static_cast<std::size_t>(kernel.root)];
    const bool any = out || std::find(in.begin(), in.end(), 1) != in.end();
    const std::string name = any ? bf16_kernel_name(plan->names[k], in, out) : "";
    plan->bf16_sources.push_back(
        any ? elementwise_source(kernel, plan->inner_broadcast[k], name, in, out) : "");
    plan->bf16_names.push_back(name);
    plan->bf16_inputs.push_back(std::move(in));
    plan->bf16_out.push_back(out);
  }
  for (std::size_t r = 0; r < n; ++r)
    for (const int x : g.nodes[r].in)
      if (conv.deferred[static_cast<std::size_t>(x)])
        read_at[static_cast<std::size_t>(x)] =
            std::max(read_at[static_cast<std::size_t>(x)], read_at[r]);
  plan->releases = ir::plan_releases(g, read_at);
  plan->bodies.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    if (g.nodes[i].body) plan->bodies[i] = make_plan(*g.nodes[i].body);
  return plan;
}

std::vector<Tensor> GraphRun::run() {
  std::vector<Tensor> out;
  for (const DTensor& d : run_on_device()) out.push_back(hand_out(shared_gpu_, d));
  return out;
}

std::vector<DTensor> GraphRun::run_on_device() {
  checks_.errors = allocate(DType::i32, {2 * kSlots}, "range checks");
  gpu_.set_bytes(checks_.errors.at(), 0xff, kSlots * 8);
  for (std::size_t i = 0; i < g_.nodes.size(); ++i) {
    if (!plan_.member[i] && !plan_.made_at_root[i] && !plan_.deferred[i]) {
      const int k = plan_.root_of[i];
      const GemmEpilogue& e = plan_.epilogues[i];
      bool done = e.product >= 0 && gemm_with_epilogue(e, i);
      if (e.product >= 0 && !done)
        node(static_cast<std::size_t>(e.product));  // late, where the plan kept its operands
      if (k >= 0 && !done) done = fused(k, i);
      if (!done) {
        if (k >= 0)  // its members one by one, then the root
          for (const int m : plan_.kernels[static_cast<std::size_t>(k)].members)
            node(static_cast<std::size_t>(m));
        node(i);
      }
    }
    for (const int v : plan_.releases[i]) values_[static_cast<std::size_t>(v)] = DTensor();
  }
  if (capture_) {
    if (!checks_.checks.empty()) capture_->checks.push_back(checks_);
  } else {
    check_ranges(gpu_, checks_);
  }
  std::vector<DTensor> out;
  for (const int o : g_.outputs) out.push_back(owned(values_[static_cast<std::size_t>(o)]));
  ++counts_.graphs;
  return out;
}

DTensor GraphRun::owned(const DTensor& value) {
  DTensor d = compact(value);
  if (d.at() != d.memory->pointer()) {  // a view into other memory: its own copy
    DTensor own = allocate(d.dtype(), d.shape(), "an output");
    pointwise({}, {&d}, own);
    d = own;
  }
  return d;
}

Tensor hand_out(const std::shared_ptr<Gpu>& gpu, const DTensor& d, bool refetchable) {
  const std::size_t bytes = static_cast<std::size_t>(d.size()) * runtime::dtype_size(d.dtype());
  auto twin = std::make_shared<const DeviceTwin>(DeviceTwin{d.memory, gpu.get()});
  auto fetch = [gpu, memory = d.memory, bytes](void* to) {
    std::lock_guard lock(gpu->run_lock());
    gpu->make_current();
    gpu->download(to, memory->pointer(), bytes);
  };
  return Tensor::over(
      runtime::Buffer::deferred(bytes, std::move(fetch), std::move(twin), refetchable), d.dtype(),
      d.shape());
}

void check_ranges(Gpu& gpu, const RangeChecks& r) {
  if (r.checks.empty()) return;
  support::InlineVector<unsigned long long, 16> slots(r.checks.size());
  gpu.download(slots.begin(), r.errors.at(), slots.size() * 8);
  for (std::size_t s = 0; s < r.checks.size(); ++s) {
    if (slots[s] == ~0ull) continue;
    const auto position = static_cast<std::int64_t>(slots[s]);
    const RangeCheck& c = r.checks[s];
    Tensor ids = Tensor::uninitialized(c.ids.dtype(), c.ids.shape());
    gpu.download(ids.raw(), c.ids.at(),
                 static_cast<std::size_t>(ids.size()) * runtime::dtype_size(ids.dtype()));
    throw ref::RangeError(static_cast<std::int64_t>(ids.get(position)), c.bound, position);
  }
}

DTensor GraphRun::allocate(DType dtype, Shape shape, const std::string& what) {
  const std::size_t bytes =
      static_cast<std::size_t>(std::max<std::int64_t>(1, runtime::element_count(shape))) *
      runtime::dtype_size(dtype);
  auto memory = gpu_.allocate(bytes, what);
  auto strides = runtime::row_major_strides(shape);
  Tensor view = Tensor::borrow_strided(reinterpret_cast<void*>(memory->pointer()), dtype,
                                       std::move(shape), std::move(strides));
  return {std::move(view), std::move(memory)};
}

std::string GraphRun::what(std::size_t i) const {
  const auto& n = g_.nodes[i];
  return n.op == ir::Op::input ? n.name : "%" + std::to_string(i) + " (" + ir::op_name(n.op) + ")";
}

DTensor GraphRun::upload(const Tensor& host, const std::string& name) {
  const Tensor c = host.contiguous() ? host : host.compact();
  DTensor d = allocate(c.dtype(), c.shape(), name);
  gpu_.upload(d.at(), c.raw(), static_cast<std::size_t>(c.size()) * runtime::dtype_size(c.dtype()));
  return d;
}

namespace {

// `host`'s elements as they lie in a device copy of them, row-major: the
// last call's view where it is the same (a replayed call makes no tensor).
DTensor device_view(const DeviceTwin& twin, const Tensor& host, Tensor* last) {
  void* at = reinterpret_cast<void*>(twin.memory->pointer());
  if (last && last->buffer() && last->raw() == at && last->dtype() == host.dtype() &&
      last->shape() == host.shape())
    return DTensor{*last, twin.memory};
  Tensor view = Tensor::borrow_strided(at, host.dtype(), host.shape(),
                                       runtime::row_major_strides(host.shape()));
  if (last) *last = view;
  return DTensor{std::move(view), twin.memory};
}

}  // namespace

std::optional<DTensor> twin_of(const Gpu& gpu, const Tensor& host, Tensor* view) {
  const auto& buffer = host.buffer();
  if (!buffer || !host.contiguous() || host.offset() != 0) return std::nullopt;
  const auto twin = std::static_pointer_cast<const DeviceTwin>(buffer->twin());
  if (!twin || twin->gpu != &gpu) return std::nullopt;
  const std::size_t bytes =
      static_cast<std::size_t>(host.size()) * runtime::dtype_size(host.dtype());
  if (bytes > twin->memory->bytes()) return std::nullopt;
  return device_view(*twin, host, view);
}

std::optional<DTensor> resident_copy(Gpu& gpu, const Tensor& host, const std::string& name,
                                     Tensor* view) {
  const auto& buffer = host.buffer();
  if (!buffer || !buffer->frozen() || !host.contiguous()) return std::nullopt;
  const auto bytes = static_cast<std::int64_t>(host.size() * runtime::dtype_size(host.dtype()));
  // Tagged 1: a device copy (the CPU executor's packed panels are tagged 0).
  const runtime::Buffer::DerivedKey key{
      host.offset(), bytes, gpu.index(), static_cast<std::int64_t>(host.dtype()), 0, 1};
  const auto kept = std::static_pointer_cast<const DeviceTwin>(buffer->derived(key, [&] {
    const Tensor c = host.contiguous() ? host : host.compact();
    auto memory = gpu.allocate(static_cast<std::size_t>(std::max<std::int64_t>(bytes, 1)), name);
    gpu.upload(memory->pointer(), c.raw(), static_cast<std::size_t>(bytes));
    return std::static_pointer_cast<const void>(
        std::make_shared<const DeviceTwin>(DeviceTwin{memory, &gpu}));
  }));
  if (!kept || kept->gpu != &gpu) return std::nullopt;
  return device_view(*kept, host, view);
}

Tensor GraphRun::download(const DTensor& d) {
  const DTensor c = compact(d);
  Tensor host = Tensor::uninitialized(c.dtype(), c.shape());
  gpu_.download(host.raw(), c.at(),
                static_cast<std::size_t>(c.size()) * runtime::dtype_size(c.dtype()));
  return host;
}

}  // namespace ss::cuda::detail
