// Every device function of the valid programs that lowers runs on the
// reference interpreter with made-up inputs, and gives its declared shapes.
// (Each operation's numbers are checked against numpy in reference_ops_test.)
#include <doctest/doctest.h>

#include <cmath>

#include "lower/lower.hpp"
#include "runtime/reference/interpreter.hpp"
#include "support/checked_program.hpp"

namespace {

using ss::runtime::DType;
using ss::runtime::Tensor;
using ss::types::Factor;

constexpr std::int64_t kGenericSize = 3;

std::int64_t size_of(const ss::types::Axis& axis, const ss::runtime::Dims& dims) {
  std::int64_t n = 1;
  for (const auto& f : axis.factors) {
    if (f.kind == Factor::Kind::literal)
      n *= f.value;
    else if (f.kind == Factor::Kind::dim)
      n *= dims.at(f.name).value();
    else
      n *= kGenericSize;
  }
  return n;
}

Tensor made_up(const ss::types::Type& type, const ss::runtime::Dims& dims) {
  ss::runtime::Shape shape;
  for (const auto& axis : type.axes) shape.push_back(size_of(axis, dims));
  const bool index = type.elem.kind == ss::types::ElemKind::index;
  const DType dtype = index || type.elem.kind == ss::types::ElemKind::i32 ? DType::i32
                      : type.elem.kind == ss::types::ElemKind::boolean    ? DType::boolean
                                                                          : DType::f32;
  Tensor t = Tensor::zeros(dtype, shape);
  const std::int64_t bound = index ? size_of(*type.elem.index_of, dims) : 0;
  for (std::int64_t k = 0; k < t.size(); ++k)
    t.set(k, index                     ? static_cast<double>(k % bound)
             : dtype == DType::boolean ? k % 2
                                       : std::sin(0.7 * k) + 0.1);
  return t;
}

}  // namespace

TEST_CASE(
    "every lowered device function of the valid programs runs and gives its declared shapes") {
  int ran = 0;
  for (const std::string file :
       {"tests/programs/valid/operations.ss", "tests/programs/valid/features.ss",
        "examples/tinylm/tinylm.ss", "examples/digits/digits.ss"}) {
    const auto program = ss::test::check_source_file(file);
    for (const auto& entry : program->typed.functions) {
      const std::string& name = entry.first;
      const auto& fn = entry.second;
      if (fn.controller || fn.item->is_extern) continue;
      CAPTURE(file);
      CAPTURE(name);
      ss::ir::Graph graph;
      try {
        graph = ss::lower::lower_function(program->typed, name);
      } catch (const ss::lower::NotLowered& e) {
        MESSAGE(name << " isn't lowered yet: " << std::string(e.what()));
        continue;
      }
      std::map<std::string, Tensor> inputs;
      for (const int id : graph.inputs) {
        const auto& node = graph.nodes[static_cast<std::size_t>(id)];
        inputs[node.name] = made_up(node.type, program->typed.dims);
      }
      const auto outputs = ss::runtime::run_graph(graph, inputs, program->typed.dims);
      REQUIRE(outputs.size() == graph.outputs.size());
      for (std::size_t k = 0; k < outputs.size(); ++k) {
        const auto& type = graph.nodes[static_cast<std::size_t>(graph.outputs[k])].type;
        REQUIRE(outputs[k].rank() == static_cast<std::int64_t>(type.axes.size()));
        for (std::size_t a = 0; a < type.axes.size(); ++a)
          if (type.axes[a].factors.empty() || type.axes[a].factors[0].kind != Factor::Kind::opaque)
            CHECK(outputs[k].dim(static_cast<std::int64_t>(a)) ==
                  size_of(type.axes[a], program->typed.dims));
      }
      ++ran;
    }
  }
  CHECK(ran >= 25);
}
