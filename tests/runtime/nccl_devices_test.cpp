// `cuda[...]` workers and their NCCL collectives, on a stand-in for the CUDA
// driver and NCCL (tests/fakes/fake_cuda.cpp), so the adapter's staging,
// watchdog, aborts and the host's communicators are tested without a GPU.
// tests/gpu/run.sh runs the same paths on a real one.
#include <doctest/doctest.h>

#include <dlfcn.h>

#include <thread>

#include "shapescript/shapescript.hpp"
#include "support/batch_ops.hpp"
#include "support/build_paths.hpp"

namespace {

using ss::test::check_close;
using ss::test::rendered;

// The reference executor: the stand-in runs no kernels, so the workers
// compute on the CPU (a fast engine would put a CUDA executor on each).
const ss::EngineOptions kFake{.cuda_driver_library = ss::test::built::fake_cuda,
                              .nccl_library = ss::test::built::fake_cuda,
                              .executor = ss::Executor::reference};

// The stand-in's controls.
struct Fake {
  Fake() : handle(dlopen(ss::test::built::fake_cuda, RTLD_NOW)) {
    REQUIRE_MESSAGE(handle, dlerror());
    hang_rank = reinterpret_cast<void (*)(int)>(dlsym(handle, "ss_fake_hang_rank"));
    lose_device = reinterpret_cast<void (*)(int)>(dlsym(handle, "ss_fake_lose_device"));
    counts = reinterpret_cast<void (*)(int*, int*, int*, int*)>(dlsym(handle, "ss_fake_counts"));
    host_comm =
        reinterpret_cast<void* (*)(const char*, int, int, int)>(dlsym(handle, "ss_fake_host_comm"));
    REQUIRE((hang_rank && lose_device && counts && host_comm));
  }
  ~Fake() {
    hang_rank(-1);
    lose_device(-1);
  }
  // The stand-in's counts: communicators made, aborted, destroyed, and
  // collectives completed.
  int made() const { return count(0); }
  int aborted() const { return count(1); }
  int destroyed() const { return count(2); }
  int collectives() const { return count(3); }
  int count(int which) const {
    int c[4] = {};
    counts(&c[0], &c[1], &c[2], &c[3]);
    return c[which];
  }
  void* handle;
  void (*hang_rank)(int);
  void (*lose_device)(int);
  void (*counts)(int*, int*, int*, int*);
  void* (*host_comm)(const char* clique, int ranks, int rank, int device);
};

ss::Module load(const std::string& devices, const ss::LoadOptions& options = {},
                const ss::EngineOptions& engine = kFake) {
  return ss::test::load_batch_ops(devices, options, engine);
}

std::string code_of(const ss::Module& m) {
  return m.diagnostics().empty() ? "" : m.diagnostics().back().code;
}

}  // namespace

TEST_CASE("cuda[0 1] reduces through NCCL communicators it makes, and matches one device") {
  Fake fake;
  const int made = fake.made(), destroyed = fake.destroyed();
  const ss::Module one = load("", {}, {});
  {
    const ss::Module several = load("cuda[0 1]");
    REQUIRE_MESSAGE(several,
                    (several.diagnostics().empty() ? "" : several.diagnostics()[0].render()));
    CHECK(fake.made() == made + 2);  // one communicator per device, made at load
    for (const std::int64_t b : {65, 1, 3}) {
      const auto in = ss::test::batch_ops_inputs(b);
      for (const auto& entry : ss::test::kBatchOpsFunctions) {
        const std::string& fn = entry.first;
        CAPTURE(b);
        CAPTURE(fn);
        const int before = fake.collectives();
        const auto r1 = one.call(fn, {}, in);
        const auto rn = several.call(fn, {}, in);
        REQUIRE_MESSAGE(rn, rendered(rn));
        check_close(r1, rn);
        REQUIRE(rn.workers.size() == 2);
        CHECK(rn.workers[0].device == "cuda[0]");
        CHECK(rn.workers[1].device == "cuda[1]");
        CHECK(rn.workers[1].rank == 1);
        CHECK(rn.workers[0].examples == (b + 1) / 2);
        CHECK(rn.workers[0].all_reduces == entry.second);
        // Each all-reduce went through NCCL: the stand-in completed it once.
        CHECK(fake.collectives() - before == entry.second);
      }
    }
  }
  CHECK(fake.destroyed() == destroyed + 2);  // its own communicators, destroyed with it
}

