/* The C ABI end to end, in C99: an engine, a program with a host function
 * and a sink loaded from source, a device function called with tensors
 * by name, its outputs read back, the coded errors a host meets (a bad
 * program, a wrong shape, an unbound extern fn, a host function that
 * fails), a controller run printing through a callback, hot reload, and
 * sandboxing (no writes, a time limit). Exits 0 when
 * every check holds; prints each failed check. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "shapescript/shapescript.h"

static int failures = 0;
#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

static const char* kProgram =
    "dim D = 3\n"
    "\n"
    "extern fn reward(s: [D]) -> []\n"
    "\n"
    "sink metrics\n"
    "\n"
    "fn scale(x: [b D], k: []) -> [b D] = x * k\n"
    "\n"
    "fn main():\n"
    "    x = ones([D]) * 2.0\n"
    "    r = reward(x)\n"
    "    write(metrics, reward=r)\n"
    "    print(\"reward\", r)\n";

/* reward(s) = sum of squares; refuses a negative element. */
static int reward(void* user, const ss_value* args, size_t count, ss_value* result, char* error,
                  size_t error_size) {
  int* calls = (int*)user;
  float values[16];
  int64_t n, i;
  float total = 0;
  int64_t shape[1] = {0};
  ++*calls;
  if (count != 1 || args[0].kind != SS_VALUE_TENSOR) {
    snprintf(error, error_size, "reward takes one tensor");
    return 1;
  }
  n = ss_tensor_to_floats(args[0].tensor, values, 16);
  for (i = 0; i < n && i < 16; ++i) {
    if (values[i] < 0) {
      snprintf(error, error_size, "a negative reward");
      return 1;
    }
    total += values[i] * values[i];
  }
  result->kind = SS_VALUE_TENSOR;
  result->tensor = ss_tensor_new(SS_F32, &total, shape, 0);
  return 0;
}

static double last_written = 0;
static void sink(void* user, size_t count, const char* const* names, const double* values) {
  (void)user;
  if (count == 1 && strcmp(names[0], "reward") == 0) last_written = values[0];
}

static char printed[256];
static void print(void* user, const char* line) {
  (void)user;
  strncat(printed, line, sizeof printed - strlen(printed) - 1);
}

