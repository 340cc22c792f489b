#include <cstring>
#include <map>

#include "ir/conv_deferral.hpp"
#include "runtime/core/aligned_scratch.hpp"
#include "runtime/fast/fast_executor_impl.hpp"

namespace ss::runtime::fastexec {

const FusionPlan* FastExecutor::plan_for(const ir::Graph& g) const {
  return plans_.get(g, maker(), false).get();
}

void FastExecutor::plan(const ir::Graph& g) const {
  plans_.plan_at_load(g, maker());
}

std::string FastExecutor::listing(const ir::Graph& g, std::string_view pass) const {
  const FusionPlan& p = *plan_for(g);
  if (pass == "fuse") return ir::print_fusion(g, p.kernels);
  std::string s = "graph " + g.name + "\n  on " + name() + (jit_ ? "" : " (no JIT: node by node)") +
                  "\n" + ir::print_kernels(p.kernels);
  for (std::size_t i = 0; i < p.deferred.size(); ++i)
    if (p.deferred[i]) s += "  %" + std::to_string(i) + " made by what reads it\n";
  return s + ir::print_releases(*p.releases);
}

std::shared_ptr<const FusionPlan> FastExecutor::make_plan(const ir::Graph& g) const {
  auto plan = std::make_shared<FusionPlan>();
  plan->counters = std::make_shared<GraphCounters>();
  plan->counters->name = g.name;
  {
    std::lock_guard registry(registry_mutex_);
    registry_.push_back(plan->counters);
  }
  plan->kernel_at.assign(g.nodes.size(), -1);
  plan->member.assign(g.nodes.size(), false);
  plan->reduce_at.assign(g.nodes.size(), -1);
  auto kernels = jit_ ? ir::plan_fusion(g) : std::vector<ir::FusedKernel>{};
  // One compiled function per distinct kernel: the same code (a parameter's
  // optimiser step, a layer's elementwise tail) serves every kernel that
  // has it, so compile time follows a graph's kinds of kernels, not their
  // count (a model of 32 layers compiles what one of 2 does).
  std::vector<std::vector<SsJitStep>> steps(kernels.size());
  std::vector<SsJitKernelDesc> descs;
  std::vector<std::size_t> code_of(kernels.size());  // each kernel's entry in descs
  std::map<std::string, std::size_t> distinct;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const ir::FusedKernel& kernel = kernels[k];
    const auto& flags = plan->inner_broadcast.emplace_back(ir::inner_broadcast(g, kernel));
    steps[k] = jit_steps(kernel.steps, options_.portable);
    std::string key = std::to_string(kernel.inputs.size()) + ":";
    key.append(flags.begin(), flags.end());
    for (const SsJitStep& st : steps[k]) {  // constants by their bits
      std::uint32_t narrow = 0;
      std::uint64_t wide = 0;
      std::memcpy(&narrow, &st.value, sizeof narrow);
      std::memcpy(&wide, &st.wide_value, sizeof wide);
      key += ";" + std::to_string(st.op) + "," + std::to_string(st.kind) + "," +
             std::to_string(st.a) + "," + std::to_string(st.b) + "," + std::to_string(st.c) + "," +
             std::to_string(narrow) + "," + std::to_string(wide);
    }
    const auto [at, fresh] = distinct.emplace(std::move(key), descs.size());
    code_of[k] = at->second;
    if (fresh)
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
      for (const std::size_t c : code_of)
        fns.push_back(reinterpret_cast<SsJitKernelFn>(code->fns.at(c)));
      plan->code = std::move(code->link);
      const auto n = static_cast<std::int64_t>(descs.size());
      (code->origin == CodeOrigin::compiled ? kernels_
       : code->origin == CodeOrigin::memory ? from_memory_
                                            : from_store_) += n;
    } else {
      kernels.clear();  // node by node, as without the JIT, and counted
      ++jit_failures_;
      std::lock_guard lock(jit_error_mutex_);
      jit_error_ = std::move(error);
    }
  }
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    plan->gemm_epilogues.push_back(ir::gemm_epilogue(g, kernels[k]));
    const auto root = static_cast<std::size_t>(kernels[k].root);
    if (kernels[k].reduce >= 0) {  // run with its reduction, the root never stored
      plan->reduce_at[static_cast<std::size_t>(kernels[k].reduce)] = static_cast<int>(k);
      plan->member[root] = true;
    } else {
      plan->kernel_at[root] = static_cast<int>(k);
    }
    for (const int m : kernels[k].members) plan->member[static_cast<std::size_t>(m)] = true;
    if (kernels[k].epilogue >= 0)  // the product is made inside the kernel's run
      plan->member[static_cast<std::size_t>(
          kernels[k].inputs[static_cast<std::size_t>(kernels[k].epilogue)])] = true;
  }
  // A convolution's window and its input gradient's einsum, left unmade:
  // what reads them computes them (ir/conv_deferral.hpp).
  const ir::ConvDeferral conv =
      ir::plan_conv_deferral(g, [&](std::size_t i) { return plan->member[i]; });
  plan->deferred = conv.deferred;
  plan->grouped_at = conv.grouped_at;
  plan->grouped = conv.grouped;
  if (!kernels.empty() || conv.any) {
    std::vector<int> read_at = conv.read_at;
    for (const auto& kernel : kernels) {
      const int at = kernel.reduce >= 0 ? kernel.reduce : kernel.root;
      for (const int m : kernel.members) read_at[static_cast<std::size_t>(m)] = at;
      read_at[static_cast<std::size_t>(kernel.root)] = at;
      if (kernel.epilogue >= 0)
        read_at[static_cast<std::size_t>(
            kernel.inputs[static_cast<std::size_t>(kernel.epilogue)])] = at;
    }
    // A convolution run inside its tail's kernel reads its inputs there,
    // and so do the deferred nodes it computes.
    const auto uses = ir::use_counts(g);
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      const ir::ConvEpilogue& e =
          plan->conv_epilogues.emplace_back(ir::conv_epilogue(g, kernels[k], conv, uses));
      if (e.conv < 0) continue;
      plan->member[static_cast<std::size_t>(e.conv)] = true;
      for (auto& at : read_at)
        if (at == e.conv) at = kernels[k].root;
      read_at[static_cast<std::size_t>(e.conv)] = kernels[k].root;
    }
    plan->releases = std::make_shared<const ir::ReleasePlan>(ir::plan_releases(g, read_at));
  } else {  // every node reads its inputs where it runs
    plan->releases = std::make_shared<const ir::ReleasePlan>(ir::plan_releases(g));
  }
  plan->counters->kernels = static_cast<std::int64_t>(kernels.size());
  plan->kernels = std::move(kernels);
  plan->fns = std::move(fns);
  return plan;
}