TEST_CASE("cuda[0 0] runs two workers on one GPU through the in-process collectives") {
  Fake fake;
  const int made = fake.made(), collectives = fake.collectives();
  const ss::Module one = load("", {}, {});
  const ss::Module shared = load("cuda[0 0]");
  REQUIRE(shared);
  const auto in = ss::test::batch_ops_inputs(7);
  const auto r1 = one.call("grad_ce", {}, in);
  const auto r2 = shared.call("grad_ce", {}, in);
  REQUIRE_MESSAGE(r2, rendered(r2));
  check_close(r1, r2);
  REQUIRE(r2.workers.size() == 2);
  CHECK(r2.workers[1].device == "cuda[0]");
  CHECK(r2.workers[0].all_reduces == 3);
  CHECK(fake.made() == made);  // no NCCL: it refuses two ranks on one GPU
  CHECK(fake.collectives() == collectives);
}

TEST_CASE("cuda workers need the driver (E1901), the devices (E1902) and NCCL (E1907)") {
  const auto no_driver =
      load("cuda[0 1]", {}, {.cuda_driver_library = "/nonexistent/libcuda.so.1"});
  CHECK(code_of(no_driver) == "E1901");
  const auto past_end = load("cuda[0 2]");  // the stand-in has two devices
  CHECK(code_of(past_end) == "E1902");
  CHECK(past_end.diagnostics().back().message ==
        "no CUDA device 2: this machine has 2 CUDA devices");
  const auto no_nccl = load("cuda[0 1]", {},
                            {.cuda_driver_library = ss::test::built::fake_cuda,
                             .nccl_library = "/nonexistent/libnccl.so.2"});
  REQUIRE(code_of(no_nccl) == "E1907");
  REQUIRE(no_nccl.diagnostics().back().notes.size() == 1);
  CHECK(no_nccl.diagnostics().back().notes[0].find("/nonexistent/libnccl.so.2") !=
        std::string::npos);
  // A library that isn't NCCL.
  const auto not_nccl =
      load("cuda[0 1]", {},
           {.cuda_driver_library = ss::test::built::fake_cuda, .nccl_library = "libm.so.6"});
  CHECK(code_of(not_nccl) == "E1907");
}

TEST_CASE(
    "a rank that never arrives is E1806 after the timeout, the next call gets new communicators") {
  Fake fake;
  const ss::Module several =
      load("cuda[0 1]", {.collective_timeout = std::chrono::milliseconds(300)});
  REQUIRE(several);
  const int made = fake.made(), aborted = fake.aborted();
  const auto in = ss::test::batch_ops_inputs(6);
  fake.hang_rank(1);
  const auto t0 = std::chrono::steady_clock::now();
  const auto stuck = several.call("grad_ce", {}, in);
  const auto waited = std::chrono::steady_clock::now() - t0;
  REQUIRE_FALSE(stuck);
  CHECK(stuck.diagnostics[0].code == "E1806");
  CHECK_MESSAGE(stuck.diagnostics[0].message.find("waited more than 300 ms for the other ranks") !=
                    std::string::npos,
                stuck.diagnostics[0].message);
  CHECK(waited < std::chrono::seconds(10));
  CHECK(fake.aborted() >= aborted + 1);
  fake.hang_rank(-1);
  const auto again = several.call("grad_ce", {}, in);
  CHECK_MESSAGE(again, rendered(again));
  CHECK(fake.made() == made + 2);  // the aborted ones made afresh
  check_close(load("", {}, {}).call("grad_ce", {}, in), again);
}

TEST_CASE("a device lost during a collective is E1806 naming it") {
  Fake fake;
  const ss::Module several = load("cuda[0 1]");
  REQUIRE(several);
  fake.lose_device(1);
  const auto lost = several.call("grad_mean", {}, ss::test::batch_ops_inputs(4));
  REQUIRE_FALSE(lost);
  CHECK(lost.diagnostics[0].code == "E1806");
  CHECK_MESSAGE(lost.diagnostics[0].message.find("on cuda:1 failed: CUDA_ERROR_LAUNCH_FAILED") !=
                    std::string::npos,
                lost.diagnostics[0].message);
  fake.lose_device(-1);
  CHECK(several.call("grad_mean", {}, ss::test::batch_ops_inputs(4)));
}

TEST_CASE("the host's NCCL communicators: two hosts of cuda[0 1] make a world of four") {
  Fake fake;
  // As two processes of a multi-node job would: ranks 0-1 and 2-3, each
  // process's on its devices 0 and 1.
  std::vector<void*> comms[2];
  for (int r = 0; r < 4; ++r) comms[r / 2].push_back(fake.host_comm("world4", 4, r, r % 2));
  const int made = fake.made(), destroyed = fake.destroyed();
  ss::test::check_two_hosts(load("cuda[0 1]", {.nccl_communicators = comms[0]}),
                            load("cuda[0 1]", {.nccl_communicators = comms[1]}));
  CHECK(fake.made() == made);            // the host's, none made
  CHECK(fake.destroyed() == destroyed);  // the host's to destroy
}

