// A stand-in for the CUDA driver and NCCL, one shared library exporting both
// APIs' functions the library calls, so the NCCL collectives (staging,
// streams, the watchdog, aborts, host communicators) are tested on a machine
// without a GPU. "Device memory" is host memory; a stream is a queue of work
// done when the stream is queried; an all-reduce completes once every rank
// of its communicator has reached it, summing in rank order. With
// SS_FAKE_NCCL_PROCESSES set, the ids ncclGetUniqueId makes name cliques
// that span processes (an MPI job's, its id sent by rank 0): their ranks
// meet in a shared memory file instead. Tests steer it with the ss_fake_*
// functions at the end.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace {

using CUresult = int;
constexpr CUresult kSuccess = 0, kInvalidValue = 1, kOutOfMemory = 2, kInvalidDevice = 101,
                   kNotReady = 600, kLaunchFailed = 719;
using ncclResult_t = int;
constexpr ncclResult_t ncclSuccess = 0, ncclInvalidArgument = 4, ncclInProgress = 7;

struct Context {
  int device;
};
Context g_contexts[8] = {{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}};
thread_local int t_device = -1;  // the current context's device

int device_count() {
  const char* env = std::getenv("SS_FAKE_CUDA_DEVICES");
  return env ? std::atoi(env) : 2;
}

// A captured graph: its work items in stream order, run whole by a launch.
struct Graph {
  std::vector<std::function<bool()>> items;
  int kernels = 0;
};

// A stream: work items, each done when it returns true. While capturing,
// what it is given goes into `capture` instead.
struct Stream {
  int device = 0;
  std::mutex mutex;
  std::deque<std::function<bool()>> work;
  Graph* capture = nullptr;
  // Queues (or captures) an item; under the stream's mutex.
  void add(std::function<bool()> item) {
    if (capture)
      capture->items.push_back(std::move(item));
    else
      work.push_back(std::move(item));
  }
};

// Device memory as allocated, so that the launch log names each pointer
// by its allocation (a serial number) and offset.
struct Allocation {
  std::size_t bytes;
  long long serial;
};
std::mutex g_memory_mutex;
std::map<std::uint64_t, Allocation> g_allocations;
long long g_serial = 0;

// With ss_fake_log(1), every kernel launch and host-to-device copy as it
// runs (eager or replayed from a graph), one line each.
std::mutex g_log_mutex;
std::atomic<bool> g_logging{false};
std::vector<std::string> g_log;

void log_line(std::string line) {
  if (!g_logging) return;
  std::lock_guard lock(g_log_mutex);
  g_log.push_back(std::move(line));
}

// A word as the log writes it: @serial+offset for a device address, else hex.
std::string word(std::uint64_t w) {
  std::lock_guard lock(g_memory_mutex);
  auto it = g_allocations.upper_bound(w);
  if (it != g_allocations.begin()) {
    --it;
    if (w >= it->first && w < it->first + it->second.bytes)
      return "@" + std::to_string(it->second.serial) + "+" + std::to_string(w - it->first);
  }
  char text[32];
  std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(w));
  return text;
}

