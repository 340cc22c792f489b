// Each built-in's checking rule, by name: the one table builtin_call
// dispatches through and builtin_names() lists (the suggestions of E0102's
// kin read it too). Lowering dispatches through its own table
// (lower/builtin_lowering.cpp); tests/check/builtin_table_test.cpp holds
// every name here to one that lowers.
#include "check/checker_impl.hpp"
#include "types/unary_functions.hpp"

namespace ss::check {

const std::map<std::string, Checker::BuiltinRule>& Checker::builtin_rules() {
  static const std::map<std::string, BuiltinRule> rules = [] {
    std::map<std::string, BuiltinRule> m;
    const auto add = [&](std::initializer_list<const char*> names, BuiltinRule rule) {
      for (const char* n : names) m[n] = rule;
    };
    // math and casts; types/unary.def's functions come from its rows
    for (const auto& f : types::unary_functions())
      if (f.spelled == types::Spelled::function) m[f.name] = &Checker::unary_function_call;
    add({"f32", "bf16", "f16", "i32"}, &Checker::cast_call);
    add({"where", "maximum", "minimum"}, &Checker::elementwise_call);
    add({"clip"}, &Checker::clip_call);
    add({"dropout"}, &Checker::dropout_call);
    // reductions and along-axis operations
    add({"sum", "mean", "max", "min", "argmax", "logsumexp", "var", "std"},
        &Checker::reduction_call);
    add({"softmax", "log_softmax", "sort", "argsort", "layer_norm", "rms_norm"},
        &Checker::along_axis_call);
    add({"cross_entropy"}, &Checker::cross_entropy_call);
    add({"causal"}, &Checker::causal_call);
    add({"matmul"}, &Checker::matmul_call);
    add({"concat", "stack"}, &Checker::join_call);
    add({"pad"}, &Checker::pad_call);
    add({"conv", "max_pool", "avg_pool"}, &Checker::window_rule);
    add({"slices"}, &Checker::slices_rule);
    // patterns
    add({"einsum", "rearrange", "reduce", "repeat"}, &Checker::pattern_rule);
    // constructors, and the program's world (builtins_program.cpp)
    add({"zeros",   "ones",    "full",      "arange", "normal", "uniform", "shape",
         "len",     "range",   "print",     "write",  "save",   "load",    "value_and_grad",
         "grad",    "update",  "clip_norm", "norm",   "SGD",    "Adam",    "AdamW",
         "shuffle", "batches", "take",      "whole",  "map",    "split"},
        &Checker::program_rule);
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
