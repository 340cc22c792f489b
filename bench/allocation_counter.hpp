// The process's heap allocations so far (bench/allocation_counter.cpp,
// linked into a benchmark, counts every malloc, calloc, realloc and
// aligned allocation, operator new's among them).
#pragma once

namespace ss::bench {

long allocations();

}  // namespace ss::bench
