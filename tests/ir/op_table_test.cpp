// The op table (src/ir/ops.def) is the IR's one list: names, inputs, axes,
// gradients and splits come from it, the verifier checks graphs by it, and
// the typed accessors read what its attribute column names.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "ir/attributes.hpp"
#include "ir/graph.hpp"

using ss::ir::Graph;
using ss::ir::Node;
using ss::ir::Op;
using ss::ir::OpInfo;

namespace {

ss::types::Type vector_type(int size) {
  return ss::types::Type::tensor({ss::types::Axis::literal(size)},
                                 ss::types::Elem{ss::types::ElemKind::f32, {}, false});
}

// x: an input of [4]; then `n` on it.
Graph on_input(Node n) {
  Graph g;
  g.inputs.push_back(g.add({.op = Op::input, .name = "x", .type = vector_type(4)}));
  g.outputs.push_back(g.add(std::move(n)));
  return g;
}

}  // namespace

TEST_CASE("every op has one row: a unique name, and facts the stages agree on") {
  std::set<std::string> names;
  for (std::size_t k = 0; k < ss::ir::kOpCount; ++k) {
    const auto op = static_cast<Op>(k);
    const OpInfo& info = ss::ir::op_info(op);
    CAPTURE(info.name);
    CHECK(names.insert(info.name).second);
    CHECK(std::string(ss::ir::op_name(op)) == info.name);
    CHECK(std::string(info.attributes).size() > 0);
    // Sources take nothing and pass no gradient back; a collective is distribution's own.
    if (info.split == OpInfo::kSource) {
      CHECK((info.inputs == 0 || info.inputs == OpInfo::kOptional));
      CHECK(info.gradient == OpInfo::kStops);
    }
  }
  CHECK(names.size() == ss::ir::kOpCount);
  CHECK(ss::ir::op_info(Op::all_reduce).split == OpInfo::kCollective);
  CHECK(ss::ir::op_info(Op::place).gradient == OpInfo::kFirst);
}

TEST_CASE("the verifier checks inputs and axes by the table") {
  const Node one_input_binary{.op = Op::binary, .in = {0}, .type = vector_type(4)};
  CHECK(ss::ir::verify(on_input(one_input_binary)).find("takes 2 inputs") != std::string::npos);
  const Node no_axis{.op = Op::softmax, .in = {0}, .type = vector_type(4)};
  CHECK(ss::ir::verify(on_input(no_axis)).find("names no axis") != std::string::npos);
  const Node two_axes{.op = Op::sort, .in = {0}, .axes = {0, 0}, .type = vector_type(4)};
  CHECK(ss::ir::verify(on_input(two_axes)).find("more than one axis") != std::string::npos);
  const Node far_axis{
      .op = Op::slice, .in = {0}, .axes = {1}, .ints = {0, 2}, .type = vector_type(2)};
  CHECK(ss::ir::verify(on_input(far_axis)).find("outside") != std::string::npos);
  const Node good{.op = Op::slice, .in = {0}, .axes = {0}, .ints = {1, 3}, .type = vector_type(2)};
  CHECK(ss::ir::verify(on_input(good)) == "");
  const Node random_two{.op = Op::random, .in = {0, 0}, .type = vector_type(4)};
  CHECK(ss::ir::verify(on_input(random_two)).find("at most one") != std::string::npos);
}

TEST_CASE("axis_part reads a slice, an index and a place as one thing") {
  const Node slice{.op = Op::slice, .axes = {1}, .ints = {1, 3}};
  auto p = ss::ir::axis_part(slice);
  CHECK(p.axis == 1);
  CHECK(p.first(10) == 1);
  CHECK(p.last(10) == 3);
  const Node from_end{.op = Op::slice, .axes = {0}, .keep = true, .ints = {2, 1}};
  p = ss::ir::axis_part(from_end);  // x[2:-1]
  CHECK(p.first(10) == 2);
  CHECK(p.last(10) == 9);
  CHECK(p.fits(3));
  CHECK_FALSE(p.fits(2));  // 2:1 is backwards
  const Node index{.op = Op::index, .axes = {0}, .number = -1};
  p = ss::ir::axis_part(index);
  CHECK(p.index);
  CHECK(p.first(5) == 4);
  CHECK(p.last(5) == 5);
  CHECK_FALSE(ss::ir::axis_part(Node{.op = Op::index, .axes = {0}, .number = 5}).fits(5));
  const Node placed_index{.op = Op::place, .axes = {0}, .number = 2};
  CHECK(ss::ir::axis_part(placed_index).index);
  const Node placed_slice{.op = Op::place, .axes = {0}, .ints = {0, 2}};
  CHECK_FALSE(ss::ir::axis_part(placed_slice).index);
  const Node pad{.op = Op::pad, .axes = {0}, .number = -1.5, .ints = {1, 2}};
  const auto widths = ss::ir::pad_of(pad);
  CHECK(widths.before == 1);
  CHECK(widths.after == 2);
  CHECK(widths.value == -1.5);
}
