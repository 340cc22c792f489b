#include <cstdlib>

#include "api/mpi_world_impl.hpp"
#include "diag/codes.hpp"

namespace ss {

std::shared_ptr<MpiWorld> MpiWorld::open(const void* mpi_comm, std::vector<Diagnostic>* errors,
                                         const std::string& adapter) {
  std::string reason;
  auto comm = runtime::MpiComm::open(mpi_comm, adapter, &reason);
  if (!comm) {
    if (errors) {
      errors->push_back(diag::error(diag::Code::E1811, "can't run on MPI",
                                    "install Open MPI (libopenmpi-dev) and build shapescript with "
                                    "it, or point SHAPESCRIPT_MPI at libshapescript_mpi.so"));
      errors->back().notes.push_back(reason);
    }
    return nullptr;
  }
  return std::make_shared<MpiWorld>(std::make_shared<Impl>(Impl{std::move(comm)}));
}

// A moved-from MpiWorld has no communicator: one process of its own, no
// library, and abort_job ends this process alone.
int MpiWorld::process() const {
  return impl_ ? impl_->comm->process() : 0;
}

int MpiWorld::processes() const {
  return impl_ ? impl_->comm->processes() : 0;
}

std::string MpiWorld::library() const {
  return impl_ ? impl_->comm->library_version() : std::string();
}

void MpiWorld::abort_job(int code) const {
  if (impl_) impl_->comm->abort_job(code);
  std::_Exit(code);
}

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE", "PMI_RANK"})
    if (const char* v = std::getenv(name); v && *v) return true;
  return false;
}

}  // namespace ss
