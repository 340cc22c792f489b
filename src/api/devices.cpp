#include "api/devices.hpp"

#include <set>

#include "diag/codes.hpp"

namespace ss::api {
namespace {

// A host's CollectiveTable as the runtime's collectives.
class HostCollectives final : public runtime::Collectives {
 public:
  explicit HostCollectives(std::shared_ptr<const CollectiveTable> table) : t_(std::move(table)) {}

  int local_count() const override { return static_cast<int>(t_->ranks.size()); }
  int world() const override { return t_->world; }
  int rank(int local) const override { return t_->ranks.at(static_cast<std::size_t>(local)); }

  void all_reduce(int local, void* data, std::size_t count, runtime::DType dtype) override {
    int status = -1;
    if (dtype == runtime::DType::f32 && t_->all_reduce_f32)
      status = t_->all_reduce_f32(t_->context, local, static_cast<float*>(data), count);
    else if (dtype == runtime::DType::i32 && t_->all_reduce_i32)
      status = t_->all_reduce_i32(t_->context, local, static_cast<std::int32_t*>(data), count);
    else
      throw runtime::CollectiveError("the host's collectives have no all-reduce for " +
                                         std::string(runtime::dtype_name(dtype)),
                                     false);
    check(status, "all-reduce");
  }

  void broadcast(int local, void* data, std::size_t bytes, int root) override {
    if (!t_->broadcast)
      throw runtime::CollectiveError("the host's collectives have no broadcast", false);
    check(t_->broadcast(t_->context, local, data, bytes, root), "broadcast");
  }

  void barrier(int local) override {
    if (!t_->barrier)
      throw runtime::CollectiveError("the host's collectives have no barrier", false);
    check(t_->barrier(t_->context, local), "barrier");
  }

  void abort(const std::string&) override {
    aborted_ = true;
    if (t_->abort) t_->abort(t_->context);
  }

  bool reset() override { return !aborted_.exchange(false); }

 private:
  void check(int status, const char* what) const {
    if (status == 0) return;
    throw runtime::CollectiveError(
        std::string("the host's ") + what + " returned " + std::to_string(status), aborted_.load());
  }

  std::shared_ptr<const CollectiveTable> t_;
  std::atomic<bool> aborted_{false};
};

// Empty when the host's table fits the `devices` line, else why not.
std::string misfit(const CollectiveTable& t, std::size_t devices) {
  if (t.ranks.size() != devices)
    return "the host's collectives give " + std::to_string(t.ranks.size()) + " local ranks for " +
           std::to_string(devices) + " devices";
  if (!t.all_reduce_f32 || !t.abort)
    return "the host's collectives have no all_reduce_f32 or no abort";
  std::set<int> seen;
  for (const int r : t.ranks) {
    if (r < 0 || r >= t.world)
      return "rank " + std::to_string(r) + " is outside a world of " + std::to_string(t.world);
    if (!seen.insert(r).second) return "rank " + std::to_string(r) + " is given twice";
  }
  return {};
}

}  // namespace

std::shared_ptr<runtime::DeviceGroup> make_devices(Compiled& c, const LoadOptions& options) {
  if (!c.ok() || c.typed.device_count <= 1) return nullptr;
  const auto names = runtime::worker_names(c.typed.device_kind, c.typed.device_indices);
  if (options.collectives) {
    if (const std::string why = misfit(*options.collectives, names.size()); !why.empty()) {
      c.diagnostics.push_back(diag::error(
          diag::Code::E1806, why,
          "give one rank per device the `devices` line names, each once, below the world size"));
      return nullptr;
    }
    return std::make_shared<runtime::DeviceGroup>(
        names, std::make_unique<HostCollectives>(options.collectives));
  }
  return std::make_shared<runtime::DeviceGroup>(
      names,
      runtime::in_process_collectives(static_cast<int>(names.size()), options.collective_timeout));
}

std::vector<WorkerStats> to_public(const std::vector<runtime::WorkerStats>& stats) {
  std::vector<WorkerStats> out;
  for (const auto& s : stats)
    out.push_back({s.device, s.rank, s.calls, s.examples, s.all_reduces, s.reduced_values,
                   s.collective_seconds});
  return out;
}

}  // namespace ss::api
