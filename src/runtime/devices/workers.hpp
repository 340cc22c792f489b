// The workers of a several-device program: one thread per local device,
// driven by the controller. A distributed graph (ir/distribute.hpp) runs on
// every worker with that worker's part of the batch axis; whole values
// (parameters, optimiser state) are replicated. Parts are contiguous, in rank
// order, the first `size mod world` ranks taking one more; a worker whose
// part is empty still joins every collective.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ir/graph.hpp"
#include "runtime/devices/collectives.hpp"
#include "runtime/reference/interpreter.hpp"

namespace ss::runtime {

// What one worker did: in one call, or summed over several.
struct WorkerStats {
  std::string device;  // "cpu[1]", "cuda[0]"
  int rank = 0;
  std::int64_t calls = 0;
  std::int64_t examples = 0;  // the examples of its parts of the batches
  std::int64_t all_reduces = 0;
  std::int64_t reduced_values = 0;  // elements summed by those all-reduces
  double collective_seconds = 0;    // in them, waiting for the others included
};

// A worker's failure, with what it threw: the program's own error (an
// Index out of range in its part) or a collective's.
struct WorkerFailure : std::runtime_error {
  WorkerFailure(int rank_, std::string device_, std::exception_ptr cause_, const std::string& why)
      : std::runtime_error(why), rank(rank_), device(std::move(device_)), cause(cause_) {}
  int rank;
  std::string device;
  std::exception_ptr cause;
};

class DeviceGroup {
 public:
  // One worker per device name, all using `collectives`.
  DeviceGroup(std::vector<std::string> devices, std::unique_ptr<Collectives> collectives);
  ~DeviceGroup();
  DeviceGroup(const DeviceGroup&) = delete;
  DeviceGroup& operator=(const DeviceGroup&) = delete;

  const std::vector<std::string>& devices() const { return devices_; }
  Collectives& collectives() { return *collectives_; }

  // Runs a distributed graph on every worker: the inputs with a batch axis
  // split, the rest replicated; split outputs joined in rank order, whole
  // ones taken from the first worker (checked bit for bit against the
  // others'). `stats`, when given, gets one entry per worker. A failure is
  // a WorkerFailure (the collectives are reset for the next call); inputs
  // that don't fit the graph are an InputMismatch, as on one device.
  std::vector<Tensor> run(const ir::Graph& distributed, const std::map<std::string, Tensor>& inputs,
                          const Dims& dims, std::vector<WorkerStats>* stats = nullptr);

  // The faster executor each worker offers its nodes first (null: the
  // reference alone). Set before the first run.
  void set_executor(std::shared_ptr<const GraphExecutor> executor) {
    executor_ = std::move(executor);
  }
  // Or one per worker, in the order of devices() (a CUDA executor on each
  // worker's GPU).
  void set_executors(std::vector<std::shared_ptr<const GraphExecutor>> executors) {
    executors_ = std::move(executors);
  }

 private:
  void loop(int local);
  void on_every_worker(const std::function<void(int)>& job);

  std::vector<std::string> devices_;
  std::unique_ptr<Collectives> collectives_;
  std::shared_ptr<const GraphExecutor> executor_;
  std::vector<std::shared_ptr<const GraphExecutor>> executors_;
  std::mutex run_mutex_;  // one run at a time: hosts may call from several threads
  std::mutex mutex_;
  std::condition_variable start_, done_;
  std::function<void(int)> job_;
  std::uint64_t job_id_ = 0;
  int pending_ = 0;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

// Whether a graph has an input with a batch axis, so runs distributed.
bool has_split_input(const ir::Graph& g);

// The worker names of a program's `devices` line: "cpu[0]", "cpu[1]", ...
std::vector<std::string> worker_names(const std::string& kind,
                                      const std::vector<std::int64_t>& indices);

}  // namespace ss::runtime
