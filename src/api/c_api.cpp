// The C ABI (include/shapescript/shapescript.h) over the C++ API: statuses,
// tensors, engines and load options. Each function checks every pointer it
// is given (E1612 for a null one it needs) and catches everything, so no
// exception crosses into C; a library bug becomes a status with code
// "E0001" (internal error). Modules and calls are in c_api_modules.cpp,
// values in c_api_values.cpp.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "api/c_api_handles.hpp"

namespace ss::c_api {

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

ss_status* status(const char* code, std::string message) {
  auto* s = new ss_status;
  s->code = code;
  s->message = std::move(message);
  s->rendered = "error[" + s->code + "]: " + s->message + "\n";
  return s;
}

ss_status* internal(const char* what) {
  return status("E0001", std::string("internal error in the C API: ") + what);
}

ss_status* null_argument(const char* function, const char* parameter) {
  ss_status* s = status("E1612", std::string(function) + " was given a null `" + parameter + "`");
  s->rendered +=
      "  = help: pass what the function needs; shapescript.h says which pointers may "
      "be NULL\n";
  return s;
}

ss_status* from_exception(const std::exception& e) {
  if (dynamic_cast<const std::bad_alloc*>(&e)) {
    ss_status* s = status("E1611", std::string("out of memory: ") + e.what());
    return s;
  }
  return internal(e.what());
}

std::map<std::string, ss::Tensor> named_tensors(std::size_t count, const char* const* names,
                                                const ss_tensor* const* tensors) {
  std::map<std::string, ss::Tensor> out;
  for (std::size_t k = 0; k < count; ++k) out[names[k]] = tensors[k]->t;
  return out;
}

void set(ss_status** out, ss_status* s) {
  if (out)
    *out = s;
  else
    delete s;
}

}  // namespace ss::c_api

using namespace ss::c_api;

namespace {

// The elements of a tensor of `rank` axes of `shape`, or -1 for a shape
// with a negative size (or none given for axes it has).
std::int64_t elements(const int64_t* shape, size_t rank) {
  if (rank > 0 && !shape) return -1;
  std::int64_t n = 1;
  for (size_t k = 0; k < rank; ++k) {
    if (shape[k] < 0) return -1;
    n *= shape[k];
  }
  return n;
}

bool known_dtype(ss_dtype dtype) {
  return dtype == SS_F32 || dtype == SS_BF16 || dtype == SS_F16 || dtype == SS_I32 ||
         dtype == SS_BOOL;
}

ss::HostValue::Kind kind_of(ss_host_kind k) {
  return k == SS_HOST_NUMBER   ? ss::HostValue::Kind::number
         : k == SS_HOST_STRING ? ss::HostValue::Kind::string
                               : ss::HostValue::Kind::tensor;
}

// A setter on load options: E1612 for null options, else `body`'s status.
// `body` gets the function's name, for its own checks' messages.
template <typename F>
ss_status* setting(const char* function, ss_load_options* options, F body) {
  if (!options) return null_argument(function, "options");
  return run([&] { return body(function); });
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
    const std::int64_t n = elements(shape, rank);
    if (n < 0 || !known_dtype(dtype) || (n > 0 && !data)) return nullptr;
    return new ss_tensor{ss::Tensor::copy(static_cast<ss::DType>(dtype), data,
                                          std::vector<std::int64_t>(shape, shape + rank))};
  });
}

