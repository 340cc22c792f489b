// One CUDA device as the executor uses it: its primary context, one
// stream that every kernel and copy is queued on (so work runs in program
// order and freed memory may be reused at once), a caching allocator on
// cuMemAlloc, pinned staging for host copies, kernels compiled by NVRTC
// (through a content-keyed cache) and loaded once, and cuBLAS when it can
// be loaded. Failures throw runtime::DeviceError: E1909 when memory runs
// out (naming the tensor), E1910 for any other failed call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/cublas.hpp"
#include "kernels/cublas_lt.hpp"
#include "kernels/cuda_code_cache.hpp"
#include "kernels/cuda_driver.hpp"
#include "kernels/cudnn.hpp"
#include "kernels/nvrtc.hpp"
#include "shapescript/options.hpp"

namespace ss::cuda {

class Gpu;
struct GraphArena;

// A kernel's parameters, in order, packed as the kernel lays them out (each
// at its type's alignment, and no padding after the last: the driver wants
// the parameters' own size): cuLaunchKernel's `extra` buffer, which a
// captured graph (and the stand-in driver) copies whole.
class Params {
 public:
  template <typename T>
  Params& add(const T& value) {
    return add_bytes(&value, sizeof(T), alignof(T));
  }
  Params& add_bytes(const void* data, std::size_t size, std::size_t align);
  const std::vector<unsigned char>& bytes() const { return bytes_; }

 private:
  std::vector<unsigned char> bytes_;
};

// A graph capture's failure: the run asked for something a captured graph
// can't hold (a copy back to the host, a wait), so it runs uncaptured.
struct NotCapturable {
  std::string why;
};

// Device memory from the allocator; its destructor gives it back.
class DeviceMemory {
 public:
  DeviceMemory(std::shared_ptr<Gpu> gpu, CUdeviceptr pointer, std::size_t bytes,
               std::shared_ptr<GraphArena> arena = nullptr)
      : gpu_(std::move(gpu)), arena_(std::move(arena)), pointer_(pointer), bytes_(bytes) {}
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  CUdeviceptr pointer() const { return pointer_; }
  std::size_t bytes() const { return bytes_; }
  // Memory a captured graph owns (its arena), which its replays write.
  bool in_arena() const { return arena_ != nullptr; }
  // Takes `fresh`'s memory (which gets this one's): a value a graph's
  // replay would overwrite moves out of its way, its holders none the wiser.
  void swap(DeviceMemory& fresh);

 private:
  std::shared_ptr<Gpu> gpu_;           // alive while its memory is
  std::shared_ptr<GraphArena> arena_;  // the owner, for a graph's memory
  CUdeviceptr pointer_;
  std::size_t bytes_;
};

// The memory of one captured graph: what its capture allocated (kept for
// its replays, given back when the last holder goes) and the pinned host
// memory its uploads read. While capturing, memory freed goes back to the
// arena for the capture's later allocations, in the order the global cache
// would reuse it; a second capture over the same arena (a re-capture of
// the same graph and sizes) is given the same addresses in the same order.
struct GraphArena {
  explicit GraphArena(std::shared_ptr<Gpu> owner) : gpu(std::move(owner)) {}
  ~GraphArena();
  GraphArena(const GraphArena&) = delete;
  GraphArena& operator=(const GraphArena&) = delete;

  std::shared_ptr<Gpu> gpu;
  std::vector<std::pair<CUdeviceptr, std::size_t>> owned;  // from the Gpu's allocator
  std::vector<void*> pinned;
  // While capturing (under the Gpu's mutex):
  bool capturing = false;
  std::map<std::size_t, std::vector<CUdeviceptr>> free;       // by rounded size
  std::vector<std::pair<CUdeviceptr, std::size_t>> order;     // each allocation, as made
  std::vector<std::pair<CUdeviceptr, std::size_t>> previous;  // the last capture's order
  std::size_t replayed = 0;                                   // a re-capture's place in `order`
  bool diverged = false;                                      // a re-capture asked for other sizes
};

struct GpuStats {
  std::int64_t allocations = 0;  // calls to cuMemAlloc
  std::int64_t reused = 0;       // requests the cache met
  std::size_t in_use = 0, cached = 0;
  std::int64_t kernels_compiled = 0, kernels_from_store = 0;
};

class Gpu : public std::enable_shared_from_this<Gpu> {
 public:
  // Null with *why when the device, its context, stream or kernel calls
  // can't be had.
  static std::shared_ptr<Gpu> open(std::shared_ptr<const Driver> driver,
                                   std::shared_ptr<const nvrtc::Compiler> compiler, int index,
                                   CodeCache store, std::string* why);
  ~Gpu();
  Gpu(const Gpu&) = delete;
  Gpu& operator=(const Gpu&) = delete;

