/* The C ABI of libshapescript (C99), for hosts in C and for other
 * languages' bindings. It covers engines, loading programs, calling their
 * functions with tensors, running a controller function, host functions
 * for `extern fn`s, and a host's own collectives. The C++ API
 * (<shapescript/shapescript.hpp>) sits beside it: both drive the same
 * library.
 *
 * Errors. A call that can fail returns an ss_status*: NULL on success, or
 * a status holding the program's diagnostics (the first one's code, such
 * as "E1603", and every one rendered rustc-style). The caller frees it with
 * ss_status_free. No C++ exception ever crosses this boundary; memory the
 * machine can't give is "E1611", and a bug in the library becomes a status
 * with code "E0001" (internal error).
 *
 * Null pointers. Every function checks each pointer it is given. One it
 * needs that is NULL is "E1612" from a function that returns a status; a
 * function that makes an object returns NULL instead, and an accessor an
 * empty answer (0, "", NULL, SS_DTYPE_NONE). The pointers that may be NULL
 * say so below (user data pointers always may); an array of `count` items
 * may be NULL when count is 0, and none of its items may be.
 *
 * Ownership. Every object a `_new`, `_load`, `_make`, `_call` or `_value`
 * function returns (or sets through an `out` pointer)
 * belongs to the caller, who frees it with the matching `_free` (each
 * `_free` takes NULL). Strings the library returns live as long as the
 * object they come from. A tensor made by ss_tensor_view borrows the
 * host's memory, which must outlive every call that uses the tensor.
 * Modules keep what they need of their engine and load options, so those
 * may be freed first.
 *
 * Threads. An engine, a module and a value may be used from several
 * threads at once (see "values" below). A load options object, a call
 * result and a status are not shared: one thread at a time.
 */
#ifndef SHAPESCRIPT_H
#define SHAPESCRIPT_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define SS_C_API __attribute__((visibility("default")))
#else
#define SS_C_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ss_engine ss_engine;
typedef struct ss_module ss_module;
typedef struct ss_tensor ss_tensor;
typedef struct ss_status ss_status;
typedef struct ss_load_options ss_load_options;
typedef struct ss_call_result ss_call_result;
typedef struct ss_value ss_value; /* a value the library owns (below) */

/* ---- statuses ---- */

/* The first diagnostic's code ("E1603"; "E0001" for a library bug). */
SS_C_API const char* ss_status_code(const ss_status* status);
/* The first diagnostic's message, one line. */
SS_C_API const char* ss_status_message(const ss_status* status);
/* Every diagnostic, rendered as the CLI prints them. */
SS_C_API const char* ss_status_render(const ss_status* status);
SS_C_API void ss_status_free(ss_status* status);

SS_C_API const char* ss_version(void);

/* ---- tensors ---- */

typedef enum {
  SS_DTYPE_NONE = -1, /* what ss_tensor_dtype says of NULL */
  SS_F32 = 0,
  SS_BF16 = 1,
  SS_F16 = 2,
  SS_I32 = 3,
  SS_BOOL = 4
} ss_dtype;

/* Owned copies of `data` (row-major, `rank` axes of `shape`). NULL when
 * a size is negative, the dtype unknown, or `data` (or `shape`) NULL for a
 * tensor with elements (axes). */
SS_C_API ss_tensor* ss_tensor_new(ss_dtype dtype, const void* data, const int64_t* shape,
                                  size_t rank);
/* A view of the host's memory (row-major), not copied, for SS_F32 and
 * SS_I32; other dtypes are copied. */
SS_C_API ss_tensor* ss_tensor_view(ss_dtype dtype, const void* data, const int64_t* shape,
                                   size_t rank);
SS_C_API ss_dtype ss_tensor_dtype(const ss_tensor* t);
SS_C_API size_t ss_tensor_rank(const ss_tensor* t);
SS_C_API int64_t ss_tensor_dim(const ss_tensor* t, size_t axis);
SS_C_API int64_t ss_tensor_size(const ss_tensor* t);
/* The elements, row-major, as the tensor's dtype. */
SS_C_API const void* ss_tensor_data(const ss_tensor* t);
/* Copies at most `count` elements into `out` as floats (integers and bools
 * converted); returns how many the tensor has. */
SS_C_API int64_t ss_tensor_to_floats(const ss_tensor* t, float* out, int64_t count);
SS_C_API void ss_tensor_free(ss_tensor* t);

