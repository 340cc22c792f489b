#include "api/onnx_external_data.hpp"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "runtime/data/data_error.hpp"
#include "runtime/data/files.hpp"

namespace ss::api {
namespace {

// A refusal, coded, as the reader answers it.
struct Refused {
  std::string code, message;
};

[[noreturn]] void refuse(std::string message, std::string code = "E2009") {
  throw Refused{std::move(code), std::move(message)};
}

std::string real_path(const std::string& path) {
  char buffer[PATH_MAX];
  if (!::realpath(path.c_str(), buffer)) return {};
  return buffer;
}

bool inside(const std::string& path, const std::string& folder) {
  if (folder.empty()) return false;
  if (folder == "/") return true;
  return path.size() > folder.size() && path.compare(0, folder.size(), folder) == 0 &&
         path[folder.size()] == '/';
}

struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

// The file through the host's own `read` callback: the host serves it,
// once for the check and the read that follows.
void read_served(const ExternalDataPlace& place, const std::string& path, std::uint64_t offset,
                 std::uint64_t length, char* into) {
  if (place.served_path != path) {
    place.served_path.clear();
    try {
      place.served = runtime::read_bytes(*place.files, path);
    } catch (const runtime::DataError& e) {
      refuse(e.what(), e.code == diag::Code::E1707 ? "E1707" : "E2009");
    }
    place.served_path = path;
  }
  const std::string& bytes = place.served;
  if (bytes.size() < offset || bytes.size() - offset < length)
    refuse("`" + path + "` holds " + std::to_string(bytes.size()) + " bytes, fewer than the " +
           std::to_string(length) + " at offset " + std::to_string(offset));
  if (!into) return;
  std::memcpy(into, bytes.data() + offset, length);
  place.served_path.clear();  // read: its memory goes
  place.served.clear();
  place.served.shrink_to_fit();
}

void read_file(const ExternalDataPlace& place, const char* location, std::uint64_t offset,
               std::uint64_t length, char* into) {
  const std::string path = place.folder + "/" + location;
  if (place.files->read) return read_served(place, path, offset, length, into);
  const auto allowed = [&](const std::string& p) {  // FileAccess's allow_read and root
    try {
      runtime::check_allowed(*place.files, p, false);
    } catch (const runtime::DataError& e) {
      refuse(e.what(), "E1707");
    }
  };
  allowed(path);
  Descriptor d;
  d.fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (d.fd < 0) refuse("can't read `" + std::string(location) + "`: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(d.fd, &st) != 0 || !S_ISREG(st.st_mode))
    refuse("`" + std::string(location) + "` isn't a regular file (a device, a FIFO, a folder)");
  // Where the descriptor really is, links resolved: inside one of the
  // model's folders, and (checked again on it) the host's root.
  const std::string real = real_path("/proc/self/fd/" + std::to_string(d.fd));
  const std::string named = real_path(place.folder);
  const std::string resolved =
      place.resolved_folder.empty() ? named : real_path(place.resolved_folder);
  if (real.empty() || !(inside(real, named) || inside(real, resolved)))
    refuse("`" + std::string(location) + "` resolves to `" + real +
           "`, outside the model's folder");
  allowed(real);
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size < offset || size - offset < length)
    refuse("`" + std::string(location) + "` is " + std::to_string(size) + " bytes, too short for " +
           std::to_string(length) + " at offset " + std::to_string(offset));
  for (std::uint64_t done = 0; into && done < length;) {
    const ssize_t got =
        ::pread(d.fd, into + done, length - done, static_cast<off_t>(offset + done));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) refuse("can't read `" + std::string(location) + "`: it ended or failed midway");
    done += static_cast<std::uint64_t>(got);
  }
}

int read_external(void* context, const char* location, unsigned long long offset,
                  unsigned long long length, char* into, char* why, std::size_t why_size) noexcept {
  std::string answer;
  try {
    read_file(*static_cast<const ExternalDataPlace*>(context), location, offset, length, into);
    return 0;
  } catch (const Refused& r) {
    answer = r.code + " " + r.message;
  } catch (const std::exception& e) {
    answer = std::string("E2009 can't read `") + location + "`: " + e.what();
  } catch (...) {
    answer = "E2009 can't read external data";
  }
  if (why && why_size) std::snprintf(why, why_size, "%s", answer.c_str());
  return 1;
}

}  // namespace

SsOnnxReader external_data_reader(const ExternalDataPlace& place) {
  return SsOnnxReader{const_cast<ExternalDataPlace*>(&place), read_external};
}

}  // namespace ss::api
