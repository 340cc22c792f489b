// A call's tensor memory, planned once per set of sizes (issue 42's
// frames). The first call at new sizes records, on its thread, each buffer
// Buffer::allocate makes (its size, when it was made and when it was
// freed: the release plan's lifetimes as the walk followed them); then
// every buffer freed within the call gets a place in one arena, buffers
// whose lifetimes don't overlap sharing memory. Later calls at those sizes
// replay: the k-th allocation gets the k-th planned buffer, already made,
// so a steady call takes no memory from the heap.
//
// Safety never rests on the replay matching the record: a planned buffer
// is handed out only while nothing else holds it or any buffer sharing its
// memory (reference counts), and with the size recorded; otherwise that
// allocation goes to the heap as before. A buffer that outlived the
// recorded call (a result the host keeps, a `mut` value's new version) is
// always allocated afresh.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/core/tensor.hpp"

namespace ss::runtime {

class FrameMemory {
 public:
  FrameMemory() = default;
  FrameMemory(const FrameMemory&) = delete;
  FrameMemory& operator=(const FrameMemory&) = delete;

  // Open on the calling thread while a call at this frame's sizes runs:
  // the first records, the later ones replay. Scopes don't nest (an inner
  // one leaves the outer in charge).
  class Scope {
   public:
    explicit Scope(FrameMemory& memory);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    FrameMemory* memory_ = nullptr;
    int exceptions_ = 0;  // in flight when it opened: more at its end, the call failed
  };

  // Closes the thread's scope while it lives: what is made meanwhile is
  // neither recorded nor served, the heap's (memory an executor keeps from
  // call to call, made once on the first: a loop's planned steps'). Were
  // it recorded, a steady call's buffer of its size could be matched to it
  // and go to the heap.
  class Outside {
   public:
    Outside();
    ~Outside();
    Outside(const Outside&) = delete;
    Outside& operator=(const Outside&) = delete;

   private:
    FrameMemory* open_;
  };

  bool planned() const { return planned_; }
  std::size_t arena_bytes() const { return arena_bytes_; }
  std::size_t buffers() const { return slots_.size(); }
  // Allocations the last replay sent to the heap (a buffer still held, a
  // size that differed): 0 in a steady call.
  std::int64_t missed() const { return missed_; }

  // Buffer::allocate's hook, for the thread's open scope (null when none
  // or none serves `bytes`).
  static std::shared_ptr<Buffer> take(std::size_t bytes, bool zeroed);
  // Buffer::allocate reports each buffer it made while a scope records.
  static void made(Buffer& buffer, std::size_t bytes);
  // ~Buffer reports a recorded buffer's end.
  static void freed(std::uint64_t frame, int slot);

 private:
  struct Slot {
    std::size_t bytes = 0, rounded = 0, offset = 0;
    std::int64_t made_at = 0, freed_at = -1;  // freed_at -1: it outlived the call
    std::shared_ptr<Buffer> buffer;           // over the arena; null for one that escaped
    std::vector<int> sharing;                 // slots whose memory overlaps this one's
  };
  void begin();
  void end();
  void abandon();
  void plan();
  std::shared_ptr<Buffer> serve(std::size_t bytes, bool zeroed);

  // Which recording a buffer was made in: a new one after a failed call,
  // so its buffers, freed later, don't touch the next recording's slots.
  std::uint64_t serial_ = next_serial();
  static std::uint64_t next_serial();
  bool planned_ = false, recording_ = false, diverged_ = false;
  std::int64_t clock_ = 0, missed_ = 0;
  std::size_t next_ = 0, arena_bytes_ = 0;
  std::vector<Slot> slots_;
  std::shared_ptr<void> arena_;
};

}  // namespace ss::runtime
