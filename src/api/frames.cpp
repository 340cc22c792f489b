#include "api/frames.hpp"

namespace ss::api {

FrameCache::~FrameCache() {
  for (auto& slot : slots_) delete slot.exchange(nullptr);
}

void FrameCache::give(std::unique_ptr<CallFrame> frame) {
  frame->last_used = ++clock_;
  give_back(frame.release());
}

// Into an empty slot if there is one, else in place of the least recently
// used frame, which is dropped: each frame is only ever held by whoever
// exchanged it out, so nothing else can be reading it.
void FrameCache::give_back(CallFrame* f) {
  // (Read before it is published: once in a slot, another thread may take
  // it and write it.)
  const std::uint64_t stamp = f->last_used;
  for (std::size_t i = 0; i < kFrames; ++i) {
    CallFrame* empty = nullptr;
    if (slots_[i].compare_exchange_strong(empty, f, std::memory_order_release)) {
      stamps_[i] = stamp;
      return;
    }
  }
  std::size_t oldest = 0;
  for (std::size_t i = 1; i < kFrames; ++i)
    if (stamps_[i] < stamps_[oldest]) oldest = i;
  if (stamp < stamps_[oldest]) {  // older than every kept one
    delete f;
    return;
  }
  stamps_[oldest] = stamp;
  delete slots_[oldest].exchange(f, std::memory_order_acq_rel);
}

std::size_t FrameCache::held() const {
  std::size_t n = 0;
  for (const auto& slot : slots_) n += slot.load() != nullptr;
  return n;
}

}  // namespace ss::api
