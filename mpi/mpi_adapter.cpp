// The MPI adapter: the collectives of a job that spans processes, over a
// duplicate of the host's communicator (or MPI_COMM_WORLD). Every exchange
// is non-blocking and polled under the caller's timeout, so a process that
// stops answering makes the others fail, never hang; after a failure the
// communicator is broken and the job is meant to be aborted.
//
// The all-reduce sums each element once, on the process that owns its
// segment, over every contribution in world-rank order (process order, then
// each process's workers in order), then sends the segments to every
// process: each element crosses the network twice, every process gets the
// same bits, and the sums are those of one process's in-process collectives
// over the same ranks (a rank-order chain, ((r0 + r1) + r2) + ...).
#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "mpi/mpi_api.h"

struct SsMpiComm {
  MPI_Comm comm = MPI_COMM_NULL;
  int process = 0, processes = 1;
  bool broken = false;
  std::vector<unsigned char> outgoing, incoming, result;  // reused between calls
};

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kContributionTag = 7101, kSegmentTag = 7102, kBroadcastTag = 7103;
// MPI counts are ints: larger ranges go as several messages.
constexpr std::size_t kMessageBytes = std::size_t{1} << 30;

std::mutex g_mutex;  // MPI's initialisation and the count of open communicators
int g_open = 0;
bool g_initialised_here = false, g_any_broken = false;

void say(char* why, std::size_t size, const std::string& text) {
  if (why && size) std::snprintf(why, size, "%s", text.c_str());
}

std::string mpi_error(int code) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS)
    return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(length));
}

struct Status {
  int code = SS_MPI_OK;
  std::string why;
};

Status failed(SsMpiComm* c, const std::string& what, int rc) {
  c->broken = true;
  return {SS_MPI_FAILED, what + ": " + mpi_error(rc)};
}

// Requests of one exchange, each with the process it waits on.
struct Requests {
  std::vector<MPI_Request> requests;
  std::vector<int> peers;

  // Posts a send or a receive of `bytes` bytes, in messages of at most
  // kMessageBytes, all with one tag (MPI keeps their order).
  int post(bool send, void* data, std::size_t bytes, int peer, int tag, MPI_Comm comm) {
    auto* at = static_cast<unsigned char*>(data);
    do {
      const std::size_t n = bytes < kMessageBytes ? bytes : kMessageBytes;
      MPI_Request r = MPI_REQUEST_NULL;
      const int count = static_cast<int>(n);
      const int rc = send ? MPI_Isend(at, count, MPI_BYTE, peer, tag, comm, &r)
                          : MPI_Irecv(at, count, MPI_BYTE, peer, tag, comm, &r);
      if (rc != MPI_SUCCESS) return rc;
      requests.push_back(r);
      peers.push_back(peer);
      at += n;
      bytes -= n;
    } while (bytes > 0);
    return MPI_SUCCESS;
  }
};

// Polls until every request is done, the wait's timeout passes or it is
// stopped. Yields while spinning: with more processes than cores (a test's
// --oversubscribe) the others need the core to answer.
Status wait_for(SsMpiComm* c, Requests& rs, const SsMpiWait* w, const char* what) {
  const auto start = Clock::now();
  const auto timeout = std::chrono::milliseconds(w ? w->timeout_ms : 0);
  for (long spins = 0;; ++spins) {
    int done = 0;
    const int rc = MPI_Testall(static_cast<int>(rs.requests.size()), rs.requests.data(), &done,
                               MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS) return failed(c, std::string("MPI's ") + what + " failed", rc);
    if (done) return {};
    if (w && w->stopped && w->stopped(w->context)) {
      c->broken = true;
      return {SS_MPI_STOPPED, std::string("the ") + what + " was stopped"};
    }
    if (Clock::now() - start >= timeout) {
      c->broken = true;
      std::string silent;
      for (std::size_t i = 0; i < rs.requests.size(); ++i) {
        if (rs.requests[i] == MPI_REQUEST_NULL) continue;
        int flag = 0;
        MPI_Test(&rs.requests[i], &flag, MPI_STATUS_IGNORE);
        if (flag) continue;
        if (w && w->silent) w->silent[rs.peers[i]] = 1;
      }
      return {SS_MPI_TIMED_OUT, std::string("the ") + what + " waited more than " +
                                    std::to_string(timeout.count()) + " ms for other processes"};
    }
    if (spins < 20000)
      sched_yield();
    else
      usleep(50);
  }
}

