#include "syntax/source_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "diag/codes.hpp"
#include "syntax/utf8.hpp"

namespace ss::syntax {
namespace {

using diag::Code;

// strerror's text, lowercased at the start to fit the message style.
std::string reason(int err) {
  std::string text = std::strerror(err);
  if (!text.empty() && text[0] >= 'A' && text[0] <= 'Z')
    text[0] = static_cast<char>(text[0] - 'A' + 'a');
  return text;
}

Diagnostic unreadable(const std::string& path, const std::string& why, std::string help = {}) {
  Diagnostic d = diag::error(Code::E0101, "can't read `" + path + "`: " + why, std::move(help));
  d.location.file = path;
  return d;
}

Diagnostic unreadable(const std::string& path, int err) {
  std::string help;
  if (err == ENOENT || err == ENOTDIR)
    help = "check the spelling; a relative path starts from the current folder";
  else if (err == EACCES || err == EPERM)
    help = "the file's permissions don't let this user read it";
  return unreadable(path, reason(err), std::move(help));
}

Diagnostic too_large(const std::string& name) {
  Diagnostic d =
      diag::error(Code::E0103,
                  "`" + name + "` is larger than " + std::to_string(kMaxSourceBytes >> 20) + " MiB",
                  "a source file holds a program; keep data in a dataset file and `load` it");
  d.location.file = name;
  return d;
}

std::string hex_byte(unsigned char byte) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "0x%02x", byte);
  return buffer;
}

// A file descriptor closed on every path out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

SourceOrError decode_source(std::string_view bytes, std::string name) {
  if (bytes.size() > kMaxSourceBytes) return too_large(name);
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  if (bytes.substr(0, kBom.size()) == kBom) bytes.remove_prefix(kBom.size());

  if (const auto bad = find_invalid_utf8(bytes)) {
    const auto byte = static_cast<unsigned char>(bytes[bad->offset]);
    std::string what;
    switch (bad->kind) {
      case Utf8Error::Kind::bad_lead_byte:
        what = "byte " + hex_byte(byte) + " can't start a character";
        break;
      case Utf8Error::Kind::cut_short:
        what = "the character that byte " + hex_byte(byte) + " starts is cut short";
        break;
      case Utf8Error::Kind::invalid_sequence:
        what = "the bytes from " + hex_byte(byte) + " on encode no Unicode character";
        break;
    }
    Diagnostic d = diag::error(Code::E0102, "source text isn't UTF-8: " + what,
                               "save the file as UTF-8 (a text editor's \"encoding\" setting)");
    const LineColumn at = line_column_at(bytes, bad->offset);
    d.location = {name, static_cast<std::uint32_t>(at.line), static_cast<std::uint32_t>(at.column)};
    return d;
  }
  return SourceFile{std::move(name), std::string(bytes)};
}

SourceOrError read_source_file(const std::string& path) {
  Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) return unreadable(path, errno);

  struct stat info {};
  if (::fstat(file.fd, &info) != 0) return unreadable(path, errno);
  if (S_ISDIR(info.st_mode))
    return unreadable(path, "it is a folder, not a file", "name a `.ss` file inside it");
  if (S_ISREG(info.st_mode) && static_cast<std::size_t>(info.st_size) > kMaxSourceBytes)
    return too_large(path);

  // Read to the end, whatever fstat said (pipes and devices report no size),
  // stopping one byte past the limit.
  std::string bytes;
  char buffer[1 << 16];
  while (true) {
    const ssize_t got = ::read(file.fd, buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR) continue;
      return unreadable(path, errno);
    }
    if (got == 0) break;
    bytes.append(buffer, static_cast<std::size_t>(got));
    if (bytes.size() > kMaxSourceBytes) return too_large(path);
  }
  return decode_source(bytes, path);
}

}  // namespace ss::syntax
