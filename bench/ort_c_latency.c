/* ONNX Runtime through its C API, no Python in the timed loop: the peer of
 * bench_latency in bench/latency.sh, over the wheel's library opened at run
 * time (ort_c_api.h).
 *
 *   bench_ort_c_latency LIBONNXRUNTIME MODEL.onnx OUTPUT_NAME [THREADS]
 *
 * The model takes `x` [b 784] and gives OUTPUT_NAME [b 10] (bench/
 * onnx_mlp.py's MLP). Input and output are the caller's buffers, wrapped
 * once (CreateTensorWithDataAsOrtValue), so Run writes into ours as
 * call_into does. Prints `ortc forward_bB p50 p99 p999 max first` lines in
 * microseconds: 100,000 calls at batch 1, 10,000 at batch 64, after 100
 * untimed ones (`first`: the session's first call). */
#define _POSIX_C_SOURCE 200809L
#include <string.h>

#include "ort_c_api.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s LIBONNXRUNTIME MODEL.onnx OUTPUT_NAME [THREADS]\n", argv[0]);
    return 2;
  }
  const int threads = argc > 4 ? atoi(argv[4]) : 1;
  harness = "bench_ort_c_latency";
  open_ort(argv[1]);
  size_t model_size = 0;
  void* model = read_all(argv[2], &model_size);
  if (!model) {
    fprintf(stderr, "bench_ort_c_latency: can't read %s\n", argv[2]);
    return 1;
  }

  Session ort = open_session(model, model_size, threads);
  void (*release_value)(void*) = SLOT(void (*)(void*), kReleaseValue);

  const int64_t batches[2] = {1, 64};
  const int counts[2] = {100000, 10000};
  for (int c = 0; c < 2; ++c) {
    const int64_t b = batches[c];
    float* x = malloc((size_t)b * 784 * sizeof(float));
    float* y = malloc((size_t)b * 10 * sizeof(float));
    srand(1);
    for (int64_t k = 0; k < b * 784; ++k) x[k] = (float)rand() / (float)RAND_MAX - 0.5f;
    const int64_t x_shape[2] = {b, 784}, y_shape[2] = {b, 10};
    void *in = NULL, *out = NULL;
    check(ort.create_tensor(ort.memory, x, (size_t)b * 784 * sizeof(float), x_shape, 2,
                            1 /* float */, &in),
          "CreateTensorWithDataAsOrtValue");
    check(ort.create_tensor(ort.memory, y, (size_t)b * 10 * sizeof(float), y_shape, 2, 1, &out),
          "CreateTensorWithDataAsOrtValue");
    const char* in_names[1] = {"x"};
    const char* out_names[1] = {argv[3]};
    const void* inputs[1] = {in};
    void* outputs[1] = {out};
    const double began = now_us();
    check(ort.run(ort.session, NULL, in_names, inputs, 1, out_names, 1, outputs), "Run");
    const double first = now_us() - began;
    for (int k = 0; k < 100; ++k)
      check(ort.run(ort.session, NULL, in_names, inputs, 1, out_names, 1, outputs), "Run");
    double* us = malloc((size_t)counts[c] * sizeof(double));
    for (int k = 0; k < counts[c]; ++k) {
      const double start = now_us();
      check(ort.run(ort.session, NULL, in_names, inputs, 1, out_names, 1, outputs), "Run");
      us[k] = now_us() - start;
    }
    if (outputs[0] != out) {
      fprintf(stderr, "bench_ort_c_latency: Run replaced the caller's output\n");
      return 1;
    }
    qsort(us, (size_t)counts[c], sizeof(double), ascending);
    const int n = counts[c];
    printf("ortc forward_b%lld %.1f %.1f %.1f %.1f %.1f\n", (long long)b, us[n / 2],
           us[(int)(0.99 * (n - 1))], us[(int)(0.999 * (n - 1))], us[n - 1], first);
    release_value(in);
    release_value(out);
    free(us);
    free(x);
    free(y);
  }
  close_session(&ort);
  free(model);
  return 0;
}
