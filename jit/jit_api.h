/* The table the JIT module (libshapescript_jit.so, the only code that sees
 * LLVM) hands to the core, which opens the module with dlopen when it is
 * present. Plain C, so no C++ exception or LLVM type crosses it: every entry
 * returns a status and writes its error text into a caller's buffer.
 * Change SS_JIT_ABI_VERSION with any change to the table. */
#ifndef SHAPESCRIPT_JIT_API_H
#define SHAPESCRIPT_JIT_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SS_JIT_ABI_VERSION 1u
#define SS_JIT_ENTRY_SYMBOL "ss_jit_api"

/* What the toolchain probe measured. */
typedef struct SsJitProbeResult {
  float value;       /* the compiled function's result */
  int vector_width;  /* widest <N x float> in the optimised IR: 1 if not vectorised */
  double compile_ms; /* IR building, O3 and ORC materialisation together */
} SsJitProbeResult;

typedef struct SsJitApi {
  uint32_t abi_version;
  /* "19.1.7": the LLVM the module was built with. Static storage. */
  const char* (*llvm_version)(void);
  /* "znver5": the host CPU as LLVM names it. Static storage. */
  const char* (*host_cpu)(void);
  /* Builds `float f(const float* x, int64_t n, float a)` returning the sum of
   * a * x[i] as LLVM IR (a loop with `reassoc` on the reduction), optimises it
   * at O3 with the host's TargetMachine, compiles it with ORC LLJIT and calls
   * it on x. Returns 0 on success; else non-zero and an error in `error`. */
  int (*probe_scaled_sum)(const float* x, int64_t n, float a, SsJitProbeResult* result, char* error,
                          size_t error_size);
} SsJitApi;

/* The module's one export: its table, or NULL when the core asks for another
 * ABI version than the module implements. */
typedef const SsJitApi* (*SsJitEntry)(uint32_t abi_version);

#ifdef __cplusplus
}
#endif

#endif /* SHAPESCRIPT_JIT_API_H */
