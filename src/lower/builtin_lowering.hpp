// Which built-ins lowering takes, by the tables it dispatches through: a
// device function's (lower_builtins.cpp: to graph nodes) and a controller
// function's own (lower_host.cpp: print, load, save, optimisers, a
// dataset's stages). A controller's tensor expressions lower as a device
// function's do. Every name the checker accepts is in one or both
// (tests/check/builtin_table_test.cpp), so none fails only at a call.
#pragma once

#include <string>

namespace ss::lower {

bool lowers_on_device(const std::string& name);
bool lowers_on_host(const std::string& name);

}  // namespace ss::lower
