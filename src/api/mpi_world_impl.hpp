// What an ss::MpiWorld holds: the communicator modules fork theirs from.
#pragma once

#include <memory>

#include "runtime/devices/mpi_comm.hpp"
#include "shapescript/mpi.hpp"

namespace ss {

struct MpiWorld::Impl {
  std::shared_ptr<runtime::MpiComm> comm;
};

}  // namespace ss
