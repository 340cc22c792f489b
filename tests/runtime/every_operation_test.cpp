// Every operation the checker accepts runs on every CPU executor, forward
// and with its gradients, so no program that checks can meet an "isn't
// supported" at run time. The programs below reach every operation of the
// IR (checked); each function's first output, summed to a scalar where it
// has axes, is differentiated with respect to every float input. What an
// executor still can't run is listed per executor, and the list may only
// shrink: a new entry fails, and so does one that has come to run. (The
// CUDA executor runs these graphs on the stand-in driver in
// tests/kernels/cuda_executor_test.cpp; the standalone build refuses
// random draws with E1808 at build time.) The fast executor is held to
// its reason table: an op it gives a reason for never runs on its paths,
// and each other op met runs there.
#include <doctest/doctest.h>

#include <set>

#include "ir/autodiff.hpp"
#include "kernels/cuda_executor.hpp"
#include "lower/lower.hpp"
#include "runtime/fast/fast_executor.hpp"
#include "runtime/reference/interpreter.hpp"
#include "runtime/reference/ops.hpp"
#include "standalone/emit_cpp.hpp"
#include "support/checked_program.hpp"
#include "support/fast_executor.hpp"
#include "support/lowered_graphs.hpp"
#include "support/paths.hpp"

namespace {

using ss::ir::Graph;
using ss::ir::Node;
using ss::ir::Op;

// The operations each executor can't run yet, by name: empty, and to stay so.
const std::map<std::string, std::set<std::string>> kCantRunYet = {
    {"reference", {}}, {"fast", {}}, {"gradient", {}}};

// `g` with its first output's gradients as its outputs, or nullopt when that
// output isn't a float (nothing to differentiate).
std::optional<Graph> with_gradients(Graph g, const ss::runtime::Dims& dims) {
  int output = g.outputs.at(0);
  const auto type = g.nodes[static_cast<std::size_t>(output)].type;
  if (!type.is_tensor() || !type.elem.is_float()) return std::nullopt;
  if (!type.axes.empty()) {  // summed to a scalar first
    Node total{.op = Op::reduce, .in = {output}, .type = ss::types::Type::scalar()};
    total.sub = static_cast<int>(ss::ir::Reduce::sum);
    for (std::size_t k = 0; k < type.axes.size(); ++k)
      total.axes.push_back(static_cast<std::int64_t>(k));
    output = g.add(std::move(total));
  }
  std::vector<int> wrt;
  for (const int id : g.inputs)
    if (g.nodes[static_cast<std::size_t>(id)].type.elem.is_float()) wrt.push_back(id);
  std::vector<int> found;
  for (const int d : ss::ir::append_gradients(g, output, wrt, dims))
    if (d >= 0) found.push_back(d);
  if (found.empty()) return std::nullopt;
  g.outputs = std::move(found);
  return g;
}

}  // namespace

