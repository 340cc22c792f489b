// A loop's planned steps (FastExecutor::run_loop): what loop_steps_plan.cpp
// makes of a loop body and loop_steps_run.cpp runs each step. Why, and
// what a body may hold: loop_steps_plan.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <variant>
#include <vector>

#include "runtime/fast/fast_executor_impl.hpp"

namespace ss::runtime::fastexec {

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

// A binary + - * / of float32 not fused (a value read several times),
// with binary_f32's functions (fast::with_arithmetic): rows of `inner`,
// each operand read along a row or broadcast (step 0).
struct Binary {
  ir::Binary op;
  Place a, b, out;
  std::int64_t outer = 0, inner = 0, a_row = 0, b_row = 0, a_step = 1, b_step = 1;
};

// A unary op exact in float, not fused (-x, relu, sqrt), with
// unary_f32's functions (fast::with_exact_unary), over a contiguous input.
struct Unary {
  ir::Unary op;
  Place in, out;
  std::int64_t count = 0;
};

using Step = std::variant<Kernel, Product, Copy, Binary, Unary>;

// Merges the axes a copy's two layouts both walk as one; drops axes of 1.
void merge_axes(Copy& c);
void run_copy(const Copy& c, const float* from, float* to);
void run_binary(const Binary& e, const float* a, const float* b, float* out);
void run_unary(const Unary& u, const float* in, float* out);

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

}  // namespace ss::runtime::fastexec