/* ---- engines ---- */

typedef enum { SS_CPU = 0, SS_CUDA = 1 } ss_device_kind;
typedef enum { SS_EXECUTOR_FAST = 0, SS_EXECUTOR_REFERENCE = 1 } ss_executor;
typedef enum { SS_PRECISION_F32 = 0, SS_PRECISION_TF32 = 1, SS_PRECISION_BF16 = 2 } ss_precision;
typedef enum { SS_NUMERICS_FAST = 0, SS_NUMERICS_PORTABLE = 1 } ss_numerics;
typedef enum {
  SS_LOG_TRACE = 0,
  SS_LOG_DEBUG = 1,
  SS_LOG_INFO = 2,
  SS_LOG_WARN = 3,
  SS_LOG_ERROR = 4,
  SS_LOG_OFF = 5
} ss_log_level;

/* A task of the host's job system: run it as task(context, index). */
typedef void (*ss_task_fn)(void* context, int index);

/* One timed span of a call (ss::TraceEvent in C++): kind 0 for a call, 1
 * for one of its nodes (which come before their call). The strings live
 * during the callback only. */
typedef struct {
  int kind;
  const char* function;
  const char* node;     /* "%12": the node's index; "" for a call */
  const char* op;       /* "matmul", "fused", ...; "call" */
  const char* executor; /* "fast", "reference", "cuda", ... */
  int64_t call;         /* the call's number, from 1 */
  double start_us;      /* since the engine was made */
  double microseconds;
  int64_t bytes;
  uint64_t thread;
} ss_trace_event;

typedef struct {
  ss_device_kind device;
  int device_index;
  ss_executor executor;
  int threads; /* the fast executor's, 1 or more */
  ss_precision precision;
  ss_log_level log_level;
  /* Receives each log message at or above log_level; NULL: standard error. */
  void (*log)(void* user, ss_log_level level, const char* message);
  void* log_user;
  /* Nonzero: on CUDA, sums that atomics would order (scatter_add) in index
   * order, so every run repeats its bits. */
  int deterministic;
  /* The host's job system for the parallel loops (ss::TaskRunner): NULL,
   * the engine's own threads. run_tasks runs task(context, 0 .. count - 1)
   * on any threads and returns when all are done; post_task (may be NULL)
   * runs task(context, 0) later and returns nonzero, or returns 0 to
   * decline. Both get tasks_user. */
  void (*run_tasks)(void* tasks_user, int count, ss_task_fn task, void* context);
  int (*post_task)(void* tasks_user, ss_task_fn task, void* context);
  void* tasks_user;
  /* How long idle workers poll before they sleep, in microseconds (0: no
   * spinning; the default 50). */
  int spin_microseconds;
  /* Told each call's and each node's timing; NULL: nothing is measured. */
  void (*trace)(void* trace_user, const ss_trace_event* event);
  void* trace_user;
  /* A folder that keeps compiled code between processes (made on the
   * first store; ss::directory_code_cache); NULL or "": none. */
  const char* code_cache_directory;
  /* The fast CPU executor's numerics (ss::Numerics): the same bits on every
   * x86-64 CPU with SS_NUMERICS_PORTABLE. */
  ss_numerics numerics;
} ss_engine_options;

/* The defaults: the CPU, the fast executor, one thread, f32, logging off. */
SS_C_API ss_engine_options ss_engine_options_default(void);
/* An engine; NULL with *status (E19xx) when its device can't be used.
 * `options` may be NULL for the defaults. */
SS_C_API ss_engine* ss_engine_new(const ss_engine_options* options, ss_status** status);
SS_C_API void ss_engine_free(ss_engine* engine);

/* ---- load options: dims, sinks, host functions, collectives ---- */

SS_C_API ss_load_options* ss_load_options_new(void);
SS_C_API void ss_load_options_free(ss_load_options* options);
/* The size of a dim declared without one (`dim V`). */
SS_C_API ss_status* ss_load_options_set_dim(ss_load_options* options, const char* name,
                                            int64_t size);
/* A sink's destination: called for each `write`, with the names and values.
 * A declared sink left unbound drops its records; `fn` NULL unbinds it. The
 * load options setters return NULL, or E1612 for a null pointer they need. */
typedef void (*ss_sink_fn)(void* user, size_t count, const char* const* names,
                           const double* values);
