#include "runtime/data/safetensors.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "runtime/data/data_error.hpp"

namespace ss::runtime {
namespace {

using diag::Code;

[[noreturn]] void corrupt(
    const std::string& path, const std::string& why,
    const std::string& help = "write it with safetensors (save_file) or shapescript's `save`") {
  throw DataError(Code::E1408, "`" + path + "` isn't a readable safetensors file: " + why, help);
}

// The cast that makes a tensor of an element type shapescript doesn't
// read into one it does.
std::string cast_help(const std::string& dtype) {
  const bool floating = dtype.size() > 1 && (dtype[0] == 'F' || dtype.rfind("BF", 0) == 0);
  if (floating)
    return "shapescript reads F32, BF16 and F16: cast before saving, "
           "`x.astype(numpy.float32)` in numpy (whose default is float64) or `x.float()` in "
           "PyTorch";
  return "shapescript reads F32, BF16, F16, BOOL and integers up to I64: cast before saving, "
         "`x.astype(numpy.int32)` in numpy or `x.int()` in PyTorch";
}

const char* file_dtype(DType t) {
  switch (t) {
    case DType::f32:
      return "F32";
    case DType::bf16:
      return "BF16";
    case DType::f16:
      return "F16";
    case DType::i32:
      return "I32";
    case DType::boolean:
      return "BOOL";
  }
  return "F32";
}

}  // namespace

std::map<std::string, Tensor> read_safetensors(const std::string& path, const FileAccess& files) {
  const std::string bytes = read_bytes(files, path);
  if (bytes.size() < 8) corrupt(path, "shorter than its 8-byte header length");
  std::uint64_t header_size = 0;
  for (int i = 7; i >= 0; --i)
    header_size =
        (header_size << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  if (header_size > bytes.size() - 8) corrupt(path, "truncated in its header");
  nlohmann::json header = nlohmann::json::parse(
      bytes.begin() + 8, bytes.begin() + 8 + static_cast<std::ptrdiff_t>(header_size), nullptr,
      false);
  if (header.is_discarded() || !header.is_object()) corrupt(path, "its header isn't a JSON object");
  const std::size_t data_start = 8 + header_size;
  const std::size_t data_size = bytes.size() - data_start;
  std::map<std::string, Tensor> out;
  for (const auto& item : header.items()) {
    // Named, not a structured binding: clang 14 won't let lambdas capture those.
    const std::string name = item.key();
    const auto& entry = item.value();
    if (name == "__metadata__") continue;
    if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") ||
        !entry.contains("data_offsets") || !entry["dtype"].is_string() ||
        !entry["shape"].is_array() || !entry["data_offsets"].is_array() ||
        entry["data_offsets"].size() != 2)
      corrupt(path, "the entry for `" + name + "` lacks dtype, shape or data_offsets");
    Shape shape;
    for (const auto& d : entry["shape"]) {
      if (!d.is_number_unsigned()) corrupt(path, "`" + name + "` has a bad shape");
      shape.push_back(d.get<std::int64_t>());
    }
    const auto& offsets = entry["data_offsets"];
    if (!offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned())
      corrupt(path, "`" + name + "` has bad data_offsets");
    const auto begin = offsets[0].get<std::uint64_t>(), end = offsets[1].get<std::uint64_t>();
    if (begin > end || end > data_size)
      corrupt(path, "truncated: `" + name + "`'s bytes are missing");
    const std::string dtype = entry["dtype"].get<std::string>();
    const std::int64_t count = element_count(shape);
    const char* data = bytes.data() + data_start + begin;
    const auto need = [&](std::size_t width) {
      if (end - begin != static_cast<std::uint64_t>(count) * width)
        corrupt(path, "`" + name + "` holds " + std::to_string(end - begin) + " bytes for " +
                          std::to_string(count) + " " + dtype + " values");
    };
    Tensor t;
    if (dtype == "F32" || dtype == "BF16" || dtype == "F16" || dtype == "I32" || dtype == "BOOL") {
      const DType d = dtype == "F32"    ? DType::f32
                      : dtype == "BF16" ? DType::bf16
                      : dtype == "F16"  ? DType::f16
                      : dtype == "I32"  ? DType::i32
                                        : DType::boolean;
      need(dtype_size(d));
      t = Tensor::zeros(d, shape);
      if (count > 0) std::memcpy(t.raw(), data, static_cast<std::size_t>(count) * dtype_size(d));
    } else if (dtype == "I64" || dtype == "U8" || dtype == "I8" || dtype == "I16") {
      const std::size_t width = dtype == "I64" ? 8 : dtype == "I16" ? 2 : 1;
      need(width);
      t = Tensor::zeros(DType::i32, shape);
      for (std::int64_t k = 0; k < count; ++k) {
        const char* at = data + static_cast<std::size_t>(k) * width;
        double v = 0;
        if (dtype == "I64") {
          std::int64_t x;
          std::memcpy(&x, at, 8);
          v = static_cast<double>(x);
        } else if (dtype == "I16") {
          std::int16_t x;
          std::memcpy(&x, at, 2);
          v = x;
        } else if (dtype == "I8") {
          v = static_cast<signed char>(*at);
        } else {
          v = static_cast<unsigned char>(*at);
        }
        t.set(k, v);
      }
    } else {
      corrupt(path, "`" + name + "` holds " + dtype + " values, which shapescript doesn't read",
              cast_help(dtype));
    }
    out[name] = std::move(t);
  }
  return out;
}

void write_safetensors(const std::string& path, const std::map<std::string, Tensor>& tensors,
                       const std::map<std::string, std::string>& metadata, const FileAccess& files,
                       const std::function<bool(const std::string&)>& as_int64) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::string data;
  for (const auto& [name, tensor] : tensors) {
    const Tensor packed = tensor.compact();
    const std::size_t bytes = static_cast<std::size_t>(packed.size()) * dtype_size(packed.dtype());
    const bool wide = as_int64 && as_int64(name);
    std::vector<std::int64_t> shape = packed.shape();
    if (wide) shape.pop_back();  // the (low, high) words of each element
    header[name] = {{"dtype", wide ? std::string("I64") : file_dtype(packed.dtype())},
                    {"shape", shape},
                    {"data_offsets", {data.size(), data.size() + bytes}}};
    if (bytes) data.append(static_cast<const char*>(packed.raw()), bytes);
  }
  std::string text = header.dump();
  while ((8 + text.size()) % 8 != 0) text += ' ';  // the data starts 8-byte aligned
  std::string file;
  std::uint64_t size = text.size();
  for (int i = 0; i < 8; ++i) file += static_cast<char>((size >> (8 * i)) & 0xff);
  file += text;
  file += data;
  write_bytes(files, path, file);
}

}  // namespace ss::runtime
