#include "runtime/controller/controller_ops.hpp"

#include <cmath>

#include "runtime/data/data_error.hpp"
#include "runtime/data/safetensors.hpp"
#include "runtime/reference/interpreter.hpp"
#include "support/nearest.hpp"

namespace ss::runtime {
namespace {

using diag::Code;

// A static size, or -1 for an axis only the data fixes.
std::int64_t size_or_any(const types::Axis& axis, const ir::Program& p) {
  return size_of(axis, {}, p.dims).value_or(-1);
}

}  // namespace

Value new_model(const ir::Program& program, const std::string& model, std::uint64_t seed) {
  Value v = of_kind(Value::Kind::model);
  v.text = model;
  v.fields = initialise_model(program, model, seed);
  return v;
}

std::optional<Value> new_optimizer(const std::string& kind, const Value& model,
                                   const std::map<std::string, double>& settings) {
  const ir::OptimizerSpec* spec = ir::optimizer_spec(kind);
  if (!spec) return std::nullopt;
  Value v = of_kind(Value::Kind::optimizer);
  v.text = kind;
  v.fields = make_optimizer(*spec, model.fields, settings);
  return v;
}

Value load_dataset_value(const ir::Program& program, const std::string& record,
                         const std::string& path, const FileAccess& files) {
  std::vector<FieldSpec> fields;
  for (const auto& [name, type] : program.records.at(record)) {
    FieldSpec f{.name = name, .dtype = dtype_of(type.elem)};
    for (const auto& axis : type.axes) f.shape.push_back(size_or_any(axis, program));
    if (type.elem.kind == types::ElemKind::index && type.elem.index_of) {
      const std::int64_t bound = size_or_any(*type.elem.index_of, program);
      if (bound > 0) f.index_bound = bound;
    }
    fields.push_back(std::move(f));
  }
  Value v = of_kind(Value::Kind::dataset);
  v.text = record;
  v.data = std::make_shared<Dataset>(load_dataset(path, fields, files));
  return v;
}

namespace {

// "it holds `w1`, `w2` and `b1`": the names, nearest to `name` first, for
// E1704's help.
std::string names_held(const std::string& holder, const std::string& name,
                       const std::vector<std::string>& names) {
  if (names.empty()) return holder + " holds no tensor";
  return support::nearest_names(name, names, holder + " holds");
}

template <typename Map>
std::vector<std::string> keys(const Map& m) {
  std::vector<std::string> out;
  for (const auto& entry : m) out.push_back(entry.first);
  return out;
}

// The file's tensors under the names `names` gives them: each name's
// longest prefix there replaced. Two tensors given one name are E1704.
std::map<std::string, Tensor> renamed(std::map<std::string, Tensor> tensors, const NameMap& names,
                                      const std::string& path) {
  if (names.empty()) return tensors;
  std::map<std::string, Tensor> out;
  for (auto& [name, t] : tensors) {
    std::string to = name;
    std::size_t best = 0;
    for (const auto& [from, into] : names)
      if (from.size() >= best && name.compare(0, from.size(), from) == 0) {
        best = from.size();
        to = into + name.substr(from.size());
      }
    if (!out.emplace(to, std::move(t)).second)
      throw DataError(Code::E1704,
                      "the name map gives two tensors of `" + path + "` the name `" + to + "`",
                      "map each of the file's prefixes to a prefix of its own");
  }
  return out;
}

}  // namespace

Value load_model_value(const ir::Program& program, const std::string& model,
                       const std::string& path, const FileAccess& files, const NameMap& names) {
  auto tensors = renamed(read_safetensors(path, files), names, path);
  const auto held = keys(tensors);
  Value v = of_kind(Value::Kind::model);
  v.text = model;
  for (const auto& param : model_layout(program, model)) {
    const auto it = tensors.find(param.path);
    if (it == tensors.end())
      throw DataError(
          Code::E1704,
          "the checkpoint `" + path + "` has no tensor `" + param.path + "` for " + model +
              "'s parameter " + shape_str(param.shape),
          names_held("the file", param.path, held) + "; load a checkpoint saved from a " + model);
    if (it->second.shape() != param.shape)
      throw DataError(Code::E1704,
                      "the checkpoint's `" + param.path + "` is " + shape_str(it->second.shape()) +
                          ", " + model + "'s parameter is " + shape_str(param.shape),
                      "the model's dims must match the ones it was saved with");
    if (!is_float(it->second.dtype()))
      throw DataError(Code::E1704,
                      "the checkpoint's `" + param.path + "` holds " +
                          dtype_name(it->second.dtype()) + ", a parameter holds floats",
                      "load a checkpoint saved from a " + model);
    v.fields[param.path] = it->second.dtype() == param.dtype
                               ? it->second
                               : Tensor::from_values(param.dtype, param.shape, it->second.values());
    tensors.erase(it);
  }
  if (!tensors.empty()) {
    std::vector<std::string> params;
    for (const auto& param : model_layout(program, model)) params.push_back(param.path);
    throw DataError(Code::E1704,
                    "the checkpoint `" + path + "` holds `" + tensors.begin()->first + "`, which " +
                        model + " doesn't have",
                    names_held(model, tensors.begin()->first, params) +
                        "; load a checkpoint saved from a " + model);
  }
  return v;
}

Value load_optimizer_value(const ir::Program& program, const std::string& kind,
                           const std::string& model, const std::string& path,
                           const FileAccess& files, const NameMap& names) {
  const ir::OptimizerSpec* spec = ir::optimizer_spec(kind);
  if (!spec) throw std::logic_error("no optimiser " + kind);
  Fields zeros;
  for (const auto& param : model_layout(program, model))
    zeros[param.path] = Tensor::zeros(DType::f32, param.shape);
  const Fields want = make_optimizer(*spec, zeros, {});
  auto tensors = renamed(read_safetensors(path, files), names, path);
  const auto held = keys(tensors);
  Value v = of_kind(Value::Kind::optimizer);
  v.text = kind;
  for (const auto& [name, like] : want) {
    const auto it = tensors.find(name);
    if (it == tensors.end())
      throw DataError(Code::E1704,
                      "the optimiser checkpoint `" + path + "` has no tensor `" + name + "` for " +
                          kind + "[" + model + "]",
                      names_held("the file", name, held) +
                          "; load a file written by `save(opt, path)` for this optimiser and "
                          "model");
    if (it->second.shape() != like.shape())
      throw DataError(Code::E1704,
                      "the checkpoint's `" + name + "` is " + shape_str(it->second.shape()) + ", " +
                          kind + "[" + model + "]'s is " + shape_str(like.shape()),
                      "the model's dims must match the ones it was saved with");
    v.fields[name] = Tensor::from_values(DType::f32, like.shape(), it->second.values());
    tensors.erase(it);
  }
  if (!tensors.empty())
    throw DataError(Code::E1704,
                    "the checkpoint `" + path + "` holds `" + tensors.begin()->first + "`, which " +
                        kind + "[" + model + "] doesn't have",
                    "load a file written by `save(opt, path)` for this optimiser and model");
  return v;
}

void save_value(const Value& v, const std::string& path, const FileAccess& files) {
  std::map<std::string, std::string> metadata;
  if (v.kind == Value::Kind::optimizer) metadata["optimizer"] = v.text;
  if (v.kind == Value::Kind::model) metadata["model"] = v.text;
  write_safetensors(path, v.fields, metadata, files);
}

Value pipe_stage(const Value& data, const std::string& stage, std::optional<double> positional,
                 const std::map<std::string, double>& keywords, const std::string& record) {
  const auto keyword = [&](const char* name, double fallback) {
    const auto it = keywords.find(name);
    return it == keywords.end() ? fallback : it->second;
  };
  const auto seed = static_cast<std::uint64_t>(keyword("seed", 0));
  if (stage == "batches") {
    Value v = of_kind(Value::Kind::batches);
    v.text = record;
    v.data = data.data;
    v.whole = static_cast<std::int64_t>(positional.value_or(1));
    return v;
  }
  if (stage == "whole") {  // every example, as one batch
    Value v = of_kind(Value::Kind::record);
    v.text = record;
    v.fields = data.data->batch(0, data.data->size());
    return v;
  }
  Value v = of_kind(Value::Kind::dataset);
  v.text = record;
  if (stage == "shuffle") {
    v.data = std::make_shared<Dataset>(shuffled(*data.data, seed));
  } else if (stage == "take" && data.kind == Value::Kind::batches) {  // the first k batches
    Value v2 = data;
    v2.data = std::make_shared<Dataset>(
        taken(*data.data, static_cast<std::int64_t>(positional.value_or(0)) * data.whole));
    return v2;
  } else if (stage == "take") {
    v.data = std::make_shared<Dataset>(
        taken(*data.data, static_cast<std::int64_t>(positional.value_or(0))));
  } else if (stage == "split") {
    auto [a, b] = split(*data.data, keyword("frac", 0.5), seed);
    Value first = v, second = v;
    first.data = std::make_shared<Dataset>(std::move(a));
    second.data = std::make_shared<Dataset>(std::move(b));
    Value pair = of_kind(Value::Kind::tuple);
    pair.items = {first, second};
    return pair;
  } else {
    throw std::logic_error("no dataset stage `" + stage + "`");
  }
  return v;
}

std::int64_t length(const Value& v) {
  if (!v.data) return 0;
  if (v.kind == Value::Kind::batches) {
    const std::int64_t n = v.whole;
    return (v.data->size() + n - 1) / n;
  }
  return v.data->size();
}

std::optional<Value> nth_item(const Value& iterable, std::int64_t k) {
  if (!iterable.data || k < 0 || k >= length(iterable)) return std::nullopt;
  Value v = of_kind(Value::Kind::record);
  v.text = iterable.text;
  if (iterable.kind == Value::Kind::batches) {
    const std::int64_t n = iterable.whole;
    v.fields = iterable.data->batch(k * n, std::min(iterable.data->size(), (k + 1) * n));
  } else {  // one example: its fields without the examples axis
    for (auto& [name, t] : iterable.data->batch(k, k + 1)) v.fields[name] = t.select(0, 0);
  }
  return v;
}

}  // namespace ss::runtime