SS_C_API ss_status* ss_load_options_sink(ss_load_options* options, const char* name, ss_sink_fn fn,
                                         void* user);
/* Nonzero: a declared sink left unbound is E1705 at load (default 0). */
SS_C_API ss_status* ss_load_options_strict_sinks(ss_load_options* options, int strict);

/* Host functions (`extern fn`). A value crossing: a tensor, a number or a
 * string. */
typedef enum { SS_HOST_TENSOR = 0, SS_HOST_NUMBER = 1, SS_HOST_STRING = 2 } ss_host_kind;
typedef struct {
  ss_host_kind kind;
  ss_tensor* tensor; /* for SS_HOST_TENSOR */
  double number;     /* for SS_HOST_NUMBER */
  const char* text;  /* for SS_HOST_STRING */
} ss_host_value;
/* Called with the arguments (the library's, valid during the call). It
 * sets *result and returns 0, or writes a message into error (at most
 * error_size bytes, NUL included) and returns nonzero: E1608 at the call.
 * A tensor result becomes the library's (it frees it); a string result is
 * copied before the function's next call. */
typedef int (*ss_host_fn)(void* user, const ss_host_value* args, size_t count,
                          ss_host_value* result, char* error, size_t error_size);
/* Binds `name`'s `extern fn`: the kinds it takes, in order, and returns
 * (E1607 at load when they don't fit the declaration). */
SS_C_API ss_status* ss_load_options_bind(ss_load_options* options, const char* name,
                                         const ss_host_kind* params, size_t count,
                                         ss_host_kind result, ss_host_fn fn, void* user);

/* A host's own collectives for a several-device program (MPI, Gloo, its own
 * NCCL), as in the C++ API's CollectiveTable: each returns 0 on success
 * (anything else is E1806), called from the worker thread of `local`. */
typedef struct {
  void* context;
  int world;
  const int* ranks; /* each local device's rank, in `devices` order */
  size_t local_count;
  int (*all_reduce_f32)(void* context, int local, float* data, size_t count);
  int (*all_reduce_i32)(void* context, int local, int32_t* data, size_t count);   /* may be NULL */
  int (*broadcast)(void* context, int local, void* data, size_t bytes, int root); /* may be NULL */
  int (*barrier)(void* context, int local);                                       /* may be NULL */
  void (*abort)(void* context);                                                   /* may be NULL */
} ss_collective_table;
/* The table is copied; its context must outlive the module. */
SS_C_API ss_status* ss_load_options_collectives(ss_load_options* options,
                                                const ss_collective_table* table);

/* Several processes on MPI (the C++ API's LoadOptions::mpi): over the
 * host's communicator (`mpi_comm` points at its MPI_Comm) or MPI_COMM_WORLD
 * (NULL), MPI initialised here when the host hasn't. Returns 0, or nonzero
 * with *status (E1811) when the MPI adapter or MPI can't be opened. */
SS_C_API int ss_load_options_mpi(ss_load_options* options, const void* mpi_comm,
                                 ss_status** status);

/* Sandboxing. Every file a program's `load` and `save` touch must lie
 * inside `root` (NULL or "": anywhere); reading or writing may be refused
 * altogether (E1707). `read` and `write`, when given, serve the files
 * instead of the file system: `read` returns a buffer the library frees
 * with `free_bytes` (NULL: not found, with a message in `error`). */
typedef struct {
  const char* root;
  int allow_read; /* nonzero: allowed */
  int allow_write;
  void* user;
  char* (*read)(void* user, const char* path, size_t* size, char* error, size_t error_size);
  int (*write)(void* user, const char* path, const char* bytes, size_t size, char* error,
               size_t error_size);
  void (*free_bytes)(void* user, char* bytes);
} ss_file_access;
/* Everything allowed, on the real file system. */
SS_C_API ss_file_access ss_file_access_default(void);
SS_C_API ss_status* ss_load_options_files(ss_load_options* options, const ss_file_access* files);
/* How long one run may take, in milliseconds (E1609 past it; 0: no limit). */
SS_C_API ss_status* ss_load_options_time_limit(ss_load_options* options, int64_t milliseconds);

/* ---- modules ---- */

/* A checked, loaded program; NULL with *status when it has errors.
 * `name`, `options` and `status` may be NULL. */
SS_C_API ss_module* ss_engine_load_source(const ss_engine* engine, const char* text,
                                          const char* name, const ss_load_options* options,
                                          ss_status** status);
