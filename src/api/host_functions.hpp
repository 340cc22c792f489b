// The host's functions for a program's `extern fn`s: checked against the
// declarations at load (E1606 unbound, E1607 not fitting), and called from
// the controller with its values converted both ways.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "api/compiled.hpp"
#include "runtime/controller/value.hpp"
#include "shapescript/host_function.hpp"

namespace ss::api {

void check_host_functions(Compiled& c, const std::map<std::string, HostFunction>& bound);

// RunOptions::call_host over the bindings: a host function's exception, or
// a result of another kind or an unusable tensor, is a HostFunctionError.
std::function<runtime::Value(const std::string&, const std::vector<runtime::Value>&)> host_caller(
    std::map<std::string, HostFunction> bound);

}  // namespace ss::api
