// directory_code_cache: the CodeCache of engine.hpp in a directory.
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "shapescript/engine.hpp"

namespace ss {

CodeCache directory_code_cache(std::string directory) {
  namespace fs = std::filesystem;
  const fs::path root(std::move(directory));
  CodeCache cache;
  cache.load = [root](const std::string& key, std::string* bytes) {
    std::ifstream in(root / key, std::ios::binary);
    if (!in) return false;
    std::ostringstream all;
    all << in.rdbuf();
    if (!in.good() && !in.eof()) return false;
    *bytes = std::move(all).str();
    return true;
  };
  cache.store = [root](const std::string& key, std::string_view bytes) {
    static std::atomic<unsigned> serial{0};
    std::error_code ec;
    fs::create_directories(root, ec);
    if (ec) return;
    // A name no other writer (thread or process) uses, renamed over the entry.
    const fs::path temporary =
        root / (key + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(serial++));
    {
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      if (!out.flush()) {
        out.close();
        fs::remove(temporary, ec);
        return;
      }
    }
    fs::rename(temporary, root / key, ec);
    if (ec) fs::remove(temporary, ec);
  };
  return cache;
}

}  // namespace ss
