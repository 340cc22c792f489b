// A host's arguments to a function, matched by name against what it takes:
// one check, and one set of messages, for a host's Module::call and a
// command line's `run --arg NAME=VALUE`.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/core/tensor.hpp"
#include "shapescript/diagnostic.hpp"
#include "types/types.hpp"

namespace ss::runtime {

// Where the arguments come from, for the help of the messages.
enum class ArgumentSource { command_line, host };

// What a function takes from the host, in order: each input's name and type.
struct WantedInputs {
  std::string function;
  std::vector<std::pair<std::string, types::Type>> inputs;
  const char* noun = "input";  // "parameter": what a name the function lacks isn't
  std::string lacks_help;      // E1603's help for a name it lacks
};

// The first input `given` lacks (E1605), else the first name given that
// isn't an input (E1603); nullopt when each matches.
std::optional<Diagnostic> match_arguments(const WantedInputs& wanted,
                                          const std::map<std::string, Tensor>& given,
                                          ArgumentSource source);

// E1603 for a given tensor that doesn't fit its input's type (the
// interpreter's InputMismatch, `why`).
Diagnostic mismatched_argument(const std::string& why, ArgumentSource source);

}  // namespace ss::runtime
