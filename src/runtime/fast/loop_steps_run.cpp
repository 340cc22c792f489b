// A loop's planned steps run (loop_steps.hpp): each run its buffers
// checked (a carry's taken anew where a last run's value is still held),
// then each step its bases' pointers and its calls.
#include <cstring>

#include "runtime/core/frame_memory.hpp"
#include "runtime/fast/fast_loops.hpp"
#include "runtime/fast/loop_steps.hpp"

namespace ss::runtime::fastexec {
namespace {

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

}  // namespace

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

void run_copy(const Copy& c, const float* from, float* to) {
  if (c.shape.empty()) {
    *to = *from;
    return;
  }
  copy_axes(c, 0, from, to);
}

void run_binary(const Binary& e, const float* a, const float* b, float* out) {
  fast::with_arithmetic(e.op, [&](auto f) {
    for (std::int64_t o = 0; o < e.outer; ++o)
      fast::each_pair(e.inner, a + o * e.a_row, e.a_step, b + o * e.b_row, e.b_step,
                      out + o * e.inner, f);
  });
}

void run_unary(const Unary& u, const float* in, float* out) {
  fast::with_exact_unary(u.op, [&](auto f) {
    for (std::int64_t j = 0; j < u.count; ++j) out[j] = f(in[j]);
  });
}

bool FastExecutor::run_loop(const LoopRun& run, const Dims& dims, WorkerContext* /*worker*/) const {
  if (!jit_ || !options_.plan_loops) return false;
  const UseWorkers use(options_.workers.get());
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
      } else if (const auto* u = std::get_if<Unary>(&step)) {
        run_unary(*u, ptr(u->in), ptr(u->out));
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
