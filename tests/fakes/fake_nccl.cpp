// NCCL's stand-in, in the same library as the driver's (fake_cuda.cpp):
// communicators as cliques of ranks, in one process or across processes
// through a shared memory file, each collective done once every rank has
// reached it, summing in rank order.
#include "fake_cuda_common.hpp"

using namespace ss_fake;

namespace ss_fake {

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

}  // namespace ss_fake

extern "C" {

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

// A rank whose collectives never arrive (-1: none).
void ss_fake_hang_rank(int rank) {
  g_hang_rank = rank;
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
