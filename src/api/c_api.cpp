// The C ABI (include/shapescript/shapescript.h) over the C++ API: each
// function catches everything, so no exception crosses into C; a library
// bug becomes a status with code "E0001" (internal error).
#include "shapescript/shapescript.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "shapescript/shapescript.hpp"

struct ss_status {
  std::string code, message, rendered;
};

struct ss_tensor {
  ss::Tensor t;
};

struct ss_engine {
  ss::Engine engine;
};

struct ss_load_options {
  ss::LoadOptions options;
};

struct ss_module {
  ss::Module module;
};

struct ss_call_result {
  std::vector<ss_tensor> tensors;
  std::vector<std::string> names;
  std::vector<ss::Value> values;
};

// A handle, with what its accessors hand out as strings (fixed for a
// value's life: a `mut` call changes its contents, not its type).
struct ss_value {
  explicit ss_value(ss::Value value) : v(std::move(value)), type(v.type()), names(v.paths()) {}
  ss::Value v;
  std::string type;
  std::vector<std::string> names;
};

namespace {

ss_status* status_of(const std::vector<ss::Diagnostic>& diagnostics) {
  if (!ss::has_errors(diagnostics)) return nullptr;
  auto* s = new ss_status;
  for (const auto& d : diagnostics) {
    if (d.severity != ss::Severity::error) continue;
    if (s->code.empty()) {
      s->code = d.code;
      s->message = d.message;
    }
  }
  for (const auto& d : diagnostics) s->rendered += d.render();
  return s;
}

// A call's results for C: its outputs (the named-tensor path's), each
// named "" for a returned value or by the `mut` tensor it updates, and its
// values.
std::unique_ptr<ss_call_result> result_of(const ss::CallResult& r) {
  auto out = std::make_unique<ss_call_result>();
  const std::size_t returned = r.outputs.size() - r.updated.size();
  for (std::size_t i = 0; i < r.outputs.size(); ++i) {
    out->tensors.push_back(ss_tensor{r.outputs[i]});
    out->names.push_back(i < returned ? "" : r.updated[i - returned]);
  }
  out->values = r.values;
  return out;
}

ss_status* internal(const char* what) {
  auto* s = new ss_status;
  s->code = "E0001";
  s->message = std::string("internal error in the C API: ") + what;
  s->rendered = "error[E0001]: " + s->message + "\n";
  return s;
}

// Runs `body`, turning any exception into a status (returned through
// `status`, when given).
template <typename F>
auto guarded(ss_status** status, F body) -> decltype(body()) {
  try {
    return body();
  } catch (const std::exception& e) {
    if (status) *status = internal(e.what());
  } catch (...) {
    if (status) *status = internal("an unknown exception");
  }
  return decltype(body())();
}

void set(ss_status** out, ss_status* s) {
  if (out)
    *out = s;
  else
    delete s;
}

std::vector<std::int64_t> shape_of(const int64_t* shape, size_t rank) {
  return std::vector<std::int64_t>(shape, shape + rank);
}

ss::HostValue::Kind kind_of(ss_host_kind k) {
  return k == SS_HOST_NUMBER   ? ss::HostValue::Kind::number
         : k == SS_HOST_STRING ? ss::HostValue::Kind::string
                               : ss::HostValue::Kind::tensor;
}

}  // namespace

