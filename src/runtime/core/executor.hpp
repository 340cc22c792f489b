// The one interface every executor implements (the reference interpreter,
// the fast CPU executor, the CUDA executor, a test's), with what each of them
// needs to run a graph: its generic axes bound from the inputs, the element
// type and shape of a node, a worker's part of a distributed graph.
// Executors plan at load (ir/planner.hpp: the pipeline's last pass), keep
// their plans themselves (runtime/core/plan_store.hpp), and are owned by the
// module that loaded them, so each program version has its own.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ir/attributes.hpp"
#include "ir/graph.hpp"
#include "ir/memory_plan.hpp"
#include "ir/planner.hpp"
#include "runtime/core/internal_error.hpp"
#include "runtime/core/tensor.hpp"

namespace ss::runtime {

// E1603's help where the inputs come from a command line's `--arg`.
inline constexpr const char* kArgTypeHelp =
    "give a value of the declared shape and element type; `--arg` gives f32 unless written "
    "with `i32:`, as `--arg ids=i32:[1, 2]`";

// An input of the wrong shape or element type, or missing: what a host did
// wrong, named for its diagnostic.
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

// The runtime's element type for a checked one (Index[C] is i32): inline,
// as every node of every run asks.
inline DType dtype_of(const types::Elem& elem) {
  switch (elem.kind) {
    case types::ElemKind::f32:
      return DType::f32;
    case types::ElemKind::bf16:
      return DType::bf16;
    case types::ElemKind::f16:
      return DType::f16;
    case types::ElemKind::i32:
    case types::ElemKind::index:
      return DType::i32;
    case types::ElemKind::boolean:
      return DType::boolean;
  }
  return DType::f32;
}

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

// Where a value's batch axis is (an axis that is one of `batch`'s generic
// names; E1802 keeps it a lone factor), and its name; -1 when it has none.
std::pair<int, std::string> batch_axis(const types::Type& t, const std::set<std::string>& batch);

class Collectives;

// What an executor keeps for a loop node from one run to the next, in the
// loop's frame (the fast executor's steps planned for it).
struct LoopState {
  virtual ~LoopState() = default;
};

// A loop node's run as the walk hands it to an executor: its inputs, what
// the executor kept for it, and where its outputs go (its carries' last
// values, then its stacked results).
struct LoopRun {
  const ir::Node& loop;
  const ir::LoopShape& shape;
  const std::vector<Tensor>& given;
  std::unique_ptr<LoopState>& state;
  std::vector<Tensor>& outputs;
};

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

// How many graphs an executor planned at load (ir::Planner::plan) and how
// many it had to plan when a call first ran them: after a load, none should.
struct PlanCounts {
  std::int64_t at_load = 0, at_call = 0;
};

// An executor. The graph walk (runtime/reference/interpreter.hpp's
// run_graph) offers it each node first and runs the reference operation
// where it declines; one whose values live elsewhere (a GPU's memory) runs
// the whole graph instead. Its results must match the reference's within
// docs/numerics.md's tolerances (the tests compare).
class GraphExecutor : public ir::Planner {
 public:
  // What messages call it: "the fast executor".
  virtual std::string name() const = 0;
  // At load: plans `g` with its loop and fused bodies. An executor that
  // plans nothing (a test's) keeps the default.
  void plan(const ir::Graph& /*g*/) const override {}
  std::string listing(const ir::Graph& g, std::string_view pass) const override;
  virtual PlanCounts plan_counts() const { return {}; }
  // Whether its graphs run under runtime::kPortableFloatState (round to
  // nearest, no flush-to-zero), set around the walk and put back after
  // (Numerics::portable).
  virtual bool portable_numerics() const { return false; }
  // Readies a resident value's tensors for `g`, by input name, when the
  // value is made or loaded (the fast executor packs a GEMM's weight
  // operand then, not at the first call). Nothing by default.
  virtual void prepare(const ir::Graph& /*g*/,
                       const std::map<std::string, Tensor>& /*resident*/) const {}
  // Computes node `i` of `g` into values[i] from the values before it
  // (`sizes`: the generic axes' sizes; `dims` the program's); false leaves
  // it to the reference.
  virtual bool run(const ir::Graph& /*g*/, std::size_t /*i*/, std::vector<Tensor>& /*values*/,
                   const std::map<std::string, std::int64_t>& /*sizes*/,
                   const Dims& /*dims*/) const {
    return false;
  }
  // A loop node whole: true with its outputs in run.outputs, or false to
  // have the walk run its body once per step, each node offered to run()
  // (run_loop_in). The fast executor runs a body it can as straight-line
  // calls planned once (runtime/fast/loop_steps_plan.cpp).
  virtual bool run_loop(const LoopRun& /*run*/, const Dims& /*dims*/,
                        WorkerContext* /*worker*/) const {
    return false;
  }
  // When the walk may drop each value (ir/memory_plan.hpp): an executor
  // that reads some nodes' inputs elsewhere than at the node must say so
  // here (a wrapper must pass this on, or values die early); null when
  // every node reads its inputs where it runs.
  virtual std::shared_ptr<const ir::ReleasePlan> releases(const ir::Graph& g) const = 0;
  // A whole graph at once, for an executor whose values live elsewhere (a
  // GPU's memory): true with `outputs` filled, or false to be offered the
  // graph node by node.
  // `outputs` may come with tensors in it (a frame's last results): an
  // executor replaces them, and may reuse the vector's capacity.
  virtual bool run_whole(const ir::Graph& /*g*/, const std::map<std::string, Tensor>& /*inputs*/,
                         const Dims& /*dims*/, WorkerContext* /*worker*/,
                         std::vector<Tensor>& /*outputs*/) const {
    return false;
  }
  // Whether run_whole takes every graph (the API's frames then hand it
  // the inputs by name, kept from call to call).
  virtual bool runs_whole_graphs() const { return false; }
};

// Each loop's and fused node's body graph in `g`, depth first (a body's
// bodies too): what planning a graph plans with it.
template <class Visit>
void for_each_body(const ir::Graph& g, const Visit& visit) {
  for (const auto& n : g.nodes)
    if (n.body) {
      for_each_body(*n.body, visit);
      visit(*n.body);
    }
}

}  // namespace ss::runtime
