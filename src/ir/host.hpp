// The compact form of controller functions: straight-line instructions over
// numbered slots, with jumps for `if`, `for` and `break`, so an interpreter
// (and later the JIT) runs a flat list rather than walking the syntax tree.
// Every expression that computes tensors is one `graph` instruction whose
// graph (ir/graph.hpp) was lowered with the function, once.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "diag/codes.hpp"
#include "ir/graph.hpp"

namespace ss::ir {

enum class HostOp {
  constant,     // dst <- an integer (whole), a float (number) or text; kind says which
  dim,          // dst <- the size of the program's dim `text`
  copy,         // dst <- args[0]
  graph,        // dst <- graphs[target] run on args (one slot per graph input)
  arith,        // dst <- args[0] `text` args[1], numbers (support/scalar_arith); `neg`
                // takes one; a comparison (`<`, `==`, ...) gives a bool scalar tensor
  call,         // dst <- the controller function `text` called with args
  print,        // writes args, shown and joined by spaces, and a newline
  format,       // dst <- an f-string: parts
  shape,        // dst <- the shape of args[0] as text
  tuple,        // dst <- (args...)
  item,         // dst <- args[0]'s item `number`
  range,        // dst <- range(args[0]) or range(args[0], args[1])
  loop_start,   // dst (a counter) <- the start of the range args[0]
  loop_next,    // if counter args[1] reached the end of range args[0], jump to
                // target; else dst (the loop variable) <- counter, counter += 1
  branch,       // unless args[0] is true, jump to target
  jump,         // to target
  ret,          // return args[0], or nothing when args is empty
  unsupported,  // fails at run time: text isn't supported yet
  // Training and data (the controller's own work):
  model,      // dst <- a new model `text`, drawn with seed args[0] (none: 0)
  optimizer,  // dst <- optimiser `text` for model args[0]; parts: settings given
  load,       // dst <- the file at path args[0] as `kind` (a dataset of record `text`,
              // a model `text`, an optimiser of kind `text` for model models[0])
  save,       // saves args[0] (a model or optimiser) to path args[1]
  write,      // sends parts (name, value) to the sink `text`
  pipe,       // dst <- stage `text` (shuffle, batches, take, split, whole, map) of
              // dataset args[0]; args[1]: batches' n, take's k, map's function;
              // parts: keywords
  len,        // dst <- the number of examples of args[0]
  set_field,  // the structure in slot dst gets args[0] as its field `text` (opt.lr = x)
};

const char* host_op_name(HostOp op);

// What a slot holds once an instruction wrote it.
enum class HostKind {
  none,
  tensor,
  integer,
  floating,
  string,
  tuple,
  range,
  function,
  model,
  optimizer,
  dataset,
  batches,
  record,
};

struct FormatPart {
  std::string text;  // literal text before the value
  int slot = -1;     // the value; -1 for the trailing text
  std::string spec;  // `.4f` in `{x:.4f}`
  diag::Span span;
};

// A slot an instruction reads that a program's variable binds: reading it
// before any binding ran is the program's error, pointing here.
struct VariableRead {
  int slot = -1;
  diag::Span span;
};

struct HostInstr {
  HostOp op = HostOp::constant;
  int dst = -1;
  std::vector<int> args;
  int target = -1;  // an instruction's index (jumps), a graph's (graph)
  std::string text;
  double number = 0;                // a float constant's value; item's index
  std::int64_t whole = 0;           // an integer constant's value
  HostKind kind = HostKind::none;   // constant's kind; graph: the result's
  std::vector<HostKind> items;      // graph with a tuple result: each part's
  std::vector<std::string> models;  // graph: a model result's (or each item's) model name
  std::vector<int> writes;          // graph: the slot each of graph.updated names; call (when
                                    // any argument is `mut`): per argument, the variable that
                                    // gets the callee's final parameter, or -1
  std::vector<FormatPart> parts;
  std::vector<VariableRead> reads;
  diag::Span span;
  std::optional<diag::Code> code;  // unsupported: the program's coded mistake, if it is one
  std::string help;                // and how to fix it
};

struct HostFunction {
  std::string name;
  std::vector<std::string> slots;  // variables by name, temporaries as ""
  std::vector<int> params;         // the parameters' slots, in order
  std::vector<HostInstr> code;
  std::vector<Graph> graphs;
};

// Every controller function of a program (src/lower makes them), by name.
using HostProgram = std::map<std::string, HostFunction>;

// A listing: the slots, then one instruction a line, then the graphs.
std::string print(const HostFunction& function);

// Empty when well formed (slots and targets in range, each graph instruction
// passes one slot per graph input, every graph verifies); else what's wrong.
std::string verify(const HostFunction& function);

}  // namespace ss::ir
