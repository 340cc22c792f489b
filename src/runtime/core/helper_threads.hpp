// Helper threads kept for the process, shared by the GEMM and the fast
// executor's loops: a job split into parts runs part 0 on the caller's
// thread and the others on helpers, and returns when all are done.
#pragma once

#include <cstdint>
#include "support/function_ref.hpp"

namespace ss::runtime {

// Polls `ready` for up to 200 microseconds (pausing between polls); true
// as soon as it holds, false if it never did. For waits that usually end
// sooner than waking a sleeping thread would take.
bool spin_until(support::FunctionRef<bool()> ready);

// Runs job(0), ..., job(parts - 1), the first on this thread, and waits
// for them all. When another caller has the helpers, runs every part here,
// one after another (so a job's parts must not wait for each other).
void run_parts(int parts, support::FunctionRef<void(int)> job);

// Splits rows [0, rows) into at most `threads` ranges of at least
// `min_rows` each and runs body(begin, end) on each, through run_parts.
void for_rows(std::int64_t rows, std::int64_t min_rows, int threads,
              support::FunctionRef<void(std::int64_t, std::int64_t)> body);

}  // namespace ss::runtime
