// The collectives several-device workers use, behind one small table:
// all-reduce (a sum), broadcast, barrier and abort. Implementations: the
// in-process one for `cpu[...]` workers (here), NCCL for CUDA devices
// (kernels/nccl_collectives.hpp), and a host's own (api: ss::CollectiveTable),
// so an MPI or Gloo host plugs in.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>

#include "runtime/core/tensor.hpp"

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
  // communicator can't recover (an aborted NCCL one).
  virtual bool reset() = 0;
};

// Workers in this process, reducing in rank order, once, so every worker
// gets the same bits. A worker that waits longer than `timeout` for the
// others aborts the collective.
std::unique_ptr<Collectives> in_process_collectives(int workers, std::chrono::milliseconds timeout);

}  // namespace ss::runtime
