// Several processes on MPI (docs/embedding.md, "Several processes"): one
// process per rank, started by `mpirun`, each running its local devices;
// the world is every process's devices, each takes its part of every global
// batch, and the process holding rank 0 prints, saves and writes.
//
//   auto world = ss::MpiWorld::open(&comm);         // the host's MPI_Comm, or nullptr
//   ss::Module mod = engine.load_file("train.ss", {.mpi = world});
//   ...
//   if (!result && world->processes() > 1) world->abort_job(1);   // never a hang
//
// MPI is reached through libshapescript_mpi.so, opened at run time: a host
// without MPI loads the library and never opens it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "shapescript/diagnostic.hpp"
#include "shapescript/export.hpp"

namespace ss {

class SS_API MpiWorld {
 public:
  // Over the host's communicator (`mpi_comm` points at its MPI_Comm), or
  // MPI_COMM_WORLD when null, duplicated so the library's messages never
  // mix with the host's. MPI is initialised here (MPI_THREAD_MULTIPLE) when
  // the host hasn't, and finalised when the last world and module using it
  // are gone; a host that initialised MPI itself must ask for at least
  // MPI_THREAD_SERIALIZED. `adapter`: where libshapescript_mpi.so is (empty:
  // SHAPESCRIPT_MPI, else beside the library). Null, with E1811 added to
  // *errors (when given), when the adapter or MPI can't be had.
  static std::shared_ptr<MpiWorld> open(const void* mpi_comm = nullptr,
                                        std::vector<Diagnostic>* errors = nullptr,
                                        const std::string& adapter = {});

  int process() const;    // this process's rank in the communicator
  int processes() const;  // how many processes it has
  // "Open MPI v4.1.4, ..."
  std::string library() const;
  // Ends every process of the job (MPI_Abort), after a failed call has been
  // reported: a module whose collective failed (E1806) can't be used again,
  // and the other processes may still be waiting. Never returns.
  [[noreturn]] void abort_job(int code = 1) const;
  // A moved-from MpiWorld is empty: process 0 of 0, no library, and
  // abort_job ends this process alone.

  struct Impl;
  explicit MpiWorld(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}
  const std::shared_ptr<Impl>& impl() const { return impl_; }

 private:
  std::shared_ptr<Impl> impl_;
};

// Whether this process was started by an MPI launcher (mpirun, mpiexec,
// srun): Open MPI's, PMIx's or PMI's variables are set. The CLI runs on MPI
// then without being told.
SS_API bool launched_by_mpi();

}  // namespace ss
