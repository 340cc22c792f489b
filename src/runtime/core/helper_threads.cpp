#include "runtime/core/helper_threads.hpp"

#include <algorithm>
#include <exception>

#include "runtime/core/float_state.hpp"
#include "runtime/core/loop_workers.hpp"
#include "support/inline_vector.hpp"

namespace ss::runtime {

bool spin_until(support::FunctionRef<bool()> ready, std::chrono::microseconds spin) {
  if (ready()) return true;
  if (spin.count() <= 0) return false;
  const auto until = std::chrono::steady_clock::now() + spin;
  for (int i = 1;; ++i) {
    if (ready()) return true;
#if defined(__x86_64__)
    __builtin_ia32_pause();
#endif
    if (i % 64 == 0 && std::chrono::steady_clock::now() > until) return false;
  }
}

void run_parts(int parts, support::FunctionRef<void(int)> job) {
  if (parts <= 1) {
    if (parts == 1) job(0);
    return;
  }
  if (LoopWorkers* workers = current_workers()) {
    // Each part under the caller's floating-point state (a worker's own
    // may differ: a thread inherits its creator's, and a host's job system
    // sets its threads' as it likes).
    const unsigned state = float_state();
    return workers->run(parts, [&](int p) {
      const FloatStateScope caller(state);
      job(p);
    });
  }
  for (int p = 0; p < parts; ++p) job(p);  // no workers here: one after another
}

void for_rows(std::int64_t rows, std::int64_t min_rows, int threads,
              support::FunctionRef<void(std::int64_t, std::int64_t)> body) {
  const std::int64_t parts = std::max<std::int64_t>(
      1, std::min<std::int64_t>(threads, rows / std::max<std::int64_t>(1, min_rows)));
  if (parts <= 1) return body(0, rows);
  const std::int64_t step = (rows + parts - 1) / parts;
  // (on the heap only past 16 parts: a call on the helpers allocates nothing)
  support::InlineVector<std::exception_ptr, 16> failed(static_cast<std::size_t>(parts));
  run_parts(static_cast<int>(parts), [&](int p) {
    try {
      body(p * step, std::min(rows, (p + 1) * step));
    } catch (...) {
      failed[static_cast<std::size_t>(p)] = std::current_exception();
    }
  });
  for (const auto& e : failed)
    if (e) std::rethrow_exception(e);
}

}  // namespace ss::runtime
