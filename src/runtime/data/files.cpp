#include "runtime/data/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "diag/codes.hpp"
#include "runtime/data/data_error.hpp"
#include "support/host_callback.hpp"

namespace ss::runtime {

using diag::Code;

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

std::string read_bytes(const FileAccess& files, const std::string& path) {
  check_allowed(files, path, false);
  if (files.read) {
    std::string bytes, why;
    if (!host_call("FileAccess::read", [&] { return files.read(path, &bytes, &why); }))
      throw DataError(Code::E1408, "can't read `" + path + "`: " + why);
    return bytes;
  }
  // POSIX calls, not a stream: a stream swallows an allocation that fails
  // midway (its badbit), and the file would look truncated, not E1611.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw DataError(Code::E1408, "can't read `" + path + "`: " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  std::string bytes;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && st.st_size > 0) bytes.reserve(static_cast<std::size_t>(st.st_size));
  char chunk[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd, chunk, sizeof chunk);
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      throw DataError(Code::E1408, "can't read `" + path + "`: " + std::strerror(errno));
    }
    bytes.append(chunk, static_cast<std::size_t>(got));
  }
  return bytes;
}

void write_bytes(const FileAccess& files, const std::string& path, std::string_view bytes) {
  check_allowed(files, path, true);
  const std::string help = "check that its folder exists, is writable and has room";
  if (files.write) {
    std::string why;
    if (!host_call("FileAccess::write", [&] { return files.write(path, bytes, &why); }))
      throw DataError(Code::E1706, "can't write `" + path + "`: " + why, help);
    return;
  }
  // Written whole to a temporary beside it, flushed to the disk, then
  // renamed over it: a failure anywhere (the disk full, memory refused)
  // leaves the earlier file whole and no temporary behind.
  const std::string temporary = path + ".tmp-" + std::to_string(::getpid());
  std::string failure;  // the message, made once the temporary is gone
  int error = 0;
  {
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
      throw DataError(Code::E1706, "can't write `" + path + "`: " + std::strerror(errno), help);
    struct Temporary {
      int fd;
      const char* name;
      bool kept = false;
      ~Temporary() {
        if (fd >= 0) ::close(fd);
        if (!kept) ::unlink(name);
      }
    } file{fd, temporary.c_str()};
    std::size_t done = 0;
    while (done < bytes.size() && error == 0) {
      const ssize_t put = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (put < 0 && errno != EINTR) error = errno;
      if (put > 0) done += static_cast<std::size_t>(put);
    }
    if (error == 0 && ::fsync(fd) != 0) error = errno;
    const int closed = ::close(file.fd);
    file.fd = -1;
    if (error == 0 && closed != 0) error = errno;
    if (error == 0 && ::rename(temporary.c_str(), path.c_str()) != 0) error = errno;
    file.kept = error == 0;
  }
  if (error != 0)
    throw DataError(Code::E1706, "can't write `" + path + "`: " + std::strerror(error), help);
}

}  // namespace ss::runtime