/* Writes `text` to `path`; a failure fails a check. */
static void write_file(const char* path, const char* text) {
  FILE* f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

int main(int argc, char** argv) {
  ss_status* status = NULL;
  ss_engine_options eo = ss_engine_options_default();
  ss_engine* engine;
  ss_load_options* options;
  ss_module* module;
  int calls = 0;
  const ss_value_kind tensor = SS_VALUE_TENSOR;
  const char* dir = argc > 1 ? argv[1] : ".";
  char path[1024];

  CHECK(strlen(ss_version()) > 0);
  eo.executor = SS_EXECUTOR_REFERENCE;
  engine = ss_engine_new(&eo, &status);
  CHECK(engine != NULL && status == NULL);

  /* A program with errors: no module, a coded status. */
  module = ss_engine_load_source(engine, "fn f(x: [3]) -> [4] = x\n", "bad.ss", NULL, &status);
  CHECK(module == NULL && status != NULL);
  CHECK(strcmp(ss_status_code(status), "E0605") == 0);
  CHECK(strcmp(ss_status_message(status), "`f` returns [3], declared [4]") == 0);
  CHECK(strstr(ss_status_render(status), "bad.ss") != NULL);
  ss_status_free(status);
  status = NULL;

  /* A sink left unbound drops its records, unless the host asks for strict
   * sinks: then it is E1705 at load. */
  options = ss_load_options_new();
  ss_load_options_strict_sinks(options, 1);
  module = ss_engine_load_source(engine, "sink metrics\nfn main():\n    write(metrics, x=1)\n",
                                 "sinks.ss", options, &status);
  CHECK(module == NULL && status != NULL && strcmp(ss_status_code(status), "E1705") == 0);
  ss_status_free(status);
  status = NULL;
  ss_load_options_free(options);
  module = ss_engine_load_source(engine, "sink metrics\nfn main():\n    write(metrics, x=1)\n",
                                 "sinks.ss", NULL, &status);
  CHECK(module != NULL && status == NULL);
  ss_module_free(module);

  /* Unbound extern fn: E1606 at load. */
  options = ss_load_options_new();
  ss_load_options_sink(options, "metrics", sink, NULL);
  module = ss_engine_load_source(engine, kProgram, "prog.ss", options, &status);
  CHECK(module == NULL && status != NULL && strcmp(ss_status_code(status), "E1606") == 0);
  ss_status_free(status);
  status = NULL;

  /* Bound: the module loads; call `scale` with tensors by name. */
  ss_load_options_bind(options, "reward", &tensor, 1, SS_VALUE_TENSOR, reward, &calls);
  module = ss_engine_load_source(engine, kProgram, "prog.ss", options, &status);
  CHECK(module != NULL && status == NULL);
  if (module) {
    const float x[6] = {1, 2, 3, 4, 5, 6};
    const int64_t shape[2] = {2, 3};
    const float k = 0.5f;
    const int64_t scalar[1] = {0};
    ss_tensor* inputs[2];
    const char* names[2] = {"x", "k"};
    ss_call_result* result = NULL;
    inputs[0] = ss_tensor_view(SS_F32, x, shape, 2);
    inputs[1] = ss_tensor_new(SS_F32, &k, scalar, 0);
    status = ss_module_call(module, "scale", 2, names, (const ss_tensor* const*)inputs, &result);
    CHECK(status == NULL && result != NULL);
    if (result) {
      const ss_tensor* y = ss_call_result_tensor(result, 0);
      CHECK(ss_call_result_count(result) == 1);
      CHECK(strcmp(ss_call_result_name(result, 0), "") == 0);
      CHECK(ss_tensor_dtype(y) == SS_F32 && ss_tensor_rank(y) == 2);
      CHECK(ss_tensor_dim(y, 0) == 2 && ss_tensor_dim(y, 1) == 3);
      CHECK(fabsf(((const float*)ss_tensor_data(y))[5] - 3.0f) < 1e-6f);
      ss_call_result_free(result);
    }
    /* A wrong shape: E1603, and the module still works. */
    {
      const int64_t wrong[1] = {4};
      ss_tensor* bad = ss_tensor_new(SS_F32, x, wrong, 1);
      ss_tensor* both[2];
      both[0] = bad;
      both[1] = inputs[1];
      status = ss_module_call(module, "scale", 2, names, (const ss_tensor* const*)both, &result);
      CHECK(status != NULL && strcmp(ss_status_code(status), "E1603") == 0);
      CHECK(result == NULL);
      ss_status_free(status);
      ss_tensor_free(bad);
    }
    ss_tensor_free(inputs[0]);
    ss_tensor_free(inputs[1]);
    ss_module_free(module);
  }

  /* A controller run: the host function, the sink, printing. */
  snprintf(path, sizeof path, "%s/prog.ss", dir);
  write_file(path, kProgram);
  status = ss_engine_run_file(engine, path, "main", print, NULL, options);
  CHECK(status == NULL);
  if (status) fprintf(stderr, "%s", ss_status_render(status));
  ss_status_free(status);
  CHECK(strcmp(printed, "reward 12.0\n") == 0);
  CHECK(last_written == 12.0);
  CHECK(calls == 1);

  /* A host function that fails: E1608, pointing at the call. */
  write_file(path,
             "extern fn reward(s: [3]) -> []\n\nfn main():\n    print(reward(ones([3]) * -1.0))\n");
  status = ss_engine_run_file(engine, path, "main", print, NULL, options);
  CHECK(status != NULL && strcmp(ss_status_code(status), "E1608") == 0);
  CHECK(strstr(ss_status_message(status), "a negative reward") != NULL);
  ss_status_free(status);

  /* Hot reload: a broken source changes nothing; a good one keeps what fits. */
  {
    const char* v1 = "dim D = 3\n\nfn scale(x: [b D], k: []) -> [b D] = x * k\n";
    const char* v2 = "dim D = 4\n\nfn scale(x: [b D], k: []) -> [b D] = x * k\n";
    const float k = 2.0f, x[3] = {1, 2, 3};
    const int64_t scalar[1] = {0}, three[1] = {3};
    const char* names[2] = {"k", "x"};
    ss_tensor* state[2];
    int keep[2] = {-1, -1};
    ss_module* m = ss_engine_load_source(engine, v1, "v1.ss", NULL, &status);
    CHECK(m != NULL);
    state[0] = ss_tensor_new(SS_F32, &k, scalar, 0);
    state[1] = ss_tensor_new(SS_F32, x, three, 1);
    if (m) {
      status = ss_module_reload(m, engine, "fn scale(x: [3]) -> [4] = x\n", "bad.ss", NULL, 2,
                                names, (const ss_tensor* const*)state, keep);
      CHECK(status != NULL && strcmp(ss_status_code(status), "E0605") == 0);
      CHECK(keep[0] == -1); /* untouched */
      ss_status_free(status);
      status = ss_module_reload(m, engine, v2, "v2.ss", NULL, 2, names,
                                (const ss_tensor* const*)state, keep);
      CHECK(status == NULL);
      CHECK(keep[0] == 1); /* k: [] still fits */
      CHECK(keep[1] == 0); /* x: [3] isn't [b 4] */
      ss_module_free(m);
    }
    ss_tensor_free(state[0]);
    ss_tensor_free(state[1]);
  }

  /* Sandboxing: a read-only host refuses save (E1707); a time limit stops a spin (E1609). */
  {
    ss_load_options* sandbox = ss_load_options_new();
    ss_file_access files = ss_file_access_default();
    files.allow_write = 0;
    ss_load_options_files(sandbox, &files);
    write_file(path,
               "model M:\n    param w: [2] = zeros\n\nfn main():\n    save(M(seed=0), \"m.st\")\n");
    status = ss_engine_run_file(engine, path, "main", NULL, NULL, sandbox);
    CHECK(status != NULL && strcmp(ss_status_code(status), "E1707") == 0);
    ss_status_free(status);
    ss_load_options_time_limit(sandbox, 50);
    write_file(path,
               "fn main():\n    t = 0\n    for i in range(1000000000):\n        t = t + i\n"
               "    print(t)\n");
    status = ss_engine_run_file(engine, path, "main", NULL, NULL, sandbox);
    CHECK(status != NULL && strcmp(ss_status_code(status), "E1609") == 0);
    ss_status_free(status);
    ss_load_options_free(sandbox);
  }

  ss_load_options_free(options);
  ss_engine_free(engine);
  if (failures == 0) printf("c api: every check passed\n");
  return failures == 0 ? 0 : 1;
}
