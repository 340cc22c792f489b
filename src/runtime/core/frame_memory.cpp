#include "runtime/core/frame_memory.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>

#include "runtime/core/out_of_memory.hpp"

namespace ss::runtime {
namespace {

thread_local FrameMemory* t_open = nullptr;  // the thread's open scope's frame

}  // namespace

std::uint64_t FrameMemory::next_serial() {
  static std::atomic<std::uint64_t> last{0};
  return ++last;
}

FrameMemory::Scope::Scope(FrameMemory& memory) {
  if (t_open) return;  // an outer call's frame stays in charge
  memory_ = &memory;
  exceptions_ = std::uncaught_exceptions();
  t_open = memory_;
  memory_->begin();
}

FrameMemory::Scope::~Scope() {
  if (!memory_) return;
  t_open = nullptr;
  // A call that failed (out of memory, say) recorded part of its sequence:
  // the next call records again rather than plan from the part.
  if (std::uncaught_exceptions() > exceptions_)
    memory_->abandon();
  else
    memory_->end();
}

FrameMemory::Outside::Outside() : open_(t_open) {
  t_open = nullptr;
}

FrameMemory::Outside::~Outside() {
  t_open = open_;
}

void FrameMemory::begin() {
  next_ = 0;
  diverged_ = false;
  missed_ = 0;
  recording_ = !planned_;
  if (recording_) {
    slots_.clear();
    clock_ = 0;
  }
}

void FrameMemory::end() {
  if (!recording_) return;
  recording_ = false;
  try {
    plan();
  } catch (...) {  // no arena: later calls allocate as if unplanned
    slots_.clear();
    arena_.reset();
    planned_ = true;
  }
}

void FrameMemory::abandon() {
  if (!recording_) return;
  recording_ = false;
  slots_.clear();
  serial_ = next_serial();
}

std::shared_ptr<Buffer> FrameMemory::take(std::size_t bytes, bool zeroed) {
  FrameMemory* m = t_open;
  if (!m || m->recording_) return nullptr;
  return m->serve(bytes, zeroed);
}

std::shared_ptr<Buffer> FrameMemory::serve(std::size_t bytes, bool zeroed) {
  if (diverged_) {
    ++missed_;
    return nullptr;
  }
  std::size_t k = next_;
  // The recorded call may have made buffers this one doesn't (something
  // made once, on the first call): the next recorded one of this size.
  while (k < slots_.size() && slots_[k].bytes != bytes) ++k;
  if (k == slots_.size()) {
    diverged_ = true;  // not the recorded sequence: the heap from here on
    ++missed_;
    return nullptr;
  }
  next_ = k + 1;
  Slot& slot = slots_[k];
  if (!slot.buffer) return nullptr;  // one that outlives a call: always the heap's
  // Nothing else may hold it or memory it shares: a result kept from an
  // earlier call, or a replay gone out of step.
  bool free = slot.buffer.use_count() == 1;
  for (const int other : slot.sharing)
    free = free && slots_[static_cast<std::size_t>(other)].buffer.use_count() == 1;
  if (!free) {
    ++missed_;
    return nullptr;
  }
  std::atomic_thread_fence(std::memory_order_acquire);
  slot.buffer->recycle();
  if (zeroed) std::memset(slot.buffer->data_, 0, slot.rounded);
  return slot.buffer;
}

void FrameMemory::made(Buffer& buffer, std::size_t bytes) {
  FrameMemory* m = t_open;
  if (!m || !m->recording_) return;
  Slot slot;
  slot.bytes = bytes;
  slot.rounded = buffer.capacity_;
  slot.made_at = m->clock_++;
  m->slots_.push_back(std::move(slot));  // may throw: the buffer isn't marked yet
  buffer.frame_ = m->serial_;
  buffer.frame_slot_ = static_cast<int>(m->slots_.size()) - 1;
}

void FrameMemory::freed(std::uint64_t frame, int slot) {
  FrameMemory* m = t_open;
  if (!m || !m->recording_ || m->serial_ != frame) return;  // after the call: it escaped
  m->slots_[static_cast<std::size_t>(slot)].freed_at = m->clock_++;
}

// Each buffer freed within the call gets an offset: largest first, at the
// lowest offset clear of every placed buffer alive at the same time.
void FrameMemory::plan() {
  std::vector<int> order;
  for (std::size_t k = 0; k < slots_.size(); ++k)
    if (slots_[k].freed_at >= 0) order.push_back(static_cast<int>(k));
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return slots_[static_cast<std::size_t>(a)].rounded >
           slots_[static_cast<std::size_t>(b)].rounded;
  });
  std::vector<int> placed;
  std::size_t total = 0;
  for (const int k : order) {
    Slot& s = slots_[static_cast<std::size_t>(k)];
    std::vector<std::pair<std::size_t, std::size_t>> taken;  // [offset, end) of live ones
    for (const int p : placed) {
      const Slot& o = slots_[static_cast<std::size_t>(p)];
      if (o.made_at < s.freed_at && s.made_at < o.freed_at)
        taken.emplace_back(o.offset, o.offset + o.rounded);
    }
    std::sort(taken.begin(), taken.end());
    std::size_t at = 0;
    for (const auto& [begin, end] : taken) {
      if (at + s.rounded <= begin) break;
      at = std::max(at, end);
    }
    s.offset = at;
    total = std::max(total, at + s.rounded);
    placed.push_back(k);
  }
  planned_ = true;
  if (placed.empty()) return;
  void* memory = allocate_aligned(Buffer::kAlignment, total);
  arena_ = std::shared_ptr<void>(memory, [](void* p) { std::free(p); });
  arena_bytes_ = total;
  for (const int k : placed) {
    Slot& s = slots_[static_cast<std::size_t>(k)];
    s.buffer = Buffer::within(arena_, static_cast<char*>(memory) + s.offset, s.bytes, s.rounded);
  }
  for (const int a : placed) {
    Slot& s = slots_[static_cast<std::size_t>(a)];
    for (const int b : placed) {
      const Slot& o = slots_[static_cast<std::size_t>(b)];
      if (a != b && s.offset < o.offset + o.rounded && o.offset < s.offset + s.rounded)
        s.sharing.push_back(b);
    }
  }
}

}  // namespace ss::runtime
