#include "api/devices.hpp"

#include <algorithm>
#include <cstring>
#include <set>
#include <variant>

#include "api/mpi_world_impl.hpp"
#include "diag/codes.hpp"
#include "diag/reporter.hpp"
#include "kernels/cuda_driver.hpp"
#include "kernels/cuda_executor.hpp"
#include "kernels/nccl.hpp"
#include "kernels/nccl_collectives.hpp"
#include "kernels/nvrtc.hpp"
#include "runtime/core/cpu_isa.hpp"
#include "runtime/fast/fast_executor.hpp"
#include "runtime/reference/interpreter.hpp"
#include "support/fingerprint.hpp"
#include "syntax/lexer.hpp"
#include "syntax/parser.hpp"

namespace ss::api {
namespace {

// A host's CollectiveTable as the runtime's collectives.
class HostCollectives final : public runtime::Collectives {
 public:
  explicit HostCollectives(std::shared_ptr<const CollectiveTable> table) : t_(std::move(table)) {}

  int local_count() const override { return static_cast<int>(t_->ranks.size()); }
  int world() const override { return t_->world; }
  int rank(int local) const override { return t_->ranks.at(static_cast<std::size_t>(local)); }

  void all_reduce(int local, void* data, std::size_t count, runtime::DType dtype) override {
    int status = -1;
    if (dtype == runtime::DType::f32 && t_->all_reduce_f32)
      status = t_->all_reduce_f32(t_->context, local, static_cast<float*>(data), count);
    else if (dtype == runtime::DType::i32 && t_->all_reduce_i32)
      status = t_->all_reduce_i32(t_->context, local, static_cast<std::int32_t*>(data), count);
    else
      throw runtime::CollectiveError("the host's collectives have no all-reduce for " +
                                         std::string(runtime::dtype_name(dtype)),
                                     false);
    check(status, "all-reduce");
  }

  void broadcast(int local, void* data, std::size_t bytes, int root) override {
    if (!t_->broadcast)
      throw runtime::CollectiveError("the host's collectives have no broadcast", false);
    check(t_->broadcast(t_->context, local, data, bytes, root), "broadcast");
  }

  void barrier(int local) override {
    if (!t_->barrier)
      throw runtime::CollectiveError("the host's collectives have no barrier", false);
    check(t_->barrier(t_->context, local), "barrier");
  }

  void abort(const std::string&) override {
    aborted_ = true;
    if (t_->abort) t_->abort(t_->context);
  }

  bool reset() override { return !aborted_.exchange(false); }

 private:
  void check(int status, const char* what) const {
    if (status == 0) return;
    throw runtime::CollectiveError(
        std::string("the host's ") + what + " returned " + std::to_string(status), aborted_.load());
  }

