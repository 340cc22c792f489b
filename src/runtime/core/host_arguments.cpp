#include "runtime/core/host_arguments.hpp"

#include "diag/codes.hpp"
#include "runtime/core/executor.hpp"

namespace ss::runtime {
namespace {

// E1605 for `name`, a `type`, missing; E1603 for a name the function lacks.
Diagnostic missing_argument(const WantedInputs& wanted, const std::string& name,
                            const types::Type& type, ArgumentSource source) {
  return diag::error(diag::Code::E1605,
                     "`" + wanted.function + "` needs `" + name + "`, a " + type.str(),
                     source == ArgumentSource::command_line
                         ? "give it with `--arg " + name + "=VALUE`"
                         : "pass it by position, or by name: {\"" + name + "\", tensor}");
}

Diagnostic unknown_argument(const WantedInputs& wanted, const std::string& name) {
  return diag::error(diag::Code::E1603,
                     "`" + wanted.function + "` has no " + wanted.noun + " `" + name + "`",
                     wanted.lacks_help);
}

}  // namespace

Diagnostic mismatched_argument(const std::string& why, ArgumentSource source) {
  return diag::error(diag::Code::E1603, why,
                     source == ArgumentSource::command_line
                         ? kArgTypeHelp
                         : "pass a tensor of the declared shape and element type");
}

std::optional<Diagnostic> match_arguments(const WantedInputs& wanted,
                                          const std::map<std::string, Tensor>& given,
                                          ArgumentSource source) {
  for (const auto& [name, type] : wanted.inputs)
    if (!given.count(name)) return missing_argument(wanted, name, type, source);
  for (const auto& entry : given) {
    bool known = false;
    for (const auto& input : wanted.inputs) known = known || input.first == entry.first;
    if (!known) return unknown_argument(wanted, entry.first);
  }
  return std::nullopt;
}

}  // namespace ss::runtime