std::string hash_of(const void* data, std::size_t bytes) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < bytes; ++i) {
    h ^= static_cast<const unsigned char*>(data)[i];
    h *= 1099511628211ull;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

struct Function {
  std::string name;
};
struct Module {
  std::vector<std::unique_ptr<Function>> functions;
};

struct Comm;

// What the ranks of one communicator share: their collectives, by sequence.
struct Clique {
  int ranks = 0;
  std::mutex mutex;
  struct Op {
    std::vector<const void*> send;
    std::vector<void*> receive;
    int arrived = 0;
    bool done = false;
  };
  std::map<std::int64_t, Op> ops;
};

// A clique across processes: its ranks' buffers in a shared file, two slots
// (collective n uses slot n % 2: a rank can be one collective ahead of
// another, never two), a spin lock.
struct SharedClique {
  static constexpr std::size_t kBytes = std::size_t{1} << 20;  // per buffer
  struct Slot {
    std::int64_t seq;
    int arrived, done;
  };
  struct Header {
    int lock, ready, ranks, attached;
    Slot slots[2];
  };
  Header* header = nullptr;
  unsigned char* data = nullptr;  // [slot][rank or result][kBytes]

  static std::size_t size(int ranks) {
    return sizeof(Header) + 2 * static_cast<std::size_t>(ranks + 1) * kBytes;
  }
  unsigned char* buffer(int slot, int which) const {
    return data + (static_cast<std::size_t>(slot) * static_cast<std::size_t>(header->ranks + 1) +
                   static_cast<std::size_t>(which)) *
                      kBytes;
  }
  void lock() const {
    while (__atomic_exchange_n(&header->lock, 1, __ATOMIC_ACQUIRE)) usleep(1);
  }
  void unlock() const { __atomic_store_n(&header->lock, 0, __ATOMIC_RELEASE); }
};

// Maps the clique's file, made by whichever rank comes first; the last to
// attach unlinks its name (the mappings stay).
std::shared_ptr<SharedClique> attach_shared(const std::string& id, int ranks) {
  const std::string path = "/dev/shm/ss-fake-nccl-" + id;
  const std::size_t bytes = SharedClique::size(ranks);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  const bool made = fd >= 0;
  if (!made) fd = ::open(path.c_str(), O_RDWR);
  if (fd < 0) return nullptr;
  if (made && ::ftruncate(fd, static_cast<off_t>(bytes)) != 0) return nullptr;
  for (int i = 0; !made && i < 100000; ++i) {  // until the maker has sized it
    if (::lseek(fd, 0, SEEK_END) >= static_cast<off_t>(bytes)) break;
    usleep(10);
  }
  void* at = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  ::close(fd);
  if (at == MAP_FAILED) return nullptr;
  auto c = std::make_shared<SharedClique>();
  c->header = static_cast<SharedClique::Header*>(at);
  c->data = static_cast<unsigned char*>(at) + sizeof(SharedClique::Header);
  if (made) {
    c->header->ranks = ranks;
    c->header->slots[1].seq = -1;
    __atomic_store_n(&c->header->ready, 1, __ATOMIC_RELEASE);
  }
  while (!__atomic_load_n(&c->header->ready, __ATOMIC_ACQUIRE)) usleep(10);
  if (__atomic_add_fetch(&c->header->attached, 1, __ATOMIC_ACQ_REL) == ranks)
    ::unlink(path.c_str());
  return c;
}

template <typename T>
void sum_buffers(const std::vector<const void*>& parts, std::size_t bytes, void* out) {
  auto* o = static_cast<T*>(out);
  for (std::size_t i = 0; i < bytes / sizeof(T); ++i) {
    T sum = 0;
    for (const void* s : parts) sum += static_cast<const T*>(s)[i];
    o[i] = sum;
  }
}

struct Comm {
  std::shared_ptr<Clique> clique;
  std::shared_ptr<SharedClique> shared;  // a clique across processes
  int rank = 0, device = 0;
  std::int64_t next_op = 0;
  bool in_progress = false;  // non-blocking init: one query says "in progress"
  std::atomic<bool> aborted{false};
};

std::mutex g_mutex;
std::map<std::string, std::shared_ptr<Clique>> g_cliques;
// Every communicator made, owned here: NCCL frees one at ncclCommAbort or
// ncclCommDestroy, but the stand-in keeps it (a worker's queued work may
// still read its `aborted`), reachable so LeakSanitizer doesn't count it as
// lost. Never destroyed: threads may outlive static destructors.
auto* const g_comms = new std::vector<std::unique_ptr<Comm>>;
std::atomic<int> g_made{0}, g_aborted{0}, g_destroyed{0}, g_collectives{0}, g_id{0};
std::atomic<int> g_hang_rank{-1}, g_lost_device{-1};
std::atomic<int> g_launches{0};
std::atomic<bool> g_refuse_in_capture{false};  // ss_fake_refuse_in_capture

std::string key(const char* id) {
  return std::string(id, 128);
}

// Queues a collective: its data is read when it reaches the front of the
// stream (after the copies before it); it ends when every rank has come.
ncclResult_t enqueue(Comm* comm, Stream* stream, const void* send, void* receive, std::size_t bytes,
                     int type, int root) {
  if (!comm || !stream || comm->aborted) return ncclInvalidArgument;
  if (t_device != comm->device || stream->device != comm->device) return ncclInvalidArgument;
  const std::int64_t seq = comm->next_op++;
  bool joined = false;
  if (comm->shared && bytes > SharedClique::kBytes) return ncclInvalidArgument;
  std::lock_guard lock(stream->mutex);
  if (comm->shared) {
    stream->work.push_back([=]() mutable {
      if (comm->aborted) return true;
      if (comm->rank == g_hang_rank) return false;
      const SharedClique& c = *comm->shared;
      const int s = static_cast<int>(seq % 2), ranks = c.header->ranks;
      c.lock();
      auto& slot = c.header->slots[s];
      if (slot.seq != seq) slot = {seq, 0, 0};
      if (!joined) {
        std::memcpy(c.buffer(s, comm->rank), send, bytes);
        joined = true;
        if (++slot.arrived == ranks) {
          std::vector<const void*> parts;
          for (int r = 0; r < ranks; ++r) parts.push_back(c.buffer(s, r));
          if (root >= 0)
            std::memcpy(c.buffer(s, ranks), parts[static_cast<std::size_t>(root)], bytes);
          else if (type == 7)
            sum_buffers<float>(parts, bytes, c.buffer(s, ranks));
          else
            sum_buffers<std::int32_t>(parts, bytes, c.buffer(s, ranks));
          slot.done = 1;
          ++g_collectives;
        }
      }
      const bool done = slot.done != 0;
      if (done) std::memcpy(receive, c.buffer(s, ranks), bytes);
      c.unlock();
      return done;
    });
    return ncclSuccess;
  }
  stream->work.push_back([=]() mutable {
    if (comm->aborted) return true;  // an abort ends NCCL's kernels
    if (comm->rank == g_hang_rank) return false;
    auto& clique = *comm->clique;
    std::lock_guard l(clique.mutex);
    auto& op = clique.ops[seq];
    if (!joined) {
      op.send.resize(static_cast<std::size_t>(clique.ranks));
      op.receive.resize(static_cast<std::size_t>(clique.ranks));
      op.send[static_cast<std::size_t>(comm->rank)] = send;
      op.receive[static_cast<std::size_t>(comm->rank)] = receive;
      joined = true;
      if (++op.arrived == clique.ranks) {
        std::vector<char> result(bytes);
        if (root >= 0) {
          std::memcpy(result.data(), op.send[static_cast<std::size_t>(root)], bytes);
        } else if (type == 7) {  // ncclFloat32, in rank order
          auto* out = reinterpret_cast<float*>(result.data());
          for (std::size_t i = 0; i < bytes / 4; ++i) {
            float sum = 0;
            for (const void* s : op.send) sum += static_cast<const float*>(s)[i];
            out[i] = sum;
          }
        } else {  // ncclInt32
          auto* out = reinterpret_cast<std::int32_t*>(result.data());
          for (std::size_t i = 0; i < bytes / 4; ++i) {
            std::int32_t sum = 0;
            for (const void* s : op.send) sum += static_cast<const std::int32_t*>(s)[i];
            out[i] = sum;
          }
        }
        for (void* r : op.receive) std::memcpy(r, result.data(), bytes);
        op.done = true;
        ++g_collectives;
      }
    }
    return op.done;
  });
  return ncclSuccess;
}

}  // namespace

