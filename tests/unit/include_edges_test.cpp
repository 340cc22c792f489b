// The pipeline's layering, checked on every direct #include between the
// stages' folders: data flows one way, so a stage includes only the stages
// below it. An edge that breaks the rule would be listed, each exactly, and
// the list can only shrink; it is empty.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "support/paths.hpp"

namespace fs = std::filesystem;

namespace {

// Each stage's folder, and the stages it may include (besides itself).
const std::map<std::string, std::set<std::string>>& allowed() {
  static const std::map<std::string, std::set<std::string>> m = {
      {"shapescript", {}},  // include/shapescript: the public API
      {"support", {"shapescript"}},
      {"diag", {"shapescript", "support"}},
      {"types", {"shapescript", "support", "diag"}},  // axes, element types, value types
      {"syntax", {"shapescript", "support", "diag"}},
      {"check", {"shapescript", "support", "diag", "types", "syntax"}},
      {"ir", {"shapescript", "support", "diag", "types"}},
      {"lower", {"shapescript", "support", "diag", "types", "syntax", "check", "ir"}},
      {"jit", {"shapescript", "support", "ir"}},
      {"mpi", {}},  // the MPI adapter: a plugin of its own, C
      // The runtime's own stages: core (the executor interface, tensors)
      // below the others, the reference's operations below the executors
      // that fall back to them, the controller on top.
      {"runtime/core", {"shapescript", "support", "diag", "types", "ir"}},
      {"runtime/data", {"shapescript", "support", "diag", "types", "ir", "runtime/core"}},
      {"runtime/reference", {"shapescript", "support", "diag", "types", "ir", "runtime/core"}},
      {"runtime/fast",
       {"shapescript", "support", "diag", "types", "ir", "jit", "runtime/core",
        "runtime/reference"}},
      {"runtime/devices",
       {"shapescript", "support", "diag", "types", "ir", "mpi", "runtime/core",
        "runtime/reference"}},
      {"runtime/controller",
       {"shapescript", "support", "diag", "types", "ir", "jit", "runtime/core", "runtime/data",
        "runtime/reference", "runtime/fast", "runtime/devices"}},
      {"kernels",
       {"shapescript", "support", "diag", "types", "ir", "runtime/core", "runtime/reference",
        "runtime/fast", "runtime/devices"}},
      {"standalone", {"shapescript", "support", "diag", "types", "ir", "runtime/core"}},
      {"api",
       {"shapescript", "support", "diag", "types", "syntax", "check", "ir", "lower", "jit", "mpi",
        "runtime/core", "runtime/data", "runtime/reference", "runtime/fast", "runtime/devices",
        "runtime/controller", "kernels", "standalone"}},
      {"tools", {"shapescript"}},  // the CLI: a host of the public API
  };
  return m;
}

// Today's breaks of the rule: "file -> included header", each one line.
const std::set<std::string>& known_breaks() {
  // None: the IR's types are src/types', its spans diag's, the runtime
  // reads the lowered program (ir/program.hpp), not the checked one, and
  // an executor reaches the others through runtime/core/executor.hpp.
  static const std::set<std::string> s = {};
  return s;
}

// The stage a file of the tree belongs to; "" for none (tests, bench, ...).
// The runtime's folders are stages of their own: "runtime/core".
std::string stage_of(const fs::path& relative) {
  const std::string first = relative.begin()->string();
  if (first == "src") {
    const std::string second = std::next(relative.begin())->string();
    if (second != "runtime") return second;
    return second + "/" + std::next(relative.begin(), 2)->string();
  }
  if (first == "include") return "shapescript";
  if (first == "jit" || first == "kernels" || first == "mpi") return first;
  if (first == "tools") return "tools";
  return "";
}

}  // namespace

TEST_CASE("every #include between stages goes down the pipeline, or is a listed break") {
  const fs::path root = ss::test::kSourceDir;
  const std::regex include(R"(^\s*#\s*include\s+"((?:runtime/)?[a-z_]+)/([^"]+)\")");
  std::set<std::string> breaks;
  int edges = 0;
  for (const char* top : {"src", "include", "jit", "kernels", "mpi", "tools"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / top)) {
      const auto ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".h")) continue;
      const fs::path relative = fs::relative(entry.path(), root);
      const std::string from = stage_of(relative);
      const auto rule = allowed().find(from);
      REQUIRE_MESSAGE(rule != allowed().end(), relative.string() << " is in no stage");
      std::ifstream in(entry.path());
      std::string line;
      std::smatch m;
      while (std::getline(in, line)) {
        if (!std::regex_search(line, m, include)) continue;
        const std::string to = m[1].str();
        if (!allowed().count(to)) continue;  // a library's (doctest/, llvm/, ...)
        ++edges;
        if (to == from || rule->second.count(to)) continue;
        breaks.insert(relative.generic_string() + " -> " + to + "/" + m[2].str());
      }
    }
  }
  CHECK(edges > 300);  // the walk found the tree
  for (const auto& b : breaks)
    CHECK_MESSAGE(known_breaks().count(b), "a new include against the pipeline: " << b);
  for (const auto& b : known_breaks())
    CHECK_MESSAGE(breaks.count(b), "fixed, so take it off the list: " << b);
  MESSAGE(known_breaks().size() << " known breaks of the layering remain");
}

TEST_CASE("no executor but the reference includes the reference interpreter's header") {
  // The fast and CUDA executors meet the others through
  // runtime/core/executor.hpp; the reference's node operations
  // (runtime/reference/nodes.hpp, ops.hpp) are theirs to fall back to.
  const fs::path root = ss::test::kSourceDir;
  int files = 0;
  for (const char* folder : {"src/runtime/fast", "kernels"})
    for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
      if (!entry.is_regular_file()) continue;
      ++files;
      std::ifstream in(entry.path());
      std::string line;
      while (std::getline(in, line))
        CHECK_MESSAGE(line.find("\"runtime/reference/interpreter.hpp\"") == std::string::npos,
                      fs::relative(entry.path(), root).string() << " includes the interpreter");
    }
  CHECK(files > 50);  // the walk found the executors
}