SS_C_API ss_module* ss_engine_load_file(const ss_engine* engine, const char* path,
                                        const ss_load_options* options, ss_status** status);
SS_C_API void ss_module_free(ss_module* module);

/* ONNX models (docs/onnx.md): translated to a program, which is loaded
 * with `options`. The `Onnx` model value forward takes first goes to
 * *weights (NULL when the graph has no float initializer; `weights` may be
 * NULL). `onnx` may be NULL (the defaults): extra source appended to the
 * program, initializers imported as constants, sizes of the graph's
 * symbolic dims by its names, and the importer's path (NULL or "": the
 * usual search). A count whose array is NULL, or a NULL item, is E1612;
 * a frozen name the graph has no initializer of is E2011. Refusals are
 * E2001-E2011. */
typedef struct {
  const char* extra_source;
  size_t frozen_count;
  const char* const* frozen;
  size_t dim_count;
  const char* const* dim_names;
  const int64_t* dim_sizes;
  const char* library;
} ss_onnx_options;
SS_C_API ss_onnx_options ss_onnx_options_default(void);
SS_C_API ss_module* ss_engine_load_onnx(const ss_engine* engine, const char* path,
                                        const ss_onnx_options* onnx, const ss_load_options* options,
                                        ss_value** weights, ss_status** status);
SS_C_API ss_module* ss_engine_load_onnx_bytes(const ss_engine* engine, const void* bytes,
                                              size_t size, const ss_onnx_options* onnx,
                                              const ss_load_options* options, ss_value** weights,
                                              ss_status** status);

/* Hot reload: loads `text` and, when it has no errors, makes it the
 * module's program (a status with the errors otherwise, the module
 * untouched). Calls on other threads may run meanwhile: each finishes on
 * the program it started with. `name`, `options` and `keep` may be NULL.
 * `state_names` and
 * `state` are the host's `count` named tensors for its calls; `keep` (count
 * entries, may be NULL) gets 1 for each the new program still takes with
 * that shape and element type, 0 for each it doesn't. */
SS_C_API ss_status* ss_module_reload(ss_module* module, const ss_engine* engine, const char* text,
                                     const char* name, const ss_load_options* options, size_t count,
                                     const char* const* state_names, const ss_tensor* const* state,
                                     int* keep);

/* Calls a device function with its inputs by name (`x`, `m.w1`,
 * `batch.pixels`). On success *result holds its outputs (`result` may be
 * NULL). */
SS_C_API ss_status* ss_module_call(const ss_module* module, const char* function, size_t count,
                                   const char* const* names, const ss_tensor* const* inputs,
                                   ss_call_result** result);
/* Outputs first, then a `mut` parameter's new tensors, each named. */
SS_C_API size_t ss_call_result_count(const ss_call_result* result);
SS_C_API const ss_tensor* ss_call_result_tensor(const ss_call_result* result, size_t i);
/* The i-th output's name: "" for a returned value, "m.w1" for an update. */
SS_C_API const char* ss_call_result_name(const ss_call_result* result, size_t i);
SS_C_API void ss_call_result_free(ss_call_result* result);

/* ---- values the library owns ----
 *
 * An ss_value is a handle on a model, optimiser, batch, dataset, tensor or
 * number that lives in the library (on the module's device). Each handle
 * is the caller's to free with ss_value_free; ss_value_ref makes another
 * handle on the same value, and both see what a `mut` call does to it
 * (ss_module_copy_value makes an independent value). Handles may be used
 * from several threads at once: a call reads the version current when it
 * started, and two `mut` calls on one value run one after the other. */
typedef enum {
  SS_KIND_EMPTY = 0,
  SS_KIND_TENSOR = 1,
  SS_KIND_INTEGER = 2,
  SS_KIND_NUMBER = 3,
  SS_KIND_MODEL = 4,
  SS_KIND_OPTIMIZER = 5,
  SS_KIND_BATCH = 6,
  SS_KIND_DATASET = 7,
  SS_KIND_TUPLE = 8
} ss_value_kind;

/* A model of the program (`type`, "Mlp") drawn from its initialisers with
 * `seed`, as `Mlp(seed=0)`. E1604 for a model the program doesn't have. */
SS_C_API ss_status* ss_module_make(const ss_module* module, const char* type, uint64_t seed,
                                   ss_value** out);
/* An optimiser ("SGD", "Adam", "AdamW") for a model value, with `count`
 * settings by name (PyTorch's defaults for the rest). */
