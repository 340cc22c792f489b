// A loop's body as straight-line calls (FastExecutor::run_loop): a
// recurrent cell's step is a product, a fused kernel or two and a join,
// microseconds of work in all, and the walk's per-node costs (the plan's
// lookups, a buffer taken and returned, a kernel's inputs bound) are most
// of a step when it goes through run_graph. So where every node of the
// body is a product, a fused kernel, a view, a join or a constant, the
// steps are planned once for the layouts of the loop's inputs: each
// value's place (an offset from one of a few bases: a carry's buffer this
// step or the next, the step's slice of a stacked input, a free input, a
// buffer of the plan's own, a result's row), each call's pointers and
// strides. A step then is those calls. The calls are the walk's own (the
// same compiled kernels, the same GEMM and its epilogues), so the values
// are the walk's, bit for bit. The buffers are kept in the loop's frame
// between runs: a steady run allocates nothing.
#include <cstring>
#include <variant>

#include "runtime/core/frame_memory.hpp"
#include "runtime/fast/fast_executor_impl.hpp"

namespace ss::runtime::fastexec {
namespace {

// Where a value lives: `offset` elements past base `base` (an index into
// LoopSteps::bases).
struct Place {
  int base = -1;  // -1: nowhere (a kernel's member, made inside it)
  std::int64_t offset = 0;
};

// What a base is, its pointer found per run and step.
struct Base {
  enum Kind : std::uint8_t { carry, next, stacked, free, own, fixed, result } kind;
  std::size_t index;  // the carry's, the given input's, the own or fixed buffer's, the result's
};

// Elements copied from one layout to another, axes merged where both
// allow (a join's part, a carry's or result's value).
struct Copy {
  Place from, to;
  Shape shape;
  Strides from_strides, to_strides;
};

// c = a b [+ bias, ReLU]: b readied once a run (a free input's, its panels
// where it is resident), or each step (a stacked input's slice), or read
// through its place.
struct Product {
  Place a, b, bias, out;
  std::int64_t m = 0, n = 0, k = 0, a_row = 0, a_col = 0;
  Shape b_shape;
  Strides b_strides;
  bool relu = false;
  int ready = -1;  // its operand in LoopSteps::ready, for b a free input's
};

struct Kernel {
  SsJitKernelFn fn = nullptr;
  support::InlineVector<Place, 16> in;
  support::InlineVector<std::int64_t, 16> strides;
  Place out;
  std::int64_t outer = 0, inner = 0;
};

// A binary + - * / of float32 not fused (a value read several times), as
// fast::binary_f32 computes it: rows of `inner`, each operand read along
// a row or broadcast (stride 0).
struct Binary {
  ir::Binary op;
  Place a, b, out;
  std::int64_t outer = 0, inner = 0, a_row = 0, b_row = 0, a_step = 1, b_step = 1;
};

template <typename F>
void binary_rows(const Binary& e, const float* a, const float* b, float* out, F f) {
  for (std::int64_t o = 0; o < e.outer; ++o, a += e.a_row, b += e.b_row, out += e.inner)
    for (std::int64_t i = 0; i < e.inner; ++i) out[i] = f(a[i * e.a_step], b[i * e.b_step]);
}

void run_binary(const Binary& e, const float* a, const float* b, float* out) {
  switch (e.op) {
    case ir::Binary::add:
      return binary_rows(e, a, b, out, [](float x, float y) { return x + y; });
    case ir::Binary::sub:
      return binary_rows(e, a, b, out, [](float x, float y) { return x - y; });
    case ir::Binary::mul:
      return binary_rows(e, a, b, out, [](float x, float y) { return x * y; });
    default:
      return binary_rows(e, a, b, out, [](float x, float y) { return x / y; });
  }
}

using Step = std::variant<Kernel, Product, Copy, Binary>;

// Merges axes both layouts walk as one, drops axes of size 1.
void merge_axes(Copy& c) {
  Shape shape;
  Strides from, to;
  for (std::size_t d = 0; d < c.shape.size(); ++d) {
    if (c.shape[d] == 1) continue;
    if (!shape.empty() && from.back() == c.from_strides[d] * c.shape[d] &&
        to.back() == c.to_strides[d] * c.shape[d]) {
      shape.back() *= c.shape[d];
      from.back() = c.from_strides[d];
      to.back() = c.to_strides[d];
      continue;
    }
    shape.push_back(c.shape[d]);
    from.push_back(c.from_strides[d]);
    to.push_back(c.to_strides[d]);
  }
  c.shape = std::move(shape);
  c.from_strides = std::move(from);
  c.to_strides = std::move(to);
}

void copy_axes(const Copy& c, std::size_t d, const float* from, float* to) {
  const std::int64_t size = c.shape[d];
  const std::int64_t fs = c.from_strides[d], ts = c.to_strides[d];
  if (d + 1 == c.shape.size()) {
    if (fs == 1 && ts == 1) {
      std::memcpy(to, from, static_cast<std::size_t>(size) * sizeof(float));
    } else {
      for (std::int64_t i = 0; i < size; ++i) to[i * ts] = from[i * fs];
    }
    return;
  }
  for (std::int64_t i = 0; i < size; ++i) copy_axes(c, d + 1, from + i * fs, to + i * ts);
}

void run_copy(const Copy& c, const float* from, float* to) {
  if (c.shape.empty()) {
    *to = *from;
    return;
  }
  copy_axes(c, 0, from, to);
}

}  // namespace

// A loop's planned steps, kept in its frame (LoopFrame::state) for the
// layouts of the inputs it was planned for.
struct LoopSteps final : LoopState {
  std::uint64_t executor = 0;
  bool runs = false;  // false: the body is the walk's (something here can't take it)
  // The inputs' layouts the plan is for.
  std::vector<DType> dtypes;
  std::vector<Shape> shapes;
  std::vector<Strides> strides;
  std::shared_ptr<const FusionPlan> body;
  std::vector<Base> bases;
  std::vector<std::array<Tensor, 2>> carries;  // each carry's two buffers, a step's in and out
  // A history carried as a shift register (concat(h[1:T], x) over its
  // first axis: a recurrent op's stacked states): its T rows slide along
  // one buffer of T + steps rows, each step writing its new row only; the
  // carry at step t is rows [t, t + T). -1 for a carry that doesn't slide.
  std::vector<std::int64_t> slide_row;  // per carry: elements a row, or -1
  std::vector<Tensor> slides;           // per carry: the rows, made for a run's length
  std::vector<Tensor> own, fixed;
  std::vector<Step> steps;
  std::vector<Copy> first;                    // each carry's given value into its buffer
  std::vector<Shape> result_shapes;           // with the steps' axis
  std::vector<std::int64_t> result_strides;   // elements from one step's row to the next
  std::vector<std::int64_t> stacked_strides;  // per given input: the same, for stacked ones
  std::array<std::int64_t, kPaths> paths{};   // the walk's count per path, a step's
  std::int64_t kernels = 0;                   // kernels run a step
  // A run's: each base's pointer (carries' by parity), b operands readied.
  std::vector<char*> origin, at;
  std::vector<std::array<char*, 2>> pair;
  std::vector<fast::RightOperand> ready;
  std::vector<Tensor> results;