extern "C" {

const char* ss_status_code(const ss_status* s) {
  return s ? s->code.c_str() : "";
}
const char* ss_status_message(const ss_status* s) {
  return s ? s->message.c_str() : "";
}
const char* ss_status_render(const ss_status* s) {
  return s ? s->rendered.c_str() : "";
}
void ss_status_free(ss_status* s) {
  delete s;
}
const char* ss_version(void) {
  return ss::version();
}

// ---- tensors ----

ss_tensor* ss_tensor_new(ss_dtype dtype, const void* data, const int64_t* shape, size_t rank) {
  return guarded(nullptr, [&]() -> ss_tensor* {
    for (size_t k = 0; k < rank; ++k)
      if (shape[k] < 0) return nullptr;
    return new ss_tensor{
        ss::Tensor::copy(static_cast<ss::DType>(dtype), data, shape_of(shape, rank))};
  });
}

ss_tensor* ss_tensor_view(ss_dtype dtype, const void* data, const int64_t* shape, size_t rank) {
  return guarded(nullptr, [&]() -> ss_tensor* {
    for (size_t k = 0; k < rank; ++k)
      if (shape[k] < 0) return nullptr;
    auto s = shape_of(shape, rank);
    std::vector<std::int64_t> strides(rank, 1);
    for (size_t k = rank; k-- > 1;) strides[k - 1] = strides[k] * s[k];
    if (dtype == SS_F32)
      return new ss_tensor{ss::Tensor::view(static_cast<const float*>(data), s, strides)};
    if (dtype == SS_I32)
      return new ss_tensor{ss::Tensor::view(static_cast<const std::int32_t*>(data), s, strides)};
    return new ss_tensor{ss::Tensor::copy(static_cast<ss::DType>(dtype), data, s)};  // no view kind
  });
}

ss_dtype ss_tensor_dtype(const ss_tensor* t) {
  return static_cast<ss_dtype>(t->t.dtype());
}
size_t ss_tensor_rank(const ss_tensor* t) {
  return t->t.shape().size();
}
int64_t ss_tensor_dim(const ss_tensor* t, size_t axis) {
  return axis < t->t.shape().size() ? t->t.shape()[axis] : 0;
}
int64_t ss_tensor_size(const ss_tensor* t) {
  return t->t.size();
}
const void* ss_tensor_data(const ss_tensor* t) {
  return t->t.data();
}
int64_t ss_tensor_to_floats(const ss_tensor* t, float* out, int64_t count) {
  return guarded(nullptr, [&]() -> int64_t {
    const auto values = t->t.to_floats();
    const auto n = std::min<std::int64_t>(count, static_cast<std::int64_t>(values.size()));
    if (n > 0) std::memcpy(out, values.data(), static_cast<std::size_t>(n) * sizeof(float));
    return t->t.size();
  });
}
void ss_tensor_free(ss_tensor* t) {
  delete t;
}

// ---- engines ----

ss_engine_options ss_engine_options_default(void) {
  ss_engine_options o{};
  o.device = SS_CPU;
  o.executor = SS_EXECUTOR_FAST;
  o.threads = 1;
  o.precision = SS_PRECISION_F32;
  o.log_level = SS_LOG_OFF;
  o.deterministic = 0;
  return o;
}

ss_engine* ss_engine_new(const ss_engine_options* options, ss_status** status) {
  if (status) *status = nullptr;
  return guarded(status, [&]() -> ss_engine* {
    const ss_engine_options o = options ? *options : ss_engine_options_default();
    ss::EngineOptions e;
    e.device = o.device == SS_CUDA ? ss::Device::cuda(o.device_index) : ss::Device::cpu();
    e.executor = o.executor == SS_EXECUTOR_REFERENCE ? ss::Executor::reference : ss::Executor::fast;
    e.threads = o.threads < 1 ? 1 : o.threads;
    e.precision = static_cast<ss::Precision>(o.precision);
    e.deterministic = o.deterministic != 0;
    e.log_level = static_cast<ss::LogLevel>(o.log_level);
    if (o.log) {
      const auto fn = o.log;
      void* user = o.log_user;
      e.log_callback = [fn, user](ss::LogLevel level, std::string_view message) {
        const std::string text(message);
        fn(user, static_cast<ss_log_level>(level), text.c_str());
      };
    }
    auto engine = std::make_unique<ss_engine>(ss_engine{ss::Engine(std::move(e))});
    if (!engine->engine.ok()) {
      set(status, status_of(engine->engine.diagnostics()));
      return nullptr;
    }
    return engine.release();
  });
}

void ss_engine_free(ss_engine* engine) {
  delete engine;
}

// ---- load options ----

ss_load_options* ss_load_options_new(void) {
  return guarded(nullptr, [] { return new ss_load_options; });
}
void ss_load_options_free(ss_load_options* options) {
  delete options;
}

void ss_load_options_set_dim(ss_load_options* options, const char* name, int64_t size) {
  guarded(nullptr, [&] {
    options->options.dims[name] = size;
    return 0;
  });
}

void ss_load_options_sink(ss_load_options* options, const char* name, ss_sink_fn fn, void* user) {
  guarded(nullptr, [&] {
    options->options.sinks[name] = [fn, user](const ss::SinkRecord& record) {
      std::vector<const char*> names;
      std::vector<double> values;
      for (const auto& [n, v] : record) {
        names.push_back(n.c_str());
        values.push_back(v);
      }
      fn(user, record.size(), names.data(), values.data());
    };
    return 0;
  });
}

void ss_load_options_strict_sinks(ss_load_options* options, int strict) {
  guarded(nullptr, [&] {
    options->options.strict_sinks = strict != 0;
    return 0;
  });
}

void ss_load_options_bind(ss_load_options* options, const char* name, const ss_host_kind* params,
                          size_t count, ss_host_kind result, ss_host_fn fn, void* user) {
  guarded(nullptr, [&] {
    std::vector<ss::HostValue::Kind> kinds;
    for (size_t k = 0; k < count; ++k) kinds.push_back(kind_of(params[k]));
    const auto want = kind_of(result);
    options->options.host_functions[name] =
        ss::HostFunction(kinds, want, [fn, user, want](const std::vector<ss::HostValue>& args) {
          std::vector<ss_tensor> tensors;  // the arguments' tensors, alive for the call
          tensors.reserve(args.size());
          std::vector<ss_host_value> given(args.size());
          for (std::size_t k = 0; k < args.size(); ++k) {
            given[k].kind = args[k].kind == ss::HostValue::Kind::number   ? SS_HOST_NUMBER
                            : args[k].kind == ss::HostValue::Kind::string ? SS_HOST_STRING
                                                                          : SS_HOST_TENSOR;
            given[k].number = args[k].number;
            given[k].text = args[k].text.c_str();
            if (given[k].kind == SS_HOST_TENSOR) {
              tensors.push_back(ss_tensor{args[k].tensor});
              given[k].tensor = &tensors.back();
            }
          }
          ss_host_value out{};
          char error[512] = {0};
          if (fn(user, given.data(), given.size(), &out, error, sizeof error) != 0)
            throw std::runtime_error(error[0] ? error : "it returned an error without a message");
          ss::HostValue value;
          value.kind = kind_of(out.kind);
          if (out.kind == SS_HOST_TENSOR) {
            std::unique_ptr<ss_tensor> owned(out.tensor);  // the library's now
            if (!owned) throw std::runtime_error("it returned no tensor");
            value.tensor = owned->t;
          } else if (out.kind == SS_HOST_STRING) {
            value.text = out.text ? out.text : "";
          } else {
            value.number = out.number;
          }
          (void)want;  // a result of another kind is E1608, checked by the library
          return value;
        });
    return 0;
  });
}

void ss_load_options_collectives(ss_load_options* options, const ss_collective_table* table) {
  guarded(nullptr, [&] {
    auto t = std::make_shared<ss::CollectiveTable>();
    t->context = table->context;
    t->world = table->world;
    t->ranks.assign(table->ranks, table->ranks + table->local_count);
    t->all_reduce_f32 = table->all_reduce_f32;
    t->all_reduce_i32 = table->all_reduce_i32;
    t->broadcast = table->broadcast;
    t->barrier = table->barrier;
    t->abort = table->abort;
    options->options.collectives = std::move(t);
    return 0;
  });
}

int ss_load_options_mpi(ss_load_options* options, const void* mpi_comm, ss_status** status) {
  return guarded(status, [&] {
    std::vector<ss::Diagnostic> errors;
    auto world = ss::MpiWorld::open(mpi_comm, &errors);
    if (!world) {
      set(status, status_of(errors));
      return 1;
    }
    options->options.mpi = std::move(world);
    return 0;
  });
}

ss_file_access ss_file_access_default(void) {
  ss_file_access f{};
  f.allow_read = 1;
  f.allow_write = 1;
  return f;
}

void ss_load_options_files(ss_load_options* options, const ss_file_access* files) {
  guarded(nullptr, [&] {
    ss::FileAccess& a = options->options.files;
    a = ss::FileAccess{};
    a.root = files->root ? files->root : "";
    a.allow_read = files->allow_read != 0;
    a.allow_write = files->allow_write != 0;
    const ss_file_access f = *files;
    if (f.read)
      a.read = [f](const std::string& path, std::string* bytes, std::string* why) {
        char error[512] = {0};
        std::size_t size = 0;
        char* data = f.read(f.user, path.c_str(), &size, error, sizeof error);
        if (!data) return *why = error[0] ? error : "the host has no such file", false;
        bytes->assign(data, size);
        if (f.free_bytes) f.free_bytes(f.user, data);
        return true;
      };
    if (f.write)
      a.write = [f](const std::string& path, std::string_view bytes, std::string* why) {
        char error[512] = {0};
        if (f.write(f.user, path.c_str(), bytes.data(), bytes.size(), error, sizeof error) == 0)
          return true;
        *why = error[0] ? error : "the host refused it";
        return false;
      };
    return 0;
  });
}

void ss_load_options_time_limit(ss_load_options* options, int64_t milliseconds) {
  options->options.time_limit = std::chrono::milliseconds(milliseconds < 0 ? 0 : milliseconds);
}

// ---- modules ----

static ss_module* loaded(ss::Module m, ss_status** status) {
  if (!m) {
    set(status, status_of(m.diagnostics()));
    return nullptr;
  }
  return new ss_module{std::move(m)};
}

ss_module* ss_engine_load_source(const ss_engine* engine, const char* text, const char* name,
                                 const ss_load_options* options, ss_status** status) {
  if (status) *status = nullptr;
  return guarded(status, [&] {
    return loaded(engine->engine.load_source(text, name ? name : "source.ss",
                                             options ? options->options : ss::LoadOptions{}),
                  status);
  });
}

ss_module* ss_engine_load_file(const ss_engine* engine, const char* path,
                               const ss_load_options* options, ss_status** status) {
  if (status) *status = nullptr;
  return guarded(status, [&] {
    return loaded(engine->engine.load_file(path, options ? options->options : ss::LoadOptions{}),
                  status);
  });
}

void ss_module_free(ss_module* module) {
  delete module;
}

ss_status* ss_module_reload(ss_module* module, const ss_engine* engine, const char* text,
                            const char* name, const ss_load_options* options, size_t count,
                            const char* const* state_names, const ss_tensor* const* state,
                            int* keep) {
  ss_status* failure = nullptr;
  guarded(&failure, [&] {
    std::map<std::string, ss::Tensor> named;
    for (size_t k = 0; k < count; ++k) named[state_names[k]] = state[k]->t;
    const auto report =
        module->module.reload(engine->engine, text, name ? name : "source.ss",
                              options ? options->options : ss::LoadOptions{}, &named);
    if (!report) {
      failure = status_of(report.diagnostics);
      return 0;
    }
    for (size_t k = 0; keep && k < count; ++k) keep[k] = named.count(state_names[k]) ? 1 : 0;
    return 0;
  });
  return failure;
}

ss_status* ss_module_call(const ss_module* module, const char* function, size_t count,
                          const char* const* names, const ss_tensor* const* inputs,
                          ss_call_result** result) {
  if (result) *result = nullptr;
  ss_status* failure = nullptr;
  guarded(&failure, [&] {
    std::map<std::string, ss::Tensor> named;
    for (size_t k = 0; k < count; ++k) named[names[k]] = inputs[k]->t;
    const auto r = module->module.call(function, {}, named);
    if (!r) {
      failure = status_of(r.diagnostics);
      return 0;
    }
    if (result) *result = result_of(r).release();
    return 0;
  });
  return failure;
}

size_t ss_call_result_count(const ss_call_result* r) {
  return r->tensors.size();
}
const ss_tensor* ss_call_result_tensor(const ss_call_result* r, size_t i) {
  return i < r->tensors.size() ? &r->tensors[i] : nullptr;
}
const char* ss_call_result_name(const ss_call_result* r, size_t i) {
  return i < r->names.size() ? r->names[i].c_str() : nullptr;
}
void ss_call_result_free(ss_call_result* r) {
  delete r;
}

ss_status* ss_engine_run_file(const ss_engine* engine, const char* path, const char* function,
                              void (*print)(void* user, const char* line), void* print_user,
                              const ss_load_options* options) {
  ss_status* failure = nullptr;
  guarded(&failure, [&] {
    const auto diagnostics = engine->engine.run_file(
        path, function ? function : "main",
        [print, print_user](std::string_view line) {
          if (!print) return;
          const std::string text(line);
          print(print_user, text.c_str());
        },
        {}, options ? options->options : ss::LoadOptions{});
    failure = status_of(diagnostics);
    return 0;
  });
  return failure;
}

}  // extern "C"