TEST_CASE("host communicators that don't fit the devices line are E1806 at load") {
  Fake fake;
  void* on1 = fake.host_comm("misfit", 2, 0, 1);
  void* on0 = fake.host_comm("misfit", 2, 1, 0);
  const auto wrong_device = load("cuda[0 1]", {.nccl_communicators = {on0, on0}});
  CHECK(code_of(wrong_device) == "E1806");
  const auto swapped = load("cuda[0 1]", {.nccl_communicators = {on1, on0}});
  REQUIRE(code_of(swapped) == "E1806");
  CHECK(swapped.diagnostics().back().message ==
        "the host's NCCL communicator for cuda:0 is on cuda:1");
  const auto too_few = load("cuda[0 1]", {.nccl_communicators = {on0}});
  CHECK(too_few.diagnostics().back().message == "the host gave 1 NCCL communicators for 2 devices");
  const auto on_cpu = load("cpu[0 1]", {.nccl_communicators = {on0, on1}});
  CHECK(code_of(on_cpu) == "E1806");
}

TEST_CASE("one device with the host's communicator runs distributed, under chapter 18's rules") {
  Fake fake;
  // A one-rank world: the program's one device is all of it.
  void* alone = fake.host_comm("alone", 1, 0, 0);
  const ss::Module m = load("cuda[0]", {.nccl_communicators = {alone}});
  REQUIRE_MESSAGE(m, (m.diagnostics().empty() ? "" : m.diagnostics()[0].render()));
  const auto in = ss::test::batch_ops_inputs(5);
  const auto r = m.call("grad_ce", {}, in);
  REQUIRE_MESSAGE(r, rendered(r));
  check_close(load("", {}, {}).call("grad_ce", {}, in), r);
  REQUIRE(r.workers.size() == 1);
  CHECK(r.workers[0].all_reduces == 3);
  // `devices cuda`, without brackets, is cuda[0] too.
  void* again = fake.host_comm("alone again", 1, 0, 0);
  const ss::Module plain = load("cuda", {.nccl_communicators = {again}});
  REQUIRE_MESSAGE(plain, (plain.diagnostics().empty() ? "" : plain.diagnostics()[0].render()));
  CHECK(plain.call("grad_ce", {}, in).workers.at(0).device == "cuda[0]");

  // In a world of two, a batch reduction without a lowering is E1801 at load.
  void* half = fake.host_comm("pair", 2, 0, 0);
  const std::string text =
      "devices cuda[0]\n\ndim D = 4\n\ndata Ex:\n    x: [D]\n\n"
      "fn largest(batch: [b] Ex) -> [D]:\n    return max(batch.x, over=b)\n";
  const auto refused =
      ss::Engine(kFake).load_source(text, "largest.ss", {.nccl_communicators = {half}});
  REQUIRE_FALSE(refused);
  CHECK(code_of(refused) == "E1801");
  CHECK(refused.diagnostics().back().message.find("2 devices") != std::string::npos);
}

TEST_CASE("a host's CUDA device that the devices line doesn't name is E1908 at load") {
  const auto load_on = [](ss::Device host, const std::string& devices) {
    ss::EngineOptions engine = kFake;
    engine.device = host;
    return load(devices, {}, engine);
  };
  const auto on_cpu = load_on(ss::Device::cuda(0), "cpu[0 1]");
  REQUIRE(code_of(on_cpu) == "E1908");
  const auto& d = on_cpu.diagnostics().back();
  CHECK(d.message == "the host asked for cuda:0, and the program's `devices` line doesn't name it");
  REQUIRE(d.labels.size() == 1);
  CHECK(d.labels[0].start.line == 1);
  CHECK(code_of(load_on(ss::Device::cuda(2), "cuda[0 1]")) == "E1908");
  CHECK(code_of(load_on(ss::Device::cuda(1), "cuda")) == "E1908");
  // A device the line names, a line that names none, and a CPU host
  // (the line wins) are all fine.
  CHECK(load_on(ss::Device::cuda(1), "cuda[0 1]"));
  CHECK(load_on(ss::Device::cuda(0), "cuda"));
  CHECK(load_on(ss::Device::cuda(1), ""));
  CHECK(load_on(ss::Device::cpu(), "cuda[0 1]"));
}