  bool planned_for(const std::vector<Tensor>& given) const {
    if (given.size() != shapes.size()) return false;
    for (std::size_t k = 0; k < given.size(); ++k)
      if (given[k].dtype() != dtypes[k] || given[k].shape() != shapes[k] ||
          given[k].strides() != strides[k])
        return false;
    return true;
  }
};

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
  std::vector<Tensor> base_of;  // each base's stand-in
  const auto add_base = [&](Base::Kind kind, std::size_t index, const Tensor& t) {
    s.bases.push_back({kind, index});
    base_of.push_back(t);
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
      place[i] = {add_base(Base::carry, k, pair[0]), 0};
      next_base[k] = add_base(Base::next, k, pair[1]);
      Copy c{{}, {}, given[k].shape(), given[k].strides(), pair[0].strides()};
      merge_axes(c);
      s.first.push_back(std::move(c));
    } else if (k < carries + stacked) {
      const std::int64_t axis = shape.axes[k - carries];
      v[i] = given[k].select(axis, 0);
      s.stacked_strides[k] = given[k].strides()[at(static_cast<int>(axis))];
      place[i] = {add_base(Base::stacked, k, v[i]), 0};
    } else {
      v[i] = given[k];
      place[i] = {add_base(Base::free, k, v[i]), 0};
    }
    named[g.nodes[i].name] = v[i];
  }
  const std::map<std::string, std::int64_t> sizes = bind_sizes(g, named, dims);
  const std::vector<int> uses = ir::use_counts(g);
  std::vector<int> product_at(g.nodes.size(), -1);  // a matmul's step, by node
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
      place[i] = {add_base(Base::own, s.own.size() - 1, v[i]), 0};
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
    if (base.kind == Base::free && p.b.offset == 0 && b.shape() == given[base.index].shape())
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
        made = {add_base(Base::own, s.own.size() - 1, made_value), 0};
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
        place[i] = {add_base(Base::fixed, s.fixed.size() - 1, v[i]), 0};
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
        product_at[i] = static_cast<int>(s.steps.size());
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
        // A product's bias: the GEMM adds it as it stores.
        bool folded = false;
        for (std::size_t j = 0; j < 2 && op == ir::Binary::add && !gemm_.bf16 && !folded; ++j) {
          const auto p = at(n.in[j]), b = at(n.in[1 - j]);
          if (product_at[p] < 0 || uses[p] != 1 || !placed(n.in[1 - j])) continue;
          auto& step = std::get<Product>(s.steps[at(product_at[p])]);
          if (step.bias.base >= 0 || v[b].rank() != 1 || v[b].dim(0) != step.n ||
              (step.n > 1 && v[b].strides()[0] != 1))
            continue;
          step.bias = place[b];
          v[i] = v[p];
          place[i] = place[p];
          folded = true;
        }
        ++s.paths[loops];
        if (folded) break;
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
    Copy c{place[o], {add_base(Base::result, r, Tensor()), 0}, v[o].shape(), v[o].strides(), to};
    merge_axes(c);
    s.steps.emplace_back(std::move(c));
  }
  return true;
}