// Process p's segment of n elements over `processes`: its start and length.
void segment(std::size_t n, int processes, int p, std::size_t* start, std::size_t* length) {
  const std::size_t base = n / static_cast<std::size_t>(processes),
                    extra = n % static_cast<std::size_t>(processes),
                    q = static_cast<std::size_t>(p);
  *start = q * base + (q < extra ? q : extra);
  *length = base + (q < extra ? 1 : 0);
}

template <typename T>
void sum_in_order(const std::vector<const T*>& parts, std::size_t n, T* out) {
  std::memcpy(out, parts[0], n * sizeof(T));
  for (std::size_t k = 1; k < parts.size(); ++k) {
    const T* next = parts[k];
    for (std::size_t i = 0; i < n; ++i) out[i] += next[i];
  }
}

Status all_reduce(SsMpiComm* c, void* const* locals, int local_count, const int* counts,
                  std::size_t count, int dtype, const SsMpiWait* w) {
  const std::size_t size = 4;  // f32 and i32
  const int P = c->processes, me = c->process;
  if (counts[me] != local_count) return {SS_MPI_FAILED, "this process's worker count is off"};
  std::size_t my_start = 0, my_length = 0;
  segment(count, P, me, &my_start, &my_length);

  // Phase 1: every process's contributions to each segment go to its owner.
  std::size_t outgoing = 0, incoming = 0;
  for (int q = 0; q < P; ++q) {
    std::size_t s = 0, l = 0;
    segment(count, P, q, &s, &l);
    if (q != me) outgoing += static_cast<std::size_t>(local_count) * l;
    if (q != me) incoming += static_cast<std::size_t>(counts[q]) * my_length;
  }
  c->outgoing.resize(outgoing * size);
  c->incoming.resize(incoming * size);
  c->result.resize(count * size);
  Requests phase1;
  std::vector<const unsigned char*> from(static_cast<std::size_t>(P), nullptr);
  std::size_t out_at = 0, in_at = 0;
  for (int q = 0; q < P; ++q) {
    if (q == me) continue;
    std::size_t s = 0, l = 0;
    segment(count, P, q, &s, &l);
    unsigned char* block = c->outgoing.data() + out_at * size;
    for (int i = 0; i < local_count; ++i)
      std::memcpy(block + static_cast<std::size_t>(i) * l * size,
                  static_cast<unsigned char*>(locals[i]) + s * size, l * size);
    int rc = phase1.post(true, block, static_cast<std::size_t>(local_count) * l * size, q,
                         kContributionTag, c->comm);
    out_at += static_cast<std::size_t>(local_count) * l;
    if (rc != MPI_SUCCESS) return failed(c, "MPI can't send an all-reduce's values", rc);
    unsigned char* into = c->incoming.data() + in_at * size;
    from[static_cast<std::size_t>(q)] = into;
    rc = phase1.post(false, into, static_cast<std::size_t>(counts[q]) * my_length * size, q,
                     kContributionTag, c->comm);
    in_at += static_cast<std::size_t>(counts[q]) * my_length;
    if (rc != MPI_SUCCESS) return failed(c, "MPI can't receive an all-reduce's values", rc);
  }
  if (Status s = wait_for(c, phase1, w, "all-reduce"); s.code != SS_MPI_OK) return s;

  // This process's segment, summed in world-rank order.
  std::vector<const unsigned char*> parts;
  for (int q = 0; q < P; ++q)
    for (int i = 0; i < counts[q]; ++i)
      parts.push_back(q == me ? static_cast<unsigned char*>(locals[i]) + my_start * size
                              : from[static_cast<std::size_t>(q)] +
                                    static_cast<std::size_t>(i) * my_length * size);
  unsigned char* mine = c->result.data() + my_start * size;
  if (my_length > 0) {
    if (dtype == SS_MPI_F32) {
      std::vector<const float*> p;
      for (auto* x : parts) p.push_back(reinterpret_cast<const float*>(x));
      sum_in_order(p, my_length, reinterpret_cast<float*>(mine));
    } else {
      std::vector<const std::int32_t*> p;
      for (auto* x : parts) p.push_back(reinterpret_cast<const std::int32_t*>(x));
      sum_in_order(p, my_length, reinterpret_cast<std::int32_t*>(mine));
    }
  }

  // Phase 2: each owner's segment to every process.
  Requests phase2;
  for (int q = 0; q < P; ++q) {
    if (q == me) continue;
    std::size_t s = 0, l = 0;
    segment(count, P, q, &s, &l);
    int rc = phase2.post(true, mine, my_length * size, q, kSegmentTag, c->comm);
    if (rc == MPI_SUCCESS)
      rc = phase2.post(false, c->result.data() + s * size, l * size, q, kSegmentTag, c->comm);
    if (rc != MPI_SUCCESS) return failed(c, "MPI can't exchange an all-reduce's sums", rc);
  }
  if (Status s = wait_for(c, phase2, w, "all-reduce"); s.code != SS_MPI_OK) return s;
  for (int i = 0; i < local_count; ++i) std::memcpy(locals[i], c->result.data(), count * size);
  return {};
}

