#include "types/unary_functions.hpp"

namespace ss::types {

const std::vector<UnaryFunction>& unary_functions() {
  static const std::vector<UnaryFunction> rows = {
#define SS_UNARY(op, name, spelled, width, result, formula) \
  {#op, name, Spelled::spelled, UnaryResult::result},
#include "types/unary.def"
#undef SS_UNARY
  };
  return rows;
}

int unary_function(std::string_view name) {
  const auto& rows = unary_functions();
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].spelled == Spelled::function && rows[i].name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace ss::types