// ---- values ----

namespace {

ss_status* made(ss::Value v, const std::vector<ss::Diagnostic>& errors, ss_value** out) {
  if (!v) {
    if (auto* s = status_of(errors)) return s;
    return internal("no value was made, and no diagnostic says why");
  }
  if (out) *out = new ss_value(std::move(v));
  return nullptr;
}

template <typename F>
ss_status* making(ss_value** out, F body) {
  if (out) *out = nullptr;
  ss_status* failure = nullptr;
  guarded(&failure, [&] {
    std::vector<ss::Diagnostic> errors;
    ss::Value v = body(&errors);
    failure = made(std::move(v), errors, out);
    return 0;
  });
  return failure;
}

std::map<std::string, ss::Tensor> fields_of(size_t count, const char* const* fields,
                                            const ss_tensor* const* tensors) {
  std::map<std::string, ss::Tensor> out;
  for (size_t k = 0; k < count; ++k) out[fields[k]] = tensors[k]->t;
  return out;
}

ss::ValueLoadOptions renames(size_t count, const char* const* from, const char* const* to) {
  ss::ValueLoadOptions o;
  for (size_t k = 0; k < count; ++k) o.names[from[k]] = to[k];
  return o;
}

std::vector<ss::Arg> arguments(const ss_arg* args, size_t count) {
  std::vector<ss::Arg> out;
  for (size_t k = 0; k < count; ++k) {
    const ss_arg& a = args[k];
    const ss::Value v = a.value ? a.value->v : ss::Value();
    switch (a.kind) {
      case SS_ARG_MUT:
        out.push_back(ss::mut(v));
        break;
      case SS_ARG_TENSOR:
        out.emplace_back(a.tensor ? a.tensor->t : ss::Tensor());
        break;
      case SS_ARG_NUMBER:
        out.emplace_back(a.number);
        break;
      case SS_ARG_INTEGER:
        out.emplace_back(static_cast<std::int64_t>(a.number));
        break;
      default:
        out.emplace_back(v);
    }
  }
  return out;
}

}  // namespace