SS_C_API ss_status* ss_module_make_optimizer(const ss_module* module, const char* kind,
                                             const ss_value* model, size_t count,
                                             const char* const* names, const double* settings,
                                             ss_value** out);
/* A tensor value: `tensor`'s elements copied once. */
SS_C_API ss_status* ss_module_tensor_value(const ss_module* module, const ss_tensor* tensor,
                                           ss_value** out);
/* A batch (`[n] Record`) or a dataset (`Dataset[Record]`, a replay
 * buffer) from one tensor per field of `record`, the examples on the
 * leading axis, copied once. E1603 when they don't fit the record. */
SS_C_API ss_status* ss_module_batch(const ss_module* module, const char* record, size_t count,
                                    const char* const* fields, const ss_tensor* const* tensors,
                                    ss_value** out);
SS_C_API ss_status* ss_module_dataset(const ss_module* module, const char* record, size_t count,
                                      const char* const* fields, const ss_tensor* const* tensors,
                                      ss_value** out);
/* A model ("Mlp") or optimiser ("AdamW[Mlp]") from safetensors: a file
 * (through the module's file access) or `size` bytes. `name_count` pairs
 * rename the file's tensors first, prefix `from[k]` to prefix `to[k]`
 * (PyTorch's nn.Sequential keys: "0." to "fc1."). E1704 when the file
 * doesn't hold exactly the parameters at their shapes. */
SS_C_API ss_status* ss_module_load_value(const ss_module* module, const char* type,
                                         const char* path, size_t name_count,
                                         const char* const* from, const char* const* to,
                                         ss_value** out);
SS_C_API ss_status* ss_module_load_value_bytes(const ss_module* module, const char* type,
                                               const void* bytes, size_t size, size_t name_count,
                                               const char* const* from, const char* const* to,
                                               ss_value** out);
/* A model's or optimiser's current version to safetensors, atomically. */
SS_C_API ss_status* ss_module_save_value(const ss_module* module, const ss_value* value,
                                         const char* path);
/* An independent value with the same contents. */
SS_C_API ss_value* ss_module_copy_value(const ss_module* module, const ss_value* value);
/* Another handle on the same value. */
SS_C_API ss_value* ss_value_ref(const ss_value* value);
SS_C_API void ss_value_free(ss_value* value);

SS_C_API ss_value_kind ss_value_kind_of(const ss_value* value);
/* The type as the program writes it ("Mlp", "AdamW[Mlp]", "[2 10]"). */
SS_C_API const char* ss_value_type(const ss_value* value);
/* 1 when made; one more per call that changed it. */
SS_C_API uint64_t ss_value_version(const ss_value* value);
/* A number's value (a one-element tensor's element); 0 otherwise. */
SS_C_API double ss_value_number(const ss_value* value);
/* A tensor value's current version as a tensor (the caller frees it; it
 * shares the version's memory, which never changes); NULL for other kinds. */
SS_C_API ss_tensor* ss_value_tensor(const ss_value* value);
/* A model's, optimiser's, batch's or dataset's tensors by path
 * ("fc1.weight"): how many, the i-th's path, and one as a tensor of the
 * current version (the caller frees it; NULL for a path it doesn't have). */
SS_C_API size_t ss_value_field_count(const ss_value* value);
SS_C_API const char* ss_value_field_name(const ss_value* value, size_t i);
SS_C_API ss_tensor* ss_value_field(const ss_value* value, const char* path);

/* One argument of a call with values: a value (read, or changed in place
 * with SS_ARG_MUT), a host tensor (read at the call) or a number. */
typedef enum {
  SS_ARG_VALUE = 0,
  SS_ARG_MUT = 1,
  SS_ARG_TENSOR = 2,
  SS_ARG_NUMBER = 3,
  SS_ARG_INTEGER = 4
} ss_arg_kind;
typedef struct {
  ss_arg_kind kind;
  const ss_value* value;   /* SS_ARG_VALUE, SS_ARG_MUT */
  const ss_tensor* tensor; /* SS_ARG_TENSOR */
  double number;           /* SS_ARG_NUMBER, SS_ARG_INTEGER */
} ss_arg;
SS_C_API ss_arg ss_arg_value(const ss_value* value);
SS_C_API ss_arg ss_arg_mut(const ss_value* value);
SS_C_API ss_arg ss_arg_tensor(const ss_tensor* tensor);
SS_C_API ss_arg ss_arg_number(double number);
SS_C_API ss_arg ss_arg_integer(int64_t number);

