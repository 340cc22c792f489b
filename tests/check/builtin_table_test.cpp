// The built-ins' two tables agree: every name the checker accepts (its
// rules' table, check/builtin_table.cpp) has a lowering rule, on a device
// function (lower/lower_builtins.cpp) or in the controller
// (lower/lower_host.cpp), so a call the checker passes never fails at run
// time for want of one.
#include <doctest/doctest.h>

#include <string>

#include "check/checker_impl.hpp"
#include "lower/builtin_lowering.hpp"

TEST_CASE("every built-in the checker accepts lowers, on a device function or in the controller") {
  const auto& names = ss::check::builtin_names();
  CHECK(names.size() > 60);  // the table was read: the tensor built-ins and the program's
  for (const auto& name : names) {
    CAPTURE(name);
    CHECK((ss::lower::lowers_on_device(name) || ss::lower::lowers_on_host(name)));
  }
  // Spot checks of each side, so a table that lost its names can't pass.
  for (const char* device : {"sum", "softmax", "einsum", "conv", "exp", "value_and_grad", "zeros"})
    CHECK(ss::lower::lowers_on_device(device));
  for (const char* host : {"print", "load", "save", "AdamW", "batches", "write", "whole"})
    CHECK(ss::lower::lowers_on_host(host));
  CHECK_FALSE(ss::lower::lowers_on_device("print"));
  CHECK_FALSE(ss::lower::lowers_on_host("not_a_builtin"));
}
