// The collectives a several-device worker's graph calls (all-reduce,
// broadcast, barrier, abort), as one small interface: what an executor
// running a worker's part needs. Its implementations live above the
// executors (runtime/devices/collectives.hpp, kernels/nccl_collectives.hpp).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/core/dtype.hpp"

namespace ss::runtime {

// A collective that failed: timed out, aborted because another worker
// failed, or refused by its library. The controller reports it as E1806.
struct CollectiveError : std::runtime_error {
  CollectiveError(const std::string& why, bool aborted_by_peer)
      : std::runtime_error(why), aborted(aborted_by_peer) {}
  bool aborted;  // woken by abort(): another worker's failure is the cause
};

class Collectives {
 public:
  virtual ~Collectives() = default;
  // Local workers are numbered 0..local_count()-1; each has a rank in the
  // world (all processes' workers together).
  virtual int local_count() const = 0;
  virtual int world() const = 0;
  virtual int rank(int local) const = 0;
  // Sums `count` elements (f32 or i32) in place over every rank; every rank
  // gets the same bits.
  virtual void all_reduce(int local, void* data, std::size_t count, DType dtype) = 0;
  // Copies root's `bytes` to every rank.
  virtual void broadcast(int local, void* data, std::size_t bytes, int root) = 0;
  virtual void barrier(int local) = 0;
  // Wakes every worker waiting in a collective with a CollectiveError; later
  // collectives fail too, until reset().
  virtual void abort(const std::string& why) = 0;
  // Ready again after an abort, for the next call. False when the
  // communicator can't recover (an aborted NCCL one, a broken MPI one).
  virtual bool reset() = 0;
  // The processes the world spans (several under MPI), and every process's
  // `mine` (the same size on each), in process order: from the controller's
  // thread, between calls (the load's and a dataset's agreement).
  virtual int processes() const { return 1; }
  virtual std::vector<std::string> each_process(const std::string& mine) { return {mine}; }
};

}  // namespace ss::runtime
