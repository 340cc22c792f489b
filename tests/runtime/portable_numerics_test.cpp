// Numerics::portable: every graph of the test programs and the demos,
// forward and gradient, gives the same bits on every kernel path this CPU
// has (SHAPESCRIPT_ISA=avx512, avx2, scalar: each a child process, since
// the path is chosen once a process) and on one and two threads.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/core/cpu_isa.hpp"
#include "support/paths.hpp"
#include "support/portable_hashes.hpp"
#include "support/process.hpp"
#include "support/skip.hpp"

namespace {

constexpr const char* kThreadsCase =
    "portable numerics: every graph gives the same bits on one thread and two";

// The lines that differ between two lists, at most a few, for the report.
std::string differences(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::string out;
  int shown = 0;
  for (std::size_t i = 0; i < std::max(a.size(), b.size()) && shown < 8; ++i) {
    const std::string x = i < a.size() ? a[i] : "(none)", y = i < b.size() ? b[i] : "(none)";
    if (x == y) continue;
    out += "\n  " + x + "\n  " + y;
    ++shown;
  }
  return out;
}

std::int64_t count_differing(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::int64_t n = a.size() == b.size() ? 0 : 1;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) n += a[i] != b[i];
  return n;
}

}  // namespace

TEST_CASE("portable numerics: every graph gives the same bits on one thread and two") {
  if (std::string(ss::test::kJitPath).empty()) {
    ss::test::skip("no JIT module in this build");
    return;
  }
  const auto one = ss::test::portable_hashes(1), two = ss::test::portable_hashes(2);
  CHECK(one.size() > 40);
  CHECK_MESSAGE(count_differing(one, two) == 0,
                "on " << std::string(ss::runtime::isa_name(ss::runtime::kernel_isa())) << ":"
                      << differences(one, two));
  // A child of the next case: its lines, for the parent to compare.
  if (const char* file = std::getenv("SS_TEST_PORTABLE_HASHES"))
    CHECK(ss::test::write_lines(file, one));
}

TEST_CASE("portable numerics: every graph gives the same bits on every kernel path") {
  if (std::string(ss::test::kJitPath).empty()) {
    ss::test::skip("no JIT module in this build");
    return;
  }
  if (std::getenv("SS_TEST_PORTABLE_HASHES")) return;  // a child: the case above is its work
  const auto here = ss::test::portable_hashes(1);
  const ss::test::TempDir dir;
  int paths = 0;
  for (const auto isa :
       {ss::runtime::Isa::avx512, ss::runtime::Isa::avx2, ss::runtime::Isa::scalar}) {
    const std::string name = ss::runtime::isa_name(isa);
    if (isa > ss::runtime::cpu_isa()) {
      MESSAGE("not run: this CPU hasn't the " << name << " path");
      continue;
    }
    CAPTURE(name);
    const std::string file = dir.file(name + ".txt");
    const auto r = ss::test::run_process(
        {"/proc/self/exe", std::string("--test-case=") + kThreadsCase},
        {.env = {{"SHAPESCRIPT_ISA", name}, {"SS_TEST_PORTABLE_HASHES", file}},
         .merge_stderr = true});
    REQUIRE_MESSAGE(r.exit_code == 0, r.out);
    const auto there = ss::test::read_lines(file);
    CHECK_MESSAGE(count_differing(here, there) == 0,
                  "this process (" << std::string(ss::runtime::isa_name(ss::runtime::kernel_isa()))
                                   << ") and " << name << ":" << differences(here, there));
    ++paths;
  }
  MESSAGE(paths << " kernel paths compared, " << here.size() << " graphs each");
}
