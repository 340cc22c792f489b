// The several-device checks that need a real GPU and NCCL, run by
// tests/gpu/run.sh on a machine with one (SS_REQUIRE_GPU=1 there: no GPU is
// a failure). Built as shapescript_gpu_tests, outside ctest: this machine's
// suite tests the same paths on a stand-in (runtime/nccl_devices_test.cpp).
#include <doctest/doctest.h>

#include <cstdlib>
#include <variant>

#include "gpu/gpu_setup.hpp"
#include "kernels/cuda_driver.hpp"
#include "kernels/nccl.hpp"
#include "shapescript/shapescript.hpp"
#include "support/batch_ops.hpp"

namespace {

using ss::test::check_close;
using ss::test::rendered;

using ss::test::driver_or_skip;
using ss::test::gpu_required;

// Every function of batch_ops.ss at several batch sizes, against one device.
void check_every_function(const ss::Module& several, std::size_t workers) {
  const ss::Module one = ss::test::load_batch_ops("");
  for (const std::int64_t b : {65, 1, 8}) {
    const auto in = ss::test::batch_ops_inputs(b);
    for (const auto& entry : ss::test::kBatchOpsFunctions) {
      const std::string& fn = entry.first;
      CAPTURE(b);
      CAPTURE(fn);
      const auto rn = several.call(fn, {}, in);
      REQUIRE_MESSAGE(rn, rendered(rn));
      check_close(one.call(fn, {}, in), rn);
      REQUIRE(rn.workers.size() == workers);
      for (const auto& w : rn.workers) CHECK(w.all_reduces == entry.second);
    }
  }
}

}  // namespace

TEST_CASE("gpu: NCCL with one rank, through the host-passed communicator") {
  auto driver = driver_or_skip();
  if (!driver) return;
  auto lib = ss::nccl::Library::open("");
  REQUIRE_MESSAGE(std::holds_alternative<ss::nccl::Library>(lib),
                  "NCCL: " << std::get<std::string>(lib));
  auto& nccl = std::get<ss::nccl::Library>(lib);
  MESSAGE("NCCL " << nccl.version_text() << " from " << nccl.path());

  // As a host would make it: on device 0, the current context's.
  const auto& calls = driver->calls();
  ss::cuda::CUcontext context = nullptr;
  REQUIRE(calls.cuDevicePrimaryCtxRetain(&context, driver->handle(0)) == 0);
  REQUIRE(calls.cuCtxSetCurrent(context) == 0);
  ss::nccl::ncclUniqueId id{};
  REQUIRE(nccl.ncclGetUniqueId(&id) == ss::nccl::ncclSuccess);
  ss::nccl::ncclComm_t comm = nullptr;
  const auto made = nccl.ncclCommInitRankConfig(&comm, 1, id, 0, nullptr);
  REQUIRE_MESSAGE(made == ss::nccl::ncclSuccess, nccl.describe(made));
  {
    const ss::Module m = ss::test::load_batch_ops("cuda[0]", {.nccl_communicators = {comm}});
    REQUIRE_MESSAGE(m, (m.diagnostics().empty() ? "" : m.diagnostics()[0].render()));
    check_every_function(m, 1);
  }
  CHECK(nccl.ncclCommDestroy(comm) == ss::nccl::ncclSuccess);
  calls.cuDevicePrimaryCtxRelease(driver->handle(0));
}

TEST_CASE("gpu: cuda[0 0], two workers on one GPU through the in-process collectives") {
  if (!driver_or_skip()) return;
  const ss::Module m = ss::test::load_batch_ops("cuda[0 0]");
  REQUIRE_MESSAGE(m, (m.diagnostics().empty() ? "" : m.diagnostics()[0].render()));
  check_every_function(m, 2);
}

TEST_CASE("gpu: cuda[0 1] through NCCL communicators the library makes, where two GPUs exist") {
  auto driver = driver_or_skip();
  if (!driver) return;
  if (driver->device_count() < 2) {
    MESSAGE("one GPU here: cuda[0 1] needs two");
    return;
  }
  const ss::Module m = ss::test::load_batch_ops("cuda[0 1]");
  REQUIRE_MESSAGE(m, (m.diagnostics().empty() ? "" : m.diagnostics()[0].render()));
  check_every_function(m, 2);
}
