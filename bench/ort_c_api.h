/* ONNX Runtime's C API for the C harnesses (ort_c_latency.c,
 * ort_c_model.c): the onnxruntime wheel ships libonnxruntime.so without its
 * header, so the library is opened with dlopen and the OrtApi table called
 * by slot: ORT only appends to the table (each function says the API
 * version that added it), so the slots below, those of the C API's first
 * versions, hold in every later one. Also the harnesses' clock, sort and
 * file reader. Each harness includes it once. */
#ifndef SS_BENCH_ORT_C_API_H
#define SS_BENCH_ORT_C_API_H

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The OrtApi slots used (onnxruntime_c_api.h's order). */
enum {
  kGetErrorMessage = 2,
  kCreateEnv = 3,
  kCreateSessionFromArray = 8,
  kRun = 9,
  kCreateSessionOptions = 10,
  kSetIntraOpNumThreads = 24,
  kSetInterOpNumThreads = 25,
  kCreateTensorWithDataAsOrtValue = 49,
  kCreateCpuMemoryInfo = 69,
  kReleaseEnv = 92,
  kReleaseMemoryInfo = 94,
  kReleaseSession = 95,
  kReleaseValue = 96,
  kReleaseSessionOptions = 100,
  kApiVersion = 17 /* what the slots above need; any later library serves it */
};

typedef void* Status; /* OrtStatus*, null on success */
typedef struct {
  const void* (*get_api)(uint32_t version);
  const char* (*version_string)(void);
} ApiBase;

static const void* const* api;
static const char* harness = "bench";

#define SLOT(type, index) ((type)api[index])

static void check(Status s, const char* what) {
  if (!s) return;
  const char* (*message)(const void*) = SLOT(const char* (*)(const void*), kGetErrorMessage);
  fprintf(stderr, "%s: %s: %s\n", harness, what, message(s));
  exit(1);
}

/* Opens the library and its API table; exits saying why where it can't. */
static void open_ort(const char* path) {
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "%s: %s\n", harness, dlerror());
    exit(1);
  }
  const ApiBase* (*get_base)(void) = (const ApiBase* (*)(void))dlsym(lib, "OrtGetApiBase");
  if (!get_base || !(api = (const void* const*)get_base()->get_api(kApiVersion))) {
    fprintf(stderr, "%s: no OrtApi of version %d in %s\n", harness, kApiVersion, path);
    exit(1);
  }
}

/* A session of the model's bytes on `threads` intra-op threads (one
 * inter-op), with its environment and options and a CPU memory info; and
 * the two functions a harness calls in its loop. */
typedef struct {
  void *env, *options, *session, *memory;
  Status (*create_tensor)(const void*, void*, size_t, const int64_t*, size_t, int, void**);
  Status (*run)(void*, const void*, const char* const*, const void* const*, size_t,
                const char* const*, size_t, void**);
} Session;

static Session open_session(const void* model, size_t size, int threads) {
  Session s = {NULL, NULL, NULL, NULL, NULL, NULL};
  check(SLOT(Status(*)(int, const char*, void**), kCreateEnv)(3 /* error */, "bench", &s.env),
        "CreateEnv");
  check(SLOT(Status(*)(void**), kCreateSessionOptions)(&s.options), "CreateSessionOptions");
  check(SLOT(Status(*)(void*, int), kSetIntraOpNumThreads)(s.options, threads),
        "SetIntraOpNumThreads");
  check(SLOT(Status(*)(void*, int), kSetInterOpNumThreads)(s.options, 1), "SetInterOpNumThreads");
  check(SLOT(Status(*)(void*, const void*, size_t, void*, void**), kCreateSessionFromArray)(
            s.env, model, size, s.options, &s.session),
        "CreateSessionFromArray");
  check(SLOT(Status(*)(int, int, void**), kCreateCpuMemoryInfo)(0 /* device allocator */,
                                                                0 /* default */, &s.memory),
        "CreateCpuMemoryInfo");
  s.create_tensor = SLOT(Status(*)(const void*, void*, size_t, const int64_t*, size_t, int, void**),
                         kCreateTensorWithDataAsOrtValue);
  s.run = SLOT(Status(*)(void*, const void*, const char* const*, const void* const*, size_t,
                         const char* const*, size_t, void**),
               kRun);
  return s;
}

static void close_session(Session* s) {
  SLOT(void (*)(void*), kReleaseMemoryInfo)(s->memory);
  SLOT(void (*)(void*), kReleaseSession)(s->session);
  SLOT(void (*)(void*), kReleaseSessionOptions)(s->options);
  SLOT(void (*)(void*), kReleaseEnv)(s->env);
}

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int ascending(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* The file's bytes (malloc'd), their count in *size; NULL where unreadable. */
static void* read_all(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *size = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  void* bytes = malloc(*size ? *size : 1);
  if (fread(bytes, 1, *size, f) != *size) {
    free(bytes);
    bytes = NULL;
  }
  fclose(f);
  return bytes;
}

#endif
