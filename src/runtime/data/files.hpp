// Every file the controller reads or writes, through the host's
// FileAccess (LoadOptions::files): confined to its root, refused where it
// says so (E1707), or served by its own callbacks.
#pragma once

#include <string>
#include <string_view>

#include "shapescript/options.hpp"

namespace ss::runtime {

// DataError E1707 unless the host lets a program touch `path` this way
// (FileAccess::allow_read or allow_write, inside its root).
void check_allowed(const FileAccess& files, const std::string& path, bool writing);

// The file's bytes. DataError E1707 for a path the host doesn't allow,
// E1408 for one that can't be read.
std::string read_bytes(const FileAccess& files, const std::string& path);

// Writes the bytes (on the real file system, to a temporary renamed into
// place, so a crash never leaves half a file). DataError E1707 or E1706.
void write_bytes(const FileAccess& files, const std::string& path, std::string_view bytes);

}  // namespace ss::runtime