bool FastExecutor::bind(const FusionPlan& plan, std::size_t k, const std::vector<Tensor>& values,
                        KernelCall& call, const Tensor* stand_in) {
  const ir::FusedKernel& kernel = plan.kernels[k];
  const auto& flags = plan.inner_broadcast[k];
  for (std::size_t j = 0; j < kernel.inputs.size(); ++j) {
    const bool product = stand_in && static_cast<int>(j) == kernel.epilogue;
    call.inputs.push_back(product ? *stand_in : values[static_cast<std::size_t>(kernel.inputs[j])]);
    call.shape = reference::broadcast_shapes(call.shape, call.inputs.back().shape());
  }
  const Shape& shape = call.shape;
  const std::size_t rank = shape.size();
  call.inner = rank ? shape[rank - 1] : 1;
  call.outer = call.inner ? element_count(shape) / call.inner : 0;
  for (std::size_t j = 0; j < call.inputs.size(); ++j) {
    Tensor& t = call.inputs[j];
    std::int64_t row = 0;
    const bool broadcast = flags[j] != 0;
    if (!kernel_rows(broadcast_strides(t, rank), shape, broadcast, &row)) {
      t = materialize(t, shape);
      if (!kernel_rows(broadcast_strides(t, rank), shape, broadcast, &row)) return false;
    }
    call.pointers.push_back(t.raw());
    call.outer_strides.push_back(row);
  }
  return true;
}

