/* The table the ONNX module (libshapescript_onnx.so, the only code that sees
 * ONNX's and protobuf's headers) hands to the core, which opens it with
 * dlopen when a host imports a model: a host without it still loads the
 * library. Plain C: each entry returns its result as JSON text (and raw
 * bytes where it has tensors), in buffers the module allocates and
 * free_buffer releases. Change SS_ONNX_ABI_VERSION with any change. */
#ifndef SHAPESCRIPT_ONNX_API_H
#define SHAPESCRIPT_ONNX_API_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SS_ONNX_ABI_VERSION 2u
#define SS_ONNX_ENTRY_SYMBOL "ss_onnx_api"

typedef struct SsOnnxBuffer {
  char* data;
  size_t size;
} SsOnnxBuffer;

/* How the importer reads an initializer's external data: never itself, but
 * through the host library, which resolves `location` against the model's
 * folder, confines it (links resolved, inside the folder the model was
 * named in or the folder of its own resolved path), checks the opened
 * descriptor is a regular file holding offset + length bytes, and honours
 * the host's FileAccess. With `into` NULL it checks alone; else it reads
 * `length` bytes at `offset` into `into`. Returns 0, or 1 with a message
 * that begins with its code ("E2009 ...") in `why` (NUL-terminated, at
 * most why_size bytes). */
typedef struct SsOnnxReader {
  void* context;
  int (*read)(void* context, const char* location, unsigned long long offset,
              unsigned long long length, char* into, char* why, size_t why_size);
} SsOnnxReader;

typedef struct SsOnnxApi {
  /* "ONNX 1.12.0, protobuf 3.21.12" */
  const char* (*library_version)(void);
  /* Translates a model (its bytes; `folder`, where it was read from, may
   * be empty: then it can't have external data; `reader` reads that, NULL
   * likewise) into shapescript. `options_json` is
   * {"frozen": [names...]}. *result gets JSON:
   *   {"source": "...", "model": true|false,
   *    "inputs": [{"name", "onnx_name", "dtype", "onnx_type", "shape"}...],
   *    "outputs": [...same...],
   *    "diagnostics": [{"code", "message", "node", "op", "help"}...]}
   * and *weights the parameters' initial values as safetensors bytes.
   * Returns 0 when it translated, 1 when diagnostics say why not. */
  int (*import_model)(const char* bytes, size_t size, const char* folder,
                      const SsOnnxReader* reader, const char* options_json, SsOnnxBuffer* result,
                      SsOnnxBuffer* weights);
  /* A TensorProto (a backend test's input_0.pb) as JSON
   * {"name", "dtype", "onnx_type", "shape"} or {"diagnostics": [...]} in
   * *result and its elements (int64 narrowed to i32, checked) in *data.
   * Returns 0, or 1 with the diagnostics. */
  int (*read_tensor)(const char* bytes, size_t size, SsOnnxBuffer* result, SsOnnxBuffer* data);
  void (*free_buffer)(SsOnnxBuffer* buffer);
  /* The op types the importer translates, space-separated, sorted. */
  const char* (*supported_ops)(void);
} SsOnnxApi;

typedef const SsOnnxApi* (*SsOnnxEntry)(unsigned abi_version);

#ifdef __cplusplus
}
#endif

#endif
