#include "runtime/data/safetensors.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "runtime/data/data_error.hpp"
#include "runtime/data/safetensors_header.hpp"
#include "support/json_string.hpp"

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
  std::vector<SafetensorsEntry> entries;
  std::string why;
  if (!parse_safetensors_header(std::string_view(bytes).substr(8, header_size), &entries, &why))
    corrupt(path, why);
  const std::size_t data_start = 8 + header_size;
  const std::size_t data_size = bytes.size() - data_start;
  std::map<std::string, Tensor> out;
  for (const auto& entry : entries) {
    // Named, not a structured binding: clang 14 won't let lambdas capture those.
    const std::string& name = entry.name;
    const Shape shape(entry.shape.begin(), entry.shape.end());
    const auto begin = entry.begin, end = entry.end;
    if (begin > end || end > data_size)
      corrupt(path, "truncated: `" + name + "`'s bytes are missing");
    const std::string& dtype = entry.dtype;
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

// The header is written by hand, as nlohmann's dump() would (but for
// \b and \f, written \u0008 and \u000c): building it
// as a json object ends the process when an allocation fails (its
// initializer-list constructors unwind through a noexcept frame), and a
// save must fail with E1611 instead.
void write_safetensors(const std::string& path, const std::map<std::string, Tensor>& tensors,
                       const std::map<std::string, std::string>& metadata, const FileAccess& files,
                       const std::function<bool(const std::string&)>& as_int64) {
  std::string text = "{";
  if (!metadata.empty()) {
    text += "\"__metadata__\":{";
    bool first = true;
    for (const auto& [key, value] : metadata) {
      if (!first) text += ',';
      first = false;
      support::append_json_string(text, key);
      text += ':';
      support::append_json_string(text, value);
    }
    text += '}';
  }
  std::string data;
  for (const auto& [name, tensor] : tensors) {
    const Tensor packed = tensor.compact();
    const std::size_t bytes = static_cast<std::size_t>(packed.size()) * dtype_size(packed.dtype());
    const bool wide = as_int64 && as_int64(name);
    std::vector<std::int64_t> shape = packed.shape();
    if (wide) shape.pop_back();  // the (low, high) words of each element
    if (text.size() > 1) text += ',';
    support::append_json_string(text, name);
    text += ":{\"dtype\":";
    support::append_json_string(text, wide ? std::string("I64") : file_dtype(packed.dtype()));
    text += ",\"shape\":[";
    for (std::size_t k = 0; k < shape.size(); ++k)
      text += (k ? "," : "") + std::to_string(shape[k]);
    text += "],\"data_offsets\":[" + std::to_string(data.size()) + "," +
            std::to_string(data.size() + bytes) + "]}";
    if (bytes) data.append(static_cast<const char*>(packed.raw()), bytes);
  }
  text += '}';
  while ((8 + text.size()) % 8 != 0) text += ' ';  // the data starts 8-byte aligned
  std::string file;
  std::uint64_t size = text.size();
  for (int i = 0; i < 8; ++i) file += static_cast<char>((size >> (8 * i)) & 0xff);
  file += text;
  file += data;
  write_bytes(files, path, file);
}

}  // namespace ss::runtime
