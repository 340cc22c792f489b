#include "api/batcher_rows.hpp"

#include "api/compiled.hpp"
#include "diag/codes.hpp"
#include "types/types.hpp"

namespace ss::api {

Diagnostic batcher_misfit(std::string why) {
  return diag::error(diag::Code::E1603, "a batcher's request: " + std::move(why),
                     "give one row of each batched parameter (its shape without the batch axis) "
                     "and one writable row of each result, row-major f32 or i32");
}

namespace {

bool same_elem(const types::Elem& e, DType d) {
  return d == DType::i32 ? e.is_integer() : (d == DType::f32 && e.kind == types::ElemKind::f32);
}

// Why `row` isn't one row of `type` (a tensor whose leading axis is the
// batch): empty when it is. Axes of a fixed size must match; another
// generic axis takes any size.
std::string row_misfit(const types::Type& type, const Tensor& row, const std::string& what,
                       const std::map<std::string, std::optional<std::int64_t>>& dims) {
  if (!type.is_tensor() || type.axes.empty() || !type.axes[0].single() ||
      type.axes[0].factors[0].kind != types::Factor::Kind::generic)
    return what + " is " + type.str() + ", not a tensor with a generic batch axis leading";
  const std::size_t rank = type.axes.size() - 1;
  const auto given = std::string("a row of shape ") + runtime::shape_str(row.shape());
  if (row.shape().size() != rank)
    return what + " is " + type.str() + ": its row has " + std::to_string(rank) + " axes, given " +
           given;
  for (std::size_t a = 0; a < rank; ++a) {
    const auto want = types::static_size(type.axes[a + 1], dims);
    if (want && *want != row.shape()[a]) return what + " is " + type.str() + ": given " + given;
  }
  if (!same_elem(type.elem, row.dtype()))
    return what + " holds " + type.elem.str() + ", given a row of " +
           (row.dtype() == DType::i32   ? "i32"
            : row.dtype() == DType::f32 ? "f32"
                                        : "another type");
  return "";
}

}  // namespace

std::optional<Diagnostic> batcher_rows_misfit(const Module::Impl& impl, const std::string& function,
                                              const std::vector<Arg>& resident,
                                              const std::vector<Tensor>& inputs,
                                              const std::vector<Tensor>& outputs) {
  if (auto empty = impl.empty_module()) return empty;
  if (!impl.compiled->ok()) return impl.compiled->diagnostics.front();
  const auto sig = impl.program.functions.find(function);
  if (sig == impl.program.functions.end() || sig->second.is_extern || sig->second.controller ||
      !impl.callable.count(function))
    return diag::error(
        diag::Code::E1604,
        "a batcher's function, `" + function + "`, isn't a device function of this program",
        unknown_function_help(impl.compiled->typed, function, false));
  const auto& params = sig->second.params;
  if (params.size() != resident.size() + inputs.size())
    return batcher_misfit("`" + function + "` takes " + std::to_string(params.size()) +
                          " parameters, given " + std::to_string(resident.size()) +
                          " resident and " + std::to_string(inputs.size()) + " batched");
  for (std::size_t k = 0; k < resident.size(); ++k)
    if (resident[k].holds() == Arg::Holds::value && resident[k].value().empty())
      return batcher_misfit("its resident argument for `" + params[k].name + "` (a " +
                            params[k].type.str() + ") is an empty Value");
  const auto& dims = impl.program.dims;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const auto& p = params[resident.size() + k];
    const auto why = row_misfit(p.type, inputs[k], "`" + p.name + "`", dims);
    if (!why.empty()) return batcher_misfit("input row " + std::to_string(k) + ": " + why);
  }
  const types::Type& ret = sig->second.ret;
  const std::vector<types::Type> results =
      ret.is(types::Type::Kind::tuple) ? ret.items : std::vector<types::Type>{ret};
  if (!sig->second.has_ret || results.size() != outputs.size())
    return batcher_misfit("`" + function + "` returns " +
                          std::to_string(sig->second.has_ret ? results.size() : 0) +
                          " results, given " + std::to_string(outputs.size()) + " output rows");
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    const auto why = row_misfit(results[k], outputs[k], "result " + std::to_string(k), dims);
    if (!why.empty()) return batcher_misfit("output row " + std::to_string(k) + ": " + why);
  }
  return std::nullopt;
}

}  // namespace ss::api
