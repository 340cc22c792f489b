// What the C ABI's handles hold, and the helpers every C entry point uses:
// statuses from diagnostics, the guard that keeps exceptions out of C, and
// the check of each pointer a function is given (E1612 for a null one).
#pragma once

#include <exception>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "shapescript/shapescript.h"
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

namespace ss::c_api {

// The diagnostics' errors as a status; null when there are none.
ss_status* status_of(const std::vector<ss::Diagnostic>& diagnostics);
// A status with one coded message.
ss_status* status(const char* code, std::string message);
// E0001: a library bug reached the C boundary.
ss_status* internal(const char* what);
// E1612: `function` was given a null `parameter` it needs.
ss_status* null_argument(const char* function, const char* parameter);
// What an exception that reached the boundary becomes: E1611 for memory
// the machine refused, else E0001.
ss_status* from_exception(const std::exception& e);

// `count` tensors by name, from the C API's two parallel arrays (checked
// with null_in first).
std::map<std::string, ss::Tensor> named_tensors(std::size_t count, const char* const* names,
                                                const ss_tensor* const* tensors);

// Each argument as the C++ API takes it, or E1612 for one without the
// value or tensor its kind needs (c_api_modules.cpp).
ss_status* arguments(const char* function, const ss_arg* args, size_t count,
                     std::vector<ss::Arg>* out);

// Hands `s` to the caller through `out`, or frees it when there is none.
void set(ss_status** out, ss_status* s);

// The first null among `count` pointers of an array that must hold them
// all (the array itself null when count > 0), as E1612; else null.
template <typename T>
ss_status* null_in(const char* function, const char* parameter, const T* const* items,
                   std::size_t count) {
  if (count > 0 && !items) return null_argument(function, parameter);
  for (std::size_t k = 0; k < count; ++k)
    if (!items[k])
      return null_argument(function,
                           (std::string(parameter) + "[" + std::to_string(k) + "]").c_str());
  return nullptr;
}

// Runs `body`, turning any exception into a status (returned through
// `status`, when given) and the default of its result type.
template <typename F>
auto guarded(ss_status** status, F body) -> decltype(body()) {
  try {
    return body();
  } catch (const std::exception& e) {
    if (status) *status = from_exception(e);
  } catch (...) {
    if (status) *status = internal("an unknown exception");
  }
  return decltype(body())();
}

// A status-returning entry point's body: its status, or one for what it threw.
template <typename F>
ss_status* run(F body) {
  ss_status* failure = nullptr;
  guarded(&failure, [&] {
    failure = body();
    return 0;
  });
  return failure;
}

}  // namespace ss::c_api
