#include "runtime/devices/workers.hpp"

#include <cstring>

#include "runtime/reference/ops.hpp"

namespace ss::runtime {
namespace {

// Rank r's part of n examples over `world` ranks: where it starts, how many.
std::pair<std::int64_t, std::int64_t> part(std::int64_t n, int world, int r) {
  const std::int64_t base = n / world, extra = n % world;
  return {r * base + std::min<std::int64_t>(r, extra), base + (r < extra ? 1 : 0)};
}

bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype()) return false;
  const Tensor x = a.compact(), y = b.compact();
  return std::memcmp(x.raw(), y.raw(),
                     static_cast<std::size_t>(x.size()) * dtype_size(x.dtype())) == 0;
}

}  // namespace

bool has_split_input(const ir::Graph& g) {
  if (g.batch.empty()) return false;
  for (const int id : g.inputs)
    if (batch_axis(g.nodes[static_cast<std::size_t>(id)].type, g.batch).first >= 0) return true;
  return false;
}

std::vector<std::string> worker_names(const std::string& kind,
                                      const std::vector<std::int64_t>& indices) {
  std::vector<std::string> names;
  for (const auto i : indices) names.push_back(kind + "[" + std::to_string(i) + "]");
  return names;
}

DeviceGroup::DeviceGroup(std::vector<std::string> devices, std::unique_ptr<Collectives> collectives)
    : devices_(std::move(devices)), collectives_(std::move(collectives)) {
  for (int local = 0; local < static_cast<int>(devices_.size()); ++local)
    threads_.emplace_back([this, local] { loop(local); });
}

DeviceGroup::~DeviceGroup() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  start_.notify_all();
  for (auto& t : threads_) t.join();
}

void DeviceGroup::loop(int local) {
  std::uint64_t seen = 0;
  std::unique_lock lock(mutex_);
  while (true) {
    start_.wait(lock, [&] { return stop_ || job_id_ != seen; });
    if (stop_) return;
    seen = job_id_;
    const auto job = job_;
    lock.unlock();
    job(local);  // catches its own exceptions
    lock.lock();
    if (--pending_ == 0) done_.notify_all();
  }
}

void DeviceGroup::on_every_worker(const std::function<void(int)>& job) {
  std::unique_lock lock(mutex_);
  job_ = job;
  pending_ = static_cast<int>(threads_.size());
  ++job_id_;
  start_.notify_all();
  done_.wait(lock, [&] { return pending_ == 0; });
}

