#include "kernels/cuda_device.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <variant>

#include "runtime/core/device_error.hpp"

namespace ss::cuda {
namespace {

// Sizes the allocator keeps apart: multiples of 512 bytes, so a tensor
// whose size varies a little (a last, smaller batch) still finds memory.
std::size_t rounded(std::size_t bytes) {
  return std::max<std::size_t>(512, (bytes + 511) / 512 * 512);
}

runtime::DeviceError failed_call(const std::string& what) {
  return runtime::DeviceError(diag::Code::E1910, what,
                              "the device may have been lost or reset; a driver that matches the "
                              "CUDA toolkit, or running on the CPU, avoids it");
}

// cuBLASLt comes with cuBLAS. SHAPESCRIPT_CUBLASLT=0: none (a kernel adds
// the bias), to measure the epilogues or rule them out; a path: that
// library, cuBLAS or not (the tests' stand-in).
std::unique_ptr<CublasLt> open_lt(bool with_blas, CUstream stream) {
  const char* v = std::getenv("SHAPESCRIPT_CUBLASLT");
  const std::string path = v ? v : "";
  if (path == "0" || (path.empty() && !with_blas)) return nullptr;
  return CublasLt::open(path, stream, nullptr);  // none: the GEMM and a kernel, as before
}

// cuDNN likewise, where cuBLAS opened: SHAPESCRIPT_CUDNN=0 none (a window
// and a GEMM), a path that library.
std::unique_ptr<Cudnn> open_dnn(bool with_blas, CUstream stream) {
  const char* v = std::getenv("SHAPESCRIPT_CUDNN");
  const std::string path = v ? v : "";
  if (path == "0" || (path.empty() && !with_blas)) return nullptr;
  return Cudnn::open(path, stream, nullptr);
}

}  // namespace

Params& Params::add_bytes(const void* data, std::size_t size, std::size_t align) {
  const std::size_t at = (bytes_.size() + align - 1) / align * align;
  bytes_.resize(at + size);
  std::memcpy(bytes_.data() + at, data, size);
  return *this;
}

DeviceMemory::~DeviceMemory() {
  if (arena_)
    gpu_->arena_give_back(*arena_, pointer_, bytes_);
  else
    gpu_->give_back(pointer_, bytes_);
}

void DeviceMemory::swap(DeviceMemory& fresh) {
  std::swap(pointer_, fresh.pointer_);
  std::swap(bytes_, fresh.bytes_);
  std::swap(arena_, fresh.arena_);
}

GraphArena::~GraphArena() {
  const auto& k = *gpu->driver_->kernel_calls();
  for (void* p : pinned) k.cuMemFreeHost(p);
  for (const auto& [pointer, bytes] : owned) gpu->give_back(pointer, bytes);
}

std::shared_ptr<Gpu> Gpu::open(std::shared_ptr<const Driver> driver,
                               std::shared_ptr<const nvrtc::Compiler> compiler, int index,
                               CodeCache store, std::string* why) {
  const auto fail = [&](const std::string& text) -> std::shared_ptr<Gpu> {
    if (why) *why = text;
    return nullptr;
  };
  if (!driver->kernel_calls()) return fail(driver->path() + " lacks the kernel and memory calls");
  if (driver->check_device(index)) return fail("no CUDA device " + std::to_string(index));
  std::shared_ptr<Gpu> gpu(new Gpu());
  gpu->driver_ = std::move(driver);
  gpu->compiler_ = std::move(compiler);
  gpu->code_ = std::make_unique<CodeCacheNvrtc>(*gpu->compiler_, std::move(store));
  gpu->index_ = index;
  for (const auto& info : gpu->driver_->devices())
    if (info.index == index && info.compute_major > 0)
      gpu->sm_ = info.compute_major * 10 + info.compute_minor;
  gpu->target_ = {gpu->sm_, true};
  const auto& c = gpu->driver_->calls();
  if (const CUresult r = c.cuDevicePrimaryCtxRetain(&gpu->context_, gpu->driver_->handle(index));
      r != CUDA_SUCCESS) {
    gpu->context_ = nullptr;
    return fail("cuDevicePrimaryCtxRetain: " + gpu->driver_->describe(r));
  }
  gpu->make_current();
  if (const CUresult r = c.cuStreamCreate(&gpu->stream_, CU_STREAM_NON_BLOCKING);
      r != CUDA_SUCCESS) {
    gpu->stream_ = nullptr;
    return fail("cuStreamCreate: " + gpu->driver_->describe(r));
  }
  std::string no_blas;
  gpu->blas_ = Cublas::open(gpu->stream_, &no_blas);
  gpu->lt_ = open_lt(gpu->blas_ != nullptr, gpu->stream_);
  gpu->dnn_ = open_dnn(gpu->blas_ != nullptr, gpu->stream_);
  return gpu;
}

Gpu::~Gpu() {
  if (!context_) return;
  driver_->calls().cuCtxSetCurrent(context_);  // no throwing here
  const auto& c = driver_->calls();
  const auto& k = *driver_->kernel_calls();
  if (stream_) k.cuStreamSynchronize(stream_);
  dnn_.reset();
  lt_.reset();
  blas_.reset();
  release_cache();
  for (const CUmodule m : modules_) k.cuModuleUnload(m);
  if (staging_) k.cuMemFreeHost(staging_);
  if (stream_) c.cuStreamDestroy(stream_);
  c.cuDevicePrimaryCtxRelease(driver_->handle(index_));
}

void Gpu::make_current() const {
  check(driver_->calls().cuCtxSetCurrent(context_), "cuCtxSetCurrent");
}

void Gpu::check(CUresult result, std::string_view what) const {
  if (result != CUDA_SUCCESS)
    throw failed_call(std::string(what) + " failed on " + name() + ": " +
                      driver_->describe(result));
}

void Gpu::release_cache() {
  for (auto& [size, pointers] : free_)
    for (const CUdeviceptr p : pointers) {
      driver_->calls().cuMemFree(p);
      stats_.cached -= size;
    }
  free_.clear();
}

std::shared_ptr<DeviceMemory> Gpu::allocate(std::size_t bytes, const std::string& what) {
  const std::size_t size = rounded(bytes);
  std::lock_guard lock(mutex_);
  if (arena_) return arena_allocate(size, what);
  return std::make_shared<DeviceMemory>(shared_from_this(), take(size, what), size);
}

std::shared_ptr<DeviceMemory> Gpu::arena_allocate(std::size_t size, const std::string& what) {
  GraphArena& a = *arena_;
  const auto take_free = [&](CUdeviceptr want) -> CUdeviceptr {
    auto it = a.free.find(size);
    if (it == a.free.end() || it->second.empty()) return 0;
    auto& list = it->second;
    const auto at = want ? std::find(list.begin(), list.end(), want) : list.end() - 1;
    if (at == list.end()) return 0;
    const CUdeviceptr p = *at;
    list.erase(at);
    return p;
  };
  CUdeviceptr p = 0;
  if (!a.diverged && a.replayed < a.previous.size()) {  // a re-capture: the same address
    const auto& [want, want_size] = a.previous[a.replayed++];
    if (want_size == size) p = take_free(want);
    if (!p) a.diverged = true;
  } else if (!a.previous.empty()) {
    a.diverged = true;
  }
  if (!p) p = take_free(0);
  if (!p) {
    p = take(size, what);
    a.owned.emplace_back(p, size);
  }
  a.order.emplace_back(p, size);
  return std::make_shared<DeviceMemory>(shared_from_this(), p, size, arena_);
}

void Gpu::arena_give_back(GraphArena& arena, CUdeviceptr pointer, std::size_t bytes) {
  std::lock_guard lock(mutex_);
  if (arena.capturing) arena.free[bytes].push_back(pointer);
}

CUdeviceptr Gpu::take(std::size_t size, const std::string& what) {
  if (auto it = free_.find(size); it != free_.end() && !it->second.empty()) {
    const CUdeviceptr p = it->second.back();
    it->second.pop_back();
    stats_.cached -= size;
    stats_.in_use += size;
    ++stats_.reused;
    return p;
  }
  CUdeviceptr p = 0;
  CUresult r = driver_->calls().cuMemAlloc(&p, size);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) {  // what the cache holds may be enough
    release_cache();
    r = driver_->calls().cuMemAlloc(&p, size);
  }
  if (r == CUDA_ERROR_OUT_OF_MEMORY) {
    std::size_t free = 0, total = 0;
    driver_->kernel_calls()->cuMemGetInfo(&free, &total);
    throw runtime::DeviceError(
        diag::Code::E1909,
        "out of memory on " + name() + ": `" + what + "` needs " + std::to_string(size) +
            " bytes; this program holds " + std::to_string(stats_.in_use) + ", and " +
            std::to_string(free) + " of the device's " + std::to_string(total) + " are free",
        "use a smaller batch, or another device; other processes' memory counts too");
  }
  check(r, "cuMemAlloc of " + std::to_string(size) + " bytes for `" + what + "`");
  ++stats_.allocations;
  stats_.in_use += size;
  return p;
}

