// An initializer's external data: its keys read strictly, its size the
// tensor's declared bytes, the file read through the host's reader
// (onnx_api.h), which confines it and checks the opened descriptor.
#include <charconv>
#include <string>

#include "onnx/import_error.hpp"
#include "onnx/tensors.hpp"

namespace ss::onnx_import {
namespace {

using TP = onnx::TensorProto;

// Bytes per element of an ONNX type with a fixed width; 0 for others.
std::uint64_t element_width(int type) {
  switch (type) {
    case TP::BOOL:
    case TP::INT8:
    case TP::UINT8:
      return 1;
    case TP::FLOAT16:
    case TP::BFLOAT16:
    case TP::INT16:
    case TP::UINT16:
      return 2;
    case TP::FLOAT:
    case TP::INT32:
    case TP::UINT32:
      return 4;
    case TP::DOUBLE:
    case TP::INT64:
    case TP::UINT64:
      return 8;
    default:
      return 0;
  }
}

// A key's value as a byte count: decimal digits alone, at most 2^62.
std::uint64_t byte_count(const TP& t, const std::string& key, const std::string& value) {
  std::uint64_t n = 0;
  const char* end = value.data() + value.size();
  const auto [ptr, ec] = std::from_chars(value.data(), end, n);
  if (value.empty() || ec != std::errc() || ptr != end || n > (std::uint64_t{1} << 62))
    fail("E2009",
         "initializer `" + t.name() + "`'s external data has " + key + " `" + value +
             "`, which isn't a byte count",
         "an external data's offset and length are decimal byte counts, 0 or more");
  return n;
}

// The bytes the tensor declares: its element count times its width.
std::uint64_t declared_bytes(const TP& t) {
  const std::uint64_t width = element_width(t.data_type());
  if (width == 0)
    fail("E2009", "initializer `" + t.name() + "` keeps data of " + onnx_type_name(t.data_type()) +
                      " in external data, which has no fixed width");
  std::uint64_t n = width;
  for (const auto d : t.dims())
    if (d < 0 || __builtin_mul_overflow(n, static_cast<std::uint64_t>(d), &n) ||
        n > (std::uint64_t{1} << 62))
      fail("E2009", "initializer `" + t.name() + "` declares more bytes than any file holds");
  return n;
}

}  // namespace

std::string read_external(const TP& t, const std::string& folder, const SsOnnxReader* reader) {
  std::string location;
  std::uint64_t offset = 0, length = declared_bytes(t);
  for (const auto& e : t.external_data()) {
    if (e.key() == "location") location = e.value();
    if (e.key() == "offset") offset = byte_count(t, "offset", e.value());
    if (e.key() == "length" && byte_count(t, "length", e.value()) != length)
      fail("E2009",
           "initializer `" + t.name() + "`'s external data has length " + e.value() +
               ", and the tensor is " + std::to_string(length) + " bytes",
           "the length of external data is its tensor's bytes: element count times width");
  }
  if (location.empty() || location[0] == '/' || location.find("..") != std::string::npos)
    fail("E2009",
         "initializer `" + t.name() + "` names external data at `" + location +
             "`, outside the model's folder",
         "external data is read from the model's folder only: no absolute path, no `..`");
  if (folder.empty() || !reader || !reader->read)
    fail("E2009",
         "initializer `" + t.name() + "` keeps its data in `" + location +
             "`, and a model given as bytes has no folder",
         "load the model from its file, beside its external data");
  char why[512] = {};
  const auto refused = [&] {
    const std::string text(why);
    const bool coded = text.size() > 6 && text[0] == 'E' && text[5] == ' ';
    fail(coded ? text.substr(0, 5) : "E2009",
         "initializer `" + t.name() + "`: " + (coded ? text.substr(6) : text));
  };
  // Checked before the bytes are allocated: a file too short never costs
  // the tensor's memory.
  if (reader->read(reader->context, location.c_str(), offset, length, nullptr, why, sizeof why))
    refused();
  std::string bytes(length, '\0');
  if (reader->read(reader->context, location.c_str(), offset, length, bytes.data(), why,
                   sizeof why))
    refused();
  return bytes;
}

}  // namespace ss::onnx_import
