// The collectives of `cuda[...]` workers, through NCCL: one communicator per
// local device, the host's own (a multi-node job, its ranks set up by the
// host) or made here for the local devices. Each worker stages its values in
// a buffer on its GPU, on a stream of its own, and waits for NCCL under a
// watchdog: a collective that doesn't finish within the timeout, an error
// NCCL reports, or a device lost aborts the communicators (a CollectiveError,
// E1806 at the controller), never a hang. Communicators made here are made
// non-blocking and made afresh after an abort; a host's aborted ones can't be.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "kernels/cuda_driver.hpp"
#include "kernels/nccl.hpp"
#include "runtime/devices/collectives.hpp"

namespace ss::nccl {

struct Setup {
  std::shared_ptr<const cuda::Driver> driver;
  std::shared_ptr<const Library> nccl;
  std::vector<int> devices;           // each local worker's CUDA device, in `devices` order
  std::vector<ncclComm_t> from_host;  // empty: make one per device here
  std::chrono::milliseconds timeout{120000};
  // Several processes (MPI): the world's size, this process's first rank
  // and the id process 0 made (ncclGetUniqueId) and sent to every process.
  // 0: the local devices are the world. Such communicators can't be made
  // again after an abort (every process would have to).
  int world = 0, first_rank = 0;
  ncclUniqueId id{};
};

// Null, with *why, when the host's communicators don't fit the devices (one
// per device, on that device, distinct ranks of one world) or NCCL can't
// make them.
std::unique_ptr<runtime::Collectives> make_collectives(Setup setup, std::string* why);

}  // namespace ss::nccl
