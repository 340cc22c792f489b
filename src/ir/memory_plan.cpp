#include "ir/memory_plan.hpp"

#include <algorithm>

namespace ss::ir {

ReleasePlan plan_releases(const Graph& graph, const std::vector<int>& read_at) {
  const std::size_t count = graph.nodes.size();
  std::vector<int> last(count);
  for (std::size_t i = 0; i < count; ++i) last[i] = static_cast<int>(i);
  for (std::size_t u = 0; u < count; ++u) {
    const int at = read_at.empty() ? static_cast<int>(u) : read_at[u];
    for (const int v : graph.nodes[u].in)
      last[static_cast<std::size_t>(v)] = std::max(last[static_cast<std::size_t>(v)], at);
  }
  std::vector<bool> kept(count, false);
  for (const int o : graph.outputs) kept[static_cast<std::size_t>(o)] = true;
  ReleasePlan release(count);
  for (std::size_t v = 0; v < count; ++v)
    if (!kept[v]) release[static_cast<std::size_t>(last[v])].push_back(static_cast<int>(v));
  return release;
}

}  // namespace ss::ir

namespace ss::ir {

std::string print_releases(const ReleasePlan& plan) {
  std::string s;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (plan[i].empty()) continue;
    s += "  after %" + std::to_string(i) + " drop";
    for (const int v : plan[i]) s += " %" + std::to_string(v);
    s += "\n";
  }
  return s;
}

}  // namespace ss::ir
