// What a Module holds: the checked program and its prepared graphs.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "api/compiled.hpp"
#include "ir/graph.hpp"
#include "shapescript/module.hpp"

namespace ss {

struct Module::Impl {
  std::unique_ptr<api::Compiled> compiled;
  mutable std::mutex mutex;  // guards `graphs`: a module may be called from several threads
  mutable std::map<std::string, ir::Graph> graphs;
};

}  // namespace ss
