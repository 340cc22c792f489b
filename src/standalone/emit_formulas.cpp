#include "standalone/emit_formulas.hpp"

#include <cctype>

#include "ir/formulas.hpp"
#include "types/binary_functions.hpp"

namespace ss::standalone {

// The library's elementwise functions (types/unary.def, types/binary.def)
// for the tiny runtime, by ir::Unary's and ir::Binary's numbers: their
// names, their result types (unary_result: 0 the operand's, 1 a float's,
// an integer's f32, 2 bool; binary_result: 0 the operands', 1 f32 for two
// integers, 2 bool) and their formulas (unary_formula, binary_formula).
std::string elementwise_formulas() {
  const auto in_std = [](const std::string& f) {
    return f == "nan" ? std::string("std::numeric_limits<double>::quiet_NaN") : "std::" + f;
  };
  const auto upper = [](std::string name) {
    for (auto& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return name;
  };
  const auto& unary = types::unary_functions();
  std::string unary_names, unary_results, unary_cases;
  for (std::size_t k = 0; k < unary.size(); ++k) {
    const std::string name = upper(unary[k].op);
    unary_names += (k ? ", " : "") + name;
    const int result = unary[k].result == types::UnaryResult::same_type    ? 0
                       : unary[k].result == types::UnaryResult::float_type ? 1
                                                                           : 2;
    unary_results += "    case " + name + ":\n      return " + std::to_string(result) + ";\n";
    unary_cases += "    case " + name + ":\n      return " +
                   ir::render(ir::formula(static_cast<ir::Unary>(k)), "x", in_std) + ";\n";
  }
  const auto& binary = types::binary_functions();
  std::string binary_names, binary_results, binary_cases;
  for (std::size_t k = 0; k < binary.size(); ++k) {
    const std::string name = "B_" + upper(binary[k].op);
    binary_names += (k ? ", " : "") + name;
    const int result = binary[k].result == types::BinaryResult::same_type    ? 0
                       : binary[k].result == types::BinaryResult::float_type ? 1
                                                                             : 2;
    binary_results += "    case " + name + ":\n      return " + std::to_string(result) + ";\n";
    const auto op = static_cast<ir::Binary>(k);
    const std::string floats = ir::render(ir::formula(op), "x", in_std, false, "y");
    const std::string integers = ir::render(ir::formula(op, true), "x", in_std, false, "y");
    binary_cases += "    case " + name + ":\n      return " +
                    (floats == integers ? floats : "integers ? " + integers + " : " + floats) +
                    ";\n";
  }
  return "#include <cmath>\n#include <limits>\n\nnamespace ssa {\n\nenum Unary { " + unary_names +
         " };\n\ninline int unary_result(int op) {\n  switch (op) {\n" + unary_results +
         "  }\n  return 0;\n}\n\ninline double unary_formula(int op, double x) {\n  switch (op) "
         "{\n" +
         unary_cases + "  }\n  return x;\n}\n\nenum Binary { " + binary_names +
         " };\n\ninline int binary_result(int op) {\n  switch (op) {\n" + binary_results +
         "  }\n  return 0;\n}\n\n"
         "inline double binary_formula(int op, double x, double y, bool integers) {\n"
         "  switch (op) {\n" +
         binary_cases + "  }\n  return x;\n}\n\n}  // namespace ssa\n\n";
}

}  // namespace ss::standalone