  std::shared_ptr<const CollectiveTable> t_;
  std::atomic<bool> aborted_{false};
};

// Empty when the host's table fits the `devices` line, else why not.
std::string misfit(const CollectiveTable& t, std::size_t devices) {
  if (t.ranks.size() != devices)
    return "the host's collectives give " + std::to_string(t.ranks.size()) + " local ranks for " +
           std::to_string(devices) + " devices";
  if (!t.all_reduce_f32 || !t.abort)
    return "the host's collectives have no all_reduce_f32 or no abort";
  std::set<int> seen;
  for (const int r : t.ranks) {
    if (r < 0 || r >= t.world)
      return "rank " + std::to_string(r) + " is outside a world of " + std::to_string(t.world);
    if (!seen.insert(r).second) return "rank " + std::to_string(r) + " is given twice";
  }
  return {};
}

Diagnostic collective_error(const std::string& why) {
  return diag::error(diag::Code::E1806, why,
                     "give one communicator or rank per device the `devices` line names, each "
                     "once, on that device");
}

// Chapter 18's rules for a one-device program that a host's communicator
// puts in a world of several: the program checked again as if its `devices`
// line named that many.
std::vector<Diagnostic> world_errors(const Compiled& c, int world) {
  diag::Reporter reporter(*c.map);
  const auto tokens = syntax::lex(c.text, reporter);
  const auto program = syntax::parse(tokens, reporter);
  check::check_program(program, reporter, world);
  return reporter.take();
}

// This process's place in a job over several MPI processes: its module's
// communicator and every process's worker count, in process order.
struct MpiLayout {
  std::shared_ptr<runtime::MpiComm> comm;
  std::vector<int> counts;
  int first_rank = 0, world = 0;
};

// What must agree on every process: the program's text and the host's sizes.
std::uint64_t load_fingerprint(const Compiled& c, const LoadOptions& options) {
  std::uint64_t hash = support::fnv1a(c.text);
  for (const auto& [name, size] : options.dims)
    hash = support::fnv1a(name + "=" + std::to_string(size) + ";", hash);
  return hash;
}

std::string hex(std::uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) out[static_cast<std::size_t>(i)] = digits[v & 15];
  return out;
}

// Forks the host's world for this module and exchanges each process's
// worker count and load fingerprint; nullopt with E1806 (an exchange that
// failed) or E1810 (processes that loaded another program or other sizes).
std::optional<MpiLayout> mpi_layout(Compiled& c, int local_count, const LoadOptions& options) {
  std::string why;
  MpiLayout layout;
  layout.comm = options.mpi->impl()->comm->fork(options.collective_timeout, &why);
  if (!layout.comm) {
    c.diagnostics.push_back(collective_error("MPI can't make the module's communicator: " + why));
    return std::nullopt;
  }
  struct Entry {
    std::uint64_t fingerprint;
    std::int64_t workers;
  } mine{load_fingerprint(c, options), local_count};
  std::vector<std::string> all;
  try {
    all = layout.comm->all_gather(std::string(reinterpret_cast<const char*>(&mine), sizeof mine));
  } catch (const runtime::CollectiveError& e) {
    c.diagnostics.push_back(
        collective_error(std::string("the processes couldn't agree at load: ") + e.what()));
    return std::nullopt;
  }
  std::vector<Entry> entries(all.size());
  std::string differing;
  for (std::size_t p = 0; p < all.size(); ++p) {
    std::memcpy(&entries[p], all[p].data(), sizeof(Entry));
    layout.counts.push_back(static_cast<int>(entries[p].workers));
    if (p < static_cast<std::size_t>(layout.comm->process()))
      layout.first_rank += layout.counts.back();
    layout.world += layout.counts.back();
    if (entries[p].fingerprint != entries[0].fingerprint)
      differing += (differing.empty() ? "" : ", ") + std::to_string(p);
  }
  if (!differing.empty()) {
    const bool several = differing.find(',') != std::string::npos;
    Diagnostic d =
        diag::error(diag::Code::E1810,
                    "MPI process" + std::string(several ? "es " : " ") + differing + " loaded " +
                        (several ? "other programs or sizes" : "another program or other sizes") +
                        " than process 0",
                    "run one program with the same --dim sizes on every process");
    d.notes.push_back("this is process " + std::to_string(layout.comm->process()) + " of " +
                      std::to_string(all.size()) +
                      "; the load's fingerprints (the program's "
                      "text and its sizes): process 0 " +
                      hex(entries[0].fingerprint) + ", this one " + hex(mine.fingerprint));
    c.diagnostics.push_back(std::move(d));
    return std::nullopt;
  }
  return layout;
}

// The driver with every device of `indices`, or null with E1901 or E1902
// added to the program's diagnostics.
std::shared_ptr<const cuda::Driver> driver_with(Compiled& c,
                                                const std::vector<std::int64_t>& indices,
                                                const EngineOptions& engine) {
  auto driver_or = cuda::Driver::open(engine.cuda_driver_library);
  if (auto* d = std::get_if<Diagnostic>(&driver_or)) {
    c.diagnostics.push_back(std::move(*d));
    return nullptr;
  }
  auto driver = std::make_shared<const cuda::Driver>(std::move(std::get<cuda::Driver>(driver_or)));
  for (const auto i : indices)
    if (auto bad = driver->check_device(static_cast<int>(i))) {
      c.diagnostics.push_back(std::move(*bad));
      return nullptr;
    }
  return driver;
}

// The collectives of `cuda[...]` devices: the host's communicators, or
// NCCL's for distinct local devices, or in-process ones for a device named
// twice (`cuda[0 0]`, a test mode: NCCL refuses two ranks on one GPU).
// Under MPI (`mpi`), NCCL's communicators span the processes: process 0's
// id goes to the others; a GPU named twice reduces through MPI instead.
std::unique_ptr<runtime::Collectives> cuda_collectives(Compiled& c,
                                                       const std::vector<std::int64_t>& indices,
                                                       const LoadOptions& options,
                                                       const EngineOptions& engine,
                                                       const MpiLayout* mpi) {
  const auto driver = driver_with(c, indices, engine);
  if (!driver) return nullptr;
  std::vector<int> devices(indices.begin(), indices.end());
  const bool shared_gpu = std::set<int>(devices.begin(), devices.end()).size() < devices.size();
  if (options.collectives) return nullptr;  // the host's table (make_devices)
  if (shared_gpu && mpi) return nullptr;    // MPI's (make_devices)
  if (shared_gpu && options.nccl_communicators.empty())
    return runtime::in_process_collectives(static_cast<int>(devices.size()),
                                           options.collective_timeout);

  auto nccl_or = nccl::Library::open(engine.nccl_library);
  if (auto* why = std::get_if<std::string>(&nccl_or)) {
    Diagnostic d = diag::error(
        diag::Code::E1907, "can't load NCCL, which several CUDA devices reduce their batches with",
        "install NCCL 2.14 or later (libnccl.so.2), or point SHAPESCRIPT_NCCL at it");
    d.notes.push_back(*why);
    c.diagnostics.push_back(std::move(d));
    return nullptr;
  }
  nccl::Setup setup;
  setup.driver = driver;
  setup.nccl = std::make_shared<const nccl::Library>(std::move(std::get<nccl::Library>(nccl_or)));
  setup.devices = devices;
  for (void* comm : options.nccl_communicators)
    setup.from_host.push_back(static_cast<nccl::ncclComm_t>(comm));
  setup.timeout = options.collective_timeout;
  if (mpi) {
    setup.world = mpi->world;
    setup.first_rank = mpi->first_rank;
    if (mpi->comm->process() == 0)
      if (const auto r = setup.nccl->ncclGetUniqueId(&setup.id); r != nccl::ncclSuccess)
        std::memset(&setup.id, 0, sizeof setup.id);  // the others fail to join: E1806
    try {
      mpi->comm->broadcast(&setup.id, sizeof setup.id, 0, [] { return false; });
    } catch (const runtime::CollectiveError& e) {
      c.diagnostics.push_back(
          collective_error(std::string("NCCL's id couldn't reach every process: ") + e.what()));
      return nullptr;
    }
  }
  std::string why;
  auto collectives = nccl::make_collectives(std::move(setup), &why);
  if (!collectives) c.diagnostics.push_back(collective_error(why));
  return collectives;
}

}  // namespace

