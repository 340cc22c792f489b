// The lowered program: everything the runtime, the AOT build and the
// standalone emitter need, so none of them reads the checked tree. Made by
// src/lower's pipeline (lower/pipeline.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "diag/source_map.hpp"
#include "ir/graph.hpp"
#include "ir/host.hpp"
#include "types/types.hpp"

namespace ss::ir {

// A parameter's initialiser as its declaration gives it: `zeros`, `ones`,
// `normal(mean=, std=)`, `uniform(low=, high=)`, `glorot`.
struct Initialiser {
  std::string kind;
  std::map<std::string, double> settings;  // the ones given, by name
};

// A model's member: a parameter (a tensor) or a sub-model.
struct Member {
  std::string name;
  types::Type type;
  bool is_param = false;
  Initialiser init;  // a parameter's
};

struct Parameter {
  std::string name;
  types::Type type;
  bool is_mut = false;
};

// A function as its callers see it.
struct Signature {
  std::vector<Parameter> params;
  types::Type ret;
  bool has_ret = false;
  bool controller = false;
  bool is_extern = false;
};

using RecordFields = std::vector<std::pair<std::string, types::Type>>;

struct Program {
  int device_count = 1;  // from the `devices` line
  std::string device_kind = "cpu";
  std::vector<std::int64_t> device_indices;                 // `cuda[0 1]`; empty without brackets
  std::map<std::string, std::optional<std::int64_t>> dims;  // unsized: the host's to give
  std::map<std::string, std::vector<Member>> models;        // members in declaration order
  std::map<std::string, RecordFields> records;
  std::map<std::string, Signature> functions;
  std::map<std::string, diag::Span> sinks;  // by name, at their declarations
  HostProgram controller;                   // every controller function's compact form
  std::map<std::string, Graph> graphs;      // every device function's graph that lowered
  // With several devices: each device function's graph as the workers run
  // it (ir/distribute.hpp), or why it doesn't distribute.
  std::map<std::string, Graph> distributed;
  std::map<std::string, std::string> not_distributed;

  const Graph* graph(const std::string& function) const {
    const auto it = graphs.find(function);
    return it == graphs.end() ? nullptr : &it->second;
  }
};

}  // namespace ss::ir