extern "C" {

// ---- the driver ----
CUresult cuInit(unsigned) {
  return kSuccess;
}
CUresult cuDriverGetVersion(int* v) {
  *v = 13000;
  return kSuccess;
}
CUresult cuDeviceGetCount(int* n) {
  *n = device_count();
  return kSuccess;
}
CUresult cuDeviceGet(int* d, int ordinal) {
  if (ordinal < 0 || ordinal >= device_count()) return kInvalidDevice;
  *d = ordinal;
  return kSuccess;
}
CUresult cuDeviceGetName(char* name, int length, int) {
  std::strncpy(name, "Fake GPU", static_cast<std::size_t>(length));
  return kSuccess;
}
CUresult cuDeviceTotalMem_v2(std::size_t* bytes, int) {
  *bytes = std::size_t{1} << 30;
  return kSuccess;
}
// SS_FAKE_CUDA_SM (say 90) sets the compute capability; 9.9 otherwise.
CUresult cuDeviceGetAttribute(int* value, int attribute, int) {
  const char* sm = std::getenv("SS_FAKE_CUDA_SM");
  *value = !sm ? 9 : attribute == 75 ? std::atoi(sm) / 10 : std::atoi(sm) % 10;
  return kSuccess;
}
CUresult cuGetErrorName(CUresult e, const char** name) {
  *name = e == kLaunchFailed ? "CUDA_ERROR_LAUNCH_FAILED" : "CUDA_ERROR_FAKE";
  return kSuccess;
}
CUresult cuGetErrorString(CUresult, const char** text) {
  *text = "a fake failure";
  return kSuccess;
}
CUresult cuDevicePrimaryCtxRetain(Context** c, int device) {
  if (device < 0 || device >= 8) return kInvalidDevice;
  *c = &g_contexts[device];
  return kSuccess;
}
CUresult cuDevicePrimaryCtxRelease_v2(int) {
  return kSuccess;
}
CUresult cuCtxSetCurrent(Context* c) {
  t_device = c ? c->device : -1;
  return kSuccess;
}
CUresult cuStreamCreate(Stream** s, unsigned) {
  if (t_device < 0) return kInvalidValue;
  *s = new Stream;
  (*s)->device = t_device;
  return kSuccess;
}
CUresult cuStreamDestroy_v2(Stream* s) {
  delete s;
  return kSuccess;
}
CUresult cuStreamQuery(Stream* s) {
  std::lock_guard lock(s->mutex);
  if (s->capture) return 900;  // CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
  if (s->device == g_lost_device && !s->work.empty()) return kLaunchFailed;
  while (!s->work.empty() && s->work.front()()) s->work.pop_front();
  return s->work.empty() ? kSuccess : kNotReady;
}
CUresult cuMemAlloc_v2(std::uint64_t* p, std::size_t bytes) {
  if (t_device < 0) return kInvalidValue;
  if (bytes > (std::size_t{1} << 30)) return kOutOfMemory;  // the device's 1 GiB
  *p = reinterpret_cast<std::uint64_t>(std::calloc(1, bytes ? bytes : 1));
  std::lock_guard lock(g_memory_mutex);
  g_allocations[*p] = {bytes ? bytes : 1, ++g_serial};
  return kSuccess;
}
CUresult cuMemFree_v2(std::uint64_t p) {
  {
    std::lock_guard lock(g_memory_mutex);
    g_allocations.erase(p);
  }
  std::free(reinterpret_cast<void*>(p));
  return kSuccess;
}
std::atomic<long long> g_bytes_to_device{0};  // copied in by cuMemcpyHtoDAsync
CUresult cuMemcpyHtoDAsync_v2(std::uint64_t to, const void* from, std::size_t bytes, Stream* s) {
  g_bytes_to_device += static_cast<long long>(bytes);
  std::lock_guard lock(s->mutex);
  s->add([=] {
    if (g_logging)
      log_line("upload " + word(to) + " " + std::to_string(bytes) + " " + hash_of(from, bytes));
    std::memcpy(reinterpret_cast<void*>(to), from, bytes);
    return true;
  });
  return kSuccess;
}
CUresult cuMemcpyDtoHAsync_v2(void* to, std::uint64_t from, std::size_t bytes, Stream* s) {
  std::lock_guard lock(s->mutex);
  s->add([=] {
    std::memcpy(to, reinterpret_cast<const void*>(from), bytes);
    return true;
  });
  return kSuccess;
}

// The executor's calls. Modules load anything and name any function, and
// every launch fails: the stand-in runs no kernels, so a program on it
// fails with E1910 once it reaches one (what the catalog's example shows).
// With SS_FAKE_CUDA_LAUNCHES=noop a launch succeeds doing nothing (and is
// counted), so the executor's dispatch runs a whole graph: what ran, with
// which kernels, and the results' shapes, though not their values.
// Memory comes zeroed, so ids read before anything is written are in range.
CUresult cuStreamSynchronize(Stream* s) {
  for (;;) {
    const CUresult r = cuStreamQuery(s);
    if (r != kNotReady) return r;
  }
}
CUresult cuModuleLoadData(Module** module, const void*) {
  *module = new Module;
  return kSuccess;
}
CUresult cuModuleUnload(Module* module) {
  delete module;
  return kSuccess;
}
CUresult cuModuleGetFunction(Function** function, Module* module, const char* name) {
  module->functions.push_back(std::make_unique<Function>(Function{name}));
  *function = module->functions.back().get();
  return kSuccess;
}
// A launch's parameters must come packed in `extra` (so a capture can keep
// them) when the stream is capturing; either way they run as a no-op that
// the log describes: the kernel, its grid and block, each parameter word.
CUresult cuLaunchKernel(Function* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned, Stream* s, void** params,
                        void** extra) {
  const char* mode = std::getenv("SS_FAKE_CUDA_LAUNCHES");
  if (!mode || std::strcmp(mode, "noop") != 0) return kLaunchFailed;
  std::vector<unsigned char> bytes;
  if (extra) {
    if (extra[0] != reinterpret_cast<void*>(1) || extra[2] != reinterpret_cast<void*>(2) ||
        extra[4] != nullptr)
      return kInvalidValue;
    const auto* data = static_cast<const unsigned char*>(extra[1]);
    bytes.assign(data, data + *static_cast<std::size_t*>(extra[3]));
  }
  std::lock_guard lock(s->mutex);
  if (s->capture && params) return kInvalidValue;  // their sizes are unknown here
  if (s->capture && g_refuse_in_capture) return kLaunchFailed;
  std::string line = "kernel " + f->name + " grid " + std::to_string(gx) + "," +
                     std::to_string(gy) + "," + std::to_string(gz) + " block " +
                     std::to_string(bx) + "," + std::to_string(by) + "," + std::to_string(bz);
  if (s->capture)
    ++s->capture->kernels;
  else
    ++g_launches;
  s->add([line, bytes]() mutable {
    if (g_logging) {
      for (std::size_t at = 0; at + 8 <= bytes.size(); at += 8) {
        std::uint64_t w;
        std::memcpy(&w, bytes.data() + at, 8);
        line += " " + word(w);
      }
      for (std::size_t at = bytes.size() / 8 * 8; at < bytes.size(); ++at)
        line += " b" + std::to_string(bytes[at]);
      log_line(line);
    }
    return true;
  });
  return kSuccess;
}

// ---- graphs ----
std::atomic<int> g_graph_launches{0};
CUresult cuStreamBeginCapture_v2(Stream* s, int) {
  std::lock_guard lock(s->mutex);
  if (s->capture) return kInvalidValue;
  s->capture = new Graph;
  return kSuccess;
}
CUresult cuStreamEndCapture(Stream* s, Graph** graph) {
  std::lock_guard lock(s->mutex);
  if (!s->capture) return kInvalidValue;
  *graph = s->capture;
  s->capture = nullptr;
  return kSuccess;
}
CUresult cuGraphInstantiateWithFlags(Graph** exec, Graph* graph, unsigned long long) {
  *exec = new Graph(*graph);
  return kSuccess;
}
CUresult cuGraphLaunch(Graph* exec, Stream* s) {
  std::lock_guard lock(s->mutex);
  if (s->capture) return kInvalidValue;
  ++g_graph_launches;
  g_launches += exec->kernels;
  // Each item as a stream's work item of its own, in order (a collective
  // may take several queries).
  for (const auto& item : exec->items) s->work.push_back(item);
  return kSuccess;
}
CUresult cuGraphExecDestroy(Graph* exec) {
  delete exec;
  return kSuccess;
}
CUresult cuGraphDestroy(Graph* graph) {
  delete graph;
  return kSuccess;
}
CUresult cuMemAllocHost_v2(void** p, std::size_t bytes) {
  *p = std::malloc(bytes);
  return *p ? kSuccess : kOutOfMemory;
}
CUresult cuMemFreeHost(void* p) {
  std::free(p);
  return kSuccess;
}
CUresult cuMemcpyDtoDAsync_v2(std::uint64_t to, std::uint64_t from, std::size_t bytes, Stream* s) {
  std::lock_guard lock(s->mutex);
  s->add([=] {
    std::memcpy(reinterpret_cast<void*>(to), reinterpret_cast<const void*>(from), bytes);
    return true;
  });
  return kSuccess;
}
CUresult cuMemsetD8Async(std::uint64_t to, unsigned char value, std::size_t count, Stream* s) {
  std::lock_guard lock(s->mutex);
  s->add([=] {
    std::memset(reinterpret_cast<void*>(to), value, count);
    return true;
  });
  return kSuccess;
}
CUresult cuMemGetInfo_v2(std::size_t* free, std::size_t* total) {
  *free = *total = std::size_t{1} << 30;
  return kSuccess;
}

// ---- NCCL ----
struct ncclUniqueId {
  char internal[128];
};
struct Config {
  std::size_t size;
  unsigned magic, version;
  int blocking;
};

ncclResult_t ncclGetVersion(int* v) {
  *v = 22809;
  return ncclSuccess;
}
ncclResult_t ncclGetUniqueId(ncclUniqueId* id) {
  std::memset(id->internal, 0, sizeof id->internal);
  if (std::getenv("SS_FAKE_NCCL_PROCESSES"))
    std::snprintf(id->internal, sizeof id->internal, "shm-%d-%d", static_cast<int>(::getpid()),
                  ++g_id);
  else
    std::snprintf(id->internal, sizeof id->internal, "fake-%d", ++g_id);
  return ncclSuccess;
}
ncclResult_t ncclCommInitRankConfig(Comm** comm, int ranks, ncclUniqueId id, int rank,
                                    Config* config) {
  if (t_device < 0 || rank < 0 || rank >= ranks) return ncclInvalidArgument;
  if (config && config->magic != 0xcafebeef) return ncclInvalidArgument;
  auto* c = new Comm;
  {
    std::lock_guard lock(g_mutex);
    g_comms->emplace_back(c);
    auto& clique = g_cliques[key(id.internal)];
    if (!clique) {
      clique = std::make_shared<Clique>();
      clique->ranks = ranks;
    }
    c->clique = clique;
  }
  if (std::strncmp(id.internal, "shm-", 4) == 0) {
    c->shared = attach_shared(id.internal, ranks);
    if (!c->shared) return ncclInvalidArgument;
  }
  c->rank = rank;
  c->device = t_device;
  c->in_progress = config && config->blocking == 0;
  *comm = c;
  ++g_made;
  return c->in_progress ? ncclInProgress : ncclSuccess;
}
ncclResult_t ncclCommAbort(Comm* c) {
  c->aborted = true;  // kept (not freed) so queued work can see the abort
  ++g_aborted;
  return ncclSuccess;
}
ncclResult_t ncclCommDestroy(Comm* c) {
  ++g_destroyed;
  c->aborted = true;
  return ncclSuccess;
}
ncclResult_t ncclCommGetAsyncError(Comm* c, ncclResult_t* e) {
  *e = c->in_progress ? ncclInProgress : ncclSuccess;
  c->in_progress = false;
  return ncclSuccess;
}
ncclResult_t ncclCommCount(Comm* c, int* n) {
  *n = c->clique->ranks;
  return ncclSuccess;
}
ncclResult_t ncclCommCuDevice(Comm* c, int* d) {
  *d = c->device;
  return ncclSuccess;
}
ncclResult_t ncclCommUserRank(Comm* c, int* r) {
  *r = c->rank;
  return ncclSuccess;
}
const char* ncclGetErrorString(ncclResult_t) {
  return "fake NCCL error";
}
ncclResult_t ncclGroupStart() {
  return ncclSuccess;
}
ncclResult_t ncclGroupEnd() {
  return ncclSuccess;
}
ncclResult_t ncclAllReduce(const void* send, void* receive, std::size_t count, int type, int op,
                           Comm* comm, Stream* stream) {
  if (op != 0 || (type != 7 && type != 2)) return ncclInvalidArgument;
  return enqueue(comm, stream, send, receive, count * 4, type, -1);
}
ncclResult_t ncclBroadcast(const void* send, void* receive, std::size_t count, int type, int root,
                           Comm* comm, Stream* stream) {
  if (type != 1) return ncclInvalidArgument;
  return enqueue(comm, stream, send, receive, count, type, root);
}

// ---- the tests' controls ----
// Kernels launched (as no-ops) so far, and graphs launched.
int ss_fake_launches() {
  return g_launches;
}
int ss_fake_graph_launches() {
  return g_graph_launches;
}
// Launches while a stream is capturing fail (as a kernel a real driver
// loads lazily at its first launch may), or succeed again.
void ss_fake_refuse_in_capture(int on) {
  g_refuse_in_capture = on != 0;
}
// The log (see g_log): on or off; its lines so far, taken (each line ends
// in a newline; the caller frees the text).
void ss_fake_log(int on) {
  g_logging = on != 0;
}
char* ss_fake_log_take() {
  std::lock_guard lock(g_log_mutex);
  std::string all;
  for (const auto& line : g_log) all += line + "\n";
  g_log.clear();
  char* text = static_cast<char*>(std::malloc(all.size() + 1));
  std::memcpy(text, all.c_str(), all.size() + 1);
  return text;
}
// Bytes copied from the host to a device so far.
long long ss_fake_bytes_to_device() {
  return g_bytes_to_device.load();
}
// A rank whose collectives never arrive (-1: none), a device whose stream
// fails (-1: none).
void ss_fake_hang_rank(int rank) {
  g_hang_rank = rank;
}
void ss_fake_lose_device(int device) {
  g_lost_device = device;
}
// Communicators made, aborted, destroyed; collectives completed.
void ss_fake_counts(int* made, int* aborted, int* destroyed, int* collectives) {
  *made = g_made;
  *aborted = g_aborted;
  *destroyed = g_destroyed;
  *collectives = g_collectives;
}
// A communicator of `ranks` for the current device, as a host would make
// one: the id names the clique.
Comm* ss_fake_host_comm(const char* clique, int ranks, int rank, int device) {
  ncclUniqueId id{};
  std::snprintf(id.internal, sizeof id.internal, "host-%s", clique);
  t_device = device;
  Comm* c = nullptr;
  ncclCommInitRankConfig(&c, ranks, id, rank, nullptr);
  return c;
}

}  // extern "C"