std::shared_ptr<runtime::DeviceGroup> make_devices(Compiled& c, const LoadOptions& options,
                                                   const EngineOptions& engine) {
  if (!c.ok()) return nullptr;
  const bool hosts_own = options.collectives || !options.nccl_communicators.empty() || options.mpi;
  if (c.typed.device_count <= 1 && !hosts_own) return nullptr;
  // `devices cuda` (no brackets) is device 0.
  const auto indices =
      c.typed.device_indices.empty() ? std::vector<std::int64_t>{0} : c.typed.device_indices;
  const auto names = runtime::worker_names(c.typed.device_kind, indices);
  if (options.collectives && !options.nccl_communicators.empty()) {
    c.diagnostics.push_back(
        collective_error("the host gave both a CollectiveTable and NCCL communicators"));
    return nullptr;
  }
  if (options.mpi && (options.collectives || !options.nccl_communicators.empty())) {
    c.diagnostics.push_back(collective_error(
        "the host gave an MPI world and its own collectives or NCCL communicators"));
    return nullptr;
  }
  if (!options.nccl_communicators.empty() && c.typed.device_kind != "cuda") {
    c.diagnostics.push_back(
        collective_error("NCCL communicators are for `cuda[...]` devices; the program runs on `" +
                         c.typed.device_kind + "`"));
    return nullptr;
  }

  std::optional<MpiLayout> mpi;
  if (options.mpi) {
    mpi = mpi_layout(c, static_cast<int>(names.size()), options);
    if (!mpi) return nullptr;
  }
  std::unique_ptr<runtime::Collectives> collectives;
  if (c.typed.device_kind == "cuda") {
    collectives = cuda_collectives(c, indices, options, engine, mpi ? &*mpi : nullptr);
    if (!c.ok()) return nullptr;
  }
  if (options.collectives) {
    if (const std::string why = misfit(*options.collectives, names.size()); !why.empty()) {
      c.diagnostics.push_back(collective_error(why));
      return nullptr;
    }
    collectives = std::make_unique<HostCollectives>(options.collectives);
  }
  if (!collectives && mpi)
    collectives = runtime::linked_collectives(static_cast<int>(names.size()),
                                              options.collective_timeout, mpi->comm, mpi->counts);
  if (!collectives)
    collectives =
        runtime::in_process_collectives(static_cast<int>(names.size()), options.collective_timeout);
  if (c.typed.device_count <= 1 && collectives->world() > 1) {
    auto errors = world_errors(c, collectives->world());
    if (has_errors(errors)) {
      c.diagnostics.insert(c.diagnostics.end(), errors.begin(), errors.end());
      return nullptr;
    }
  }
  return std::make_shared<runtime::DeviceGroup>(names, std::move(collectives));
}