bool FastExecutor::run_loop(const LoopRun& run, const Dims& dims, WorkerContext* /*worker*/) const {
  if (!jit_ || !options_.plan_loops) return false;
  auto* s = dynamic_cast<LoopSteps*>(run.state.get());
  if (!s || s->executor != serial_ || !s->planned_for(run.given)) {
    const FrameMemory::Outside kept;  // the plan's buffers live from run to run
    auto fresh = std::make_unique<LoopSteps>();
    fresh->executor = serial_;
    for (const Tensor& t : run.given) {
      fresh->dtypes.push_back(t.dtype());
      fresh->shapes.push_back(t.shape());
      fresh->strides.push_back(t.strides());
    }
    fresh->runs = plan_steps(run, dims, *fresh);
    s = fresh.get();
    run.state = std::move(fresh);
  }
  if (!s->runs) return false;
  const ir::LoopShape& shape = run.shape;
  const std::vector<Tensor>& given = run.given;
  const std::int64_t length = given[shape.carries].dim(shape.axes[0]);
  if (length == 0) return false;  // the walk's (and its error for results of no steps)
  run.outputs.clear();            // (a last run's carries, released: their buffers ours again)
  // A carry's buffers, unless something still holds one (a last run's
  // value kept): then a new one.
  s->pair.resize(s->carries.size());
  for (std::size_t k = 0; k < s->carries.size(); ++k)
    for (std::size_t p = 0; p < 2; ++p) {
      Tensor& t = s->carries[k][p];
      if (t.buffer().use_count() > 1) {
        const FrameMemory::Outside kept;
        t = Tensor::uninitialized(DType::f32, t.shape());
      }
      s->pair[k][p] = static_cast<char*>(t.raw());
    }
  // A sliding carry's rows: its T, then one a step.
  for (std::size_t k = 0; k < s->carries.size(); ++k) {
    if (s->slide_row[k] < 0) continue;
    Shape rows = s->carries[k][0].shape();
    rows[0] += length;
    Tensor& t = s->slides[k];
    if (!t.buffer() || t.shape() != rows || t.buffer().use_count() > 1) {
      const FrameMemory::Outside kept;
      t = Tensor::uninitialized(DType::f32, rows);
    }
    s->pair[k] = {static_cast<char*>(t.raw()), nullptr};
  }
  for (std::size_t k = 0; k < s->first.size(); ++k)
    run_copy(s->first[k], static_cast<const float*>(given[k].raw()),
             reinterpret_cast<float*>(s->pair[k][0]));
  s->results.clear();
  for (const Shape& r : s->result_shapes)
    s->results.push_back(Tensor::uninitialized(DType::f32, r));
  // Each base's pointer at the first position; a step moves stacked
  // inputs' and results' on by their rows.
  s->at.resize(s->bases.size());
  const auto first_at = [&](const Base& b) -> char* {
    switch (b.kind) {
      case Base::stacked:
        return static_cast<char*>(
            given[b.index].select(shape.axes[b.index - shape.carries], 0).raw());
      case Base::free:
        return static_cast<char*>(given[b.index].raw());
      case Base::own:
        return static_cast<char*>(s->own[b.index].raw());
      case Base::fixed:
        return static_cast<char*>(s->fixed[b.index].raw());
      case Base::result:
        return static_cast<char*>(s->results[b.index].raw());
      default:
        return nullptr;  // carries: by parity
    }
  };
  std::vector<char*>& origin = s->origin;
  std::vector<char*>& at = s->at;
  origin.resize(s->bases.size());
  for (std::size_t b = 0; b < s->bases.size(); ++b) origin[b] = first_at(s->bases[b]);
  const auto ptr = [&](const Place& p) {
    return reinterpret_cast<float*>(at[static_cast<std::size_t>(p.base)]) + p.offset;
  };
  // Free inputs' b operands, once a run.
  for (const Step& step : s->steps)
    if (const auto* p = std::get_if<Product>(&step); p && p->ready >= 0) {
      const Base& base = s->bases[static_cast<std::size_t>(p->b.base)];
      s->ready[static_cast<std::size_t>(p->ready)] =
          fast::right_operand(given[base.index], p->m, gemm_);
    }
  for (std::int64_t t = 0; t < length; ++t) {
    const std::int64_t position = shape.reverse ? length - 1 - t : t;
    const std::size_t parity = static_cast<std::size_t>(t & 1);
    for (std::size_t b = 0; b < s->bases.size(); ++b) {
      const Base& base = s->bases[b];
      switch (base.kind) {
        case Base::carry:
        case Base::next:
          if (const std::int64_t row = s->slide_row[base.index]; row >= 0)
            at[b] = s->pair[base.index][0] + (t + (base.kind == Base::next ? 1 : 0)) * row *
                                                 static_cast<std::int64_t>(sizeof(float));
          else
            at[b] = s->pair[base.index][base.kind == Base::next ? parity ^ 1 : parity];
          break;
        case Base::stacked:
          at[b] = origin[b] + position * s->stacked_strides[base.index] *
                                  static_cast<std::int64_t>(sizeof(float));
          break;
        case Base::result:
          at[b] = origin[b] + position * s->result_strides[base.index] *
                                  static_cast<std::int64_t>(sizeof(float));
          break;
        default:
          at[b] = origin[b];
      }
    }
    for (const Step& step : s->steps) {
      if (const auto* k = std::get_if<Kernel>(&step)) {
        support::InlineVector<const void*, 16> in(k->in.size());
        for (std::size_t j = 0; j < k->in.size(); ++j) in[j] = ptr(k->in[j]);
        float* out = ptr(k->out);
        for_rows(k->outer, kMinElements / std::max<std::int64_t>(1, k->inner), options_.threads,
                 [&](std::int64_t from, std::int64_t to) {
                   support::InlineVector<const void*, 16> rows(in.size());
                   for (std::size_t j = 0; j < in.size(); ++j)
                     rows[j] = static_cast<const float*>(in[j]) + from * k->strides[j];
                   k->fn(rows.begin(), k->strides.begin(), out + from * k->inner, to - from,
                         k->inner);
                 });
      } else if (const auto* p = std::get_if<Product>(&step)) {
        const gemm::Matrix a{ptr(p->a), p->a_row, p->a_col};
        const gemm::Output c{ptr(p->out), p->n};
        const gemm::Epilogue e{p->bias.base >= 0 ? ptr(p->bias) : nullptr, p->relu};
        const Base& base = s->bases[static_cast<std::size_t>(p->b.base)];
        if (p->ready >= 0) {
          fast::product(p->m, p->n, p->k, a, s->ready[static_cast<std::size_t>(p->ready)], c, gemm_,
                        e);
        } else if (base.kind == Base::stacked) {  // a layer's weight: its resident panels
          const Tensor b = given[base.index]
                               .select(shape.axes[base.index - shape.carries], position)
                               .view(p->b.offset, p->b_shape, p->b_strides);
          fast::product(p->m, p->n, p->k, a, fast::right_operand(b, p->m, gemm_), c, gemm_, e);
        } else {  // a value of the step's: its memory, by its strides
          fast::RightOperand b;
          b.matrix = gemm::Matrix{ptr(p->b), p->b_strides[0], p->b_strides[1]};
          fast::product(p->m, p->n, p->k, a, b, c, gemm_, e);
        }
      } else if (const auto* e = std::get_if<Binary>(&step)) {
        run_binary(*e, ptr(e->a), ptr(e->b), ptr(e->out));
      } else {
        const auto& c = std::get<Copy>(step);
        run_copy(c, ptr(c.from), ptr(c.to));
      }
    }
  }
  for (std::size_t k = 0; k < s->carries.size(); ++k) {
    const Tensor& carry = s->carries[k][0];
    if (s->slide_row[k] >= 0)  // its last T rows
      run.outputs.push_back(
          s->slides[k].view(length * s->slide_row[k], carry.shape(), carry.strides()));
    else
      run.outputs.push_back(s->carries[k][static_cast<std::size_t>(length & 1)]);
  }
  for (Tensor& r : s->results) run.outputs.push_back(std::move(r));
  s->results.clear();
  // Nothing of the run's inputs kept past it (a call's frame memory counts
  // a buffer held after the call as one that escaped).
  for (auto& b : s->ready) b = {};
  // The walk's counts, as if it had run the body `length` times.
  const FusionPlan& plan = *s->body;
  plan.counters->calls += length;
  for (std::size_t p = 0; p < kPaths; ++p)
    if (s->paths[p]) plan.counters->paths[p] += s->paths[p] * length;
  runs_ += s->kernels * length;
  ++planned_loops_;
  return true;
}

}  // namespace ss::runtime::fastexec
