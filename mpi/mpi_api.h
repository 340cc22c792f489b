/* The table the MPI adapter (libshapescript_mpi.so, the only code that sees
 * mpi.h) hands to the core, which opens it with dlopen when a host or the
 * CLI asks for MPI: a host without MPI still loads the library. Plain C, so
 * no C++ exception crosses it: every entry returns a status and writes its
 * error text into a caller's buffer. Change SS_MPI_ABI_VERSION with any
 * change to the table. */
#ifndef SHAPESCRIPT_MPI_API_H
#define SHAPESCRIPT_MPI_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SS_MPI_ABI_VERSION 2u
#define SS_MPI_ENTRY_SYMBOL "ss_mpi_api"

/* One duplicated communicator: the adapter's traffic never mixes with the
 * host's. */
typedef struct SsMpiComm SsMpiComm;

/* What the exchanges return. After anything but SS_MPI_OK the communicator
 * is broken (requests may still be pending) and every later exchange fails
 * at once: a job that saw one is aborted (abort_job). */
enum {
  SS_MPI_OK = 0,
  SS_MPI_TIMED_OUT = 1, /* `silent` says which processes sent nothing in time */
  SS_MPI_STOPPED = 2,   /* stopped() said so: another worker failed */
  SS_MPI_FAILED = 3,    /* MPI returned an error, or the communicator is broken */
};

enum { SS_MPI_F32 = 0, SS_MPI_I32 = 1 };

/* How an exchange waits: polling its non-blocking requests, at most
 * timeout_ms (0: fail at once if not done), giving up when stopped(context)
 * (may be NULL) returns nonzero. `silent`, when not NULL, has one entry per
 * process, set to 1 for those whose messages hadn't come when it timed out. */
typedef struct SsMpiWait {
  int64_t timeout_ms;
  int (*stopped)(void* context);
  void* context;
  int* silent;
} SsMpiWait;

typedef struct SsMpiApi {
  /* A duplicate of the host's communicator (`comm` points at its MPI_Comm)
   * or of MPI_COMM_WORLD (comm NULL), initialising MPI with
   * MPI_THREAD_MULTIPLE when nobody has (and finalising it when the last
   * communicator closes). MPI must give at least MPI_THREAD_SERIALIZED:
   * exchanges come from worker threads, one at a time. NULL, with why. */
  SsMpiComm* (*open)(const void* comm, const SsMpiWait* wait, char* why, size_t why_size);
  /* Another duplicate, for one module's traffic: collective, so every
   * process makes its modules in the same order. Duplicating waits as an
   * exchange does (MPI_Comm_idup, polled). */
  SsMpiComm* (*fork)(SsMpiComm* comm, const SsMpiWait* wait, char* why, size_t why_size);
  void (*close)(SsMpiComm* comm);
  int (*process)(const SsMpiComm* comm); /* this process's rank in the communicator */
  int (*processes)(const SsMpiComm* comm);
  /* Every process's `bytes` bytes, in process order, into all (processes x bytes). */
  int (*all_gather)(SsMpiComm* comm, const void* mine, size_t bytes, void* all,
                    const SsMpiWait* wait, char* why, size_t why_size);
  /* Sums `count` elements over every contribution of every process, in
   * process order and, within one, in the order of `locals` (this process's
   * `local_count` buffers; process p gives counts[p]): each element is
   * summed once, by the process that owns its segment, in that order, so
   * every process receives the same bits into each of its buffers. */
  int (*all_reduce)(SsMpiComm* comm, void* const* locals, int local_count, const int* counts,
                    size_t count, int dtype, const SsMpiWait* wait, char* why, size_t why_size);
  /* Process root's `bytes` bytes to every process. */
  int (*broadcast)(SsMpiComm* comm, void* data, size_t bytes, int root, const SsMpiWait* wait,
                   char* why, size_t why_size);
  int (*barrier)(SsMpiComm* comm, const SsMpiWait* wait, char* why, size_t why_size);
  /* MPI_Abort: every process of the job ends, with `code`. Never returns. */
  void (*abort_job)(SsMpiComm* comm, int code);
  /* The library's version line ("Open MPI v4.1.4, ..."). */
  const char* (*library_version)(void);
} SsMpiApi;

/* The module's one entry: the table, or NULL when the core wants another
 * ABI version. */
typedef const SsMpiApi* (*SsMpiEntry)(unsigned abi_version);

#ifdef __cplusplus
}
#endif

#endif
