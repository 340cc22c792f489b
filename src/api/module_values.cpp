// Module's values: made from a seed or the host's tensors, loaded from
// safetensors, saved, and copied.
#include <algorithm>

#include "api/module_impl.hpp"
#include "api/value_fit.hpp"
#include "diag/codes.hpp"
#include "ir/optimizers.hpp"
#include "runtime/controller/controller_ops.hpp"
#include "runtime/data/data_error.hpp"
#include "runtime/data/files.hpp"
#include "runtime/reference/interpreter.hpp"
#include "support/nearest.hpp"

namespace ss {
namespace {

using RKind = runtime::Value::Kind;

Value failed(std::vector<Diagnostic>* errors, Diagnostic d) {
  if (errors) errors->push_back(std::move(d));
  return {};
}

Value failed(std::vector<Diagnostic>* errors, std::vector<Diagnostic> ds) {
  if (errors) errors->insert(errors->end(), ds.begin(), ds.end());
  return {};
}

// Runs a value maker's body: what no coded path caught (memory the machine
// refused, a bug) comes back in *errors as E1611 or E0001, never thrown.
template <typename F>
Value guarded(std::vector<Diagnostic>* errors, F body) {
  try {
    return body();
  } catch (const std::exception& e) {
    return failed(errors, runtime::unexpected_failure(e));
  }
}

// What stops values being made at all: a module without a program, or
// dims still unsized.
std::vector<Diagnostic> not_ready(const Module::Impl& impl) {
  if (auto empty = impl.empty_module()) return {std::move(*empty)};
  if (!impl.compiled->ok())
    return {diag::error(diag::Code::E1604, "no program is loaded",
                        "load a program without errors first")};
  return api::unsized_dims(*impl.compiled);
}

// A map's keys, for a message's list of what there is.
template <typename Map>
std::vector<std::string> names_of(const Map& m) {
  std::vector<std::string> out;
  for (const auto& entry : m) out.push_back(entry.first);
  return out;
}

Diagnostic no_model(const std::string& type, const ir::Program& p) {
  return diag::error(diag::Code::E1604, "the program has no model `" + type + "`",
                     p.models.empty()
                         ? "the program declares no model"
                         : "its models are " + support::quoted_list(names_of(p.models)));
}

// "AdamW[Mlp]" as its kind and model; nullopt for a plain name.
std::optional<std::pair<std::string, std::string>> optimizer_type(const std::string& type) {
  const auto open = type.find('[');
  if (open == std::string::npos || type.back() != ']') return std::nullopt;
  return std::pair{type.substr(0, open), type.substr(open + 1, type.size() - open - 2)};
}

Diagnostic from_data_error(const runtime::DataError& e) {
  return diag::error(e.code, e.what(), e.help);
}

}  // namespace

Value Module::make(const std::string& type, const MakeOptions& options,
                   std::vector<Diagnostic>* errors) const {
  return guarded(errors, [&]() -> Value {
    const auto impl = current();
    if (auto bad = not_ready(*impl); !bad.empty()) return failed(errors, std::move(bad));
    const ir::Program& p = impl->program;
    if (!p.models.count(type)) return failed(errors, no_model(type, p));
    return impl->ready(impl->keep(
        ValueAccess::make(runtime::new_model(p, type, options.seed), type, {},
                          type + "(seed=" + std::to_string(options.seed) + ")", impl->serial)));
  });
}

Value Module::make_optimizer(const std::string& kind, const Value& model,
                             const std::map<std::string, double>& settings,
                             std::vector<Diagnostic>* errors) const {
  return guarded(errors, [&]() -> Value {
    const auto impl = current();
    if (auto bad = not_ready(*impl); !bad.empty()) return failed(errors, std::move(bad));
    const ir::OptimizerSpec* spec = ir::optimizer_spec(kind);
    if (!spec)
      return failed(errors, diag::error(diag::Code::E1604, "there is no optimiser `" + kind + "`",
                                        "make an SGD, Adam or AdamW"));
    const auto& state = ValueAccess::state(model);
    if (!state || model.kind() != Value::Kind::model)
      return failed(errors, diag::error(diag::Code::E1603,
                                        "an optimiser is made for a model, given " + model.type(),
                                        "give it a model value: make_optimizer(\"" + kind +
                                            "\", mod.make(\"Mlp\"))"));
    const auto known = names_of(spec->settings);
    for (const auto& [name, value] : settings)
      if (std::find(known.begin(), known.end(), name) == known.end())
        return failed(errors,
                      diag::error(diag::Code::E1603, kind + " has no setting `" + name + "`",
                                  "its settings are " + support::quoted_list(known)));
    auto opt = runtime::new_optimizer(kind, *state->current().value, settings);
    return impl->keep(
        ValueAccess::make(std::move(*opt), state->name, kind, kind + "(" + model.label() + ")"));
  });
}

Value Module::tensor(const Tensor& t, std::vector<Diagnostic>* errors) const {
  return guarded(errors, [&]() -> Value {
    if (auto bad = Impl::unusable("the tensor", t)) return failed(errors, std::move(*bad));
    runtime::Value v = runtime::of_kind(RKind::tensor);
    v.tensor = Impl::to_runtime(t).clone();
    return ValueAccess::make(std::move(v), {}, {}, "a tensor " + runtime::shape_str(t.shape()));
  });
}

namespace {

// A batch's or dataset's fields from the host's tensors, copied once, or
// the diagnostic why they don't fit the record.
std::variant<runtime::Fields, Diagnostic> record_fields(const Module::Impl& impl,
                                                        const std::string& record,
                                                        const std::map<std::string, Tensor>& fields,
                                                        const char* what) {
  const ir::Program& p = impl.program;
  if (!p.records.count(record))
    return diag::error(diag::Code::E1604, "the program has no record `" + record + "`",
                       p.records.empty()
                           ? "the program declares no record"
                           : "its records are " + support::quoted_list(names_of(p.records)));
  runtime::Fields out;
  for (const auto& [name, t] : fields) {
    if (auto bad = Module::Impl::unusable(name, t)) return std::move(*bad);
    out[name] = Module::Impl::to_runtime(t).clone();
  }
  runtime::Value v = runtime::of_kind(RKind::record);
  v.fields = out;
  Value::State state;
  state.name = record;
  if (auto why = api::layout_misfit(p, state, v); !why.empty())
    return diag::error(diag::Code::E1603,
                       std::string("these tensors aren't ") + what + " of " + record + ": " + why,
                       "give one tensor per field of the record, the examples on the leading "
                       "axis: {\"pixels\", [n D]}, {\"label\", [n] i32}");
  return out;
}

}  // namespace

Value Module::batch(const std::string& record, const std::map<std::string, Tensor>& fields,
                    std::vector<Diagnostic>* errors) const {
  return guarded(errors, [&]() -> Value {
    const auto impl = current();
    if (auto bad = not_ready(*impl); !bad.empty()) return failed(errors, std::move(bad));
    auto made = record_fields(*impl, record, fields, "a batch");
    if (auto* d = std::get_if<Diagnostic>(&made)) return failed(errors, std::move(*d));
    runtime::Value v = runtime::of_kind(RKind::record);
    v.text = record;
    v.fields = std::move(std::get<runtime::Fields>(made));
    return ValueAccess::make(std::move(v), record, {}, "a batch of " + record);
  });
}

Value Module::dataset(const std::string& record, const std::map<std::string, Tensor>& fields,
                      std::vector<Diagnostic>* errors) const {
  return guarded(errors, [&]() -> Value {
    const auto impl = current();
    if (auto bad = not_ready(*impl); !bad.empty()) return failed(errors, std::move(bad));
    auto made = record_fields(*impl, record, fields, "a dataset");
    if (auto* d = std::get_if<Diagnostic>(&made)) return failed(errors, std::move(*d));
    auto& columns = std::get<runtime::Fields>(made);
    auto data = std::make_shared<runtime::Dataset>();
    for (const auto& [name, type] : impl->program.records.at(record)) {
      data->names.push_back(name);
      data->columns.push_back(columns.at(name));
    }
    const std::int64_t n = data->columns.empty() ? 0 : data->columns[0].dim(0);
    for (std::int64_t k = 0; k < n; ++k) data->rows.push_back(k);
    runtime::Value v = runtime::of_kind(RKind::dataset);
    v.text = record;
    v.data = std::move(data);
    return impl->keep(ValueAccess::make(std::move(v), record, {}, "a dataset of " + record));
  });
}

Value Module::copy(const Value& v) const {
  const auto impl = current();
  const auto& state = ValueAccess::state(v);
  if (!state) return {};
  Value out = ValueAccess::make(*state->current().value, state->name, state->optimizer,
                                state->label + " (a copy)");
  const bool structure = v.kind() == Value::Kind::model || v.kind() == Value::Kind::optimizer;
  return structure && impl->compiled ? impl->keep(out) : out;
}

namespace {

Value load_from(const Module::Impl& impl, const std::string& type, const std::string& path,
                const FileAccess& files, const ValueLoadOptions& options,
                std::vector<Diagnostic>* errors) {
  if (auto bad = not_ready(impl); !bad.empty()) return failed(errors, std::move(bad));
  const ir::Program& p = impl.program;
  try {
    if (const auto opt = optimizer_type(type)) {
      if (!ir::optimizer_spec(opt->first))
        return failed(errors,
                      diag::error(diag::Code::E1604, "there is no optimiser `" + opt->first + "`",
                                  "load an SGD, Adam or AdamW: \"AdamW[Mlp]\""));
      if (!p.models.count(opt->second)) return failed(errors, no_model(opt->second, p));
      return impl.keep(ValueAccess::make(
          runtime::load_optimizer_value(p, opt->first, opt->second, path, files, options.names),
          opt->second, opt->first, type + " from " + path, impl.serial));
    }
    if (!p.models.count(type)) return failed(errors, no_model(type, p));
    return impl.ready(
        impl.keep(ValueAccess::make(runtime::load_model_value(p, type, path, files, options.names),
                                    type, {}, type + " from " + path, impl.serial)));
  } catch (const runtime::DataError& e) {
    return failed(errors, from_data_error(e));
  }
}

}  // namespace

Value Module::load(const std::string& type, const std::string& path,
                   const ValueLoadOptions& options, std::vector<Diagnostic>* errors) const {
  return guarded(errors, [&]() -> Value {
    const auto impl = current();
    return load_from(*impl, type, path, impl->load_options.files, options, errors);
  });
}

Value Module::load_bytes(const std::string& type, std::string_view bytes,
                         const ValueLoadOptions& options, std::vector<Diagnostic>* errors) const {
  return guarded(errors, [&]() -> Value {
    const auto impl = current();
    FileAccess files;
    files.read = [bytes](const std::string&, std::string* out, std::string*) {
      out->assign(bytes);
      return true;
    };
    return load_from(*impl, type, "(bytes)", files, options, errors);
  });
}

namespace {

std::vector<Diagnostic> save_to(const Value& v, const std::string& path, const FileAccess& files) {
  const auto& state = ValueAccess::state(v);
  if (!state || (v.kind() != Value::Kind::model && v.kind() != Value::Kind::optimizer))
    return {diag::error(diag::Code::E1702, "only models and optimisers are saved, not " + v.type(),
                        "save a model or an optimiser value")};
  try {
    runtime::save_value(*state->current().value, path, files);
  } catch (const runtime::DataError& e) {
    return {from_data_error(e)};
  }
  return {};
}

}  // namespace

std::vector<Diagnostic> Module::save(const Value& v, const std::string& path) const {
  const auto impl = current();
  return save_to(v, path, impl->load_options.files);
}

std::vector<Diagnostic> Module::save_bytes(const Value& v, std::string* bytes) const {
  FileAccess files;
  files.write = [bytes](const std::string&, std::string_view out, std::string*) {
    if (bytes) bytes->assign(out);
    return true;
  };
  return save_to(v, "(bytes)", files);
}

}  // namespace ss