void FastExecutor::run_kernel(const FusionPlan& plan, const ir::Graph& g, std::size_t k,
                              Tensor& out, std::vector<Tensor>& values) const {
  if (plan.kernels[k].epilogue >= 0 && run_epilogue(plan, g, k, out, values)) return;
  KernelCall call;
  if (!bind(plan, k, values, call)) {
    out = run_steps(plan.kernels[k], call.inputs.begin());
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

bool FastExecutor::run_conv_epilogue(const FusionPlan& plan, const ir::Graph& g, std::size_t k,
                                     Tensor& out, std::vector<Tensor>& values) const {
  const ir::ConvEpilogue& e = plan.conv_epilogues[k];
  const auto at = [](int i) { return static_cast<std::size_t>(i); };
  fast::ConvPostOps post;
  if (e.bias >= 0) {
    const Tensor& bias = values[at(e.bias)];
    if (bias.dtype() != DType::f32 || bias.rank() != 1 || !bias.contiguous()) return false;
    post.bias = static_cast<const float*>(bias.raw());
  }
  post.activation = e.activation;
  post.lo = e.lo;
  post.hi = e.hi;
  Tensor made;
  if (const int chain = plan.grouped_at[at(e.conv)]; chain >= 0) {
    const ir::GroupedConv& c = plan.grouped[at(chain)];
    const ir::Node& w = g.nodes[at(c.window)];
    if (!fast::grouped_conv(values[at(w.in[0])], ir::window_of(w),
                            values[at(g.nodes[at(c.split_kernel)].in[0])], made, gemm_, post))
      return false;
  } else {
    const ir::Node& n = g.nodes[at(e.conv)];
    const ir::Node& w = g.nodes[at(n.in[0])];
    if (!fast::windowed_einsum(n, 0, values[at(w.in[0])], ir::window_of(w), values[at(n.in[1])],
                               made, gemm_, &post))
      return false;
  }
  out = made;
  ++runs_;
  return true;
}

bool FastExecutor::run_epilogue(const FusionPlan& plan, const ir::Graph& g, std::size_t k,
                                Tensor& out, std::vector<Tensor>& values) const {
  const ir::FusedKernel& kernel = plan.kernels[k];
  const auto product =
      static_cast<std::size_t>(kernel.inputs[static_cast<std::size_t>(kernel.epilogue)]);
  const ir::Node& m = g.nodes[product];
  const Tensor& a = values[static_cast<std::size_t>(m.in[0])];
  const Tensor& b = values[static_cast<std::size_t>(m.in[1])];
  // A bias, maybe then ReLU: the GEMM adds it as it stores, into `out`.
  if (const ir::GemmEpilogue& e = plan.gemm_epilogues[k];
      e.product == static_cast<int>(product) &&
      fast::matmul_with_epilogue(a, b, values[static_cast<std::size_t>(e.bias)], e.relu, out,
                                 gemm_)) {
    ++runs_;
    return true;
  }
  KernelCall call;
  bool ran = false;
  if (b.rank() == 2 && a.rank() >= 1) {
    Shape shape(a.shape().begin(), a.shape().end() - 1);
    shape.push_back(b.dim(1));
    const Tensor stand_in = Tensor::shaped(DType::f32, shape);
    if (bind(plan, k, values, call, &stand_in) && call.inner == b.dim(1)) {
      out = Tensor::uninitialized(DType::f32, call.shape);
      auto* o = static_cast<float*>(out.raw());
      const auto j = static_cast<std::size_t>(kernel.epilogue);
      support::InlineVector<std::int64_t, KernelCall::kInputs> strides = call.outer_strides;
      strides[j] = call.inner;  // the tile's rows
      support::InlineVector<const void*, KernelCall::kInputs> at(call.pointers.size());
      ran = fast::matmul_in_blocks(
          a, b, gemm_, [&](std::int64_t r0, std::int64_t r1, const float* tile) {
            call.at_row(r0, at.begin());
            at[j] = tile;
            plan.fns[k](at.begin(), strides.begin(), o + r0 * call.inner, r1 - r0, call.inner);
          });
    }
  }
  if (ran) {
    ++runs_;
    return true;
  }
  // The product whole, as the node would have made it, for the kernel to read.
  Tensor& made = values[product];
  if (!fast::matmul(m, made, values, gemm_)) made = reference::matmul(a, b);
  return false;
}

bool FastExecutor::run_kernel_reduced(const FusionPlan& plan, const ir::Graph& g, std::size_t k,
                                      const ir::Node& n, Tensor& out,
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
      run_kernel(plan, g, k, values[static_cast<std::size_t>(kernel.root)], values);
    } else {
      values[static_cast<std::size_t>(kernel.root)] = run_steps(kernel, call.inputs.begin());
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
             thread_local AlignedScratch scratch;  // the thread's tile, kept between calls
             auto* buffer = static_cast<float*>(scratch.get(
                 static_cast<std::size_t>(std::min(tile, r1 - r0) * group) * sizeof(float)));
             for (std::int64_t t0 = r0; t0 < r1; t0 += tile) {
               const std::int64_t t1 = std::min(r1, t0 + tile);
               call.rows(plan.fns[k], t0 * rows_per_group, t1 * rows_per_group, buffer);
               for (std::int64_t r = t0; r < t1; ++r)
                 o[r] = fast::reduce_row(op, buffer + (r - t0) * group, group, options_.portable);
             }
           });
  ++runs_;
  return true;
}

Tensor FastExecutor::run_steps(const ir::FusedKernel& kernel, const Tensor* inputs) const {
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

}  // namespace ss::runtime::fastexec
