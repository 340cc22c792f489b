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

#define SS_JIT_ABI_VERSION 11u
#define SS_JIT_ENTRY_SYMBOL "ss_jit_api"

/* What the toolchain probe measured. */
typedef struct SsJitProbeResult {
  float value;       /* the compiled function's result */
  int vector_width;  /* widest <N x float> in the optimised IR: 1 if not vectorised */
  double compile_ms; /* IR building, O3 and ORC materialisation together */
} SsJitProbeResult;

/* A fused elementwise kernel, as steps over values: each step makes one
 * value from earlier ones (by index); the last is the result, a float.
 * A UNARY is neg or logical_not only (ir::Unary's numbers, src/ir/ops.hpp):
 * the core spells every other function of one or two values as its
 * formula's steps (ir/formulas.hpp). Values are float, double (between a
 * WIDEN and a NARROW), or bool (a LOAD_BOOL, a COMPARE, a LOGIC); where a
 * number is wanted a bool is 1 or 0, and where a truth is, a number is
 * one when it isn't 0. */
enum {
  SS_JIT_LOAD = 0,          /* float input `a` */
  SS_JIT_LOAD_BOOL = 1,     /* bool input `a` (one byte an element) */
  SS_JIT_CONSTANT = 2,      /* `value`, a float */
  SS_JIT_UNARY = 3,         /* kind(a): ir::Unary's neg or logical_not */
  SS_JIT_BINARY = 4,        /* kind(a, b): SS_JIT_ADD ... below */
  SS_JIT_WHERE = 5,         /* a ? b : c, a bool */
  SS_JIT_WIDEN = 6,         /* a, a float, as a double */
  SS_JIT_NARROW = 7,        /* a, a double, rounded to float */
  SS_JIT_WIDE_CONSTANT = 8, /* `wide_value`, a double */
  SS_JIT_CALL = 9,          /* kind(a), or kind(a, b): SS_JIT_EXP ... below */
  SS_JIT_COMPARE = 10,      /* kind(a, b): SS_JIT_LT ... below, a bool; NaN unordered */
  SS_JIT_LOGIC = 11         /* kind(a, b): SS_JIT_AND or SS_JIT_OR of truths, a bool */
};

enum { SS_JIT_ADD = 0, SS_JIT_SUB = 1, SS_JIT_MUL = 2, SS_JIT_DIV = 3 };

/* ne is true with a NaN, the others false (C's comparisons). */
enum { SS_JIT_LT = 0, SS_JIT_LE = 1, SS_JIT_GT = 2, SS_JIT_GE = 3, SS_JIT_EQ = 4, SS_JIT_NE = 5 };

enum { SS_JIT_AND = 0, SS_JIT_OR = 1 };

/* Functions of one value, then of two (C's, of a float or a double). */
enum {
  SS_JIT_EXP = 0,
  SS_JIT_LOG = 1,
  SS_JIT_TANH = 2,
  SS_JIT_ERF = 3,
  SS_JIT_SQRT = 4,
  SS_JIT_FABS = 5,
  SS_JIT_FLOOR = 6,
  SS_JIT_POW = 7,
  SS_JIT_FMOD = 8,
  SS_JIT_COPYSIGN = 9,
  SS_JIT_SIN = 10,
  SS_JIT_COS = 11,
  SS_JIT_TAN = 12,
  SS_JIT_ASIN = 13,
  SS_JIT_ACOS = 14,
  SS_JIT_ATAN = 15,
  /* The portable numerics' exp, log, tanh and erf of a float
   * (src/support/portable_math.hpp), the same bits at every vector width
   * and on every CPU with FMA; of a double, the value is narrowed first. */
  SS_JIT_PORTABLE_EXP = 16,
  SS_JIT_PORTABLE_LOG = 17,
  SS_JIT_PORTABLE_TANH = 18,
  SS_JIT_PORTABLE_ERF = 19,
  /* The same for sin, cos, tan, asin, acos and atan, and pow of two values
   * (in double: floats are widened, the result narrowed). */
  SS_JIT_PORTABLE_SIN = 20,
  SS_JIT_PORTABLE_COS = 21,
  SS_JIT_PORTABLE_TAN = 22,
  SS_JIT_PORTABLE_ASIN = 23,
  SS_JIT_PORTABLE_ACOS = 24,
  SS_JIT_PORTABLE_ATAN = 25,
  SS_JIT_PORTABLE_POW = 26
};

typedef struct SsJitStep {
  int32_t op, kind;
  int32_t a, b, c;
  float value;
  double wide_value;
} SsJitStep;