void Gpu::give_back(CUdeviceptr pointer, std::size_t bytes) {
  std::lock_guard lock(mutex_);
  free_[bytes].push_back(pointer);
  stats_.in_use -= bytes;
  stats_.cached += bytes;
}

CUfunction Gpu::kernel(const std::string& source, const std::string& name) {
  std::lock_guard lock(mutex_);
  const std::string key = name + '\n' + source;
  if (const auto it = kernels_.find(key); it != kernels_.end()) return it->second;
  CodeCacheNvrtc::Origin origin{};
  auto compiled = code_->compile(source, name, target_, {"--fmad=false"}, &origin);
  // A device newer than this NVRTC knows: PTX for the newest architecture
  // it does, which the driver compiles for the device on loading.
  for (const int sm : {90, 80, 70}) {
    const auto* f = std::get_if<nvrtc::Failure>(&compiled);
    if (!f || f->log.find("gpu-architecture") == std::string::npos || sm >= target_.sm) break;
    target_ = {sm, false};
    compiled = code_->compile(source, name, target_, {"--fmad=false"}, &origin);
  }
  if (const auto* f = std::get_if<nvrtc::Failure>(&compiled))
    throw runtime::DeviceError(diag::Code::E1910,
                               "NVRTC couldn't compile the kernel `" + name + "` for sm_" +
                                   std::to_string(sm_) + ": " + f->message + "\n" + f->log,
                               "this is a bug in shapescript's kernel generator: please report it");
  if (origin == CodeCacheNvrtc::Origin::compiled) ++stats_.kernels_compiled;
  if (origin == CodeCacheNvrtc::Origin::store) ++stats_.kernels_from_store;
  const auto& k = *driver_->kernel_calls();
  CUmodule module = nullptr;
  check(k.cuModuleLoadData(&module, std::get<nvrtc::Output>(compiled).code.data()),
        "cuModuleLoadData of `" + name + "`");
  modules_.push_back(module);
  CUfunction f = nullptr;
  check(k.cuModuleGetFunction(&f, module, name.c_str()), "cuModuleGetFunction `" + name + "`");
  kernels_[key] = f;
  return f;
}

