// The collectives several-device workers use, behind one small table:
// all-reduce (a sum), broadcast, barrier and abort. Implementations: the
// in-process one for `cpu[...]` workers (here), the same over several
// processes through a ProcessLink (MPI), NCCL for CUDA devices
// (kernels/nccl_collectives.hpp), and a host's own (api: ss::CollectiveTable),
// so a Gloo host plugs in.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/core/collectives.hpp"
#include "runtime/core/tensor.hpp"

namespace ss::runtime {

// The processes beyond this one (MPI: runtime/devices/mpi_comm.hpp). A
// process's workers meet in-process first; the last to arrive exchanges for
// all of them. Each call waits at most the link's timeout and gives up when
// `stopped` says so; it throws a CollectiveError, after which the link is
// broken for good.
class ProcessLink {
 public:
  virtual ~ProcessLink() = default;
  virtual int process() const = 0;
  virtual int processes() const = 0;
  // Each process's worker count, in process order: names the ranks of a
  // process that doesn't answer.
  virtual void set_layout(const std::vector<int>& counts) = 0;
  // Sums this process's buffers (its workers', in order) and every other
  // process's, in world-rank order, into each of them: the same bits on
  // every rank, those of one process's rank-order sum over the same ranks.
  virtual void all_reduce(const std::vector<void*>& locals, std::size_t count, DType dtype,
                          const std::function<bool()>& stopped) = 0;
  virtual void broadcast(void* data, std::size_t bytes, int root_process,
                         const std::function<bool()>& stopped) = 0;
  virtual void barrier(const std::function<bool()>& stopped) = 0;
  virtual std::vector<std::string> all_gather(const std::string& mine) = 0;
  virtual bool broken() const = 0;
};

// Workers in this process, reducing in rank order, once, so every worker
// gets the same bits. A worker that waits longer than `timeout` for the
// others aborts the collective.
std::unique_ptr<Collectives> in_process_collectives(int workers, std::chrono::milliseconds timeout);

// The same workers as part of a world over several processes: `counts` is
// each process's worker count (this one's is `workers`), ranks run in
// process order, and what crosses processes goes through `link`.
std::unique_ptr<Collectives> linked_collectives(int workers, std::chrono::milliseconds timeout,
                                                std::shared_ptr<ProcessLink> link,
                                                std::vector<int> counts);

}  // namespace ss::runtime
