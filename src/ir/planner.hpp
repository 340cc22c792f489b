// What the pipeline's last pass, `plan`, hands each graph to: the executor
// chosen to run the program (runtime/core/executor.hpp), which plans it
// then, at load (fusion, kernels compiled, release plan), so that no call
// plans or compiles. Declared here so the pipeline driver (lower/) can run
// it without knowing any executor.
#pragma once

#include <string>
#include <string_view>

#include "ir/graph.hpp"

namespace ss::ir {

class Planner {
 public:
  virtual ~Planner() = default;
  // Plans `graph` and every loop and fused body in it; the graph stays as
  // it is (and where it is) while the plan is used.
  virtual void plan(const Graph& graph) const = 0;
  // The plan of `graph` as `--dump-ir=PASS` prints it: "fuse", its fused
  // kernels; "plan", the whole plan (kernels, releases, paths).
  virtual std::string listing(const Graph& graph, std::string_view pass) const = 0;
};

}  // namespace ss::ir
