// The safetensors format (huggingface/safetensors): an 8-byte little-endian
// header length, a JSON header naming each tensor's dtype, shape and byte
// range, then the bytes. What PyTorch's `safetensors.torch.load_file` reads.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "runtime/core/tensor.hpp"
#include "runtime/data/files.hpp"

namespace ss::runtime {

// Every tensor of the file (read through the host's FileAccess), by name. Throws DataError (E1408)
// for a file that can't be read, is truncated, or whose header is malformed or names a dtype we
// don't hold (F32, BF16, F16, I32, I64 read as i32, BOOL, U8 read as i32).
std::map<std::string, Tensor> read_safetensors(const std::string& path,
                                               const FileAccess& files = {});

// Writes the tensors (packed, little-endian) with `metadata` in the header's
// __metadata__. Written to a temporary beside the file, then renamed, so a
// crash never leaves a broken file. Throws DataError (E1706).
// `as_int64` names int32 tensors whose last axis (of 2) holds each int64
// element's low and high words: written as I64 of the shape without it
// (an ONNX model's int64 outputs).
void write_safetensors(const std::string& path, const std::map<std::string, Tensor>& tensors,
                       const std::map<std::string, std::string>& metadata = {},
                       const FileAccess& files = {},
                       const std::function<bool(const std::string&)>& as_int64 = {});

}  // namespace ss::runtime
