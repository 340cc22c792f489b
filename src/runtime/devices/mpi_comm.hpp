// MPI, through the adapter module (mpi/mpi_api.h, libshapescript_mpi.so)
// opened at run time: a machine without MPI still loads the library, and
// only a host or CLI that asks for MPI opens it. One MpiComm is one
// duplicated communicator; a module's collectives use a fork of the host's.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mpi/mpi_api.h"
#include "runtime/devices/collectives.hpp"
#include "support/dynamic_library.hpp"

namespace ss::runtime {

class MpiComm final : public ProcessLink {
 public:
  // Over the host's communicator (`comm` points at its MPI_Comm), or
  // MPI_COMM_WORLD when null. `adapter`: the module's path; empty,
  // SHAPESCRIPT_MPI or libshapescript_mpi.so beside the library. Null, with
  // *why, when the module or MPI can't be had.
  static std::shared_ptr<MpiComm> open(const void* comm, const std::string& adapter,
                                       std::string* why);
  // Whether the adapter loads, without starting MPI: its path and the MPI
  // library's version line, or false with *why.
  static bool probe(const std::string& adapter, std::string* path, std::string* version,
                    std::string* why);
  ~MpiComm() override;
  MpiComm(const MpiComm&) = delete;
  MpiComm& operator=(const MpiComm&) = delete;

  // A duplicate for one module's traffic (collective: every process forks
  // in the same order); its exchanges wait at most `timeout`.
  std::shared_ptr<MpiComm> fork(std::chrono::milliseconds timeout, std::string* why);

  int process() const override;
  int processes() const override;
  void set_layout(const std::vector<int>& counts) override;
  void all_reduce(const std::vector<void*>& locals, std::size_t count, DType dtype,
                  const std::function<bool()>& stopped) override;
  void broadcast(void* data, std::size_t bytes, int root_process,
                 const std::function<bool()>& stopped) override;
  void barrier(const std::function<bool()>& stopped) override;
  std::vector<std::string> all_gather(const std::string& mine) override;
  bool broken() const override;

  // MPI_Abort: ends every process of the job. Never returns.
  [[noreturn]] void abort_job(int code) const;
  std::string library_version() const;
  const std::string& adapter_path() const { return library_->path(); }

 private:
  MpiComm(std::shared_ptr<const support::DynamicLibrary> library, const SsMpiApi* api,
          SsMpiComm* comm);
  // Throws the CollectiveError a status other than SS_MPI_OK means, the
  // communicator broken from then on.
  void check(int status, const std::string& why, const std::vector<int>& silent);
  std::string named(int process) const;

  std::shared_ptr<const support::DynamicLibrary> library_;
  const SsMpiApi* api_;
  SsMpiComm* comm_;
  std::chrono::milliseconds timeout_{120000};
  std::vector<int> counts_;   // each process's workers
  mutable std::mutex mutex_;  // one exchange at a time: MPI_THREAD_SERIALIZED
  bool broken_ = false;
};

}  // namespace ss::runtime
