// The reader the ONNX importer reads external data through (onnx_api.h's
// SsOnnxReader): the library, not the importer, decides which files a
// model may read.
#pragma once

#include <string>

#include "onnx/onnx_api.h"
#include "shapescript/options.hpp"

namespace ss::api {

// Where a model was found: the folder it was named in, and the folder of
// its own resolved path (a Hugging Face cache links `model.onnx` into
// `../../blobs/`; empty: the same folder). A data file is read when, its
// links resolved, it lies inside either; it must be a regular file
// (checked on the opened descriptor, opened without blocking, so neither
// a FIFO nor a path swapped meanwhile gets past) holding the bytes asked
// for. The host's FileAccess applies as to any file a program reads:
// allow_read, root, and its `read` callback, which then serves the file.
struct ExternalDataPlace {
  const FileAccess* files = nullptr;
  std::string folder;
  std::string resolved_folder;
  // A file the host's `read` served for the importer's check, kept for its
  // read that follows (the callback gives whole files: read once).
  mutable std::string served_path, served;
};

// A reader over `place`, which must outlive the translation.
SsOnnxReader external_data_reader(const ExternalDataPlace& place);

}  // namespace ss::api