void Gpu::launch(CUfunction f, std::int64_t total, const Params& params, unsigned threads) {
  if (total <= 0) return;
  const auto blocks = static_cast<unsigned>(
      std::min<std::int64_t>(65535, (total + threads - 1) / static_cast<std::int64_t>(threads)));
  launch_grid(f, blocks, 1, 1, threads, 1, params);
}

void Gpu::launch_grid(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                      const Params& params) {
  std::size_t size = params.bytes().size();
  void* extra[] = {reinterpret_cast<void*>(kLaunchParamBufferPointer),
                   const_cast<unsigned char*>(params.bytes().data()),
                   reinterpret_cast<void*>(kLaunchParamBufferSize), &size,
                   reinterpret_cast<void*>(kLaunchParamEnd)};
  check(driver_->kernel_calls()->cuLaunchKernel(f, gx, gy, gz, bx, by, 1, 0, stream_, nullptr,
                                                size ? extra : nullptr),
        "cuLaunchKernel");
}

void Gpu::upload(CUdeviceptr to, const void* from, std::size_t bytes) {
  if (bytes == 0) return;
  const auto& k = *driver_->kernel_calls();
  if (capturing_) {  // the graph's copy reads its own pinned memory at every replay
    void* kept = nullptr;
    if (k.cuMemAllocHost(&kept, bytes) != CUDA_SUCCESS) throw NotCapturable{"no pinned memory"};
    arena_->pinned.push_back(kept);
    std::memcpy(kept, from, bytes);
    check(driver_->calls().cuMemcpyHtoDAsync(to, kept, bytes, stream_), "cuMemcpyHtoDAsync");
    return;
  }
  const std::size_t need = (bytes + 255) / 256 * 256;
  if (staging_used_ + need > staging_bytes_) {
    synchronize();  // the staged copies have landed: the buffer is free
    staging_used_ = 0;
    if (need > staging_bytes_) {
      if (staging_) k.cuMemFreeHost(staging_);
      staging_ = nullptr;
      staging_bytes_ = 0;
      const std::size_t size = std::max<std::size_t>(need, std::size_t{8} << 20);
      if (k.cuMemAllocHost(&staging_, size) == CUDA_SUCCESS) staging_bytes_ = size;
    }
  }
  if (!staging_) {  // no pinned memory to be had: a copy that completes before returning
    check(driver_->calls().cuMemcpyHtoDAsync(to, from, bytes, stream_), "cuMemcpyHtoDAsync");
    synchronize();
    return;
  }
  auto* staged = static_cast<unsigned char*>(staging_) + staging_used_;
  std::memcpy(staged, from, bytes);
  staging_used_ += need;
  check(driver_->calls().cuMemcpyHtoDAsync(to, staged, bytes, stream_), "cuMemcpyHtoDAsync");
}