typedef struct SsJitKernelDesc {
  const SsJitStep* steps;
  int32_t step_count;
  int32_t input_count;
  /* Per input: 1 when it is the same along the inner axis (stride 0),
   * else 0 (stride 1). */
  const uint8_t* inner_broadcast;
} SsJitKernelDesc;

/* A compiled kernel: out[o * inner + i] for o < outer, i < inner, input k's
 * element at inputs[k] + o * outer_strides[k] + i (or + 0 where it
 * broadcasts along the inner axis), in elements. */
typedef void (*SsJitKernelFn)(const void* const* inputs, const int64_t* outer_strides, float* out,
                              int64_t outer, int64_t inner);

/* A controller function (ir/host.hpp) as its control flow: one step per
 * instruction. The compiled function calls back into the runtime for the
 * work of each instruction and branches on what the runtime answers, so
 * the interpreter's dispatch loop is gone and no C++ exception ever unwinds
 * through generated code: every callback returns a status. */
enum {
  SS_JIT_HOST_EXEC = 0,   /* exec(i); next */
  SS_JIT_HOST_BRANCH = 1, /* test(i): 1 next, 0 jump to target */
  SS_JIT_HOST_JUMP = 2,   /* jump to target */
  SS_JIT_HOST_LOOP = 3,   /* test(i): 1 next (the loop's body), 0 jump to target */
  SS_JIT_HOST_RETURN = 4  /* exec(i), then return 2 */
};

typedef struct SsJitHostStep {
  int32_t kind, target;
} SsJitHostStep;

typedef struct SsJitHostCallbacks {
  /* 0, or non-zero when the instruction failed (the frame keeps why) */
  int32_t (*exec)(void* frame, int32_t index);
  /* 1 or 0, or negative when it failed */
  int32_t (*test)(void* frame, int32_t index);
} SsJitHostCallbacks;

/* Returns 0 when it ran off its last step, 1 when a callback failed, 2 after
 * a RETURN step. */
typedef int32_t (*SsJitHostFn)(void* frame, const SsJitHostCallbacks* callbacks);

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
  /* What compiled code depends on besides its source: "x86_64-pc-linux-gnu
   * znver5 +avx2,+fma,... LLVM 19.1.7". Part of every code cache key.
   * Static storage; empty when the host target can't be used. */
  const char* (*target_id)(void);
  /* Compiles `count` kernels into one object file (O3 for the host), kernel
   * k named `prefix` followed by k, and hands its bytes to
   * write(context, ...) once. Each step is rounded to its type (no
   * contraction); exp, log, tanh and erf of a float run as float vector
   * math (SLEEF's 1-ulp functions where the process finds libsleef, libm's
   * float functions elsewhere), of a double as libm's. Returns 0, or
   * non-zero with `error` filled. Thread-safe. */
  int (*compile_elementwise)(const SsJitKernelDesc* kernels, int32_t count, const char* prefix,
                             void (*write)(void* context, const void* data, size_t size),
                             void* context, char* error, size_t error_size);
  /* Compiles a controller function's steps into one object file, the
   * function (an SsJitHostFn) named `prefix` followed by 0, and hands its
   * bytes to write(context, ...) once. Returns 0, or non-zero with `error`
   * filled. Thread-safe. */
  int (*compile_controller)(const SsJitHostStep* steps, int32_t count, const char* prefix,
                            void (*write)(void* context, const void* data, size_t size),
                            void* context, char* error, size_t error_size);
  /* Links an object file from compile_elementwise or compile_controller
   * (made now, or kept in a code cache by a process on this target_id) into
   * the process's JIT, fills fns[0..count) with the functions named
   * `prefix` followed by 0, 1, ... and *handle with the link's name. Each
   * link is its own: the same object may be linked twice. The code lives
   * until unload_object(*handle). Returns 0, or non-zero with `error`
   * filled (and nothing linked). Thread-safe. */
  int (*load_object)(const void* object, size_t size, const char* prefix, int32_t count, void** fns,
                     uint64_t* handle, char* error, size_t error_size);
  /* Removes a link load_object made: its code, memory and mappings go back
   * to the process, and its functions must not run again. Returns 0, or
   * non-zero with `error` filled (a handle not linked). Thread-safe. */
  int (*unload_object)(uint64_t handle, char* error, size_t error_size);
  /* How many links are live now. */
  uint64_t (*linked_objects)(void);
} SsJitApi;

/* The module's one export: its table, or NULL when the core asks for another
 * ABI version than the module implements. */
typedef const SsJitApi* (*SsJitEntry)(uint32_t abi_version);

#ifdef __cplusplus
}
#endif

#endif /* SHAPESCRIPT_JIT_API_H */
