// A loop's body as straight-line calls (FastExecutor::run_loop): a
// recurrent cell's step is a product, a fused kernel or two and a join,
// microseconds of work in all, and the walk's per-node costs (the plan's
// lookups, a buffer taken and returned, a kernel's inputs bound) are most
// of a step when it goes through run_graph. So where every node of the
// body is a product (its bias folded into the GEMM's store), a fused
// kernel, a float + - * / or an exact unary (-x, relu, sqrt), a view, a
// join or a constant, the steps are planned once for the layouts of the
// loop's inputs: each value's place (an offset from one of a few bases: a
// carry's buffer this step or the next, the step's slice of a stacked
// input, a free input, a buffer of the plan's own, a result's row), each
// call's pointers and strides. A step then is those calls. The calls are
// the walk's own (the same compiled kernels, the same GEMM and its
// epilogues), so the values are the walk's, bit for bit. The buffers are
// kept in the loop's frame between runs: a steady run allocates nothing. A
// history carried as a shift register (a recurrent op's stacked states)
// slides along one buffer, each step writing its new row only.
#include "runtime/fast/loop_steps.hpp"

namespace ss::runtime::fastexec {

bool FastExecutor::plan_steps(const LoopRun& run, const Dims& dims, LoopSteps& s) const {
  const ir::Graph& g = *run.loop.body;
  const ir::LoopShape& shape = run.shape;
  const std::vector<Tensor>& given = run.given;
  const auto at = [](int i) { return static_cast<std::size_t>(i); };
  s.body = plans_.get(g, maker(), false);
  const FusionPlan& plan = *s.body;
  if (plan.kernels.empty() || given.size() != g.inputs.size() || shape.stacked == 0) return false;
  for (const Tensor& t : given)
    if (t.dtype() != DType::f32 || !t.buffer()) return false;
  const std::size_t carries = shape.carries, stacked = shape.stacked;
  std::vector<Tensor> v(g.nodes.size());  // each value's stand-in: its layout, in a real buffer
  std::vector<Place> place(g.nodes.size());
  const auto add_base = [&](Base::Kind kind, std::size_t index) {
    s.bases.push_back({kind, index});
    return static_cast<int>(s.bases.size() - 1);
  };
  // Which carry a node is the next value of: there it is made, no copy.
  std::vector<int> carry_of(g.nodes.size(), -1);
  std::vector<bool> written(carries, false);
  for (std::size_t k = 0; k < carries; ++k) {
    int& c = carry_of[at(g.outputs[k])];
    c = c == -1 ? static_cast<int>(k) : -2;
  }
  for (std::size_t r = carries; r < g.outputs.size(); ++r) carry_of[at(g.outputs[r])] = -2;
  std::vector<int> next_base(carries);
  s.slide_row.assign(carries, -1);
  s.slides.resize(carries);
  std::map<std::string, Tensor> named;
  s.stacked_strides.assign(given.size(), 0);
  for (std::size_t k = 0; k < given.size(); ++k) {
    const auto i = at(g.inputs[k]);
    if (k < carries) {
      auto& pair = s.carries.emplace_back();
      pair = {Tensor::uninitialized(DType::f32, given[k].shape()),
              Tensor::uninitialized(DType::f32, given[k].shape())};
      v[i] = pair[0];
      place[i] = {add_base(Base::carry, k), 0};
      next_base[k] = add_base(Base::next, k);
      Copy c{{}, {}, given[k].shape(), given[k].strides(), pair[0].strides()};
      merge_axes(c);
      s.first.push_back(std::move(c));
    } else if (k < carries + stacked) {
      const std::int64_t axis = shape.axes[k - carries];
      v[i] = given[k].select(axis, 0);
      s.stacked_strides[k] = given[k].strides()[at(static_cast<int>(axis))];
      place[i] = {add_base(Base::stacked, k), 0};
    } else {
      v[i] = given[k];
      place[i] = {add_base(Base::free, k), 0};
    }
    named[g.nodes[i].name] = v[i];
  }
  const std::map<std::string, std::int64_t> sizes = bind_sizes(g, named, dims);
  // Where node i's value is made: its carry's next buffer, else one of its own.
  const auto make_at = [&](std::size_t i, const Shape& value_shape) {
    const int k = carry_of[i];
    if (k >= 0 && value_shape == s.carries[at(k)][1].shape()) {
      written[at(k)] = true;
      v[i] = s.carries[at(k)][1];
      place[i] = {next_base[at(k)], 0};
    } else {
      s.own.push_back(Tensor::uninitialized(DType::f32, value_shape));
      v[i] = s.own.back();
      place[i] = {add_base(Base::own, s.own.size() - 1), 0};
    }
    return place[i];
  };
  // A view of node `from`'s value, or of a base: its place by its offset.
  const auto view_of = [&](std::size_t i, std::size_t from) {
    if (place[from].base < 0 || v[i].buffer() != v[from].buffer()) return false;
    place[i] = {place[from].base, place[from].offset + v[i].offset() - v[from].offset()};
    return true;
  };
  const auto placed = [&](int i) { return place[at(i)].base >= 0; };
  // A product of a [.. k] and b [k n] into `out`.
  const auto product = [&](const ir::Node& m, Product& p) {
    if (!placed(m.in[0]) || !placed(m.in[1])) return false;
    const Tensor &a = v[at(m.in[0])], &b = v[at(m.in[1])];
    if (a.rank() < 1 || b.rank() != 2 || a.dim(a.rank() - 1) != b.dim(0)) return false;
    p.k = b.dim(0);
    p.n = b.dim(1);
    p.m = p.k ? a.size() / p.k : 0;
    if (a.rank() == 2) {
      p.a_row = a.strides()[0];
      p.a_col = a.strides()[1];
    } else if (a.contiguous()) {
      p.a_row = p.k;
      p.a_col = 1;
    } else {
      return false;
    }
    p.a = place[at(m.in[0])];
    p.b = place[at(m.in[1])];
    p.b_shape = b.shape();
    p.b_strides = b.strides();
    const Base& base = s.bases[at(p.b.base)];
    if (base.kind == Base::free && p.b.offset == 0 && b.shape() == given[base.index].shape() &&
        b.strides() == given[base.index].strides())
      p.ready = static_cast<int>(s.ready.size()), s.ready.emplace_back();
    return p.m > 0 && p.n > 0;
  };
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const ir::Node& n = g.nodes[i];
    if (n.op == ir::Op::input) continue;
    if (plan.member[i]) {
      ++s.paths[fused];
      continue;
    }
    if (plan.deferred[i] || plan.grouped_at[i] >= 0 || plan.reduce_at[i] >= 0) return false;
    if (const int k = plan.kernel_at[i]; k >= 0) {
      const ir::FusedKernel& kernel = plan.kernels[at(k)];
      if (plan.conv_epilogues[at(k)].conv >= 0 || dtype_of(n.type.elem) != DType::f32) return false;
      ++s.paths[fused];
      s.kernels++;
      Place made;  // the product an epilogue reads
      Tensor made_value;
      if (kernel.epilogue >= 0) {
        const auto p = at(kernel.inputs[at(kernel.epilogue)]);
        Product step;
        if (!product(g.nodes[p], step)) return false;
        Shape out_shape(v[at(g.nodes[p].in[0])].shape());
        out_shape.back() = step.n;
        if (const ir::GemmEpilogue& e = plan.gemm_epilogues[at(k)];
            e.product == static_cast<int>(p) && !gemm_.bf16) {  // bias, ReLU: the GEMM's store
          const Tensor& bias = v[at(e.bias)];
          if (!placed(e.bias) || bias.rank() != 1 || bias.dim(0) != step.n ||
              (step.n > 1 && bias.strides()[0] != 1))
            return false;
          step.bias = place[at(e.bias)];
          step.relu = e.relu;
          step.out = make_at(i, out_shape);
          s.steps.emplace_back(std::move(step));
          continue;
        }
        s.own.push_back(Tensor::uninitialized(DType::f32, out_shape));
        made_value = s.own.back();
        made = {add_base(Base::own, s.own.size() - 1), 0};
        step.out = made;
        s.steps.emplace_back(std::move(step));
      }
      Kernel call;
      call.fn = plan.fns[at(k)];
      Shape root;
      for (std::size_t j = 0; j < kernel.inputs.size(); ++j) {
        const bool product_in = static_cast<int>(j) == kernel.epilogue;
        if (!product_in && !placed(kernel.inputs[j])) return false;
        root = reference::broadcast_shapes(
            root, (product_in ? made_value : v[at(kernel.inputs[j])]).shape());
      }
      for (std::size_t j = 0; j < kernel.inputs.size(); ++j) {
        const bool product_in = static_cast<int>(j) == kernel.epilogue;
        const Tensor& t = product_in ? made_value : v[at(kernel.inputs[j])];
        std::int64_t row = 0;
        if (!kernel_rows(broadcast_strides(t, root.size()), root, plan.inner_broadcast[at(k)][j],
                         &row))
          return false;
        call.in.push_back(product_in ? made : place[at(kernel.inputs[j])]);
        call.strides.push_back(row);
      }
      call.inner = root.empty() ? 1 : root.back();
      call.outer = call.inner ? element_count(root) / call.inner : 0;
      call.out = make_at(i, root);
      s.steps.emplace_back(std::move(call));
      continue;
    }
    const auto in0 = n.in.empty() ? std::size_t{0} : at(n.in[0]);
    switch (n.op) {
      case ir::Op::constant:
      case ir::Op::literal:
        s.fixed.push_back(n.op == ir::Op::constant
                              ? Tensor::scalar(dtype_of(n.type.elem), n.number)
                              : Tensor::from_values(dtype_of(n.type.elem),
                                                    shape_of(n.type, sizes, dims), n.values));
        if (s.fixed.back().dtype() != DType::f32) return false;
        v[i] = s.fixed.back();
        place[i] = {add_base(Base::fixed, s.fixed.size() - 1), 0};
        ++s.paths[created];
        break;
      case ir::Op::slice: {
        if (!placed(n.in[0])) return false;
        const auto part = ir::axis_part(n);
        const std::int64_t size = v[in0].dim(part.axis);
        if (!part.fits(size)) return false;
        v[i] = reference::slice(v[in0], part.axis, part.first(size), part.last(size));
        if (!view_of(i, in0)) return false;
        ++s.paths[moves];
        break;
      }
      case ir::Op::index:
        if (!placed(n.in[0])) return false;
        v[i] = reference::take(v[in0], n.axes[0], ir::axis_part(n).start);
        if (!view_of(i, in0)) return false;
        ++s.paths[moves];
        break;
      case ir::Op::einops:  // views only: a rearrangement that copies stays the walk's
        if (!placed(n.in[0]) || !fast::rearrange(n, v[i], v, sizes, dims) || !view_of(i, in0))
          return false;
        ++s.paths[moves];
        break;
      case ir::Op::matmul: {
        Product step;
        if (!product(n, step)) return false;
        Shape out_shape(v[in0].shape());
        out_shape.back() = step.n;
        step.out = make_at(i, out_shape);
        s.steps.emplace_back(std::move(step));
        ++s.paths[gemm];
        break;
      }
      case ir::Op::binary: {
        const auto op = static_cast<ir::Binary>(n.sub);
        if (dtype_of(n.type.elem) != DType::f32 || !placed(n.in[0]) || !placed(n.in[1]) ||
            (op != ir::Binary::add && op != ir::Binary::sub && op != ir::Binary::mul &&
             op != ir::Binary::div))
          return false;
        ++s.paths[loops];
        Binary step{op, place[in0], place[at(n.in[1])], {}};
        const Tensor &a = v[in0], &b = v[at(n.in[1])];
        const Shape root = reference::broadcast_shapes(a.shape(), b.shape());
        step.inner = root.empty() ? 1 : root.back();
        step.outer = step.inner ? element_count(root) / step.inner : 0;
        // Each operand by rows: along the row, or broadcast (its inner axis 1).
        const auto rows = [&](const Tensor& t, std::int64_t* row, std::int64_t* along) {
          const bool broadcast = (t.rank() == 0 || t.shape().back() == 1) && step.inner != 1;
          *along = broadcast ? 0 : 1;
          return kernel_rows(broadcast_strides(t, root.size()), root, broadcast, row);
        };
        if (!rows(a, &step.a_row, &step.a_step) || !rows(b, &step.b_row, &step.b_step))
          return false;
        step.out = make_at(i, root);
        s.steps.emplace_back(std::move(step));
        break;
      }
      case ir::Op::unary: {  // exact in float: unfused, read twice
        const auto op = static_cast<ir::Unary>(n.sub);
        if (dtype_of(n.type.elem) != DType::f32 || !placed(n.in[0]) || !v[in0].contiguous() ||
            (op != ir::Unary::neg && op != ir::Unary::relu && op != ir::Unary::sqrt))
          return false;
        Unary step{op, place[in0], {}, v[in0].size()};
        step.out = make_at(i, v[in0].shape());
        s.steps.emplace_back(step);
        ++s.paths[loops];
        break;
      }
      case ir::Op::concat: {
        Shape out_shape = v[in0].shape();
        const auto axis = at(static_cast<int>(n.axes[0]));
        if (axis >= out_shape.size()) return false;
        out_shape[axis] = 0;
        for (const int x : n.in) {
          if (!placed(x) || v[at(x)].rank() != static_cast<std::int64_t>(out_shape.size()))
            return false;
          out_shape[axis] += v[at(x)].dim(static_cast<std::int64_t>(axis));
        }
        // The shift register: the carry's rows 1.. and one new row, into
        // the carry's next value. Sliding, the rows kept are where they
        // are already: only the new row is written.
        if (const int k = carry_of[i];
            k >= 0 && axis == 0 && n.in.size() == 2 && out_shape == s.carries[at(k)][1].shape()) {
          const Tensor& kept = v[in0];
          const Tensor& carry = s.carries[at(k)][0];
          const std::int64_t row = carry.strides()[0], rows = out_shape[0];
          if (place[in0].base == place[at(g.inputs[at(k)])].base && place[in0].offset == row &&
              kept.dim(0) == rows - 1 && kept.strides() == carry.strides() &&
              v[at(n.in[1])].dim(0) == 1) {
            make_at(i, out_shape);  // the next buffer: the rows from the next step's first
            s.slide_row[at(k)] = row;
            Copy c{place[at(n.in[1])],
                   {place[i].base, place[i].offset + (rows - 1) * row},
                   v[at(n.in[1])].shape(),
                   v[at(n.in[1])].strides(),
                   v[i].strides()};
            merge_axes(c);
            s.steps.emplace_back(std::move(c));
            ++s.paths[moves];
            break;
          }
        }
        const Place out = make_at(i, out_shape);
        const Strides& to = v[i].strides();
        std::int64_t from = 0;  // where the part starts along the axis
        for (const int x : n.in) {
          Copy c{place[at(x)],
                 {out.base, out.offset + from * to[axis]},
                 v[at(x)].shape(),
                 v[at(x)].strides(),
                 to};
          from += v[at(x)].dim(static_cast<std::int64_t>(axis));
          merge_axes(c);
          s.steps.emplace_back(std::move(c));
        }
        ++s.paths[moves];
        break;
      }
      default:
        return false;
    }
  }
  // A carry not made in its next buffer (an input passed on, a view) is
  // copied there; each result to its row of the stacked output.
  for (std::size_t k = 0; k < carries; ++k) {
    const auto o = at(g.outputs[k]);
    if (written[k]) continue;
    const Tensor& next = s.carries[k][1];
    if (!placed(g.outputs[k]) || v[o].shape() != next.shape()) return false;
    Copy c{place[o], {next_base[k], 0}, v[o].shape(), v[o].strides(), next.strides()};
    merge_axes(c);
    s.steps.emplace_back(std::move(c));
  }
  const std::int64_t length = given[carries].dim(shape.axes[0]);
  for (std::size_t r = 0; r + carries < g.outputs.size(); ++r) {
    const auto o = at(g.outputs[carries + r]);
    if (!placed(g.outputs[carries + r])) return false;
    const auto axis = shape.result_axes.at(r);
    Shape stacked_shape = v[o].shape();
    stacked_shape.insert(stacked_shape.begin() + axis, length);
    const Strides row_major = row_major_strides(stacked_shape);
    Strides to = row_major;
    to.erase(to.begin() + axis);
    s.result_shapes.push_back(stacked_shape);
    s.result_strides.push_back(row_major[at(static_cast<int>(axis))]);
    Copy c{place[o], {add_base(Base::result, r), 0}, v[o].shape(), v[o].strides(), to};
    merge_axes(c);
    s.steps.emplace_back(std::move(c));
  }
  return true;
}

}  // namespace ss::runtime::fastexec