int finish(SsMpiComm* c, const Status& s, char* why, std::size_t why_size) {
  if (s.code != SS_MPI_OK) {
    say(why, why_size, s.why);
    if (c) {
      std::lock_guard lock(g_mutex);
      g_any_broken = g_any_broken || c->broken;
    }
  }
  return s.code;
}

int refuse_broken(SsMpiComm* c, char* why, std::size_t why_size) {
  say(why, why_size, "the MPI communicator is broken by an earlier failure");
  (void)c;
  return SS_MPI_FAILED;
}

// A duplicate of `base`, made without blocking (MPI_Comm_idup) and waited
// for under `w`: a process that never comes can't hang the others here.
SsMpiComm* dup_of(MPI_Comm base, const SsMpiWait* w, char* why, std::size_t why_size) {
  auto* c = new SsMpiComm;
  int rc = MPI_Comm_rank(base, &c->process);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_size(base, &c->processes);
  Requests rs;
  rs.requests.push_back(MPI_REQUEST_NULL);
  rs.peers.push_back(0);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_idup(base, &c->comm, &rs.requests[0]);
  if (rc != MPI_SUCCESS) {
    say(why, why_size, "MPI can't duplicate the communicator: " + mpi_error(rc));
    delete c;
    return nullptr;
  }
  SsMpiWait quiet = w ? *w : SsMpiWait{};
  quiet.silent = nullptr;
  if (const Status s = wait_for(c, rs, &quiet, "communicator's duplication"); s.code != SS_MPI_OK) {
    say(why, why_size, s.why);
    g_any_broken = true;  // the duplicate may still be pending: nothing is freed
    return nullptr;
  }
  c->broken = false;
  rc = MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
  if (rc != MPI_SUCCESS) {
    say(why, why_size, "MPI can't set the communicator's error handler: " + mpi_error(rc));
    MPI_Comm_free(&c->comm);
    delete c;
    return nullptr;
  }
  ++g_open;
  return c;
}

SsMpiComm* open_comm(const void* comm, const SsMpiWait* w, char* why, std::size_t why_size) {
  std::lock_guard lock(g_mutex);
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  if (finalised) {
    say(why, why_size, "MPI was finalised already in this process");
    return nullptr;
  }
  int provided = 0;
  if (!initialised) {
    const int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
    if (rc != MPI_SUCCESS) {
      say(why, why_size, "MPI can't start: " + mpi_error(rc));
      return nullptr;
    }
    g_initialised_here = true;
  }
  MPI_Query_thread(&provided);
  if (provided < MPI_THREAD_SERIALIZED) {
    say(why, why_size,
        "MPI was started with less than MPI_THREAD_SERIALIZED; shapescript's workers call MPI "
        "from their threads, one at a time: start it with MPI_Init_thread(..., "
        "MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE, ...)");
    return nullptr;
  }
  return dup_of(comm ? *static_cast<const MPI_Comm*>(comm) : MPI_COMM_WORLD, w, why, why_size);
}

SsMpiComm* fork_comm(SsMpiComm* c, const SsMpiWait* w, char* why, std::size_t why_size) {
  std::lock_guard lock(g_mutex);
  if (c->broken) {
    refuse_broken(c, why, why_size);
    return nullptr;
  }
  return dup_of(c->comm, w, why, why_size);
}

// A broken communicator may have requests pending: it is left as it is
// (freeing it, or finalising MPI, could wait on them forever).
void close_comm(SsMpiComm* c) {
  if (!c) return;
  std::lock_guard lock(g_mutex);
  if (!c->broken) MPI_Comm_free(&c->comm);
  g_any_broken = g_any_broken || c->broken;
  delete c;
  if (--g_open == 0 && g_initialised_here && !g_any_broken) {
    MPI_Finalize();
    g_initialised_here = false;
  }
}

int process_of(const SsMpiComm* c) {
  return c->process;
}
int processes_of(const SsMpiComm* c) {
  return c->processes;
}

