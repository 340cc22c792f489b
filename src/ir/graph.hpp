// The tensor IR: one graph per device function, the contract between the
// front end and every executor (the reference runtime, the fast CPU
// executor with its JIT, CUDA, the standalone C++). Its ops are
// ir/ops.def's rows. Nodes are in topological order; each has a tensor type
// whose axes are named (dims, the function's generic axes, literals), so
// generic sizes stay symbolic: one graph serves every batch size.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "diag/source_map.hpp"
#include "types/types.hpp"

namespace ss::ir {

struct Graph;

enum class Op {
#define SS_OP(op, inputs, axis, gradient, split, fast, cuda, standalone, attributes) op,
#include "ir/ops.def"
#undef SS_OP
};

inline constexpr std::size_t kOpCount = 0
#define SS_OP(op, inputs, axis, gradient, split, fast, cuda, standalone, attributes) +1
#include "ir/ops.def"
#undef SS_OP
    ;

// An op's facts, from its row of ir/ops.def (which explains each column).
struct OpInfo {
  enum Inputs : int { kAny = -1, kOptional = -2 };
  enum Axis { kNoAxis, kAxis, kAxes };
  enum Gradient { kFlows, kStops, kFirst };
  enum Split { kSource, kPointwise, kSums, kAway, kCollective };
  const char* name;
  int inputs;
  Axis axis;
  Gradient gradient;
  Split split;
  // Null where the executor runs the op, else why not: the fast CPU
  // executor's (left to the reference), the CUDA executor's (run on the
  // host), the standalone build's (E1808).
  const char* fast;
  const char* cuda;
  const char* standalone;
  const char* attributes;
};

const OpInfo& op_info(Op op);
const char* op_name(Op op);
// The op ops.def names `name` ("softmax"), or nullopt.
std::optional<Op> op_named(std::string_view name);

struct Node {
  Op op = Op::constant;
  std::vector<int> in;
  int sub = 0;
  std::vector<std::int64_t> axes;
  bool keep = false;
  double number = 0;
  std::string name;
  std::vector<std::int64_t> ints;
  std::vector<double> values;
  std::vector<std::vector<std::vector<std::string>>> groups_in;
  std::vector<std::vector<std::string>> groups_out;
  std::map<std::string, types::Axis> sizes;
  types::Type type;  // always a tensor
  diag::Span span;
  // A loop's body: a graph of its own, shared by copies, never changed once
  // made (an executor plans it with the graph around it).
  std::shared_ptr<const Graph> body;
};

// A graph's identity among the process's graphs, by which an executor
// keeps its plan for it (the module owns the executor, so the plans): a
// copy is another graph, with an identity of its own, as it may be changed.
struct GraphId {
  GraphId() : value(next()) {}
  GraphId(const GraphId&) : value(next()) {}
  GraphId& operator=(const GraphId&) {
    value = next();
    return *this;
  }
  std::uint64_t value;

 private:
  static std::uint64_t next() {
    static std::atomic<std::uint64_t> last{0};
    return ++last;
  }
};

struct Graph {
  std::string name;
  std::vector<Node> nodes;
  std::vector<int> inputs;   // in parameter order, a parameter's fields flattened
  std::vector<int> outputs;  // a tuple gives several
  // The last outputs' names, when the function changes `mut` structures:
  // their tensors' new values ("m.w1", "opt.step"), after the results.
  std::vector<std::string> updated;
  std::set<std::string> symbols;  // the generic axes the sizes depend on
  // With several devices: the generic axes that are batch axes. An input
  // with one is split along it; see ir/distribute.hpp.
  std::set<std::string> batch;
  // After distribution: per output, whether it is split (each worker
  // returns its part, joined in rank order) rather than whole.
  std::vector<bool> split_outputs;
  GraphId id;

  int add(Node node);
};

// A readable listing, one node a line:  %3 = matmul %1 %2 : [b H]
// A node's operation as listings name it: "matmul", "binary.add".
std::string op_label(const Node& n);
std::string print(const Graph& graph);

// Merges nodes that compute the same thing: the same operation and
// attributes on the same inputs (add, mul and equality's two operands in
// either order, exact in float), each folded into the first, so
// `f(x) * f(x)` computes f once, and its gradients' two identical chains
// once. Every executor is deterministic, so the results keep their bits.
// Inputs are never merged. Leaves the duplicates unread: drop_unused.
void merge_duplicates(Graph& graph);

// Removes the nodes no output reads, directly or through others (a
// gradient rule's share for an input that needs none, such as the data's),
// keeping the inputs and the nodes' order; references are renumbered.
void drop_unused(Graph& graph);

// Empty when the graph is well formed (inputs before use, arity, types);
// else what is wrong. Run between passes.
std::string verify(const Graph& graph);

}  // namespace ss::ir
