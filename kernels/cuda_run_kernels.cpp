#include "kernels/cuda_graph_run.hpp"

namespace ss::cuda::detail {

void GraphRun::pointwise(const Pointwise& op, const std::vector<const DTensor*>& ins,
                         const DTensor& out) {
  const Shape& shape = out.shape();
  const bool bf16 = ins.size() == 1 && bf16_copy(op, ins[0]->dtype(), out.dtype());
  if (shape.size() > static_cast<std::size_t>(kMaxRank) || !(bf16 || on_device(out.dtype())))
    throw NotOnDevice{};
  Layout l;
  l.rank = static_cast<int>(shape.size());
  std::vector<DType> types;
  for (std::size_t k = 0; k < ins.size(); ++k) {
    const DTensor& x = *ins[k];
    if (!(bf16 || on_device(x.dtype())) || x.shape().size() > shape.size()) throw NotOnDevice{};
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
  gpu_.launch(f, out.size(), p);
}

DTensor GraphRun::compact(const DTensor& x) {
  if (x.view.contiguous() || !x.memory) return x;
  DTensor c = allocate(x.dtype(), x.shape(), "a compact copy");
  pointwise({}, {&x}, c);
  return c;
}

DTensor GraphRun::cast(const DTensor& x, DType to) {
  if (x.dtype() == to) return x;
  DTensor c = allocate(to, x.shape(), "a cast");
  pointwise({}, {&x}, c);
  return c;
}

void GraphRun::fill(const DTensor& out, double value) {
  if (!on_device(out.dtype())) throw NotOnDevice{};
  const std::string name = "ss_fill_" + dtype_tag(out.dtype());
  const CUfunction f = gpu_.kernel(fill_source(out.dtype(), name), name);
  Params p;
  p.add(out.at());
  if (out.dtype() == DType::f32)
    p.add(static_cast<float>(value));
  else
    p.add(value);
  p.add(static_cast<long long>(out.size()));
  gpu_.launch(f, out.size(), p);
}

DTensor GraphRun::axes_last(const DTensor& x, const std::vector<std::int64_t>& axes) {
  std::vector<std::int64_t> order;
  for (std::int64_t d = 0; d < static_cast<std::int64_t>(x.shape().size()); ++d)
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) order.push_back(d);
  order.insert(order.end(), axes.begin(), axes.end());
  return compact(x.with(x.view.permute(order)));
}

DTensor GraphRun::reduce_rows(ir::Reduce op, const DTensor& x, std::int64_t rows,
                              std::int64_t group) {
  if (!on_device(x.dtype()) && x.dtype() != DType::bf16) throw NotOnDevice{};
  const std::string name =
      "ss_reduce_" + std::to_string(static_cast<int>(op)) + "_" + dtype_tag(x.dtype());
  const CUfunction f = gpu_.kernel(reduction_source(op, name, c_type(x.dtype())), name);
  DTensor out = allocate(DType::f32, {rows}, "a reduction");
  Params p;
  p.add(x.at()).add(out.at()).add(static_cast<long long>(rows)).add(static_cast<long long>(group));
  if (rows > 0)
    gpu_.launch_grid(f, static_cast<unsigned>(std::min<std::int64_t>(rows, 65535)), 1, 1,
                     kReduceThreads, 1, p);
  return out;
}

DTensor GraphRun::softmax(const DTensor& x, std::int64_t axis, bool log) {
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

std::vector<std::int64_t> GraphRun::back_from_last(std::size_t rank, std::int64_t axis) {
  std::vector<std::int64_t> back(rank);
  for (std::int64_t d = 0, k = 0; d < static_cast<std::int64_t>(rank); ++d)
    if (d != axis) back[static_cast<std::size_t>(d)] = k++;
  back[static_cast<std::size_t>(axis)] = static_cast<std::int64_t>(rank) - 1;
  return back;
}

void GraphRun::gemm(std::int64_t m, std::int64_t n, std::int64_t k, const DTensor& a,
                    std::int64_t sa, const DTensor& b, std::int64_t sb, const DTensor& c,
                    std::int64_t sc, std::int64_t batches) {
  if (m == 0 || n == 0 || batches == 0) return;
  if (k == 0)
    return gpu_.set_bytes(c.at(), 0,
                          static_cast<std::size_t>(c.size()) * runtime::dtype_size(c.dtype()));
  constexpr std::int64_t kInt = INT_MAX;
  const bool cublas = cublas_ && m <= kInt && n <= kInt && k <= kInt && batches <= kInt;
  const bool bf16 = any_bf16(a, b, c);
  if (bf16 && a.dtype() == DType::f32 && b.dtype() == DType::f32 &&
      c.size() < a.size() + b.size()) {
    // Only the result is kept in bf16, and it is the smaller: the float32
    // GEMM (its inputs rounded to bf16 by the compute type), then one
    // narrowing of C, not two of A and B.
    const DTensor c32 = allocate(DType::f32, c.shape(), "a product");
    gemm(m, n, k, a, sa, b, sb, c32, sc, batches);
    pointwise({}, {&c32}, c);
    return;
  }
  if (cublas) {
    // With a value kept in bf16: bf16 A and B (a float32 one, a weight,
    // narrowed for this call), products summed in float32, C as it is kept.
    const DTensor a_in = bf16 ? cast(a, DType::bf16) : a, b_in = bf16 ? cast(b, DType::bf16) : b;
    const auto status = gpu_.blas()->gemm(m, n, k, a_in.at(), sa, b_in.at(), sb, c.at(), sc,
                                          batches, precision_, {bf16, c.dtype() == DType::bf16});
    if (status != cublas_abi::kSuccess)
      throw runtime::DeviceError(diag::Code::E1910,
                                 std::string("cuBLAS's ") + (bf16 ? "bf16 " : "") +
                                     "GEMM failed with status " + std::to_string(status) + " on " +
                                     gpu_.name(),
                                 "a cuBLAS that matches the driver avoids it; --precision f32 "
                                 "uses no tensor-core path");
    return;
  }
  if (bf16) {
    // The executor's own kernel is float32: widen, multiply, then narrow.
    const DTensor a32 = cast(a, DType::f32), b32 = cast(b, DType::f32);
    const DTensor c32 = c.dtype() == DType::f32 ? c : allocate(DType::f32, c.shape(), "a product");
    gemm(m, n, k, a32, sa, b32, sb, c32, sc, batches);
    if (c32.memory != c.memory) pointwise({}, {&c32}, c);
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
                   static_cast<unsigned>(batches), kGemmTile, kGemmTile, p);
}

DTensor GraphRun::einsum(std::size_t i, const ir::Node& n, const DTensor& a, const DTensor& b) {
  for (const DTensor* x : {&a, &b})
    if (x->dtype() != DType::f32 && x->dtype() != DType::bf16) throw NotOnDevice{};
  const auto plan = runtime::plan_einsum(n, a.shape(), b.shape());
  if (!plan) throw NotOnDevice{};
  const DTensor left = compact(a.with(a.view.permute(plan->a_order)));
  const DTensor right = compact(b.with(b.view.permute(plan->b_order)));
  DTensor result = make(i, narrowed(i) ? DType::bf16 : DType::f32, plan->computed);
  gemm(plan->m, plan->n, plan->k, left, plan->m * plan->k, right, plan->k * plan->n, result,
       plan->m * plan->n, plan->batches);
  if (plan->out_order.empty()) return result;
  return compact(result.with(result.view.permute(plan->out_order)));
}

bool GraphRun::fused(int k, std::size_t root) {
  const auto& kernel = plan_.kernels[static_cast<std::size_t>(k)];
  const Shape shape = runtime::shape_of(g_.nodes[root].type, sizes_, dims_);
  const std::int64_t total = runtime::element_count(shape);
  const std::int64_t inner = shape.empty() ? 1 : shape.back();
  const std::int64_t outer = inner ? total / inner : 0;
  const auto& flags = plan_.inner_broadcast[static_cast<std::size_t>(k)];
  const std::size_t slots = std::max<std::size_t>(1, kernel.inputs.size());
  std::vector<unsigned char> args(slots * 16, 0);
  std::vector<DTensor> kept;
  std::vector<std::uint8_t> bf16_in(kernel.inputs.size(), 0);
  for (std::size_t j = 0; j < kernel.inputs.size(); ++j) {
    const DTensor& x = values_[static_cast<std::size_t>(kernel.inputs[j])];
    bf16_in[j] = kept_in_bf16(kernel.inputs[j]);
    if (x.dtype() != DType::f32 && x.dtype() != DType::boolean && !bf16_in[j]) return false;
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
  const bool bf16_out = narrowed(root);
  DTensor out = make(root, bf16_out ? DType::bf16 : DType::f32, shape);
  const std::string& base = plan_.names[static_cast<std::size_t>(k)];
  const auto at = static_cast<std::size_t>(k);
  CUfunction f;
  if (!bf16_out && std::find(bf16_in.begin(), bf16_in.end(), 1) == bf16_in.end()) {
    f = gpu_.kernel(plan_.sources[at], base);
  } else if (bf16_in == plan_.bf16_inputs[at] &&
             bf16_out == static_cast<bool>(plan_.bf16_out[at])) {
    f = gpu_.kernel(plan_.bf16_sources[at], plan_.bf16_names[at]);  // as the plan kept them
  } else {
    // Another mix (a kept value widened on the way): that variant.
    const std::string name = bf16_kernel_name(base, bf16_in, bf16_out);
    f = gpu_.kernel(elementwise_source(kernel, flags, name, bf16_in, bf16_out), name);
  }
  Params p;
  p.add_bytes(args.data(), args.size(), 8)
      .add(out.at())
      .add(static_cast<long long>(outer))
      .add(static_cast<long long>(inner));
  gpu_.launch(f, total, p);
  values_[root] = std::move(out);
  counts_.nodes["fused"] += 1 + static_cast<std::int64_t>(kernel.members.size());
  ++counts_.fused;
  return true;
}

}  // namespace ss::cuda::detail

namespace ss::cuda::detail {

bool GraphRun::gemm_with_epilogue(const GemmEpilogue& e, std::size_t root) {
  if (e.product < 0 || !epilogues_) return false;
  const ir::Node& mm = g_.nodes[static_cast<std::size_t>(e.product)];
  // A convolution's product over its unmade window: cuDNN's, then the bias.
  for (const int x : mm.in)
    if (unmade(x)) return false;
  const DTensor &a0 = in(mm, 0), &b0 = in(mm, 1),
                &bias0 = values_[static_cast<std::size_t>(e.bias)];
  if (a0.dtype() != DType::f32 || b0.dtype() != DType::f32 || bias0.dtype() != DType::f32 ||
      a0.shape().empty() || b0.shape().size() != 2 || a0.shape().back() != b0.shape()[0])
    return false;
  const std::int64_t depth = b0.shape()[0], cols = b0.shape()[1];
  const std::int64_t rows = product(a0.shape(), 0, a0.shape().size() - 1);
  const Shape shape = runtime::shape_of(g_.nodes[root].type, sizes_, dims_);
  constexpr std::int64_t kInt = INT_MAX;
  if (bias0.size() != cols || rows == 0 || cols == 0 || depth == 0 || rows > kInt || cols > kInt ||
      depth > kInt || shape.empty() || shape.back() != cols ||
      runtime::element_count(shape) != rows * cols)
    return false;
  const DTensor a = compact(a0), b = compact(b0), bias = compact(bias0);
  // The algorithm was picked for 16-byte aligned operands (the
  // allocator's); a view into a value may not be.
  for (const DTensor* x : {&a, &b, &bias})
    if (x->at() % 16 != 0) return false;
  DTensor out = make(root, DType::f32, shape);
  const auto status = gpu_.lt()->gemm_bias(rows, cols, depth, a.at(), b.at(), bias.at(), out.at(),
                                           e.relu, precision_);
  if (status == cublas_lt_abi::kNotSupported) return false;  // the GEMM, then the kernel
  if (status != cublas_lt_abi::kSuccess)
    throw runtime::DeviceError(diag::Code::E1910,
                               "cuBLASLt's GEMM with a bias failed with status " +
                                   std::to_string(status) + " on " + gpu_.name(),
                               "a cuBLAS that matches the driver avoids it; "
                               "SHAPESCRIPT_CUBLASLT=0 adds the bias in a kernel instead");
  values_[root] = std::move(out);
  const int k = plan_.root_of[root];  // the product, the root and a region's members
  counts_.nodes["gemm epilogue"] +=
      2 +
      (k < 0
           ? 0
           : static_cast<std::int64_t>(plan_.kernels[static_cast<std::size_t>(k)].members.size()));
  return true;
}

}  // namespace ss::cuda::detail
