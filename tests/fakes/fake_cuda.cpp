// A stand-in for the CUDA driver and NCCL (fake_nccl.cpp), one shared library
// exporting both APIs' functions the library calls, so the NCCL collectives (staging,
// streams, the watchdog, aborts, host communicators) are tested on a machine
// without a GPU. "Device memory" is host memory; a stream is a queue of work
// done when the stream is queried; an all-reduce completes once every rank
// of its communicator has reached it, summing in rank order. With
// SS_FAKE_NCCL_PROCESSES set, the ids ncclGetUniqueId makes name cliques
// that span processes (an MPI job's, its id sent by rank 0): their ranks
// meet in a shared memory file instead. Tests steer it with the ss_fake_*
// functions at the end.
#include "fake_cuda_common.hpp"

using namespace ss_fake;

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
// A device whose stream fails (-1: none).
void ss_fake_lose_device(int device) {
  g_lost_device = device;
}

}  // extern "C"