std::vector<Tensor> DeviceGroup::run(const ir::Graph& g,
                                     const std::map<std::string, Tensor>& inputs, const Dims& dims,
                                     std::vector<WorkerStats>* stats) {
  std::lock_guard serial(run_mutex_);
  const auto whole_sizes = bind_sizes(g, inputs, dims);  // checks the whole inputs
  const int local_count = static_cast<int>(devices_.size());
  const int world = collectives_->world();

  std::vector<WorkerContext> contexts(static_cast<std::size_t>(local_count));
  std::vector<std::map<std::string, Tensor>> parts(static_cast<std::size_t>(local_count));
  std::vector<std::int64_t> examples(static_cast<std::size_t>(local_count), 0);
  for (int local = 0; local < local_count; ++local) {
    auto& ctx = contexts[static_cast<std::size_t>(local)];
    ctx.collectives = collectives_.get();
    ctx.local = local;
    const int rank = collectives_->rank(local);
    for (const auto& name : g.batch) {
      const auto it = whole_sizes.find(name);
      if (it == whole_sizes.end()) continue;
      const auto [start, count] = part(it->second, world, rank);
      ctx.whole[name] = it->second;
      ctx.offset[name] = start;
      examples[static_cast<std::size_t>(local)] += count;
    }
    for (const int id : g.inputs) {
      const ir::Node& n = g.nodes[static_cast<std::size_t>(id)];
      const Tensor& t = inputs.at(n.name);
      const auto [axis, name] = batch_axis(n.type, g.batch);
      if (axis < 0) {
        parts[static_cast<std::size_t>(local)][n.name] = t;
        continue;
      }
      const std::int64_t start = ctx.offset.at(name);
      const std::int64_t count = part(ctx.whole.at(name), world, rank).second;
      parts[static_cast<std::size_t>(local)][n.name] = t.slice(axis, start, start + count);
    }
  }

  std::vector<std::vector<Tensor>> results(static_cast<std::size_t>(local_count));
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(local_count));
  on_every_worker([&](int local) {
    const auto k = static_cast<std::size_t>(local);
    try {
      const GraphExecutor* executor = k < executors_.size() ? executors_[k].get() : executor_.get();
      results[k] = run_graph(g, parts[k], dims, &contexts[k], executor);
      // Other processes' workers hold the rest of a split output: each rank
      // puts its part into zeros of the whole shape, and a sum joins them.
      if (world > local_count)
        for (std::size_t o = 0; o < g.outputs.size(); ++o) {
          if (!g.split_outputs.at(o)) continue;
          const auto [axis, name] =
              batch_axis(g.nodes[static_cast<std::size_t>(g.outputs[o])].type, g.batch);
          Shape shape = results[k][o].shape();
          shape[static_cast<std::size_t>(axis)] = contexts[k].whole.at(name);
          const std::int64_t start = contexts[k].offset.at(name);
          Tensor joined =
              reference::place(results[k][o], shape, axis, start, start + results[k][o].dim(axis));
          joined = reference::cast(joined, DType::f32);
          collectives_->all_reduce(local, joined.raw(), static_cast<std::size_t>(joined.size()),
                                   DType::f32);
          results[k][o] = reference::cast(joined, results[k][o].dtype());
        }
    } catch (...) {
      errors[k] = std::current_exception();
      std::string why = "worker " + devices_[k] + " failed";
      try {
        throw;
      } catch (const std::exception& e) {
        why += ": " + std::string(e.what());
      } catch (...) {
      }
      collectives_->abort(why);
    }
  });

  // The cause: a worker's own error before a collective's, a collective
  // that timed out before one woken by the abort.
  int failed = -1, rank_of_cause = 3;
  for (int local = 0; local < local_count; ++local) {
    const auto& e = errors[static_cast<std::size_t>(local)];
    if (!e) continue;
    int severity = 0;
    try {
      std::rethrow_exception(e);
    } catch (const CollectiveError& c) {
      severity = c.aborted ? 2 : 1;
    } catch (...) {
    }
    if (severity < rank_of_cause) {
      rank_of_cause = severity;
      failed = local;
    }
  }
  if (failed >= 0) {
    const bool recovered = collectives_->reset();
    std::string why;
    try {
      std::rethrow_exception(errors[static_cast<std::size_t>(failed)]);
    } catch (const std::exception& e) {
      why = e.what();
    } catch (...) {
      why = "an unknown failure";
    }
    if (!recovered) why += " (the communicator can't be used again)";
    throw WorkerFailure(collectives_->rank(failed), devices_[static_cast<std::size_t>(failed)],
                        errors[static_cast<std::size_t>(failed)], why);
  }

  std::vector<Tensor> out;
  for (std::size_t o = 0; o < g.outputs.size(); ++o) {
    if (g.split_outputs.at(o) && world == local_count) {
      const auto [axis, name] =
          batch_axis(g.nodes[static_cast<std::size_t>(g.outputs[o])].type, g.batch);
      std::vector<Tensor> pieces;
      for (const auto& r : results) pieces.push_back(r[o]);
      out.push_back(reference::concat(pieces, axis));
      continue;
    }
    // Whole: every replica computed the same bits, or the workers drifted.
    for (std::size_t k = 1; k < results.size(); ++k)
      if (!same_bits(results[0][o], results[k][o]))
        throw std::logic_error("worker " + devices_[k] + "'s copy of output " + std::to_string(o) +
                               " of `" + g.name + "` differs from worker " + devices_[0] + "'s");
    out.push_back(results[0][o]);
  }
  if (stats) {
    stats->clear();
    for (int local = 0; local < local_count; ++local) {
      const auto k = static_cast<std::size_t>(local);
      stats->push_back({devices_[k], collectives_->rank(local), 1, examples[k],
                        contexts[k].all_reduces, contexts[k].reduced_values,
                        contexts[k].collective_seconds});
    }
  }
  return out;
}

}  // namespace ss::runtime
