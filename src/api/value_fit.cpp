#include "api/value_fit.hpp"

#include <set>

#include "ir/optimizers.hpp"
#include "runtime/controller/models.hpp"
#include "runtime/reference/interpreter.hpp"

namespace ss::api {
namespace {

using Kind = runtime::Value::Kind;
using types::Type;

// Why `fields` aren't exactly `want` (path, dtype and shape each), or "".
std::string fields_misfit(const std::string& what, const runtime::Fields& fields,
                          const std::vector<runtime::ParamInfo>& want) {
  std::set<std::string> wanted;
  for (const auto& param : want) {
    wanted.insert(param.path);
    const auto it = fields.find(param.path);
    if (it == fields.end())
      return what + " has no `" + param.path + "` " + runtime::shape_str(param.shape);
    if (it->second.dtype() != param.dtype || it->second.shape() != param.shape)
      return "its `" + param.path + "` is " + runtime::dtype_name(it->second.dtype()) + " " +
             runtime::shape_str(it->second.shape()) + ", " + what + "'s is " +
             runtime::dtype_name(param.dtype) + " " + runtime::shape_str(param.shape);
  }
  for (const auto& [path, t] : fields)
    if (!wanted.count(path)) return "its `" + path + "` isn't in " + what;
  return "";
}

// A record's fields: each must be there, one example's shape after the
// examples' axis (a generic axis takes any size).
std::string record_misfit(const ir::Program& p, const std::string& record,
                          const std::map<std::string, runtime::Tensor>& fields) {
  const auto found = p.records.find(record);
  if (found == p.records.end()) return "the program has no record `" + record + "`";
  std::set<std::string> wanted;
  for (const auto& [name, type] : found->second) {
    wanted.insert(name);
    const auto it = fields.find(name);
    if (it == fields.end()) return "it has no field `" + name + "`, a " + type.str();
    const runtime::Tensor& t = it->second;
    bool fits = t.rank() == static_cast<std::int64_t>(type.axes.size()) + 1 &&
                t.dtype() == runtime::dtype_of(type.elem);
    for (std::size_t k = 0; fits && k < type.axes.size(); ++k)
      if (const auto n = runtime::size_of(type.axes[k], {}, p.dims);
          n && *n != t.dim(static_cast<std::int64_t>(k) + 1))
        fits = false;
    if (!fits)
      return "its field `" + name + "` is " + runtime::dtype_name(t.dtype()) + " " +
             runtime::shape_str(t.shape()) + ", where " + record + "'s is " + type.str() +
             " per example (after the examples' axis)";
  }
  for (const auto& [name, t] : fields)
    if (!wanted.count(name)) return "its field `" + name + "` isn't one of " + record + "'s";
  if (!fields.empty()) {
    const std::int64_t n = fields.begin()->second.rank() ? fields.begin()->second.dim(0) : 0;
    for (const auto& [name, t] : fields)
      if (t.rank() == 0 || t.dim(0) != n)
        return "its fields hold different numbers of examples (`" + name + "`)";
  }
  return "";
}

}  // namespace

std::string layout_misfit(const ir::Program& p, const Value::State& state,
                          const runtime::Value& v) {
  switch (v.kind) {
    case Kind::model:
      if (!p.models.count(state.name)) return "the program has no model `" + state.name + "`";
      return fields_misfit(state.name, v.fields, runtime::model_layout(p, state.name));
    case Kind::optimizer: {
      if (!p.models.count(state.name)) return "the program has no model `" + state.name + "`";
      const ir::OptimizerSpec* spec = ir::optimizer_spec(state.optimizer);
      if (!spec) return "no optimiser `" + state.optimizer + "`";
      runtime::Fields zeros;
      for (const auto& param : runtime::model_layout(p, state.name))
        zeros[param.path] = runtime::Tensor::zeros(param.dtype, param.shape);
      std::vector<runtime::ParamInfo> want;
      for (const auto& [path, t] : runtime::make_optimizer(*spec, zeros, {}))
        want.push_back({path, t.dtype(), t.shape()});
      return fields_misfit(state.optimizer + "[" + state.name + "]", v.fields, want);
    }
    case Kind::record:
      return record_misfit(p, state.name, v.fields);
    case Kind::dataset: {
      std::map<std::string, runtime::Tensor> columns;
      if (v.data)
        for (std::size_t k = 0; k < v.data->names.size(); ++k)
          columns[v.data->names[k]] = v.data->columns[k];
      return record_misfit(p, state.name, columns);
    }
    default:
      return "";
  }
}

namespace {

// A model value of `got` where `want` is asked: the same model, or an
// instance of the same generic model whose dims fit: a parameter's generic
// axis (`Linear[i, o]`) takes any, others are the instance's own
// ("Linear[D, E]" names its dims as the source writes them).
bool model_fits(const types::Type& want, const std::string& got) {
  if (got == want.name) return true;
  if (want.axes.empty() || types::model_base(got) != types::model_base(want.name)) return false;
  const auto open = got.find('['), close = got.rfind(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  std::vector<std::string> dims;
  for (std::size_t at = open + 1; at <= close;) {
    const std::size_t end = std::min(got.find(", ", at), close);
    dims.push_back(got.substr(at, end - at));
    at = end + (end == close ? 1 : 2);
  }
  if (dims.size() != want.axes.size()) return false;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    const auto& a = want.axes[k];
    const bool generic = a.single() && a.factors[0].kind == types::Factor::Kind::generic;
    if (!generic && a.str() != dims[k]) return false;
  }
  return true;
}

}  // namespace

std::string value_misfit(const ir::Program& p, const types::Type& want, const Value::State& state,
                         const runtime::Value& v, bool layout_known) {
  const auto is = [&] { return "it is " + value_type(state, v); };
  switch (want.kind) {
    case Type::Kind::model:
      if (v.kind != Kind::model || !model_fits(want, state.name)) return is();
      break;
    case Type::Kind::optimizer:
      if (v.kind != Kind::optimizer || !model_fits(want, state.name) ||
          state.optimizer != want.opt_kind)
        return is();
      break;
    case Type::Kind::batch:
      if (v.kind != Kind::record || state.name != want.name) return is();
      break;
    case Type::Kind::dataset:
      if (v.kind != Kind::dataset || state.name != want.name) return is();
      break;
    case Type::Kind::tensor:
      if (v.kind == Kind::tensor) return "";
      if (want.axes.empty() && (v.kind == Kind::integer || v.kind == Kind::floating)) return "";
      return is();
    case Type::Kind::integer:
    case Type::Kind::floating:
      if (v.kind == Kind::integer || v.kind == Kind::floating) return "";
      if (v.kind == Kind::tensor && v.tensor.rank() == 0) return "";
      return is();
    default:
      return "a host can't pass a " + want.str();
  }
  return layout_known ? "" : layout_misfit(p, state, v);
}

std::string value_type(const Value::State& state, const runtime::Value& v) {
  switch (v.kind) {
    case Kind::tensor:
      return runtime::shape_str(v.tensor.shape()) +
             (v.tensor.dtype() == runtime::DType::f32
                  ? ""
                  : std::string(" ") + runtime::dtype_name(v.tensor.dtype()));
    case Kind::integer:
      return "int";
    case Kind::floating:
      return "float";
    case Kind::model:
      return state.name;
    case Kind::optimizer:
      return state.optimizer + "[" + state.name + "]";
    case Kind::record: {
      const auto first = v.fields.begin();
      const std::string n = first == v.fields.end() || first->second.rank() == 0
                                ? "0"
                                : std::to_string(first->second.dim(0));
      return "[" + n + "] " + state.name;
    }
    case Kind::dataset:
      return "Dataset[" + state.name + "]";
    case Kind::tuple:
      return "a tuple of " + std::to_string(v.items.size());
    default:
      return "nothing";
  }
}

}  // namespace ss::api
