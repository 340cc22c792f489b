// The portable numerics' float functions for compiled kernels
// (SS_JIT_PORTABLE_EXP ...): src/support/portable_math.hpp built here once
// as a scalar function and once per vector width (portable_functions_*.cpp,
// each with its instruction set's flags), handed to the loop vectoriser
// like SLEEF's (vector_math.cpp). Every width gives the scalar one's bits.
#pragma once

#include <string>
#include <vector>

namespace ss::jit {

struct PortableFunction {
  const char* scalar;  // "ss_portable_expf": what a kernel calls
  const char* vector;  // "ss_portable_expf_v8"; null for the scalar entry
  unsigned lanes;      // 1 for the scalar entry
  const char* needs;   // the target feature the vector one needs ("avx2"), or ""
  void* address;
};

// The scalar functions and every width's vector ones.
std::vector<PortableFunction> portable_functions();

}  // namespace ss::jit
