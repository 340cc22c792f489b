// Frames (issue 42): what a device function's call needs at one set of
// input shapes, made by the first call at those shapes (or
// Module::reserve) and kept, so a steady call allocates nothing: the
// graph's values and sizes (runtime::GraphFrame), its memory planned in one
// arena (runtime::FrameMemory), and the host's tensors as the runtime
// borrows them. A function keeps kFrames of them, the least recently used
// dropped for a new one; sizes never cause a recompile, only a new frame.
//
// A call takes its frame out of the cache and puts it back when done (one
// atomic exchange each): two threads never share a frame, and a second
// thread at the same sizes makes its own.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/controller/value.hpp"
#include "runtime/core/frame_memory.hpp"
#include "runtime/core/tensor.hpp"
#include "runtime/reference/interpreter.hpp"

namespace ss::api {

// Where a graph input's tensor comes from in a call with values: parameter
// `param`'s tensor or number (`field` empty), or a field of the structure
// it is given ("w1" of `m`); or dropout's seed.
struct InputSource {
  int param = -1;
  std::string field;
  bool seed = false;
};

struct CallFrame {
  // The key: each input's element type and shape.
  std::vector<runtime::DType> dtypes;
  std::vector<runtime::Shape> shapes;
  runtime::GraphFrame graph;
  runtime::FrameMemory memory;
  // Per input: the host tensor the last call borrowed (reused while the
  // host gives the same memory), or the scalar a number or seed is written
  // into.
  std::vector<runtime::Tensor> held;
  // Per input that is a field of a structure: the value version the last
  // call read it from, and the field's tensor there (a version never
  // changes, so while the call holds that version, the tensor is the one):
  // a steady call looks no field up by name.
  std::vector<std::weak_ptr<const runtime::Value>> field_of;
  std::vector<const runtime::Tensor*> field;
  // For an executor that runs whole graphs (the CUDA executor): the inputs
  // by name, the map made once, and each input's place in it.
  std::map<std::string, runtime::Tensor> named;
  std::vector<runtime::Tensor*> named_at;
  std::uint64_t last_used = 0;

  // The named inputs let go of (the map's keys stay).
  void clear_named() {
    for (runtime::Tensor* t : named_at) t->reset();
  }

  // Whether the input `k`'s dtype and shape are this frame's.
  bool fits(std::size_t k, runtime::DType dtype, const std::int64_t* dims, std::size_t rank) const {
    const runtime::Shape& s = shapes[k];
    if (dtypes[k] != dtype || s.size() != rank) return false;
    for (std::size_t a = 0; a < rank; ++a)
      if (s[a] != dims[a]) return false;
    return true;
  }
};

class FrameCache {
 public:
  static constexpr std::size_t kFrames = 4;
  FrameCache() = default;
  FrameCache(const FrameCache&) = delete;
  FrameCache& operator=(const FrameCache&) = delete;
  ~FrameCache();

  // The cached frame `fits` accepts, taken out (null when none is).
  template <typename Fits>  // Fits: (const CallFrame&) -> bool
  std::unique_ptr<CallFrame> take(Fits&& fits) {
    for (auto& slot : slots_) {
      if (!slot.load(std::memory_order_relaxed)) continue;
      CallFrame* f = slot.exchange(nullptr, std::memory_order_acquire);
      if (!f) continue;
      if (fits(*f)) return std::unique_ptr<CallFrame>(f);
      give_back(f);
    }
    return nullptr;
  }
  // Puts a frame back, dropping the least recently used when all are full.
  void give(std::unique_ptr<CallFrame> frame);
  std::size_t held() const;

 private:
  void give_back(CallFrame* f);
  std::array<std::atomic<CallFrame*>, kFrames> slots_{};
  std::array<std::atomic<std::uint64_t>, kFrames> stamps_{};  // each slot's frame's last use
  std::atomic<std::uint64_t> clock_{0};
};

}  // namespace ss::api
