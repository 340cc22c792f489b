/* The C ABI end to end, in C99: an engine, a program with a host function
 * and a sink loaded from source, a device function called with tensors
 * by name, its outputs read back, the coded errors a host meets (a bad
 * program, a wrong shape, an unbound extern fn, a host function that
 * fails), a controller run printing through a callback, hot reload,
 * values the library owns (made, trained in place, saved, loaded, a
 * controller function called with them), and sandboxing (no writes, a
 * time limit), MPI that can't be opened (E1811), and the threads API:
 * a call on the host's task runner, call_async, a batcher, a trace.
 * Exits 0 when every check holds; prints each failed check. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

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
    "fn scaled(k: [], x: [b D]) -> [b D] = x * k\n"
    "\n"
    "fn main():\n"
    "    x = ones([D]) * 2.0\n"
    "    r = reward(x)\n"
    "    write(metrics, reward=r)\n"
    "    print(\"reward\", r)\n";

/* reward(s) = sum of squares; refuses a negative element. */
static int reward(void* user, const ss_host_value* args, size_t count, ss_host_value* result,
                  char* error, size_t error_size) {
  int* calls = (int*)user;
  float values[16];
  int64_t n, i;
  float total = 0;
  int64_t shape[1] = {0};
  ++*calls;
  if (count != 1 || args[0].kind != SS_HOST_TENSOR) {
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
  result->kind = SS_HOST_TENSOR;
  result->tensor = ss_tensor_new(SS_F32, &total, shape, 0);
  return 0;
}

static double last_written = 0;
static void sink(void* user, size_t count, const char* const* names, const double* values) {
  (void)user;
  if (count == 1 && strcmp(names[0], "reward") == 0) last_written = values[0];
}

/* The host's job system: tasks one after another, here; counted. Posts
 * declined, so async calls run on the engine's own thread. */
static int tasks_run = 0;
static void run_tasks(void* user, int count, ss_task_fn task, void* context) {
  int i;
  (void)user;
  for (i = 0; i < count; ++i) {
    task(context, i);
    ++tasks_run;
  }
}

static int trace_calls = 0, trace_nodes = 0;
static void trace(void* user, const ss_trace_event* e) {
  (void)user;
  if (e->kind == 0)
    ++trace_calls;
  else if (e->microseconds >= 0 && e->op[0] != '\0')
    ++trace_nodes;
}

/* call_async's and a submitted request's completions (set on another
 * thread; read after waiting for them). */
static volatile int async_done = 0, async_ok = 0, submitted_done = 0;
static float async_last = 0;
static void on_async(void* user, ss_status* status, ss_call_result* result) {
  (void)user;
  if (status == NULL && result != NULL) {
    async_last = ((const float*)ss_tensor_data(ss_call_result_tensor(result, 0)))[5];
    async_ok = 1;
  }
  ss_status_free(status);
  ss_call_result_free(result);
  async_done = 1;
}
static void on_submitted(void* user, ss_status* status) {
  (void)user;
  submitted_done = status == NULL ? 1 : -1;
  ss_status_free(status);
}
static void wait_for(volatile int* flag) {
  int i;
  const struct timespec ms = {0, 1000000};
  for (i = 0; i < 20000 && !*flag; ++i) nanosleep(&ms, NULL);
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
  const ss_host_kind tensor = SS_HOST_TENSOR;
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
  ss_load_options_bind(options, "reward", &tensor, 1, SS_HOST_TENSOR, reward, &calls);
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
    /* call_async: done on the engine's thread, with the call's result. */
    {
      ss_arg args[2];
      args[0] = ss_arg_tensor(inputs[0]);
      args[1] = ss_arg_tensor(inputs[1]);
      status = ss_module_call_async(module, "scale", args, 2, on_async, NULL);
      CHECK(status == NULL);
      wait_for(&async_done);
      CHECK(async_done && async_ok && fabsf(async_last - 3.0f) < 1e-6f);
    }
    /* A batcher: two agents' rows (k resident), one run, one submitted. */
    {
      ss_arg resident[1];
      ss_batcher* batcher;
      const int64_t row[1] = {3};
      float out_a[3] = {0, 0, 0}, out_b[3] = {0, 0, 0};
      ss_tensor *in_a = ss_tensor_view(SS_F32, x, row, 1),
                *in_b = ss_tensor_view(SS_F32, x + 3, row, 1);
      ss_tensor *o_a = ss_tensor_view(SS_F32, out_a, row, 1),
                *o_b = ss_tensor_view(SS_F32, out_b, row, 1);
      resident[0] = ss_arg_tensor(inputs[1]);
      batcher = ss_batcher_new(module, "scaled", resident, 1, 8, 1000, &status);
      CHECK(batcher != NULL && status == NULL);
      if (batcher) {
        status = ss_batcher_submit(batcher, (const ss_tensor* const*)&in_b, 1,
                                   (const ss_tensor* const*)&o_b, 1, on_submitted, NULL);
        CHECK(status == NULL && submitted_done == 0);
        /* Not full: run()'s wait ends, and its thread runs both. */
        status = ss_batcher_run(batcher, (const ss_tensor* const*)&in_a, 1,
                                (const ss_tensor* const*)&o_a, 1);
        CHECK(status == NULL);
        CHECK(submitted_done == 1);
        CHECK(fabsf(out_a[2] - 1.5f) < 1e-6f && fabsf(out_b[2] - 3.0f) < 1e-6f);
        CHECK(ss_batcher_flush(batcher) == NULL);
        ss_batcher_free(batcher);
      }
      ss_tensor_free(in_a);
      ss_tensor_free(in_b);
      ss_tensor_free(o_a);
      ss_tensor_free(o_b);
    }
    ss_tensor_free(inputs[0]);
    ss_tensor_free(inputs[1]);
    ss_module_free(module);
  }

  /* An engine on the host's job system, traced: a large enough product
   * splits into tasks the host runs; the trace sees the call's nodes. */
  {
    ss_engine_options options = ss_engine_options_default();
    ss_engine* hosted;
    options.threads = 4;
    options.run_tasks = run_tasks;
    options.trace = trace;
    hosted = ss_engine_new(&options, &status);
    CHECK(hosted != NULL && status == NULL);
    if (hosted) {
      ss_module* big;
      snprintf(path, sizeof path, "%s/big.ss", dir);
      write_file(path, "fn mm(a: [b 256], w: [256 256]) -> [b 256] = a @ w\n");
      big = ss_engine_load_file(hosted, path, NULL, &status);
      CHECK(big != NULL && status == NULL);
      if (big) {
        static float a[256 * 256], w[256 * 256];
        const int64_t square[2] = {256, 256};
        ss_tensor* ab[2];
        const char* names2[2] = {"a", "w"};
        ss_call_result* out = NULL;
        ab[0] = ss_tensor_view(SS_F32, a, square, 2);
        ab[1] = ss_tensor_view(SS_F32, w, square, 2);
        status = ss_module_call(big, "mm", 2, names2, (const ss_tensor* const*)ab, &out);
        CHECK(status == NULL);
        CHECK(tasks_run > 1);
        CHECK(trace_calls == 1 && trace_nodes >= 3);
        ss_call_result_free(out);
        ss_tensor_free(ab[0]);
        ss_tensor_free(ab[1]);
        ss_module_free(big);
      }
      ss_engine_free(hosted);
    }
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

  /* Values: a resident model made from a seed, called at batch 1 with a
   * host tensor, trained in place on a batch (its version moves on, a copy's
   * doesn't), saved and loaded back, and a controller function called with
   * values, its print going to the host. */
  {
    static const char* kPolicy =
        "dim D = 2\ndim A = 2\n\n"
        "data Step:\n    obs: [D]\n    target: [A]\n\n"
        "model Policy:\n    param w: [D A] = glorot\n    param b: [A] = zeros\n\n"
        "fn act(m: Policy, x: [n D]) -> [n A] = x @ m.w + m.b\n\n"
        "fn loss(m: Policy, batch: [n] Step) -> []:\n"
        "    d = act(m, batch.obs) - batch.target\n"
        "    return mean(mean(d * d, over=A), over=n)\n\n"
        "fn train_step(mut m: Policy, mut opt: SGD[Policy], batch: [n] Step) -> []:\n"
        "    l, g = value_and_grad(loss, m, batch)\n"
        "    update(mut m, mut opt, g)\n"
        "    return l\n\n"
        "fn fit(mut m: Policy, mut opt: SGD[Policy], data: Dataset[Step], epochs: int) -> []:\n"
        "    l = 0.0\n"
        "    for e in range(epochs):\n"
        "        for batch in data |> batches(2):\n"
        "            l = train_step(mut m, mut opt, batch)\n"
        "    print(\"fitted\", epochs)\n"
        "    return l\n";
    const float obs[4] = {1, 0, 0, 1}, target[4] = {1, 2, 3, 4};
    const int64_t two_by_two[2] = {2, 2}, one_by_two[2] = {1, 2};
    const char* fields[2] = {"obs", "target"};
    const char* lr_name[1] = {"lr"};
    const double lr[1] = {0.1};
    ss_load_options* po = ss_load_options_new();
    ss_module* m;
    ss_value *policy = NULL, *opt = NULL, *batch = NULL, *data = NULL, *kept = NULL, *back = NULL;
    ss_tensor* parts[2];
    ss_call_result* r = NULL;
    printed[0] = 0;
    ss_load_options_print(po, print, NULL);
    m = ss_engine_load_source(engine, kPolicy, "policy.ss", po, &status);
    CHECK(m != NULL);
    if (m) {
      ss_tensor* x = ss_tensor_view(SS_F32, obs, one_by_two, 2);
      ss_tensor *w, *out_view;
      float out[2] = {0, 0};
      double first = 0, last = 0;
      int step;
      CHECK(ss_module_make(m, "Policy", 0, &policy) == NULL);
      CHECK(ss_value_kind_of(policy) == SS_KIND_MODEL);
      CHECK(strcmp(ss_value_type(policy), "Policy") == 0);
      CHECK(ss_value_field_count(policy) == 2);
      CHECK(strcmp(ss_value_field_name(policy, 0), "b") == 0);
      CHECK(ss_module_make_optimizer(m, "SGD", policy, 1, lr_name, lr, &opt) == NULL);
      parts[0] = ss_tensor_view(SS_F32, obs, two_by_two, 2);
      parts[1] = ss_tensor_view(SS_F32, target, two_by_two, 2);
      CHECK(ss_module_batch(m, "Step", 2, fields, (const ss_tensor* const*)parts, &batch) == NULL);
      CHECK(ss_module_dataset(m, "Step", 2, fields, (const ss_tensor* const*)parts, &data) == NULL);
      kept = ss_module_copy_value(m, policy);

      /* act(policy, x): x @ w + b, computed here from the value's own w. */
      {
        ss_arg args[2];
        args[0] = ss_arg_value(policy);
        args[1] = ss_arg_tensor(x);
        status = ss_module_call_values(m, "act", args, 2, &r);
        CHECK(status == NULL && ss_call_result_value_count(r) == 1);
        w = ss_value_field(policy, "w");
        if (r && w) {
          ss_value* y = ss_call_result_value(r, 0);
          ss_tensor* yt = ss_value_tensor(y);
          const float* wd = (const float*)ss_tensor_data(w);
          /* x = [1 0], b = 0: y = w's first row */
          CHECK(fabsf(((const float*)ss_tensor_data(yt))[0] - wd[0]) < 1e-6f);
          CHECK(fabsf(((const float*)ss_tensor_data(yt))[1] - wd[1]) < 1e-6f);
          ss_tensor_free(yt);
          ss_value_free(y);
        }
        ss_call_result_free(r);
        r = NULL;
        /* into the host's buffer */
        out_view = ss_tensor_view(SS_F32, out, one_by_two, 2);
        CHECK(ss_module_call_into(m, "act", args, 2, (const ss_tensor* const*)&out_view, 1) ==
              NULL);
        if (w) CHECK(fabsf(out[1] - ((const float*)ss_tensor_data(w))[1]) < 1e-6f);
        ss_tensor_free(out_view);
        ss_tensor_free(w);
      }
      /* train_step in place, ten times: the loss falls, versions count. */
      for (step = 0; step < 10; ++step) {
        ss_arg args[3];
        ss_value* l;
        args[0] = ss_arg_mut(policy);
        args[1] = ss_arg_mut(opt);
        args[2] = ss_arg_value(batch);
        status = ss_module_call_values(m, "train_step", args, 3, &r);
        CHECK(status == NULL);
        if (status) {
          fprintf(stderr, "%s", ss_status_render(status));
          ss_status_free(status);
          break;
        }
        l = ss_call_result_value(r, 0);
        if (step == 0) first = ss_value_number(l);
        last = ss_value_number(l);
        ss_value_free(l);
        ss_call_result_free(r);
        r = NULL;
      }
      CHECK(last < first);
      CHECK(ss_value_version(policy) == 11);
      CHECK(ss_value_version(kept) == 1);
      /* A `mut` parameter given a value to read: E1603. */
      {
        ss_arg args[3];
        args[0] = ss_arg_value(policy);
        args[1] = ss_arg_mut(opt);
        args[2] = ss_arg_value(batch);
        status = ss_module_call_values(m, "train_step", args, 3, &r);
        CHECK(status != NULL && strcmp(ss_status_code(status), "E1603") == 0);
        ss_status_free(status);
      }
      /* Saved and loaded back: the same weights. */
      snprintf(path, sizeof path, "%s/policy.safetensors", dir);
      CHECK(ss_module_save_value(m, policy, path) == NULL);
      CHECK(ss_module_load_value(m, "Policy", path, 0, NULL, NULL, &back) == NULL);
      {
        ss_tensor* a = ss_value_field(policy, "w");
        ss_tensor* b = ss_value_field(back, "w");
        CHECK(a && b && memcmp(ss_tensor_data(a), ss_tensor_data(b), 4 * sizeof(float)) == 0);
        ss_tensor_free(a);
        ss_tensor_free(b);
      }
      {
        ss_value* none = NULL;
        ss_status* s = ss_module_load_value(m, "Nothing", path, 0, NULL, NULL, &none);
        CHECK(s != NULL && strcmp(ss_status_code(s), "E1604") == 0 && none == NULL);
        ss_status_free(s);
      }
      /* A controller function with values: fit for 3 epochs of 1 batch. */
      {
        ss_arg args[4];
        ss_status* s;
        args[0] = ss_arg_mut(policy);
        args[1] = ss_arg_mut(opt);
        args[2] = ss_arg_value(data);
        args[3] = ss_arg_integer(3);
        s = ss_module_call_values(m, "fit", args, 4, &r);
        CHECK(s == NULL);
        if (s) fprintf(stderr, "%s", ss_status_render(s));
        ss_status_free(s);
        CHECK(ss_value_version(policy) == 12);
        CHECK(strcmp(printed, "fitted 3\n") == 0);
        ss_call_result_free(r);
        r = NULL;
      }
      ss_tensor_free(parts[0]);
      ss_tensor_free(parts[1]);
      ss_tensor_free(x);
    }
    ss_value_free(policy);
    ss_value_free(opt);
    ss_value_free(batch);
    ss_value_free(data);
    ss_value_free(kept);
    ss_value_free(back);
    ss_module_free(m);
    ss_load_options_free(po);
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

  /* MPI that can't be opened (ctest points SHAPESCRIPT_MPI nowhere): E1811,
   * and the options stay usable. */
  {
    ss_load_options* mpi = ss_load_options_new();
    status = NULL;
    CHECK(ss_load_options_mpi(mpi, NULL, &status) != 0);
    CHECK(status != NULL && strcmp(ss_status_code(status), "E1811") == 0);
    ss_status_free(status);
    ss_load_options_free(mpi);
  }

  /* An ONNX model, translated and loaded; its refusals coded. */
  if (argc > 2) {
    const float xs[6] = {-1, 2, -3, 4, -5, 6};
    const int64_t shape2[2] = {2, 3};
    const char* names[1] = {"x"};
    ss_tensor* x = ss_tensor_new(SS_F32, xs, shape2, 2);
    const ss_tensor* inputs[1];
    ss_value* weights = NULL;
    ss_call_result* result = NULL;
    ss_onnx_options onnx = ss_onnx_options_default();
    float out[6] = {0};
    inputs[0] = x;
    snprintf(path, sizeof path, "%s/tests/onnx/models/relu.onnx", argv[2]);
    module = ss_engine_load_onnx(engine, path, &onnx, NULL, &weights, &status);
    CHECK(module != NULL && status == NULL && weights == NULL); /* no initializer, no model */
    if (module) {
      status = ss_module_call(module, "forward", 1, names, inputs, &result);
      CHECK(status == NULL && result != NULL);
      if (result) {
        CHECK(ss_tensor_to_floats(ss_call_result_tensor(result, 0), out, 6) == 6);
        CHECK(out[0] == 0 && out[1] == 2 && out[5] == 6);
        ss_call_result_free(result);
      }
      ss_module_free(module);
    }
    snprintf(path, sizeof path, "%s/tests/onnx/models/determinant.onnx", argv[2]);
    module = ss_engine_load_onnx(engine, path, NULL, NULL, NULL, &status);
    CHECK(module == NULL && status != NULL && strcmp(ss_status_code(status), "E2004") == 0);
    ss_status_free(status);
    status = NULL;
    module = ss_engine_load_onnx_bytes(engine, "junk", 4, NULL, NULL, NULL, &status);
    CHECK(module == NULL && status != NULL && strcmp(ss_status_code(status), "E2002") == 0);
    ss_status_free(status);
    status = NULL;
    ss_tensor_free(x);
  }

  ss_load_options_free(options);
  ss_engine_free(engine);
  if (failures == 0) printf("c api: every check passed\n");
  return failures == 0 ? 0 : 1;
}
