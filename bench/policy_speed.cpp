// The policy's batch-1 call as a game or robot makes it each frame: the
// agents example's policy (examples/agents/agents.ss: 8 -> 64 -> 64 -> 2,
// tanh) made once as a value, `act` called into the host's buffer. Prints
// `policy_b1 US` (the best of five rounds' mean). SS_BENCH_NUMERICS=portable
// runs it under Numerics::portable (bench/portable.sh).
//
//   bench_policy [ROOT]   (ROOT: the source tree, for examples/agents)
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "best_time.hpp"
#include "shapescript/shapescript.hpp"

int main(int argc, char** argv) {
  const std::string root = argc > 1 ? argv[1] : ".";
  std::ifstream file(root + "/examples/agents/agents.ss");
  std::stringstream text;
  text << file.rdbuf();
  const ss::Engine engine({.executor = ss::Executor::fast, .numerics = ss::bench::numerics()});
  const ss::Module mod = engine.load_source(text.str(), "agents.ss");
  if (!mod) {
    for (const auto& d : mod.diagnostics()) std::fprintf(stderr, "%s", d.render().c_str());
    return 1;
  }
  const ss::Value policy = mod.make("Policy", {.seed = 0});
  std::vector<float> obs = {0.5f, -0.25f, 0.1f, 0.0f, 1.5f, -2.0f, 1.0f, -1.0f}, action(2);
  const auto seconds = ss::bench::best_seconds_per_call([&] {
    const auto r = mod.call_into("act", {policy, ss::Tensor::view(obs.data(), {1, 8})},
                                 {ss::Tensor::view(action.data(), {1, 2})});
    if (!r) std::fprintf(stderr, "%s", r.diagnostics.at(0).render().c_str());
  });
  std::printf("policy_b1 %.3f\n", seconds * 1e6);
  return 0;
}
