// An executor's plans, one per graph it was given (by the graph's id, never
// its address, which a later graph may reuse): made at load by
// ir::Planner::plan, looked up by each run. A graph the load didn't plan (a
// test's, run without a load) is planned when it first runs, and counted,
// so a test can hold a load to planning everything.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "ir/graph.hpp"
#include "runtime/core/executor.hpp"

namespace ss::runtime {

template <class Plan>
class PlanStore {
 public:
  // `g`'s plan; made by `make(g)` when there is none yet (`at_load`: by
  // the load's planning, else by a run). Two threads may make one at once:
  // the first kept serves both. `make` runs without the lock, so it may
  // plan the graph's bodies through the same store.
  template <class Make>
  std::shared_ptr<const Plan> get(const ir::Graph& g, const Make& make, bool at_load) const {
    {
      std::lock_guard lock(mutex_);
      if (const auto it = plans_.find(g.id.value); it != plans_.end()) return it->second;
    }
    std::shared_ptr<const Plan> made = make(g);
    std::lock_guard lock(mutex_);
    const auto [it, fresh] = plans_.emplace(g.id.value, std::move(made));
    if (fresh) ++(at_load ? counts_.at_load : counts_.at_call);
    return it->second;
  }

  // At load (ir::Planner::plan): `g`'s plan and each of its loop and fused
  // bodies', the bodies first.
  template <class Make>
  void plan_at_load(const ir::Graph& g, const Make& make) const {
    for_each_body(g, [&](const ir::Graph& body) { (void)get(body, make, true); });
    (void)get(g, make, true);
  }

  PlanCounts counts() const {
    std::lock_guard lock(mutex_);
    return counts_;
  }

 private:
  mutable std::mutex mutex_;
  mutable std::unordered_map<std::uint64_t, std::shared_ptr<const Plan>> plans_;
  mutable PlanCounts counts_;
};

}  // namespace ss::runtime
