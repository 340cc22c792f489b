#include "types/binary_functions.hpp"

namespace ss::types {

const std::vector<BinaryFunction>& binary_functions() {
  static const std::vector<BinaryFunction> rows = {
#define SS_BINARY(op, name, written, spelled, width, result, formula, integers) \
  {#op, name, written, Spelled::spelled, BinaryResult::result},
#include "types/binary.def"
#undef SS_BINARY
  };
  return rows;
}

int binary_function(std::string_view written, Spelled spelled) {
  const auto& rows = binary_functions();
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].spelled == spelled && rows[i].written == written) return static_cast<int>(i);
  return -1;
}

BinaryResult binary_result(int row) {
  return binary_functions().at(static_cast<std::size_t>(row)).result;
}

bool yields_bool(BinaryResult result) {
  return result == BinaryResult::comparison || result == BinaryResult::logic;
}

}  // namespace ss::types
