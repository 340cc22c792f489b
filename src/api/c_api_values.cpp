// The C ABI's values: models, optimisers, batches, datasets and tensors the
// library owns, made, loaded, saved and read back. Every pointer a function
// needs is checked first (E1612); see c_api.cpp.
#include <map>
#include <string>
#include <vector>

#include "api/c_api_handles.hpp"

using namespace ss::c_api;

namespace {

ss_status* made(ss::Value v, const std::vector<ss::Diagnostic>& errors, ss_value** out) {
  if (!v) {
    if (auto* s = status_of(errors)) return s;
    return internal("no value was made, and no diagnostic says why");
  }
  if (out) *out = new ss_value(std::move(v));
  return nullptr;
}

// A value-making entry point: E1612 for a null module, `check`'s status
// for another null pointer, else what `body` made.
template <typename Check, typename F>
ss_status* making(const char* function, const ss_module* module, ss_value** out, Check check,
                  F body) {
  if (out) *out = nullptr;
  if (!module) return null_argument(function, "module");
  if (ss_status* bad = check()) return bad;
  return run([&] {
    std::vector<ss::Diagnostic> errors;
    ss::Value v = body(&errors);
    return made(std::move(v), errors, out);
  });
}

// A batch or a dataset (`make`: Module::batch or Module::dataset) of
// `record` from one tensor per field.
using RecordMaker = ss::Value (ss::Module::*)(const std::string&,
                                              const std::map<std::string, ss::Tensor>&,
                                              std::vector<ss::Diagnostic>*) const;
ss_status* of_record(const char* self, RecordMaker make, const ss_module* module,
                     const char* record, size_t count, const char* const* fields,
                     const ss_tensor* const* tensors, ss_value** out) {
  return making(
      self, module, out,
      [&]() -> ss_status* {
        if (!record) return null_argument(self, "record");
        if (auto* bad = null_in(self, "fields", fields, count)) return bad;
        return null_in(self, "tensors", tensors, count);
      },
      [&](std::vector<ss::Diagnostic>* errors) {
        return (module->module.*make)(record, named_tensors(count, fields, tensors), errors);
      });
}

ss::ValueLoadOptions renames(size_t count, const char* const* from, const char* const* to) {
  ss::ValueLoadOptions o;
  for (size_t k = 0; k < count; ++k) o.names[from[k]] = to[k];
  return o;
}

}  // namespace