extern "C" {

ss_status* ss_module_make(const ss_module* module, const char* type, uint64_t seed,
                          ss_value** out) {
  return making(out, [&](std::vector<ss::Diagnostic>* errors) {
    return module->module.make(type, {.seed = seed}, errors);
  });
}

ss_status* ss_module_make_optimizer(const ss_module* module, const char* kind,
                                    const ss_value* model, size_t count, const char* const* names,
                                    const double* settings, ss_value** out) {
  return making(out, [&](std::vector<ss::Diagnostic>* errors) {
    std::map<std::string, double> given;
    for (size_t k = 0; k < count; ++k) given[names[k]] = settings[k];
    return module->module.make_optimizer(kind, model ? model->v : ss::Value(), given, errors);
  });
}

ss_status* ss_module_tensor_value(const ss_module* module, const ss_tensor* tensor,
                                  ss_value** out) {
  return making(out, [&](std::vector<ss::Diagnostic>* errors) {
    return module->module.tensor(tensor->t, errors);
  });
}

ss_status* ss_module_batch(const ss_module* module, const char* record, size_t count,
                           const char* const* fields, const ss_tensor* const* tensors,
                           ss_value** out) {
  return making(out, [&](std::vector<ss::Diagnostic>* errors) {
    return module->module.batch(record, fields_of(count, fields, tensors), errors);
  });
}

ss_status* ss_module_dataset(const ss_module* module, const char* record, size_t count,
                             const char* const* fields, const ss_tensor* const* tensors,
                             ss_value** out) {
  return making(out, [&](std::vector<ss::Diagnostic>* errors) {
    return module->module.dataset(record, fields_of(count, fields, tensors), errors);
  });
}

ss_status* ss_module_load_value(const ss_module* module, const char* type, const char* path,
                                size_t name_count, const char* const* from, const char* const* to,
                                ss_value** out) {
  return making(out, [&](std::vector<ss::Diagnostic>* errors) {
    return module->module.load(type, path, renames(name_count, from, to), errors);
  });
}

ss_status* ss_module_load_value_bytes(const ss_module* module, const char* type, const void* bytes,
                                      size_t size, size_t name_count, const char* const* from,
                                      const char* const* to, ss_value** out) {
  return making(out, [&](std::vector<ss::Diagnostic>* errors) {
    return module->module.load_bytes(type, std::string_view(static_cast<const char*>(bytes), size),
                                     renames(name_count, from, to), errors);
  });
}

ss_status* ss_module_save_value(const ss_module* module, const ss_value* value, const char* path) {
  ss_status* failure = nullptr;
  guarded(&failure, [&] {
    failure = status_of(module->module.save(value ? value->v : ss::Value(), path));
    return 0;
  });
  return failure;
}

ss_value* ss_module_copy_value(const ss_module* module, const ss_value* value) {
  return guarded(nullptr, [&]() -> ss_value* {
    if (!value) return nullptr;
    return new ss_value(module->module.copy(value->v));
  });
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

ss_status* ss_module_call_values(const ss_module* module, const char* function, const ss_arg* args,
                                 size_t count, ss_call_result** result) {
  if (result) *result = nullptr;
  ss_status* failure = nullptr;
  guarded(&failure, [&] {
    auto r = module->module.call(function, arguments(args, count));
    if (!r) {
      failure = status_of(r.diagnostics);
      return 0;
    }
    if (result) *result = result_of(r).release();
    return 0;
  });
  return failure;
}

ss_status* ss_module_call_into(const ss_module* module, const char* function, const ss_arg* args,
                               size_t count, const ss_tensor* const* outputs, size_t output_count) {
  ss_status* failure = nullptr;
  guarded(&failure, [&] {
    std::vector<ss::Tensor> buffers;
    for (size_t k = 0; k < output_count; ++k) buffers.push_back(outputs[k]->t);
    failure =
        status_of(module->module.call_into(function, arguments(args, count), buffers).diagnostics);
    return 0;
  });
  return failure;
}

size_t ss_call_result_value_count(const ss_call_result* r) {
  return r ? r->values.size() : 0;
}

ss_value* ss_call_result_value(const ss_call_result* r, size_t i) {
  return r && i < r->values.size() ? guarded(nullptr, [&] { return new ss_value(r->values[i]); })
                                   : nullptr;
}

void ss_load_options_print(ss_load_options* options, void (*print)(void* user, const char* line),
                           void* user) {
  if (!print) {
    options->options.print = nullptr;
    return;
  }
  options->options.print = [print, user](std::string_view line) {
    const std::string text(line);
    print(user, text.c_str());
  };
}

}  // extern "C"