void check_host_device(Compiled& c, const Device& host) {
  if (!c.ok() || host.kind != Device::Kind::cuda || c.program.devices.empty()) return;
  const auto& indices = c.typed.device_indices;
  const bool named =
      c.typed.device_kind == "cuda" &&
      (indices.empty() ? host.index == 0
                       : std::find(indices.begin(), indices.end(), host.index) != indices.end());
  if (named) return;
  const auto& line = c.program.devices.front();
  Diagnostic d = diag::error(
      diag::Code::E1908,
      "the host asked for " + host.name() + ", and the program's `devices` line doesn't name it",
      "drop the `devices` line to let the host choose, or have the host ask for a device the "
      "line names");
  d.labels.push_back(c.map->label(line.span, "the program runs here", true));
  d.location = d.labels.back().start;
  c.diagnostics.push_back(std::move(d));
}

std::optional<int> cuda_device(const Compiled& c, const Device& host) {
  if (!c.ok() || c.typed.device_count > 1) return std::nullopt;
  if (c.typed.device_kind == "cuda")
    return c.typed.device_indices.empty() ? 0 : static_cast<int>(c.typed.device_indices.front());
  if (c.program.devices.empty() && host.kind == Device::Kind::cuda) return host.index;
  return std::nullopt;
}

std::string executor_name(const Compiled& c, const EngineOptions& engine, bool workers) {
  if (engine.executor != Executor::fast) return "the reference runtime";
  return cuda_device(c, engine.device) && !workers ? "the CUDA executor" : "the fast executor";
}

std::shared_ptr<const runtime::GraphExecutor> cuda_executor_for(Compiled& c, int index,
                                                                const EngineOptions& engine) {
  const auto driver = driver_with(c, {index}, engine);
  if (!driver) return nullptr;
  auto nvrtc_or = nvrtc::Compiler::open(engine.nvrtc_library);
  if (auto* d = std::get_if<Diagnostic>(&nvrtc_or)) {
    c.diagnostics.push_back(std::move(*d));
    return nullptr;
  }
  cuda::CudaExecutorOptions options;
  options.driver = driver;
  options.nvrtc =
      std::make_shared<const nvrtc::Compiler>(std::move(std::get<nvrtc::Compiler>(nvrtc_or)));
  options.device = index;
  options.code_cache = engine.code_cache;
  options.precision = engine.precision;
  options.deterministic = engine.deterministic;
  std::string why;
  auto executor = cuda::make_cuda_executor(std::move(options), &why);
  if (!executor) {
    Diagnostic d = diag::error(
        diag::Code::E1901, "CUDA device " + std::to_string(index) + " can't run programs: " + why,
        "a driver that matches the CUDA toolkit, or `devices cpu`");
    c.diagnostics.push_back(std::move(d));
    return nullptr;
  }
  return executor;
}

std::shared_ptr<const runtime::GraphExecutor> make_executor(
    Compiled& c, const EngineOptions& engine, bool workers,
    std::shared_ptr<runtime::LoopWorkers> threads) {
  if (engine.executor != Executor::fast) return runtime::make_reference_executor();
  if (const auto gpu = cuda_device(c, engine.device); gpu && !workers && c.ok())
    return cuda_executor_for(c, *gpu, engine);
  if (engine.numerics == Numerics::portable && !runtime::kernel_fma()) {
    c.diagnostics.push_back(diag::error(
        diag::Code::E1911,
        std::string("portable numerics need fused multiply-adds, and this CPU has no FMA") +
            (runtime::cpu_fma() ? " (SHAPESCRIPT_ISA=baseline)" : ""),
        "`--numerics fast` (EngineOptions::numerics), or an x86-64 CPU with FMA (Haswell, "
        "Piledriver or later)"));
    return nullptr;
  }
  return runtime::make_fast_executor(
      {.threads = std::max(1, engine.threads),
       .workers = std::move(threads),
       .bf16 = engine.precision == Precision::bf16 && engine.numerics == Numerics::fast,
       .portable = engine.numerics == Numerics::portable,
       .jit_library = engine.jit_library,
       .code_cache = engine.code_cache});
}

std::vector<WorkerStats> to_public(const std::vector<runtime::WorkerStats>& stats) {
  std::vector<WorkerStats> out;
  for (const auto& s : stats)
    out.push_back({s.device, s.rank, s.calls, s.examples, s.all_reduces, s.reduced_values,
                   s.collective_seconds});
  return out;
}

}  // namespace ss::api