  int index() const { return index_; }
  int sm() const { return sm_; }
  std::string name() const { return "cuda:" + std::to_string(index_); }

  // The context current on the calling thread: before any other call.
  void make_current() const;
  // Held while a graph runs or a value comes back: one stream, one user
  // at a time. Recursive: a run may fetch a value it was given.
  std::recursive_mutex& run_lock() const { return run_lock_; }

  // At least `bytes` of device memory; `what` names it for E1909.
  std::shared_ptr<DeviceMemory> allocate(std::size_t bytes, const std::string& what);

  // The kernel `name` of `source`, compiled for this device once.
  CUfunction kernel(const std::string& source, const std::string& name);
  // `total` threads' worth of a grid-stride kernel (blocks of `threads`).
  void launch(CUfunction f, std::int64_t total, const Params& params, unsigned threads = 256);
  void launch_grid(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                   const Params& params);

  void upload(CUdeviceptr to, const void* from, std::size_t bytes);
  void download(void* to, CUdeviceptr from, std::size_t bytes);  // waits for the stream
  void copy(CUdeviceptr to, CUdeviceptr from, std::size_t bytes);
  void set_bytes(CUdeviceptr to, unsigned char value, std::size_t bytes);
  void synchronize();

  // ---- CUDA graphs (kernels/cuda_graph_replay.hpp) ----
  bool graphs() const { return driver_->graph_calls() != nullptr; }
  // Allocations come from `arena` from here until end_capture.
  void begin_capture(std::shared_ptr<GraphArena> arena);
  // What the stream is given from here is captured into a graph. While
  // capturing, a copy back or a wait is NotCapturable.
  void capture_stream();
  // The graph, instantiated; null (the capture dropped, *why said) when
  // `keep` is false or it fails. The arena's allocations end either way.
  CUgraphExec end_capture(bool keep, std::string* why);
  void launch_graph(CUgraphExec exec);
  void destroy_graph(CUgraphExec exec);

  // cuBLAS on this device's stream; null when it can't be loaded (the
  // contractions then use the executor's own GEMM kernel).
  const Cublas* blas() const { return blas_.get(); }
  // cuBLASLt, for GEMMs with a bias (and a ReLU) in their epilogue; null
  // without cuBLAS, or with SHAPESCRIPT_CUBLASLT=0 (then a kernel adds
  // them). SHAPESCRIPT_CUBLASLT=PATH opens that library instead.
  const CublasLt* lt() const { return lt_.get(); }
  // cuDNN, for 2-D convolutions and their gradients; null without cuBLAS
  // (it stands for a working toolkit), without cuDNN, or with
  // SHAPESCRIPT_CUDNN=0 (then a window and a GEMM). SHAPESCRIPT_CUDNN=PATH
  // opens that library instead.
  const Cudnn* dnn() const { return dnn_.get(); }
  GpuStats stats() const;

 private:
  friend class DeviceMemory;
  friend struct GraphArena;
  Gpu() = default;
  void give_back(CUdeviceptr pointer, std::size_t bytes);
  // While capturing: the arena's memory, else the cache's, kept by the arena.
  std::shared_ptr<DeviceMemory> arena_allocate(std::size_t size, const std::string& what);
  void arena_give_back(GraphArena& arena, CUdeviceptr pointer, std::size_t bytes);
  // Memory of `size` (rounded) from the cache or cuMemAlloc; under mutex_.
  CUdeviceptr take(std::size_t size, const std::string& what);
  // Throws the failed call's error; `what` is read only then (a literal
  // costs no allocation on a call that succeeds).
  void check(CUresult result, std::string_view what) const;
  void release_cache();

  std::shared_ptr<const Driver> driver_;
  std::shared_ptr<const nvrtc::Compiler> compiler_;
  std::unique_ptr<CodeCacheNvrtc> code_;
  int index_ = 0;
  int sm_ = 90;
  nvrtc::Target target_;  // a cubin for sm_, or PTX for an older architecture
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  std::unique_ptr<Cublas> blas_;
  std::unique_ptr<CublasLt> lt_;
  std::unique_ptr<Cudnn> dnn_;

  mutable std::recursive_mutex run_lock_;
  mutable std::mutex mutex_;                              // the allocator's lists and the kernels
  std::map<std::size_t, std::vector<CUdeviceptr>> free_;  // by rounded size
  std::map<std::string, CUfunction> kernels_;             // by name and source
  std::vector<CUmodule> modules_;
  GpuStats stats_;

  std::shared_ptr<GraphArena> arena_;  // the capture's, while one is under way
  bool capturing_ = false;             // the stream's work is being captured

  void* staging_ = nullptr;  // pinned host memory for copies
  std::size_t staging_bytes_ = 0, staging_used_ = 0;
};

}  // namespace ss::cuda