TEST_CASE("every operation runs forward and backward on the reference and the fast executor") {
  const auto fast = ss::test::make_fast_executor({.jit_library = ss::test::kJitPath});
  std::map<std::string, std::set<std::string>> cant = {
      {"reference", {}}, {"fast", {}}, {"gradient", {}}};
  std::set<std::string> reached;  // operations that ran, by name
  // Per op met, the nodes the fast executor ran itself, over the graphs
  // that ran to their end (the rest it left to the reference).
  std::map<Op, std::int64_t> ran_fast;
  int graphs = 0;
  for (const std::string file :
       {"tests/programs/valid/operations.ss", "tests/programs/valid/features.ss",
        "tests/programs/gradients/ops.ss", "tests/programs/training/dropout.ss",
        "examples/tinylm/tinylm.ss", "examples/digits/digits.ss"}) {
    const auto program = ss::test::check_source_file(file);
    const auto& dims = program->typed.dims;
    for (const auto& [name, fn] : program->typed.functions) {
      if (fn.controller || fn.item->is_extern) continue;
      const std::string function = name;  // not a binding: CAPTURE can't take one
      CAPTURE(file);
      CAPTURE(function);
      Graph forward;
      try {
        forward = ss::lower::lower_function(program->typed, function);
      } catch (const ss::lower::NotLowered& e) {
        FAIL_CHECK("`" << function << "` checks but doesn't lower: " << e.what());
        continue;
      }
      std::vector<Graph> runs = {forward};
      try {
        if (auto backward = with_gradients(forward, dims)) runs.push_back(std::move(*backward));
      } catch (const ss::ir::NotDifferentiable& e) {
        cant["gradient"].insert(e.what());
      }
      for (const auto& g : runs) {
        const auto inputs = ss::test::made_up_inputs(g, dims);
        for (const auto* executor : {"reference", "fast"}) {
          const bool on_fast = std::string(executor) == "fast";
          const auto before = ss::runtime::executor_nodes(*fast);
          try {
            (void)ss::runtime::run_graph(g, inputs, dims, nullptr, on_fast ? fast.get() : nullptr);
            if (on_fast) {
              const auto after = ss::runtime::executor_nodes(*fast);
              const auto count = [](const std::map<std::string, std::int64_t>& nodes,
                                    const std::string& path) {
                const auto it = nodes.find(path);
                return it == nodes.end() ? std::int64_t{0} : it->second;
              };
              std::map<Op, std::int64_t> total;
              for (const auto& n : g.nodes)
                if (n.op != Op::input) ++total[n.op];
              for (const auto& [op, nodes] : total) {
                const std::string path = std::string("reference ") + ss::ir::op_name(op);
                ran_fast[op] += nodes - (count(after, path) - count(before, path));
              }
            }
          } catch (const ss::runtime::reference::RangeError&) {
            // made-up ids out of range: refused as the program's own would be
          } catch (const std::exception& e) {
            cant[executor].insert(e.what());
          }
        }
        for (const auto& n : g.nodes) reached.insert(ss::ir::op_name(n.op));
        ++graphs;
      }
    }
  }
  CHECK(graphs > 100);
  for (const auto& entry : kCantRunYet) {
    const auto& executor = entry.first;  // named: clang 14 can't capture a binding
    const auto& ops = entry.second;
    CAPTURE(executor);
    for (const auto& op : cant[executor])
      CHECK_MESSAGE(ops.count(op), executor << " can't run: " << op);
    for (const auto& op : ops)
      CHECK_MESSAGE(cant[executor].count(op), executor << " runs " << op << " now: unlist it");
  }
  // The fast executor's op switch agrees with its reason table: an op it
  // gives a reason for never runs on its paths, and every other it met ran
  // there at least once (it may still leave a dtype it lacks to the
  // reference).
  for (const auto& entry : ran_fast) {
    const std::string name = ss::ir::op_name(entry.first);
    CAPTURE(name);
    if (ss::ir::op_info(entry.first).fast)
      CHECK(entry.second == 0);
    else
      CHECK(entry.second > 0);
  }
  // The programs reach every operation but the several-device collective
  // (tests/runtime/several_devices_test).
  for (std::size_t op = 0; op < ss::ir::kOpCount; ++op) {
    const std::string name = ss::ir::op_name(static_cast<Op>(op));
    CAPTURE(name);
    if (name == "all_reduce") continue;
    CHECK(reached.count(name));
  }
}

TEST_CASE("each backend's unsupported ops, with their reasons, are listed and may only shrink") {
  // What each backend leaves to another today (ir/ops.def's rows it marks
  // unsupported, each with its reason): a new entry fails, and so does one
  // that has come to run.
  const std::map<std::string, std::set<std::string>> expected = {
      {"fast (left to the reference)", {"random", "take_along"}},
      {"cuda (run on the host)", {"argsort", "random", "sort"}},
      {"standalone (E1808)", {"random"}},
  };
  // ir/ops.def's columns.
  const std::map<std::string, const char* (*)(Op)> backends = {
      {"fast (left to the reference)", [](Op op) { return ss::ir::op_info(op).fast; }},
      {"cuda (run on the host)", [](Op op) { return ss::ir::op_info(op).cuda; }},
      {"standalone (E1808)", [](Op op) { return ss::ir::op_info(op).standalone; }},
  };
  for (const auto& [backend, reason_of] : backends) {
    const std::string name = backend;  // clang 14's CAPTURE can't take a binding
    CAPTURE(name);
    std::set<std::string> unsupported;
    for (std::size_t k = 0; k < ss::ir::kOpCount; ++k)
      if (const char* why = reason_of(static_cast<Op>(k))) {
        unsupported.insert(ss::ir::op_name(static_cast<Op>(k)));
        MESSAGE(name << ": " << ss::ir::op_name(static_cast<Op>(k)) << ": " << why);
      }
    CHECK(unsupported == expected.at(name));
  }
}