extern "C" {

ss_status* ss_module_make(const ss_module* module, const char* type, uint64_t seed,
                          ss_value** out) {
  const char* self = __func__;
  return making(
      self, module, out, [&] { return type ? nullptr : null_argument(self, "type"); },
      [&](std::vector<ss::Diagnostic>* errors) {
        return module->module.make(type, {.seed = seed}, errors);
      });
}

ss_status* ss_module_make_optimizer(const ss_module* module, const char* kind,
                                    const ss_value* model, size_t count, const char* const* names,
                                    const double* settings, ss_value** out) {
  const char* self = __func__;
  return making(
      self, module, out,
      [&]() -> ss_status* {
        if (!kind) return null_argument(self, "kind");
        if (!model) return null_argument(self, "model");
        if (auto* bad = null_in(self, "names", names, count)) return bad;
        if (count > 0 && !settings) return null_argument(self, "settings");
        return nullptr;
      },
      [&](std::vector<ss::Diagnostic>* errors) {
        std::map<std::string, double> given;
        for (size_t k = 0; k < count; ++k) given[names[k]] = settings[k];
        return module->module.make_optimizer(kind, model->v, given, errors);
      });
}

ss_status* ss_module_tensor_value(const ss_module* module, const ss_tensor* tensor,
                                  ss_value** out) {
  const char* self = __func__;
  return making(
      self, module, out, [&] { return tensor ? nullptr : null_argument(self, "tensor"); },
      [&](std::vector<ss::Diagnostic>* errors) {
        return module->module.tensor(tensor->t, errors);
      });
}

ss_status* ss_module_batch(const ss_module* module, const char* record, size_t count,
                           const char* const* fields, const ss_tensor* const* tensors,
                           ss_value** out) {
  return of_record(__func__, &ss::Module::batch, module, record, count, fields, tensors, out);
}

ss_status* ss_module_dataset(const ss_module* module, const char* record, size_t count,
                             const char* const* fields, const ss_tensor* const* tensors,
                             ss_value** out) {
  return of_record(__func__, &ss::Module::dataset, module, record, count, fields, tensors, out);
}

ss_status* ss_module_load_value(const ss_module* module, const char* type, const char* path,
                                size_t name_count, const char* const* from, const char* const* to,
                                ss_value** out) {
  const char* self = __func__;
  return making(
      self, module, out,
      [&]() -> ss_status* {
        if (!type) return null_argument(self, "type");
        if (!path) return null_argument(self, "path");
        if (auto* bad = null_in(self, "from", from, name_count)) return bad;
        return null_in(self, "to", to, name_count);
      },
      [&](std::vector<ss::Diagnostic>* errors) {
        return module->module.load(type, path, renames(name_count, from, to), errors);
      });
}

ss_status* ss_module_load_value_bytes(const ss_module* module, const char* type, const void* bytes,
                                      size_t size, size_t name_count, const char* const* from,
                                      const char* const* to, ss_value** out) {
  const char* self = __func__;
  return making(
      self, module, out,
      [&]() -> ss_status* {
        if (!type) return null_argument(self, "type");
        if (size > 0 && !bytes) return null_argument(self, "bytes");
        if (auto* bad = null_in(self, "from", from, name_count)) return bad;
        return null_in(self, "to", to, name_count);
      },
      [&](std::vector<ss::Diagnostic>* errors) {
        return module->module.load_bytes(
            type, std::string_view(static_cast<const char*>(bytes), bytes ? size : 0),
            renames(name_count, from, to), errors);
      });
}

ss_status* ss_module_save_value(const ss_module* module, const ss_value* value, const char* path) {
  if (!module) return null_argument(__func__, "module");
  if (!value) return null_argument(__func__, "value");
  if (!path) return null_argument(__func__, "path");
  return run([&] { return status_of(module->module.save(value->v, path)); });
}

ss_value* ss_module_copy_value(const ss_module* module, const ss_value* value) {
  if (!module || !value) return nullptr;
  return guarded(nullptr, [&] { return new ss_value(module->module.copy(value->v)); });
}

ss_value* ss_value_ref(const ss_value* value) {
  return value ? guarded(nullptr, [&] { return new ss_value(*value); }) : nullptr;
}

void ss_value_free(ss_value* value) {
  delete value;
}

ss_value_kind ss_value_kind_of(const ss_value* value) {
  return value ? static_cast<ss_value_kind>(value->v.kind()) : SS_KIND_EMPTY;
}

const char* ss_value_type(const ss_value* value) {
  return value ? value->type.c_str() : "";
}

uint64_t ss_value_version(const ss_value* value) {
  return value ? value->v.version() : 0;
}

double ss_value_number(const ss_value* value) {
  return value ? value->v.number() : 0;
}

ss_tensor* ss_value_tensor(const ss_value* value) {
  return guarded(nullptr, [&]() -> ss_tensor* {
    if (!value || value->v.tensor().empty()) return nullptr;
    return new ss_tensor{value->v.tensor()};
  });
}

size_t ss_value_field_count(const ss_value* value) {
  return value ? value->names.size() : 0;
}

const char* ss_value_field_name(const ss_value* value, size_t i) {
  return value && i < value->names.size() ? value->names[i].c_str() : nullptr;
}

ss_tensor* ss_value_field(const ss_value* value, const char* path) {
  return guarded(nullptr, [&]() -> ss_tensor* {
    if (!value || !path) return nullptr;
    const auto all = value->v.tensors();
    const auto it = all.find(path);
    return it == all.end() ? nullptr : new ss_tensor{it->second};
  });
}

ss_arg ss_arg_value(const ss_value* value) {
  return {SS_ARG_VALUE, value, nullptr, 0};
}
ss_arg ss_arg_mut(const ss_value* value) {
  return {SS_ARG_MUT, value, nullptr, 0};
}
ss_arg ss_arg_tensor(const ss_tensor* tensor) {
  return {SS_ARG_TENSOR, nullptr, tensor, 0};
}
ss_arg ss_arg_number(double number) {
  return {SS_ARG_NUMBER, nullptr, nullptr, number};
}
ss_arg ss_arg_integer(int64_t number) {
  return {SS_ARG_INTEGER, nullptr, nullptr, static_cast<double>(number)};
}

}  // extern "C"
