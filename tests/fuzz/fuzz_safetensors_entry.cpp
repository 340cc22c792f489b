#include "fuzz/fuzz_safetensors_entry.hpp"

#include <cstring>
#include <new>
#include <string_view>

#include "runtime/data/data_error.hpp"
#include "runtime/data/safetensors.hpp"

namespace ss::test {
namespace {

// The file's bytes served from memory, and what a save writes kept there.
ss::FileAccess in_memory(const std::string& bytes, std::string* written) {
  ss::FileAccess files;
  files.read = [&bytes](const std::string&, std::string* out, std::string*) {
    *out = bytes;
    return true;
  };
  files.write = [written](const std::string&, std::string_view b, std::string*) {
    written->assign(b);
    return true;
  };
  return files;
}

bool same(const runtime::Tensor& a, const runtime::Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  const runtime::Tensor pa = a.compact(), pb = b.compact();
  const std::size_t bytes = static_cast<std::size_t>(pa.size()) * runtime::dtype_size(pa.dtype());
  return bytes == 0 || std::memcmp(pa.raw(), pb.raw(), bytes) == 0;
}

}  // namespace

std::string fuzz_safetensors_one(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  std::string written;
  std::map<std::string, runtime::Tensor> tensors;
  try {
    tensors = runtime::read_safetensors("fuzz.safetensors", in_memory(bytes, &written));
  } catch (const runtime::DataError& e) {
    if (e.code != diag::Code::E1408) return std::string("refused with another code: ") + e.what();
    if (std::string_view(e.what()).empty()) return "refused without a message";
    return {};
  } catch (const std::bad_alloc&) {
    return {};  // sizes past the machine (E1611 at the API)
  } catch (const std::exception& e) {
    return std::string("an exception that isn't a coded error: ") + e.what();
  }
  // What reads writes back, and reads again the same.
  try {
    const std::string again_bytes =
        (runtime::write_safetensors("fuzz.safetensors", tensors, {}, in_memory(bytes, &written)),
         written);
    std::string unused;
    const auto again =
        runtime::read_safetensors("again.safetensors", in_memory(again_bytes, &unused));
    if (again.size() != tensors.size()) return "a written file reads back with other tensors";
    for (const auto& [name, t] : tensors) {
      const auto it = again.find(name);
      if (it == again.end() || !same(t, it->second)) return "`" + name + "` reads back changed";
    }
  } catch (const std::bad_alloc&) {
    return {};
  } catch (const std::exception& e) {
    return std::string("what read can't be written and read back: ") + e.what();
  }
  return {};
}

}  // namespace ss::test
