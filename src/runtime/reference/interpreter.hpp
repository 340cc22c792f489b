// Runs a graph on the reference runtime: the oracle every faster executor is
// tested against. The generic axes' sizes are read off the inputs at each
// call, so one graph runs at every batch size.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/graph.hpp"
#include "ir/memory_plan.hpp"
#include "runtime/core/tensor.hpp"

namespace ss::runtime {

// An input of the wrong shape or element type, or missing: what a host did
// wrong, named for its diagnostic.
// E1603's help where the inputs come from a command line's `--arg`.
inline constexpr const char* kArgTypeHelp =
    "give a value of the declared shape and element type; `--arg` gives f32 unless written "
    "with `i32:`, as `--arg ids=i32:[1, 2]`";

struct InputMismatch : std::runtime_error {
  InputMismatch(std::string input_name, const std::string& why)
      : std::runtime_error(why), input(std::move(input_name)) {}
  std::string input;
};

// A pattern's split `(h w)` of an axis whose size its given parts don't
// divide, found when the size is known only at run time.
struct SplitMismatch : std::runtime_error {
  SplitMismatch(diag::Span at, const std::string& why) : std::runtime_error(why), span(at) {}
  diag::Span span;
};

using Dims = std::map<std::string, std::optional<std::int64_t>>;

// The runtime's element type for a checked one (Index[C] is i32).
DType dtype_of(const types::Elem& elem);

// A node's shape from its type, for nodes that make values (fill,
// literal, random): every axis's size must be known by now.
Shape shape_of(const types::Type& type, const std::map<std::string, std::int64_t>& sizes,
               const Dims& dims);

// An axis's size: its literal factors, its dims' sizes, its generic names'
// `sizes`; nullopt when one of them isn't known.
std::optional<std::int64_t> size_of(const types::Axis& axis,
                                    const std::map<std::string, std::int64_t>& sizes,
                                    const Dims& dims);

// The sizes of the graph's generic axes, bound from the inputs' shapes.
std::map<std::string, std::int64_t> bind_sizes(const ir::Graph& graph,
                                               const std::map<std::string, Tensor>& inputs,
                                               const Dims& dims);

class Collectives;

// Where a value's batch axis is (an axis that is one of `batch`'s generic
// names; E1802 keeps it a lone factor), and its name; -1 when it has none.
std::pair<int, std::string> batch_axis(const types::Type& t, const std::set<std::string>& batch);

// One of several workers running a distributed graph (ir/distribute.hpp) on
// its part of the batch: all_reduce goes through `collectives`, a batch
// axis's Op::size is the whole batch's, and random values along a batch axis
// are drawn at their index in the whole batch, so they don't depend on how
// the batch was split.
struct WorkerContext {
  Collectives* collectives = nullptr;
  int local = 0;
  std::map<std::string, std::int64_t> whole;   // each batch axis's whole size
  std::map<std::string, std::int64_t> offset;  // where this worker's part starts
  std::int64_t all_reduces = 0;                // counted as they run
  std::int64_t reduced_values = 0;
  double collective_seconds = 0;  // spent in them, waiting for the others included
};

// A faster executor's share of a graph: run_graph offers it each node
// first and runs the reference operation where it declines. Its results
// must match the reference's within float32 rounding (the tests compare).
class Accelerator {
 public:
  virtual ~Accelerator() = default;
  // Computes node `i` of `g` into values[i] from the values before it
  // (`sizes`: the generic axes' sizes; `dims` the program's); false leaves
  // it to the reference.
  virtual bool run(const ir::Graph& g, std::size_t i, std::vector<Tensor>& values,
                   const std::map<std::string, std::int64_t>& sizes, const Dims& dims) const = 0;
  // When run_graph may drop each value (ir/memory_plan.hpp): an
  // accelerator that reads some nodes' inputs elsewhere than at the node
  // must say so here (a wrapper must pass this on, or values die early);
  // null when every node reads its inputs where it runs.
  virtual std::shared_ptr<const ir::ReleasePlan> releases(const ir::Graph& g) const = 0;
  // A whole graph at once, for an executor whose values live elsewhere (a
  // GPU's memory): true with `outputs` filled, or false to be offered the
  // graph node by node.
  virtual bool run_whole(const ir::Graph& /*g*/, const std::map<std::string, Tensor>& /*inputs*/,
                         const Dims& /*dims*/, WorkerContext* /*worker*/,
                         std::vector<Tensor>& /*outputs*/) const {
    return false;
  }
};

// The reference operation of node `i` into values[i], from the values
// before it (in the node's result type or another: run_graph casts): what
// run_graph does with a node no accelerator takes, and what an executor
// that runs elsewhere falls back to for an operation it lacks.
void run_reference_node(const ir::Graph& graph, std::size_t i, std::vector<Tensor>& values,
                        const std::map<std::string, Tensor>& inputs,
                        const std::map<std::string, std::int64_t>& sizes, const Dims& dims,
                        WorkerContext* worker);

// An einops node's input names, one per axis of its input once its groups
// are split (an empty name for a size-1 axis), and every name's size.
struct EinopsNames {
  std::vector<std::string> names;
  std::map<std::string, std::int64_t> sizes;
};
EinopsNames einops_names(const ir::Node& n, const Tensor& x,
                         const std::map<std::string, std::int64_t>& bound, const Dims& dims);

// An einops node as one rearrangement of its input, for an executor that
// moves elements rather than naming them: the input's named axes (size-1
// ones dropped) as `atoms`, permuted by `order` (the output's names in its
// order, then the ones it reduces, in the input's order, `reduced`
// elements in all). A name only the output has repeats the input: `kept`
// has 1 there and `expanded` its size. `shape` is the output's.
struct RearrangePlan {
  Shape atoms, shape, kept, expanded;
  std::vector<std::int64_t> order;
  bool repeats = false;
  std::int64_t reduced = 1;
};
RearrangePlan rearrange_plan(const ir::Node& n, const Tensor& x,
                             const std::map<std::string, std::int64_t>& bound, const Dims& dims);

// A loop node's outputs (ir::loop_of) from its inputs' values, each step a
// run_graph of its body on the same executor.
std::vector<Tensor> run_loop(const ir::Node& loop, const std::vector<Tensor>& inputs,
                             const Dims& dims, WorkerContext* worker,
                             const Accelerator* accelerator);

// A fused node's value (attention, attention_grad) as its body computes
// it: the composition the program wrote, on `accelerator` (if any) node by
// node.
Tensor run_body(const ir::Node& fused, const std::vector<Tensor>& inputs, const Dims& dims,
                WorkerContext* worker, const Accelerator* accelerator);

// Without a worker context, an all_reduce node passes its value on (one
// device holds every part).
std::vector<Tensor> run_graph(const ir::Graph& graph, const std::map<std::string, Tensor>& inputs,
                              const Dims& dims, WorkerContext* worker = nullptr,
                              const Accelerator* accelerator = nullptr);

}  // namespace ss::runtime
