/* ONNX Runtime through its C API on one model of bench/onnx.sh (issue 44),
 * no Python in the timed loop, over the wheel's library opened at run time
 * (ort_c_api.h).
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
#include <string.h>

#include "ort_c_api.h"

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
  if (threads < 1 || calls < 1 || calls > 10000000) {
    fprintf(stderr, "bench_ort_c_model: THREADS and CALLS are counts from 1\n");
    return 2;
  }
  harness = "bench_ort_c_model";
  open_ort(argv[1]);
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

  Session ort = open_session(model, model_size, threads);
  void *in = NULL, *out = NULL;
  check(ort.create_tensor(ort.memory, x, in_bytes, in_shape, in_rank, 1 /* float */, &in), "input");
  check(ort.create_tensor(ort.memory, y, out_count * sizeof(float), out_shape, out_rank, 1, &out),
        "output");
  const char* in_names[1] = {argv[5]};
  const char* out_names[1] = {argv[8]};
  const void* inputs[1] = {in};
  void* outputs[1] = {out};
  const double began = now_us();
  check(ort.run(ort.session, NULL, in_names, inputs, 1, out_names, 1, outputs), "Run");
  const double first = now_us() - began;
  for (int k = 0; k < calls / 10 + 3; ++k)
    check(ort.run(ort.session, NULL, in_names, inputs, 1, out_names, 1, outputs), "Run");
  double* us = malloc((size_t)calls * sizeof(double));
  for (int k = 0; k < calls; ++k) {
    const double start = now_us();
    check(ort.run(ort.session, NULL, in_names, inputs, 1, out_names, 1, outputs), "Run");
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
  close_session(&ort);
  return 0;
}
