// The loader never reads the working directory for us: no RUNPATH or RPATH
// of a built library or program has an empty entry (which the loader takes
// as the working directory) or a relative one, and a library named like one
// we open at run time (SLEEF), put where the host runs, is never loaded.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "support/paths.hpp"
#include "support/process.hpp"

namespace {

std::string build_folder() {
  const std::string cli = ss::test::kCliPath;
  return std::filesystem::path(cli).parent_path().parent_path().string();
}

bool is_elf(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  return in && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
}

}  // namespace

TEST_CASE("no built library or program has an empty or relative RUNPATH or RPATH entry") {
  if (ss::test::run_shell("command -v readelf").exit_code != 0) {
    MESSAGE("no readelf (binutils) here");
    return;
  }
  int files = 0;
  for (const char* folder : {"bin", "lib"}) {
    const auto dir = std::filesystem::path(build_folder()) / folder;
    if (!std::filesystem::exists(dir)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (!entry.is_regular_file() || !is_elf(entry.path())) continue;
      ++files;
      const auto r = ss::test::run_process({"readelf", "-d", entry.path().string()});
      REQUIRE(r.exit_code == 0);
      static const std::regex path_line(R"(\((RUNPATH|RPATH)\)[^\[]*\[([^\]]*)\])");
      for (std::sregex_iterator m(r.out.begin(), r.out.end(), path_line), end; m != end; ++m) {
        const std::string list = (*m)[2];
        for (std::size_t start = 0;;) {  // "a::b" and "a:" hold empty entries
          const auto colon = list.find(':', start);
          const std::string part = list.substr(start, colon - start);
          CAPTURE(entry.path().string());
          CAPTURE(list);
          CHECK_MESSAGE(!part.empty(), "an empty entry: the working directory");
          CHECK_MESSAGE((part.empty() || part[0] == '/' || part.rfind("$ORIGIN", 0) == 0),
                        "a relative entry `" << part << "`");
          if (colon == std::string::npos) break;
          start = colon + 1;
        }
      }
    }
  }
  CHECK(files >= 3);  // the library, the CLI, the JIT module at least
}

TEST_CASE("a library named like SLEEF in the working directory is never loaded") {
  if (ss::test::run_shell("command -v cc").exit_code != 0) {
    MESSAGE("no C compiler to build the stand-in");
    return;
  }
  ss::test::TempDir dir;
  // Its constructor leaves a mark where it runs.
  dir.write("fake.c",
            "#include <stdio.h>\n"
            "__attribute__((constructor)) static void mark(void) {\n"
            "  FILE* f = fopen(\"loaded.txt\", \"w\");\n"
            "  if (f) fclose(f);\n"
            "}\n");
  const auto built =
      ss::test::run_shell("cc -shared -fPIC -o libsleef.so.3 fake.c", {.cwd = dir.path()});
  REQUIRE_MESSAGE(built.exit_code == 0, built.out << built.err);
  // exp over a vector: the JIT's and the runtime's vector math look for SLEEF.
  dir.write("exp.ss",
            "dim D = 64\n\nfn main():\n    x = exp(ones([D]) * 0.5)\n    print(sum(x, over=D))\n");
  const auto r = ss::test::run_process({ss::test::kCliPath, "run", "exp.ss", "--no-code-cache"},
                                       {.cwd = dir.path(), .merge_stderr = true});
  CHECK_MESSAGE(r.exit_code == 0, r.out);
  CHECK_MESSAGE(!std::filesystem::exists(dir.file("loaded.txt")),
                "libsleef.so.3 from the working directory was loaded");
}
