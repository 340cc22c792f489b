// The C ABI's modules: loading, hot reload, calls with tensors or values,
// their results, and running a program's function. Every pointer a
// function needs is checked first (E1612); see c_api.cpp.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "api/c_api_handles.hpp"

using namespace ss::c_api;

namespace {

ss_module* loaded(ss::Module m, ss_status** status) {
  if (!m) {
    set(status, status_of(m.diagnostics()));
    return nullptr;
  }
  return new ss_module{std::move(m)};
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

}  // namespace

namespace ss::c_api {

// Whether two host tensors are the same view: memory, type, shape, strides.
bool same_tensor(const ss::Tensor& a, const ss::Tensor& b) {
  return a.data() == b.data() && a.dtype() == b.dtype() && a.shape() == b.shape() &&
         a.strides() == b.strides();
}

// Each argument as the C++ API takes it, or E1612 for one without the
// value or tensor its kind needs.
ss_status* arguments(const char* function, const ss_arg* args, size_t count,
                     std::vector<ss::Arg>* out) {
  if (count > 0 && !args) return null_argument(function, "args");
  // Into `out`'s entries where it has them: a tensor the same as the one
  // there is kept, not copied again (ss_module_call_into's steady calls).
  const auto put = [&](size_t k, ss::Arg a) {
    if (k < out->size())
      (*out)[k] = std::move(a);
    else
      out->push_back(std::move(a));
  };
  for (size_t k = 0; k < count; ++k) {
    const ss_arg& a = args[k];
    const std::string at = "args[" + std::to_string(k) + "]";
    switch (a.kind) {
      case SS_ARG_VALUE:
      case SS_ARG_MUT:
        if (!a.value) return null_argument(function, (at + ".value").c_str());
        put(k, a.kind == SS_ARG_MUT ? ss::mut(a.value->v) : ss::Arg(a.value->v));
        break;
      case SS_ARG_TENSOR:
        if (!a.tensor) return null_argument(function, (at + ".tensor").c_str());
        if (k < out->size() && (*out)[k].holds() == ss::Arg::Holds::tensor &&
            same_tensor((*out)[k].tensor(), a.tensor->t))
          break;
        if (k < out->size())
          (*out)[k].set_tensor(a.tensor->t);  // its shape's memory reused: no allocation
        else
          out->push_back(ss::Arg(a.tensor->t));
        break;
      case SS_ARG_NUMBER:
        put(k, ss::Arg(a.number));
        break;
      case SS_ARG_INTEGER:
        put(k, ss::Arg(static_cast<std::int64_t>(a.number)));
        break;
      default:
        return status("E1603", std::string(function) + ": " + at + " has an unknown kind " +
                                   std::to_string(static_cast<int>(a.kind)));
    }
  }
  if (out->size() > count)
    out->erase(out->begin() + static_cast<std::ptrdiff_t>(count), out->end());
  return nullptr;
}

}  // namespace ss::c_api

extern "C" {

ss_module* ss_engine_load_source(const ss_engine* engine, const char* text, const char* name,
                                 const ss_load_options* options, ss_status** status) {
  if (status) *status = nullptr;
  if (!engine) return set(status, null_argument(__func__, "engine")), nullptr;
  if (!text) return set(status, null_argument(__func__, "text")), nullptr;
  return guarded(status, [&] {
    return loaded(engine->engine.load_source(text, name ? name : "source.ss",
                                             options ? options->options : ss::LoadOptions{}),
                  status);
  });
}

ss_module* ss_engine_load_file(const ss_engine* engine, const char* path,
                               const ss_load_options* options, ss_status** status) {
  if (status) *status = nullptr;
  if (!engine) return set(status, null_argument(__func__, "engine")), nullptr;
  if (!path) return set(status, null_argument(__func__, "path")), nullptr;
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
  if (!module) return null_argument(__func__, "module");
  if (!engine) return null_argument(__func__, "engine");
  if (!text) return null_argument(__func__, "text");
  if (auto* bad = null_in(__func__, "state_names", state_names, count)) return bad;
  if (auto* bad = null_in(__func__, "state", state, count)) return bad;
  return run([&]() -> ss_status* {
    auto named = named_tensors(count, state_names, state);
    const auto report =
        module->module.reload(engine->engine, text, name ? name : "source.ss",
                              options ? options->options : ss::LoadOptions{}, &named);
    if (!report) return status_of(report.diagnostics);
    for (size_t k = 0; keep && k < count; ++k) keep[k] = named.count(state_names[k]) ? 1 : 0;
    return nullptr;
  });
}

ss_status* ss_module_call(const ss_module* module, const char* function, size_t count,
                          const char* const* names, const ss_tensor* const* inputs,
                          ss_call_result** result) {
  if (result) *result = nullptr;
  if (!module) return null_argument(__func__, "module");
  if (!function) return null_argument(__func__, "function");
  if (auto* bad = null_in(__func__, "names", names, count)) return bad;
  if (auto* bad = null_in(__func__, "inputs", inputs, count)) return bad;
  return run([&]() -> ss_status* {
    const auto r = module->module.call(function, {}, named_tensors(count, names, inputs));
    if (!r) return status_of(r.diagnostics);
    if (result) *result = result_of(r).release();
    return nullptr;
  });
}

size_t ss_call_result_count(const ss_call_result* r) {
  return r ? r->tensors.size() : 0;
}
const ss_tensor* ss_call_result_tensor(const ss_call_result* r, size_t i) {
  return r && i < r->tensors.size() ? &r->tensors[i] : nullptr;
}
const char* ss_call_result_name(const ss_call_result* r, size_t i) {
  return r && i < r->names.size() ? r->names[i].c_str() : nullptr;
}
void ss_call_result_free(ss_call_result* r) {
  delete r;
}

size_t ss_call_result_value_count(const ss_call_result* r) {
  return r ? r->values.size() : 0;
}

ss_value* ss_call_result_value(const ss_call_result* r, size_t i) {
  return r && i < r->values.size() ? guarded(nullptr, [&] { return new ss_value(r->values[i]); })
                                   : nullptr;
}

ss_status* ss_engine_run_file(const ss_engine* engine, const char* path, const char* function,
                              void (*print)(void* user, const char* line), void* print_user,
                              const ss_load_options* options) {
  if (!engine) return null_argument(__func__, "engine");
  if (!path) return null_argument(__func__, "path");
  return run([&] {
    return status_of(engine->engine.run_file(
        path, function ? function : "main",
        [print, print_user](std::string_view line) {
          if (!print) return;
          const std::string text(line);
          print(print_user, text.c_str());
        },
        {}, options ? options->options : ss::LoadOptions{}));
  });
}

ss_status* ss_module_call_values(const ss_module* module, const char* function, const ss_arg* args,
                                 size_t count, ss_call_result** result) {
  if (result) *result = nullptr;
  if (!module) return null_argument(__func__, "module");
  if (!function) return null_argument(__func__, "function");
  const char* self = __func__;
  return run([&]() -> ss_status* {
    std::vector<ss::Arg> given;
    if (auto* bad = arguments(self, args, count, &given)) return bad;
    auto r = module->module.call(function, given);
    if (!r) return status_of(r.diagnostics);
    if (result) *result = result_of(r).release();
    return nullptr;
  });
}

ss_status* ss_module_call_async(const ss_module* module, const char* function, const ss_arg* args,
                                size_t count,
                                void (*done)(void* user, ss_status* status, ss_call_result* result),
                                void* user) {
  if (!module) return null_argument(__func__, "module");
  if (!function) return null_argument(__func__, "function");
  if (!done) return null_argument(__func__, "done");
  const char* self = __func__;
  return run([&]() -> ss_status* {
    std::vector<ss::Arg> given;
    if (auto* bad = arguments(self, args, count, &given)) return bad;
    module->module.call_async(function, std::move(given), [done, user](ss::CallResult r) {
      ss_status* status = nullptr;
      ss_call_result* result = nullptr;
      try {
        if (r)
          result = result_of(r).release();
        else
          status = status_of(r.diagnostics);
      } catch (const std::exception& e) {
        status = from_exception(e);
      }
      done(user, status, result);
    });
    return nullptr;
  });
}

ss_status* ss_module_call_into(const ss_module* module, const char* function, const ss_arg* args,
                               size_t count, const ss_tensor* const* outputs, size_t output_count) {
  if (!module) return null_argument(__func__, "module");
  if (!function) return null_argument(__func__, "function");
  if (auto* bad = null_in(__func__, "outputs", outputs, output_count)) return bad;
  const char* self = __func__;
  return run([&]() -> ss_status* {
    // The thread's lists, kept between calls: a steady call given the same
    // tensors copies no shape and allocates nothing. (A call from inside one,
    // a host function's, makes its own.) Values are let go after each call.
    struct Lists {
      std::vector<ss::Arg> given;
      std::vector<ss::Tensor> buffers;
      std::string name;
      bool busy = false;
    };
    thread_local Lists kept;
    Lists fresh;
    Lists& lists = kept.busy ? fresh : kept;
    struct Release {
      Lists& lists;
      ~Release() {
        lists.busy = false;
        for (auto& a : lists.given)
          if (a.holds() == ss::Arg::Holds::value) a = ss::Arg(0.0);
      }
    } release{lists};
    lists.busy = true;
    if (auto* bad = arguments(self, args, count, &lists.given)) return bad;
    for (size_t k = 0; k < output_count; ++k) {
      if (k == lists.buffers.size())
        lists.buffers.push_back(outputs[k]->t);
      else if (!same_tensor(lists.buffers[k], outputs[k]->t))
        lists.buffers[k] = outputs[k]->t;
    }
    lists.buffers.resize(output_count);
    lists.name.assign(function);
    return status_of(module->module.call_into(lists.name, lists.given, lists.buffers).diagnostics);
  });
}

ss_status* ss_module_reserve(const ss_module* module, const char* function, size_t count,
                             const char* const* names, const int64_t* sizes) {
  if (!module) return null_argument(__func__, "module");
  if (!function) return null_argument(__func__, "function");
  if (auto* bad = null_in(__func__, "names", names, count)) return bad;
  if (count > 0 && !sizes) return null_argument(__func__, "sizes");
  return run([&]() -> ss_status* {
    std::map<std::string, std::int64_t> bound;
    for (size_t k = 0; k < count; ++k) bound[names[k]] = sizes[k];
    return status_of(module->module.reserve(function, bound));
  });
}

}  // extern "C"

namespace {

// E1612 for an array that `count` says has items but is NULL, or an item
// of it that is NULL.
ss_status* null_onnx_option(const char* function, const ss_onnx_options* onnx) {
  if (!onnx) return nullptr;
  if (auto* bad = null_in(function, "onnx->frozen", onnx->frozen, onnx->frozen_count)) return bad;
  if (auto* bad = null_in(function, "onnx->dim_names", onnx->dim_names, onnx->dim_count))
    return bad;
  if (onnx->dim_count && !onnx->dim_sizes) return null_argument(function, "onnx->dim_sizes");
  return nullptr;
}

ss::OnnxOptions onnx_options_of(const ss_onnx_options* onnx, const ss_load_options* options) {
  ss::OnnxOptions o;
  if (options) o.load = options->options;
  if (!onnx) return o;
  if (onnx->extra_source) o.extra_source = onnx->extra_source;
  for (size_t k = 0; k < onnx->frozen_count; ++k) o.frozen.emplace_back(onnx->frozen[k]);
  for (size_t k = 0; k < onnx->dim_count; ++k) o.dims[onnx->dim_names[k]] = onnx->dim_sizes[k];
  if (onnx->library) o.library = onnx->library;
  return o;
}

ss_module* loaded_onnx(ss::OnnxModel m, ss_value** weights, ss_status** status) {
  if (!m) {
    set(status, status_of(m.diagnostics));
    return nullptr;
  }
  if (weights) *weights = m.weights ? new ss_value(m.weights) : nullptr;
  return new ss_module{std::move(m.module)};
}

}  // namespace

extern "C" {

ss_onnx_options ss_onnx_options_default(void) {
  return ss_onnx_options{nullptr, 0, nullptr, 0, nullptr, nullptr, nullptr};
}

ss_module* ss_engine_load_onnx(const ss_engine* engine, const char* path,
                               const ss_onnx_options* onnx, const ss_load_options* options,
                               ss_value** weights, ss_status** status) {
  if (status) *status = nullptr;
  if (weights) *weights = nullptr;
  if (!engine) return set(status, null_argument(__func__, "engine")), nullptr;
  if (!path) return set(status, null_argument(__func__, "path")), nullptr;
  if (ss_status* bad = null_onnx_option(__func__, onnx)) return set(status, bad), nullptr;
  return guarded(status, [&] {
    return loaded_onnx(engine->engine.load_onnx(path, onnx_options_of(onnx, options)), weights,
                       status);
  });
}

ss_module* ss_engine_load_onnx_bytes(const ss_engine* engine, const void* bytes, size_t size,
                                     const ss_onnx_options* onnx, const ss_load_options* options,
                                     ss_value** weights, ss_status** status) {
  if (status) *status = nullptr;
  if (weights) *weights = nullptr;
  if (!engine) return set(status, null_argument(__func__, "engine")), nullptr;
  if (!bytes && size) return set(status, null_argument(__func__, "bytes")), nullptr;
  if (ss_status* bad = null_onnx_option(__func__, onnx)) return set(status, bad), nullptr;
  return guarded(status, [&] {
    return loaded_onnx(engine->engine.load_onnx_bytes(
                           std::string_view(static_cast<const char*>(bytes), bytes ? size : 0),
                           onnx_options_of(onnx, options)),
                       weights, status);
  });
}

}  // extern "C"
