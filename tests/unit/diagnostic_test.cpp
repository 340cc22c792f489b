#include <doctest/doctest.h>

#include <filesystem>
#include <regex>
#include <set>

#include "diag/codes.hpp"
#include "shapescript/diagnostic.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

using ss::Diagnostic;
using ss::Severity;

TEST_CASE("a diagnostic renders rustc-style: header, location, notes, help") {
  Diagnostic d = ss::diag::error(ss::diag::Code::E0102, "source text isn't UTF-8: x", "save it");
  d.location = {"m.ss", 3, 7};
  d.notes = {"first", "second"};
  CHECK(d.render() ==
        "error[E0102]: source text isn't UTF-8: x\n"
        " --> m.ss:3:7\n"
        "  = note: first\n"
        "  = note: second\n"
        "  = help: save it\n");
}

TEST_CASE("a diagnostic without location or help is one line, colour only when asked") {
  Diagnostic d;
  d.code = "E1901";
  d.message = "CUDA isn't available: x";
  CHECK(d.render() == "error[E1901]: CUDA isn't available: x\n");
  const std::string colored = d.render({.color = true});
  CHECK(colored.find("\x1b[1;31merror[E1901]") != std::string::npos);
  CHECK(d.render().find('\x1b') == std::string::npos);

  d.severity = Severity::warning;
  CHECK(d.render().rfind("warning[E1901]", 0) == 0);
}

TEST_CASE("a location with a file and no line prints the file alone") {
  Diagnostic d = ss::diag::error(ss::diag::Code::E0101, "can't read `a.ss`: gone");
  d.location.file = "a.ss";
  CHECK(d.render() == "error[E0101]: can't read `a.ss`: gone\n --> a.ss\n");
}

TEST_CASE("has_errors counts errors only") {
  Diagnostic warning;
  warning.severity = Severity::warning;
  CHECK_FALSE(ss::has_errors({}));
  CHECK_FALSE(ss::has_errors({warning}));
  CHECK(ss::has_errors({warning, Diagnostic{}}));
}

TEST_CASE("the registry's codes are unique, named and titled, and found by name") {
  std::set<std::string_view> seen;
  for (auto code : ss::diag::kAllCodes) {
    const auto name = ss::diag::code_name(code);
    CHECK(seen.insert(name).second);
    CHECK_FALSE(ss::diag::code_title(code).empty());
    REQUIRE(ss::diag::find_code(name).has_value());
    CHECK(*ss::diag::find_code(name) == code);
  }
  CHECK_FALSE(ss::diag::find_code("E9999").has_value());
  CHECK(ss::diag::error(ss::diag::Code::E1901, "m").code == "E1901");
}

TEST_CASE("no diagnostic is built without a registered code, anywhere in the library") {
  // A diagnostic gets its code from diag::error (src/diag); one assembled
  // field by field elsewhere could leave it out, and --format json would
  // show "code":"". So outside src/diag nothing declares a bare Diagnostic
  // or sets a message on one, and every code named in the source is
  // registered.
  namespace fs = std::filesystem;
  const fs::path root = fs::path(ss::test::kSourceDir);
  std::set<std::string> registered;
  for (const auto c : ss::diag::kAllCodes) registered.insert(std::string(ss::diag::code_name(c)));
  // (A member `Diagnostic diagnostic;` that carries one is fine.)
  const std::regex bare(
      R"(\bDiagnostic\s+(d|diag|out|r|result|error)\s*;|\bDiagnostic\s*\{\s*\}|\.message\s*=[^=])");
  const std::regex named(R"(Code::(E\d{4}))");
  int files = 0;
  for (const char* folder : {"src", "kernels", "jit", "tools"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
      const auto ext = entry.path().extension();
      if (ext != ".cpp" && ext != ".hpp") continue;
      const std::string rel = fs::relative(entry.path(), root).string();
      const std::string text = ss::test::read_file(entry.path().string());
      ++files;
      if (rel.rfind("src/diag/", 0) != 0)
        CHECK_MESSAGE(!std::regex_search(text, bare),
                      rel << " builds a Diagnostic without diag::error (and so maybe no code)");
      for (std::sregex_iterator it(text.begin(), text.end(), named), end; it != end; ++it)
        CHECK_MESSAGE(registered.count((*it)[1]),
                      rel << " names " << (*it)[1] << ", which src/diag/codes.def lacks");
    }
  }
  CHECK(files > 100);
}
