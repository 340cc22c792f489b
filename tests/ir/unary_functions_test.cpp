// types/unary.def drives the language's unary functions: each row a program
// calls by name is a built-in the checker types by the row's `result` and
// the lowering makes a `unary` node of that row, with no list of its own.
#include <doctest/doctest.h>

#include <string>

#include "ir/formulas.hpp"
#include "ir/graph.hpp"
#include "lower/lower.hpp"
#include "support/checked_program.hpp"
#include "types/unary_functions.hpp"

TEST_CASE("every unary.def function is a built-in: typed by its row, lowered to its row") {
  const auto& rows = ss::types::unary_functions();
  int functions = 0;
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const std::string name = rows[k].name;
    CAPTURE(name);
    CHECK(std::string(ss::ir::formula(static_cast<ss::ir::Unary>(k)).name) == name);
    if (rows[k].spelled != ss::types::Spelled::function) {
      CHECK(ss::types::unary_function(name) == -1);
      continue;
    }
    ++functions;
    CHECK(ss::types::unary_function(name) == static_cast<int>(k));
    const auto p =
        ss::test::check_source_text("dim D = 3\n\nfn f(x: [D]) -> [D] = " + name + "(x)\n");
    const ss::ir::Graph g = ss::lower::lower_function(p->typed, "f");
    const ss::ir::Node& out = g.nodes.at(static_cast<std::size_t>(g.outputs.at(0)));
    CHECK(out.op == ss::ir::Op::unary);
    CHECK(out.sub == static_cast<int>(k));
    // A function of numbers keeps an integer's type (it checks, returning i32).
    if (rows[k].result == ss::types::UnaryResult::same_type)
      (void)ss::test::check_source_text("dim D = 3\n\nfn g(x: [D] i32) -> [D] i32 = " + name +
                                        "(x)\n");
  }
  CHECK(functions >= 8);  // exp log sqrt abs tanh sigmoid relu gelu, at least
}
