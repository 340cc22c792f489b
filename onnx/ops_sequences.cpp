// Tensors made from sizes: Range (folded at import, or over an open axis
// the program's arange) and Trilu's triangle masks.
#include <algorithm>
#include <cmath>

#include "onnx/fold_known.hpp"
#include "onnx/ops.hpp"
#include "onnx/ops_common.hpp"

namespace ss::onnx_import {
namespace {

using TP = onnx::TensorProto;

void range(Translator& t) {
  const Value& s = t.need(0);
  const Value& l = t.need(1);
  const Value& d = t.need(2);
  if (!s.constant || !l.constant || !d.constant)
    t.unsupported("E2007", "a Range of computed bounds has a size that depends on data");
  if (s.count() != 1 || l.count() != 1 || d.count() != 1)
    t.unsupported("E2008", "a Range's start, limit and delta are one value each");
  // In a generic translation, 0 to an open axis's size by 1 (positions):
  // the program's arange over that axis.
  if (Translator::is_open_size(static_cast<std::int64_t>(l.constant->at(0))) &&
      s.constant->at(0) == 0 && d.constant->at(0) == 1) {
    const std::int64_t n = static_cast<std::int64_t>(l.constant->at(0));
    return t.emit_as(s.dtype() + "(arange(" + std::to_string(n) + "))", {n}, s.onnx_type);
  }
  Constant c;
  c.onnx_type = s.onnx_type;
  const double start = s.constant->at(0), limit = l.constant->at(0), delta = d.constant->at(0);
  if (delta == 0) t.unsupported("E2005", "a Range with a delta of 0");
  const double count = std::ceil((limit - start) / delta);
  // Folded at import up to 64 MiB, as any node (fold_known.hpp): a Range to
  // 2^40 grew its constant until the host ran out of memory
  // (fuzz_onnx_models's eighth find).
  if (!(count <= static_cast<double>(kFoldedElements)))
    t.unsupported("E2007", "a Range of " + std::to_string(count) +
                               " values, more than an import folds (64 MiB)");
  const auto n = std::max<std::int64_t>(0, static_cast<std::int64_t>(count));
  c.shape = {n};
  for (std::int64_t i = 0; i < n; ++i) {
    if (c.is_float())
      c.floats.push_back(static_cast<float>(start + static_cast<double>(i) * delta));
    else
      c.ints.push_back(s.constant->int_at(0) + i * d.constant->int_at(0));
  }
  t.fold(c);
}

void trilu(Translator& t) {
  const Value& x = t.need(0);
  if (x.rank() < 2) t.unsupported("E2008", "Trilu needs at least two axes");
  const std::int64_t k = t.input(1) ? constant_ints(t, 1, "k").at(0) : 0;
  const bool upper = t.int_attr("upper", 1) != 0;
  const std::int64_t rows = x.shape[x.rank() - 2], cols = x.shape[x.rank() - 1];
  Constant mask;
  mask.onnx_type = TP::BOOL;
  mask.shape = {rows, cols};
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) mask.ints.push_back(upper ? j - i >= k : j - i <= k);
  const Value m = value_of(mask);
  if (x.count() == 0)
    t.unsupported("E2007", "an empty tensor", "shapescript's tensors have no empty axes");
  t.emit("where(" + t.operand(m) + ", " + t.operand(x) + ", " + Translator::literal(0, x.dtype()) +
         ")");
}

}  // namespace

void register_sequences(std::map<std::string, Handler>& table) {
  table["Range"] = range;
  table["Trilu"] = trilu;
}

}  // namespace ss::onnx_import
