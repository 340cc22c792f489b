// Random well-typed shapescript programs for differential testing (as
// Csmith and YARPGen do for C compilers): seeded, so a seed names a program.
//
// A program's source carries, in `#@` comment lines, what its functions take,
// so a runner needs nothing but the text (a regression program under
// tests/programs/differential is such a text):
//
//   #@ dims D=3 E=4          the fixed dims' sizes
//   #@ call f x=n,D w=D,E    a function and its arguments' axes, in order;
//                            `n` is the generic (batch) axis, a number a
//                            fixed size; `m.w` names a model's parameter
//   #@ call g ids=n:D        an Index[D] argument
//
// Every program checks on one CPU and under `devices cpu[0 1]`: the batch
// axis `n` only meets elementwise work, sums and means over it, and
// contractions, which have a lowering for several devices.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ss::fuzz {

// The source of program `seed`.
std::string generate_program(std::uint64_t seed);

// One argument as a `#@ call` line gives it.
struct CallArgument {
  std::string name;               // `x`, or `m.w` for a model's parameter
  std::vector<std::string> axes;  // "n", a dim's name or a size
  std::string index_of;           // Index[D]: the dim; empty for float32
};

struct CallLine {
  std::string function;
  std::vector<CallArgument> arguments;
};

struct ProgramCalls {
  std::vector<std::pair<std::string, std::int64_t>> dims;
  std::vector<CallLine> calls;
};

// The `#@` lines of a source; throws std::runtime_error on a malformed one.
ProgramCalls read_calls(const std::string& source);

}  // namespace ss::fuzz
