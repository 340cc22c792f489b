#include "runtime/data/files.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "diag/codes.hpp"
#include "runtime/data/data_error.hpp"

namespace ss::runtime {
namespace {

using diag::Code;

// E1707 unless the host lets the program touch `path` this way.
void check_allowed(const FileAccess& files, const std::string& path, bool writing) {
  if (writing ? !files.allow_write : !files.allow_read)
    throw DataError(Code::E1707,
                    std::string("the host doesn't let this program ") +
                        (writing ? "write" : "read") + " files: `" + path + "`",
                    "run it where the host allows files, or keep the data in the host");
  if (files.root.empty()) return;
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path root = fs::weakly_canonical(fs::absolute(files.root), ec);
  const fs::path target = fs::weakly_canonical(fs::absolute(path), ec);
  const auto [r, t] = std::mismatch(root.begin(), root.end(), target.begin(), target.end());
  if (ec || r != root.end())
    throw DataError(Code::E1707,
                    "`" + path + "` is outside the folder the host allows, `" + files.root + "`",
                    "keep the program's files inside that folder, with relative paths");
}

}  // namespace

std::string read_bytes(const FileAccess& files, const std::string& path) {
  check_allowed(files, path, false);
  if (files.read) {
    std::string bytes, why;
    if (!files.read(path, &bytes, &why))
      throw DataError(Code::E1408, "can't read `" + path + "`: " + why);
    return bytes;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(Code::E1408, "can't read `" + path + "`: " + std::strerror(errno));
  std::ostringstream all;
  all << in.rdbuf();
  return all.str();
}

void write_bytes(const FileAccess& files, const std::string& path, std::string_view bytes) {
  check_allowed(files, path, true);
  const std::string help = "check that its folder exists and is writable";
  if (files.write) {
    std::string why;
    if (!files.write(path, bytes, &why))
      throw DataError(Code::E1706, "can't write `" + path + "`: " + why, help);
    return;
  }
  const std::string temporary = path + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      std::remove(temporary.c_str());
      throw DataError(Code::E1706, "can't write `" + path + "`: " + std::strerror(errno), help);
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(temporary.c_str());
    throw DataError(Code::E1706, "can't write `" + path + "`: " + why, help);
  }
}

}  // namespace ss::runtime