int all_gather_entry(SsMpiComm* c, const void* mine, std::size_t bytes, void* all,
                     const SsMpiWait* w, char* why, std::size_t why_size) {
  if (c->broken) return refuse_broken(c, why, why_size);
  if (bytes > INT_MAX) {
    say(why, why_size, "an all-gather of more than 2 GiB");
    return SS_MPI_FAILED;
  }
  Requests rs;
  rs.requests.push_back(MPI_REQUEST_NULL);
  rs.peers.push_back(0);
  const int n = static_cast<int>(bytes);
  const int rc = MPI_Iallgather(mine, n, MPI_BYTE, all, n, MPI_BYTE, c->comm, &rs.requests[0]);
  if (rc != MPI_SUCCESS)
    return finish(c, failed(c, "MPI can't start an all-gather", rc), why, why_size);
  SsMpiWait quiet = w ? *w : SsMpiWait{};
  quiet.silent = nullptr;  // a collective can't say who is missing
  return finish(c, wait_for(c, rs, &quiet, "all-gather"), why, why_size);
}

int all_reduce_entry(SsMpiComm* c, void* const* locals, int local_count, const int* counts,
                     std::size_t count, int dtype, const SsMpiWait* w, char* why,
                     std::size_t why_size) {
  if (c->broken) return refuse_broken(c, why, why_size);
  if (dtype != SS_MPI_F32 && dtype != SS_MPI_I32) {
    say(why, why_size, "an all-reduce of another element type than f32 or i32");
    return SS_MPI_FAILED;
  }
  return finish(c, all_reduce(c, locals, local_count, counts, count, dtype, w), why, why_size);
}

int broadcast_entry(SsMpiComm* c, void* data, std::size_t bytes, int root, const SsMpiWait* w,
                    char* why, std::size_t why_size) {
  if (c->broken) return refuse_broken(c, why, why_size);
  if (root < 0 || root >= c->processes) {
    say(why, why_size,
        "a broadcast from process " + std::to_string(root) + " of " + std::to_string(c->processes));
    return SS_MPI_FAILED;
  }
  // Point to point from the root, so a timeout can say who didn't answer.
  Requests rs;
  if (c->process == root) {
    for (int q = 0; q < c->processes; ++q)
      if (q != root)
        if (const int rc = rs.post(true, data, bytes, q, kBroadcastTag, c->comm); rc != MPI_SUCCESS)
          return finish(c, failed(c, "MPI can't send a broadcast", rc), why, why_size);
  } else if (const int rc = rs.post(false, data, bytes, root, kBroadcastTag, c->comm);
             rc != MPI_SUCCESS) {
    return finish(c, failed(c, "MPI can't receive a broadcast", rc), why, why_size);
  }
  return finish(c, wait_for(c, rs, w, "broadcast"), why, why_size);
}

int barrier_entry(SsMpiComm* c, const SsMpiWait* w, char* why, std::size_t why_size) {
  if (c->broken) return refuse_broken(c, why, why_size);
  Requests rs;
  rs.requests.push_back(MPI_REQUEST_NULL);
  rs.peers.push_back(0);
  const int rc = MPI_Ibarrier(c->comm, &rs.requests[0]);
  if (rc != MPI_SUCCESS)
    return finish(c, failed(c, "MPI can't start a barrier", rc), why, why_size);
  SsMpiWait quiet = w ? *w : SsMpiWait{};
  quiet.silent = nullptr;
  return finish(c, wait_for(c, rs, &quiet, "barrier"), why, why_size);
}

void abort_job(SsMpiComm* c, int code) {
  MPI_Abort(c ? c->comm : MPI_COMM_WORLD, code);
  _exit(code);  // MPI_Abort doesn't return; should it, end anyway
}

const char* library_version() {
  static char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  static std::once_flag once;
  std::call_once(once, [] {
    int length = 0;
    MPI_Get_library_version(text, &length);
    if (char* newline = std::strchr(text, '\n')) *newline = '\0';
  });
  return text;
}

const SsMpiApi kApi = {open_comm,     fork_comm,        close_comm,       process_of,
                       processes_of,  all_gather_entry, all_reduce_entry, broadcast_entry,
                       barrier_entry, abort_job,        library_version};

}  // namespace

extern "C" __attribute__((visibility("default"))) const SsMpiApi* ss_mpi_api(unsigned version) {
  return version == SS_MPI_ABI_VERSION ? &kApi : nullptr;
}
