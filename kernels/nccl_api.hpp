// The few NCCL declarations the library calls, written out so the core builds
// without nccl.h and never links libnccl (it is opened with dlopen). Values
// and signatures are those of nccl.h (2.14 and later); tests/toolchain
// compares them with the real header wherever it is installed.
#pragma once

#include <climits>
#include <cstddef>

namespace ss::nccl {

using ncclResult_t = int;
inline constexpr ncclResult_t ncclSuccess = 0;
inline constexpr ncclResult_t ncclInProgress = 7;

struct ncclComm;
using ncclComm_t = ncclComm*;

struct ncclUniqueId {
  char internal[128];
};

using ncclDataType_t = int;
inline constexpr ncclDataType_t ncclInt32 = 2;
inline constexpr ncclDataType_t ncclFloat32 = 7;
inline constexpr ncclDataType_t ncclUint8 = 1;
using ncclRedOp_t = int;
inline constexpr ncclRedOp_t ncclSum = 0;

// The leading fields of ncclConfig_t, all this library sets. NCCL reads
// `size` bytes of a config and gives the fields a `version` older than
// theirs doesn't know their defaults, so a config of NCCL 2.14's fields is
// valid for every later NCCL.
struct ncclConfigPrefix {
  std::size_t size = sizeof(ncclConfigPrefix);
  unsigned int magic = 0xcafebeef;
  unsigned int version = 21400;  // NCCL_VERSION(2, 14, 0)
  int blocking = INT_MIN;        // NCCL_CONFIG_UNDEF_INT
};

using ncclGetVersion_t = ncclResult_t (*)(int* version);
using ncclGetUniqueId_t = ncclResult_t (*)(ncclUniqueId* id);
using ncclCommInitRankConfig_t = ncclResult_t (*)(ncclComm_t* comm, int ranks, ncclUniqueId id,
                                                  int rank, ncclConfigPrefix* config);
using ncclCommAbort_t = ncclResult_t (*)(ncclComm_t comm);
using ncclCommDestroy_t = ncclResult_t (*)(ncclComm_t comm);
using ncclCommGetAsyncError_t = ncclResult_t (*)(ncclComm_t comm, ncclResult_t* error);
using ncclCommCount_t = ncclResult_t (*)(ncclComm_t comm, int* count);
using ncclCommCuDevice_t = ncclResult_t (*)(ncclComm_t comm, int* device);
using ncclCommUserRank_t = ncclResult_t (*)(ncclComm_t comm, int* rank);
using ncclGetErrorString_t = const char* (*)(ncclResult_t result);
using ncclGroupStart_t = ncclResult_t (*)();
using ncclGroupEnd_t = ncclResult_t (*)();
// The stream is a CUstream (cuda_api.hpp): the same handle as cudaStream_t.
using ncclAllReduce_t = ncclResult_t (*)(const void* send, void* receive, std::size_t count,
                                         ncclDataType_t type, ncclRedOp_t op, ncclComm_t comm,
                                         void* stream);
using ncclBroadcast_t = ncclResult_t (*)(const void* send, void* receive, std::size_t count,
                                         ncclDataType_t type, int root, ncclComm_t comm,
                                         void* stream);

}  // namespace ss::nccl
