/* ONNX Runtime through its C API on one model of bench/onnx.sh (issue 44),
 * no Python in the timed loop; bench_ort_c_latency's way of opening the
 * wheel's library (dlopen, the OrtApi table by slot).
 *
 *   bench_ort_c_model LIBONNXRUNTIME MODEL.onnx THREADS CALLS
 *                     IN_NAME IN.bin IN_SHAPE OUT_NAME OUT.bin OUT_SHAPE
 *
 * One float32 input read from IN.bin, one float32 output written to OUT.bin
 * (raw little-endian), shapes as `8,3,224,224`. Input and output are the
 * caller's buffers, wrapped once, so Run writes into ours as call_into does.
 * Prints `ortc P50 P99 FIRST` in microseconds over CALLS timed calls after
 * CALLS / 10 + 3 untimed ones (FIRST: the session's first call). */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
  kApiVersion = 17
};

typedef void* Status;
typedef struct {
  const void* (*get_api)(uint32_t version);
  const char* (*version_string)(void);
} ApiBase;

static const void* const* api;

#define SLOT(type, index) ((type)api[index])

static void check(Status s, const char* what) {
  if (!s) return;
  const char* (*message)(const void*) = SLOT(const char* (*)(const void*), kGetErrorMessage);
  fprintf(stderr, "bench_ort_c_model: %s: %s\n", what, message(s));
  exit(1);
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

/* "8,3,224,224" into dims; returns the rank, the element count in *count. */
static size_t parse_shape(const char* text, int64_t* dims, size_t* count) {
  size_t rank = 0;
  *count = 1;
  for (const char* p = text; *p && rank < 8;) {
    char* end = NULL;
    dims[rank] = strtoll(p, &end, 10);
    *count *= (size_t)dims[rank++];
    p = *end == ',' ? end + 1 : end;
    if (end == p && *p) break;
  }
  return rank;
}

int main(int argc, char** argv) {
  if (argc != 11) {
    fprintf(stderr,
            "usage: %s LIBONNXRUNTIME MODEL.onnx THREADS CALLS IN_NAME IN.bin IN_SHAPE "
            "OUT_NAME OUT.bin OUT_SHAPE\n",
            argv[0]);
    return 2;
  }
  const int threads = atoi(argv[3]), calls = atoi(argv[4]);
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "bench_ort_c_model: %s\n", dlerror());
    return 1;
  }
  const ApiBase* (*get_base)(void) = (const ApiBase* (*)(void))dlsym(lib, "OrtGetApiBase");
  if (!get_base || !(api = (const void* const*)get_base()->get_api(kApiVersion))) {
    fprintf(stderr, "bench_ort_c_model: no usable OrtApi in %s\n", argv[1]);
    return 1;
  }
  size_t model_size = 0, in_bytes = 0;
  void* model = read_all(argv[2], &model_size);
  float* x = read_all(argv[6], &in_bytes);
  if (!model || !x) {
    fprintf(stderr, "bench_ort_c_model: can't read %s or %s\n", argv[2], argv[6]);
    return 1;
  }
  int64_t in_shape[8], out_shape[8];
  size_t in_count = 0, out_count = 0;
  const size_t in_rank = parse_shape(argv[7], in_shape, &in_count);
  const size_t out_rank = parse_shape(argv[10], out_shape, &out_count);
  if (in_count * sizeof(float) != in_bytes) {
    fprintf(stderr, "bench_ort_c_model: %s holds %zu bytes, not %s's\n", argv[6], in_bytes,
            argv[7]);
    return 1;
  }
  float* y = calloc(out_count, sizeof(float));

  void *env = NULL, *options = NULL, *session = NULL, *memory = NULL;
  check(SLOT(Status (*)(int, const char*, void**), kCreateEnv)(3, "bench", &env), "CreateEnv");
  check(SLOT(Status (*)(void**), kCreateSessionOptions)(&options), "CreateSessionOptions");
  check(SLOT(Status (*)(void*, int), kSetIntraOpNumThreads)(options, threads),
        "SetIntraOpNumThreads");
  check(SLOT(Status (*)(void*, int), kSetInterOpNumThreads)(options, 1), "SetInterOpNumThreads");
  check(SLOT(Status (*)(void*, const void*, size_t, void*, void**), kCreateSessionFromArray)(
            env, model, model_size, options, &session),
        "CreateSessionFromArray");
  check(SLOT(Status (*)(int, int, void**), kCreateCpuMemoryInfo)(0, 0, &memory),
        "CreateCpuMemoryInfo");
  Status (*create_tensor)(const void*, void*, size_t, const int64_t*, size_t, int, void**) =
      SLOT(Status (*)(const void*, void*, size_t, const int64_t*, size_t, int, void**),
           kCreateTensorWithDataAsOrtValue);
  Status (*run)(void*, const void*, const char* const*, const void* const*, size_t,
                const char* const*, size_t, void**) =
      SLOT(Status (*)(void*, const void*, const char* const*, const void* const*, size_t,
                      const char* const*, size_t, void**),
           kRun);
  void *in = NULL, *out = NULL;
  check(create_tensor(memory, x, in_bytes, in_shape, in_rank, 1 /* float */, &in), "input");
  check(create_tensor(memory, y, out_count * sizeof(float), out_shape, out_rank, 1, &out),
        "output");
  const char* in_names[1] = {argv[5]};
  const char* out_names[1] = {argv[8]};
  const void* inputs[1] = {in};
  void* outputs[1] = {out};
  const double began = now_us();
  check(run(session, NULL, in_names, inputs, 1, out_names, 1, outputs), "Run");
  const double first = now_us() - began;
  for (int k = 0; k < calls / 10 + 3; ++k)
    check(run(session, NULL, in_names, inputs, 1, out_names, 1, outputs), "Run");
  double* us = malloc((size_t)calls * sizeof(double));
  for (int k = 0; k < calls; ++k) {
    const double start = now_us();
    check(run(session, NULL, in_names, inputs, 1, out_names, 1, outputs), "Run");
    us[k] = now_us() - start;
  }
  if (outputs[0] != out) {
    fprintf(stderr, "bench_ort_c_model: Run replaced the caller's output\n");
    return 1;
  }
  qsort(us, (size_t)calls, sizeof(double), ascending);
  printf("ortc %.1f %.1f %.1f\n", us[calls / 2], us[(int)(0.99 * (calls - 1))], first);
  FILE* f = fopen(argv[9], "wb");
  if (!f || fwrite(y, sizeof(float), out_count, f) != out_count) {
    fprintf(stderr, "bench_ort_c_model: can't write %s\n", argv[9]);
    return 1;
  }
  fclose(f);
  return 0;
}
