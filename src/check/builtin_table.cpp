// Each built-in's checking rule, by name: the one table builtin_call
// dispatches through and builtin_names() lists (the suggestions of E0102's
// kin read it too), made from check/builtins.def, types/unary.def and
// types/binary.def, whose rows lowering reads too
// (tests/check/builtin_table_test.cpp holds every name here to one that
// lowers).
#include "check/checker_impl.hpp"
#include "types/binary_functions.hpp"

namespace ss::check {

const std::map<std::string, Checker::BuiltinRule>& Checker::builtin_rules() {
  static const std::map<std::string, BuiltinRule> rules = [] {
    std::map<std::string, BuiltinRule> m;
    // functions of one and two values from their tables' rows, the rest
    // from check/builtins.def's
    for (const auto& f : types::unary_functions())
      if (f.spelled == types::Spelled::function) m[f.name] = &Checker::unary_function_call;
    for (const auto& f : types::binary_functions())
      if (f.spelled == types::Spelled::function) m[f.written] = &Checker::binary_function_call;
#define SS_DEVICE_BUILTIN(name, check_rule, lower_rule) m[name] = &Checker::check_rule;
#define SS_HOST_BUILTIN(name, check_rule, host_rule) m[name] = &Checker::check_rule;
#include "check/builtins.def"
#undef SS_DEVICE_BUILTIN
#undef SS_HOST_BUILTIN
    return m;
  }();
  return rules;
}

const std::set<std::string>& builtin_names() {
  static const std::set<std::string> names = [] {
    std::set<std::string> out;
    for (const auto& [name, rule] : Checker::builtin_rules()) out.insert(name);
    return out;
  }();
  return names;
}

}  // namespace ss::check