void Gpu::download(void* to, CUdeviceptr from, std::size_t bytes) {
  if (capturing_) throw NotCapturable{"a copy back to the host"};
  if (bytes == 0) return synchronize();
  synchronize();
  staging_used_ = 0;
  if (bytes <= staging_bytes_) {
    check(driver_->calls().cuMemcpyDtoHAsync(staging_, from, bytes, stream_), "cuMemcpyDtoHAsync");
    synchronize();
    std::memcpy(to, staging_, bytes);
    return;
  }
  check(driver_->calls().cuMemcpyDtoHAsync(to, from, bytes, stream_), "cuMemcpyDtoHAsync");
  synchronize();
}

void Gpu::copy(CUdeviceptr to, CUdeviceptr from, std::size_t bytes) {
  if (bytes)
    check(driver_->kernel_calls()->cuMemcpyDtoDAsync(to, from, bytes, stream_),
          "cuMemcpyDtoDAsync");
}

void Gpu::set_bytes(CUdeviceptr to, unsigned char value, std::size_t bytes) {
  if (bytes)
    check(driver_->kernel_calls()->cuMemsetD8Async(to, value, bytes, stream_), "cuMemsetD8Async");
}

void Gpu::synchronize() {
  if (capturing_) throw NotCapturable{"a wait for the device"};
  check(driver_->kernel_calls()->cuStreamSynchronize(stream_), "cuStreamSynchronize");
}

void Gpu::begin_capture(std::shared_ptr<GraphArena> arena) {
  {
    std::lock_guard lock(mutex_);
    GraphArena& a = *arena;
    a.capturing = true;
    a.previous = std::move(a.order);  // a re-capture gets these addresses again
    a.order.clear();
    a.replayed = 0;
    a.diverged = false;
    a.free.clear();
    for (const auto& [pointer, bytes] : a.owned) a.free[bytes].push_back(pointer);
    arena_ = std::move(arena);
  }
}

void Gpu::capture_stream() {
  const CUresult r =
      driver_->graph_calls()->cuStreamBeginCapture(stream_, CU_STREAM_CAPTURE_MODE_RELAXED);
  if (r != CUDA_SUCCESS) throw NotCapturable{"cuStreamBeginCapture: " + driver_->describe(r)};
  capturing_ = true;
}

CUgraphExec Gpu::end_capture(bool keep, std::string* why) {
  const auto& g = *driver_->graph_calls();
  CUgraph graph = nullptr;
  CUresult ended = CUDA_SUCCESS;
  if (capturing_) ended = g.cuStreamEndCapture(stream_, &graph);
  capturing_ = false;
  std::shared_ptr<GraphArena> done;  // dropped after the lock: its end gives memory back
  {
    std::lock_guard lock(mutex_);
    if (arena_) {
      arena_->capturing = false;
      arena_->free.clear();
      arena_->previous.clear();
    }
    done = std::move(arena_);
    arena_ = nullptr;
  }
  CUgraphExec exec = nullptr;
  if (ended != CUDA_SUCCESS) {
    if (why) *why = "cuStreamEndCapture: " + driver_->describe(ended);
  } else if (keep && graph) {
    if (const CUresult r = g.cuGraphInstantiate(&exec, graph, 0); r != CUDA_SUCCESS) {
      exec = nullptr;
      if (why) *why = "cuGraphInstantiate: " + driver_->describe(r);
    }
  }
  if (graph) g.cuGraphDestroy(graph);
  return exec;
}

void Gpu::launch_graph(CUgraphExec exec) {
  check(driver_->graph_calls()->cuGraphLaunch(exec, stream_), "cuGraphLaunch");
}

void Gpu::destroy_graph(CUgraphExec exec) {
  if (exec) driver_->graph_calls()->cuGraphExecDestroy(exec);
}

GpuStats Gpu::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace ss::cuda
