// What an ss::Value holds: the runtime's value in immutable versions. A
// reader takes the current version (a shared pointer) and keeps it as long
// as it needs; a `mut` call holds the writer lock, computes the next
// version beside the current one and publishes it whole. Nothing ever
// writes into a published version's tensors, so a version's buffers may
// carry what executors derive from them (packed GEMM panels).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "runtime/controller/value.hpp"
#include "shapescript/value.hpp"

namespace ss {

struct Value::State {
  // What the program calls its type: a model's or record's name ("Mlp",
  // "Digit"); an optimiser's model, with its kind in `optimizer`.
  std::string name;
  std::string optimizer;
  std::string label;  // where it came from: "Mlp(seed=0)"

  std::mutex writer;  // held through a `mut` call: one at a time

  struct Version {
    std::shared_ptr<const runtime::Value> value;
    std::uint64_t number = 0;
    // The program (Module::Impl::serial) whose layout this version was
    // found to fit (a call checks it once per version and program, not once
    // per call); 0: none.
    std::uint64_t fits = 0;
  };
  Version current() const {
    std::lock_guard lock(guard_);
    return current_;
  }
  // Makes `next` the current version (the caller holds `writer`); `fits`:
  // the program that made it, whose layout it has.
  void publish(runtime::Value next, std::uint64_t fits = 0) {
    install(std::make_shared<const runtime::Value>(std::move(next)), fits);
  }
  // publish's second half, which allocates nothing: a call that changes
  // several values makes every next version first, then installs them all,
  // so running out of memory midway leaves each value as it was.
  void install(std::shared_ptr<const runtime::Value> next, std::uint64_t fits = 0) noexcept {
    std::lock_guard lock(guard_);
    current_ = {std::move(next), current_.number + 1, fits};
  }
  // Notes that version `number` fits `program`, if it is still current.
  void mark_fits(std::uint64_t number, std::uint64_t program) {
    std::lock_guard lock(guard_);
    if (current_.number == number) current_.fits = program;
  }

 private:
  mutable std::mutex guard_;  // guards current_ alone, held for a pointer copy
  Version current_;
};

// What the API's files need of a Value's insides.
struct ValueAccess {
  // A new handle (version 1) on `v`, whose tensors are made the library's
  // own first: a borrowed buffer (a host view) is copied, owned ones are
  // shared.
  // `fits`: the program whose layout made it (Module::Impl::serial), so
  // its calls there skip the layout check; 0 when none did.
  static Value make(runtime::Value v, std::string name, std::string optimizer, std::string label,
                    std::uint64_t fits = 0);
  static const std::shared_ptr<Value::State>& state(const Value& v) { return v.state_; }
  // A handle on an existing value.
  static Value wrap(std::shared_ptr<Value::State> state) {
    Value v;
    v.state_ = std::move(state);
    return v;
  }
};

// The runtime value with every tensor in memory the library owns.
runtime::Value owned(runtime::Value v);

}  // namespace ss