ss_tensor* ss_tensor_view(ss_dtype dtype, const void* data, const int64_t* shape, size_t rank) {
  return guarded(nullptr, [&]() -> ss_tensor* {
    const std::int64_t n = elements(shape, rank);
    if (n < 0 || !known_dtype(dtype) || (n > 0 && !data)) return nullptr;
    std::vector<std::int64_t> s(shape, shape + rank);
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
  return t ? static_cast<ss_dtype>(t->t.dtype()) : SS_DTYPE_NONE;
}
size_t ss_tensor_rank(const ss_tensor* t) {
  return t ? t->t.shape().size() : 0;
}
int64_t ss_tensor_dim(const ss_tensor* t, size_t axis) {
  return t && axis < t->t.shape().size() ? t->t.shape()[axis] : 0;
}
int64_t ss_tensor_size(const ss_tensor* t) {
  return t ? t->t.size() : 0;
}
const void* ss_tensor_data(const ss_tensor* t) {
  return t ? t->t.data() : nullptr;
}
int64_t ss_tensor_to_floats(const ss_tensor* t, float* out, int64_t count) {
  if (!t) return 0;
  return guarded(nullptr, [&]() -> int64_t {
    const auto values = t->t.to_floats();
    const auto n = std::min<std::int64_t>(count, static_cast<std::int64_t>(values.size()));
    if (n > 0 && out) std::memcpy(out, values.data(), static_cast<std::size_t>(n) * sizeof(float));
    return t->t.size();
  });
}
void ss_tensor_free(ss_tensor* t) {
  delete t;
}

// ---- engines ----

namespace {

// The C options' job system as a TaskRunner.
class CTaskRunner final : public ss::TaskRunner {
 public:
  using Run = void (*)(void*, int, ss_task_fn, void*);
  using Post = int (*)(void*, ss_task_fn, void*);
  CTaskRunner(Run run_fn, Post post_fn, void* user) : run_(run_fn), post_(post_fn), user_(user) {}
  void run(int count, Task task, void* context) override { run_(user_, count, task, context); }
  bool post(Task task, void* context) override { return post_ && post_(user_, task, context) != 0; }

 private:
  Run run_;
  Post post_;
  void* user_;
};

}  // namespace

ss_engine_options ss_engine_options_default(void) {
  ss_engine_options o{};
  o.device = SS_CPU;
  o.executor = SS_EXECUTOR_FAST;
  o.threads = 1;
  o.precision = SS_PRECISION_F32;
  o.numerics = SS_NUMERICS_FAST;
  o.log_level = SS_LOG_OFF;
  o.deterministic = 0;
  o.spin_microseconds = 50;
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
    e.numerics = o.numerics == SS_NUMERICS_PORTABLE ? ss::Numerics::portable : ss::Numerics::fast;
    e.deterministic = o.deterministic != 0;
    e.spin = std::chrono::microseconds(std::max(0, o.spin_microseconds));
    if (o.code_cache_directory && *o.code_cache_directory)
      e.code_cache = ss::directory_code_cache(o.code_cache_directory);
    if (o.run_tasks)
      e.task_runner = std::make_shared<CTaskRunner>(o.run_tasks, o.post_task, o.tasks_user);
    if (o.trace) {
      const auto fn = o.trace;
      void* user = o.trace_user;
      e.trace = [fn, user](const ss::TraceEvent& t) {
        const std::string function(t.function), node(t.node), op(t.op), executor(t.executor);
        const ss_trace_event c{t.kind == ss::TraceEvent::Kind::node ? 1 : 0,
                               function.c_str(),
                               node.c_str(),
                               op.c_str(),
                               executor.c_str(),
                               t.call,
                               t.start_us,
                               t.microseconds,
                               t.bytes,
                               t.thread};
        fn(user, &c);
      };
    }
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

ss_status* ss_load_options_set_dim(ss_load_options* options, const char* name, int64_t size) {
  return setting(__func__, options, [&](const char* self) -> ss_status* {
    if (!name) return null_argument(self, "name");
    options->options.dims[name] = size;
    return nullptr;
  });
}

ss_status* ss_load_options_sink(ss_load_options* options, const char* name, ss_sink_fn fn,
                                void* user) {
  return setting(__func__, options, [&](const char* self) -> ss_status* {
    if (!name) return null_argument(self, "name");
    if (!fn) {  // unbound again: its records are dropped
      options->options.sinks.erase(name);
      return nullptr;
    }
    options->options.sinks[name] = [fn, user](const ss::SinkRecord& record) {
      std::vector<const char*> names;
      std::vector<double> values;
      for (const auto& [n, v] : record) {
        names.push_back(n.c_str());
        values.push_back(v);
      }
      fn(user, record.size(), names.data(), values.data());
    };
    return nullptr;
  });
}

ss_status* ss_load_options_strict_sinks(ss_load_options* options, int strict) {
  return setting(__func__, options, [&](const char*) -> ss_status* {
    options->options.strict_sinks = strict != 0;
    return nullptr;
  });
}

ss_status* ss_load_options_bind(ss_load_options* options, const char* name,
                                const ss_host_kind* params, size_t count, ss_host_kind result,
                                ss_host_fn fn, void* user) {
  return setting(__func__, options, [&](const char* self) -> ss_status* {
    if (!name) return null_argument(self, "name");
    if (count > 0 && !params) return null_argument(self, "params");
    if (!fn) return null_argument(self, "fn");
    std::vector<ss::HostValue::Kind> kinds;
    for (size_t k = 0; k < count; ++k) kinds.push_back(kind_of(params[k]));
    const auto want = kind_of(result);
    options->options.host_functions[name] =
        ss::HostFunction(kinds, want, [fn, user](const std::vector<ss::HostValue>& args) {
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
          return value;  // a result of another kind is E1608, checked by the library
        });
    return nullptr;
  });
}

ss_status* ss_load_options_collectives(ss_load_options* options, const ss_collective_table* table) {
  return setting(__func__, options, [&](const char* self) -> ss_status* {
    if (!table) return null_argument(self, "table");
    if (table->local_count > 0 && !table->ranks) return null_argument(self, "table->ranks");
    if (!table->all_reduce_f32) return null_argument(self, "table->all_reduce_f32");
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
    return nullptr;
  });
}

int ss_load_options_mpi(ss_load_options* options, const void* mpi_comm, ss_status** status) {
  if (status) *status = nullptr;
  if (!options) return set(status, null_argument(__func__, "options")), 1;
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

ss_status* ss_load_options_files(ss_load_options* options, const ss_file_access* files) {
  return setting(__func__, options, [&](const char* self) -> ss_status* {
    if (!files) return null_argument(self, "files");
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
    return nullptr;
  });
}

ss_status* ss_load_options_time_limit(ss_load_options* options, int64_t milliseconds) {
  return setting(__func__, options, [&](const char*) -> ss_status* {
    options->options.time_limit = std::chrono::milliseconds(milliseconds < 0 ? 0 : milliseconds);
    return nullptr;
  });
}

ss_status* ss_load_options_print(ss_load_options* options,
                                 void (*print)(void* user, const char* line), void* user) {
  return setting(__func__, options, [&](const char*) -> ss_status* {
    if (!print) {
      options->options.print = nullptr;
      return nullptr;
    }
    options->options.print = [print, user](std::string_view line) {
      const std::string text(line);
      print(user, text.c_str());
    };
    return nullptr;
  });
}

}  // extern "C"