/* Calls any function of the program (a device function or a controller
 * one: `fit`, `predict`) with its parameters in order. On success *result
 * holds what it returned as values (ss_call_result_value_count, _value). */
SS_C_API ss_status* ss_module_call_values(const ss_module* module, const char* function,
                                          const ss_arg* args, size_t count,
                                          ss_call_result** result);
/* A device function's results written into the host's buffers, one per
 * returned tensor: views (ss_tensor_view) of writable memory of the
 * results' shapes and dtypes (E1603 otherwise). Takes no memory for them. */
SS_C_API ss_status* ss_module_call_into(const ss_module* module, const char* function,
                                        const ss_arg* args, size_t count,
                                        const ss_tensor* const* outputs, size_t output_count);
/* Module::call_async: the call runs later, on the engine's task runner (its
 * post_task) or its own "ss-async" thread, and `done` gets, on that thread,
 * its status (NULL on success) and its result; both are the callee's to
 * free. Tensors in `args` are views: keep their memory until `done`. The
 * status returned here is only for arguments that can't be queued. */
SS_C_API ss_status* ss_module_call_async(
    const ss_module* module, const char* function, const ss_arg* args, size_t count,
    void (*done)(void* user, ss_status* status, ss_call_result* result), void* user);

/* ---- many agents: ss::Batcher ----
 * Batch-1 requests for `function` from many threads, run as one call whose
 * batch axis is their number. `resident` (count args, NULL when 0) come
 * first in every call (a model value); each request gives one row per
 * batched parameter and one writable row per result (row-major f32 or i32
 * tensors, ss_tensor_view). A batch runs when max_batch requests are
 * queued, when a waiting ss_batcher_run has waited max_wait_us, at
 * ss_batcher_flush, or at ss_batcher_free. The module must outlive it. */
typedef struct ss_batcher ss_batcher;
SS_C_API ss_batcher* ss_batcher_new(const ss_module* module, const char* function,
                                    const ss_arg* resident, size_t count, int max_batch,
                                    int64_t max_wait_us, ss_status** status);
/* One request, returning when its rows are written (or with its batch's
 * errors). */
SS_C_API ss_status* ss_batcher_run(ss_batcher* batcher, const ss_tensor* const* inputs,
                                   size_t input_count, const ss_tensor* const* outputs,
                                   size_t output_count);
/* One request without waiting: `done` gets its status (NULL on success,
 * the callee's to free) on the thread that runs its batch. */
SS_C_API ss_status* ss_batcher_submit(ss_batcher* batcher, const ss_tensor* const* inputs,
                                      size_t input_count, const ss_tensor* const* outputs,
                                      size_t output_count,
                                      void (*done)(void* user, ss_status* status), void* user);
SS_C_API ss_status* ss_batcher_flush(ss_batcher* batcher);
/* Runs what is still queued, then frees it. */
SS_C_API void ss_batcher_free(ss_batcher* batcher);

/* Module::reserve: a frame for a device function at the sizes of its
 * generic axes (`count` names and sizes), planned now, so the first call
 * at those sizes allocates nothing either. E1604 for a function that isn't
 * a device function, E1605 for an axis given no size. */
SS_C_API ss_status* ss_module_reserve(const ss_module* module, const char* function, size_t count,
                                      const char* const* names, const int64_t* sizes);
SS_C_API size_t ss_call_result_value_count(const ss_call_result* result);
/* A new handle on the i-th value returned (the caller frees it). */
SS_C_API ss_value* ss_call_result_value(const ss_call_result* result, size_t i);

/* Where a controller function's `print` lines go when the host calls one
 * (NULL: the engine's log, at info). */
SS_C_API ss_status* ss_load_options_print(ss_load_options* options,
                                          void (*print)(void* user, const char* line), void* user);

/* Checks a program file and runs a function without parameters (`main`
 * when `function` is NULL), each printed line going to `print` (NULL:
 * dropped). `options` may be NULL. */
SS_C_API ss_status* ss_engine_run_file(const ss_engine* engine, const char* path,
                                       const char* function,
                                       void (*print)(void* user, const char* line),
                                       void* print_user, const ss_load_options* options);

#ifdef __cplusplus
}
#endif

#endif /* SHAPESCRIPT_H */
