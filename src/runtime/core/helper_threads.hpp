// The parallel loops of the GEMM and the fast executor: a job split into
// parts runs on this thread's workers (runtime/core/loop_workers.hpp: the
// engine's own threads or the host's task runner), or one part after
// another here where the thread has none.
#pragma once

#include <chrono>
#include <cstdint>
#include "support/function_ref.hpp"

namespace ss::runtime {

// Polls `ready` for up to `spin` (pausing between polls); true as soon as
// it holds, false if it never did. For waits that usually end sooner than
// waking a sleeping thread would take.
bool spin_until(support::FunctionRef<bool()> ready,
                std::chrono::microseconds spin = std::chrono::microseconds(200));

// Runs job(0), ..., job(parts - 1) on this thread's workers, each under
// this thread's floating-point state (float_state.hpp), and waits for
// them all; without workers (or when another caller has them), every part
// here, one after another (so a job's parts must not wait for each other).
void run_parts(int parts, support::FunctionRef<void(int)> job);

// Splits rows [0, rows) into at most `threads` ranges of at least
// `min_rows` each and runs body(begin, end) on each, through run_parts.
void for_rows(std::int64_t rows, std::int64_t min_rows, int threads,
              support::FunctionRef<void(std::int64_t, std::int64_t)> body);

}  // namespace ss::runtime
