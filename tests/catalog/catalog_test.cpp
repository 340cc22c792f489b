// The error catalog and the checker can't drift: every registered code has an
// entry in docs/errors.md with the registry's title and an example, every
// entry's code is registered, and every example, run as written, reports its
// code.
#include <doctest/doctest.h>

#include <filesystem>

#include <sstream>
#include <variant>

#include "catalog/catalog.hpp"
#include "diag/codes.hpp"
#include "kernels/cuda_driver.hpp"
#include "shapescript/engine.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

namespace {

using ss::test::CatalogEntry;
using ss::test::CatalogExample;

std::vector<CatalogEntry> load_catalog() {
  std::vector<std::string> problems;
  auto entries = ss::test::parse_catalog(
      ss::test::read_file(std::string(ss::test::kSourceDir) + "/docs/errors.md"), &problems);
  for (const auto& p : problems) FAIL_CHECK("docs/errors.md: " << p);
  return entries;
}

std::string cli_folder() {
  const std::string cli = ss::test::kCliPath;
  return cli.substr(0, cli.rfind('/'));
}

bool cuda_driver_loads() {
  return std::holds_alternative<ss::cuda::Driver>(ss::cuda::Driver::open(""));
}

bool cuda_gpu_usable(int index = 0) {
  return ss::Engine({.device = ss::Device::cuda(index)}).ok();
}

// An expected line matches an output line that equals it, or, when it ends
// in "...", one that starts with what comes before.
bool line_matches(const std::string& expected, const std::string& actual) {
  constexpr std::string_view kDots = "...";
  if (expected.size() >= kDots.size() && expected.compare(expected.size() - 3, 3, kDots) == 0)
    return actual.rfind(expected.substr(0, expected.size() - 3), 0) == 0;
  return expected == actual;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Every expected line appears in the output, in order.
void check_output(const std::string& output, const std::vector<std::string>& expected) {
  const auto actual = split_lines(output);
  std::size_t at = 0;
  for (const auto& want : expected) {
    while (at < actual.size() && !line_matches(want, actual[at])) ++at;
    CHECK_MESSAGE(at < actual.size(), "expected the line\n  " << want << "\nin the output\n"
                                                              << output);
    if (at < actual.size()) ++at;
  }
}

// Every diagnostic the output shows ("error..." at a line's start) has a
// registered code: `error[E1705]: ...`, never a bare `error: ...`.
void check_coded(const std::string& output) {
  for (const auto& line : split_lines(output)) {
    if (line.rfind("error", 0) != 0) continue;
    const bool coded = line.size() > 12 && line.compare(5, 2, "[E") == 0 && line[11] == ']';
    CHECK_MESSAGE(coded, "a diagnostic without a code: " << line);
    if (coded) CHECK_MESSAGE(ss::diag::find_code(line.substr(6, 5)).has_value(), line);
  }
}

// Runs a `console` transcript: `$ cat NAME` lines followed by a file's lines
// write that file; other `$` lines are shell commands whose output must show
// the lines that follow them. The last command must fail with the code.
void run_transcript(const CatalogEntry& entry, const ss::test::TempDir& dir, bool stand_in_gpu,
                    bool mpi) {
  struct Step {
    std::string command;
    std::vector<std::string> lines;
  };
  std::vector<Step> steps;
  for (const auto& line : split_lines(entry.example->body)) {
    if (line.rfind("$ ", 0) == 0)
      steps.push_back({line.substr(2), {}});
    else if (!steps.empty())
      steps.back().lines.push_back(line);
    else
      FAIL_CHECK("the transcript starts with a line that isn't a `$` command: " << line);
  }
  REQUIRE_FALSE(steps.empty());
  ss::test::ProcessOptions options{
      .env = {{"PATH", cli_folder() + ":" + std::string(std::getenv("PATH"))}},
      .cwd = dir.path(),
      .merge_stderr = true};
  // A CPU without FMA: the kernels run as on one (the portable numerics
  // refuse it, E1911).
  if (entry.example->machine == CatalogExample::Machine::without_fma)
    options.env["SHAPESCRIPT_ISA"] = "baseline";
  if (stand_in_gpu) {
    options.env["SHAPESCRIPT_CUDA_DRIVER"] = ss::test::built::fake_cuda;
    options.env["SHAPESCRIPT_NCCL"] = ss::test::built::fake_cuda;
  }
  if (mpi) {  // Open MPI on this machine alone, as root, as tests/mpi runs it
    options.env["ASAN_OPTIONS"] = "fast_unwind_on_malloc=0";
    options.env["OMPI_ALLOW_RUN_AS_ROOT"] = "1";
    options.env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1";
    options.env["OMPI_MCA_btl"] = "self,tcp";
    options.env["OMPI_MCA_btl_tcp_if_include"] = "lo";
    options.env["OMPI_MCA_oob_tcp_if_include"] = "lo";
    options.env["OMPI_MCA_rmaps_base_oversubscribe"] = "1";
    options.env["SHAPESCRIPT_MPI"] = ss::test::built::mpi;
  }
  ss::test::ProcessResult last;
  for (const auto& step : steps) {
    if (step.command.rfind("cat ", 0) == 0) {
      std::string contents;
      for (const auto& l : step.lines) contents += l + "\n";
      dir.write(step.command.substr(4), contents);
      continue;
    }
    last = ss::test::run_shell(step.command, options);
    check_output(last.out, step.lines);
    check_coded(last.out);
  }
  CHECK(last.exit_code == 1);
  CHECK_MESSAGE(last.out.find("error[" + entry.code + "]") != std::string::npos, last.out);
}

// Runs a program with the command the example names.
void run_program(const CatalogEntry& entry, const ss::test::TempDir& dir) {
  const auto& example = *entry.example;
  const std::string file = dir.write("example.ss", example.body);
  REQUIRE_MESSAGE((example.command == "check" || example.command == "run"),
                  "the catalog can't run `" << example.command << "` examples yet");
  const auto result =
      ss::test::run_process({ss::test::kCliPath, example.command, file}, {.merge_stderr = true});
  CHECK(result.exit_code == 1);
  CHECK_MESSAGE(result.out.find("error[" + entry.code + "]") != std::string::npos, result.out);
  check_coded(result.out);
}

}  // namespace

TEST_CASE(
    "every registered code has its catalog entry, titled alike, and no entry is unregistered") {
  const auto entries = load_catalog();
  std::size_t next = 0;
  for (auto code : ss::diag::kAllCodes) {
    const std::string name(ss::diag::code_name(code));
    CAPTURE(name);
    REQUIRE_MESSAGE(next < entries.size(), name << " has no entry in docs/errors.md");
    CHECK_MESSAGE(entries[next].code == name,
                  "entries out of registry order, or " << name << " missing");
    CHECK(entries[next].title == ss::diag::code_title(code));
    ++next;
  }
  for (; next < entries.size(); ++next)
    FAIL_CHECK(entries[next].code << " is in docs/errors.md but not in src/diag/codes.def");
}

TEST_CASE("every catalog entry has an example, a fix and a See pointer") {
  for (const auto& entry : load_catalog()) {
    CAPTURE(entry.code);
    if (entry.no_example)
      CHECK_MESSAGE(entry.chapter == 0, "only chapter 00 may go without an example");
    else
      CHECK(entry.example.has_value());
    CHECK(entry.has_fix);
    CHECK(entry.has_see);
    if (entry.example) {
      const auto& lang = entry.example->language;
      CHECK((lang == "shapescript" || lang == "console"));
    }
  }
}

TEST_CASE("every catalog example reports its code") {
  const bool driver = cuda_driver_loads();
  const bool gpu = driver && cuda_gpu_usable();
  const bool two_gpus = gpu && cuda_gpu_usable(1);
  int ran = 0;
  for (const auto& entry : load_catalog()) {
    if (!entry.example) continue;
    CAPTURE(entry.code);
    using Machine = CatalogExample::Machine;
    if (entry.example->machine == Machine::without_cuda_driver && driver) {
      MESSAGE(entry.code << ": its example is for a machine without a CUDA driver");
      continue;
    }
    // Without the GPUs an example needs, a stand-in driver and NCCL
    // (tests/fakes, two devices) play them.
    const bool stand_in = (entry.example->machine == Machine::needs_cuda_gpu && !gpu) ||
                          (entry.example->machine == Machine::needs_two_cuda_gpus && !two_gpus);
    if (stand_in && entry.example->language != "console") {
      MESSAGE(entry.code << ": its example needs a GPU");
      continue;
    }
    const bool mpi = entry.example->machine == Machine::needs_mpi;
    if (mpi && (std::string(ss::test::built::mpi).empty() ||
                ss::test::run_shell("command -v mpirun").exit_code != 0)) {
      MESSAGE(entry.code << ": its example needs mpirun and the MPI adapter");
      continue;
    }
    const bool onnx = entry.example->machine == Machine::needs_onnx;
    if (onnx && std::string(ss::test::built::onnx).empty()) {
      MESSAGE(entry.code << ": its example needs the ONNX importer");
      continue;
    }
    ss::test::TempDir dir;
    if (onnx)  // the models tests/onnx/make_models.py wrote
      for (const auto& f : std::filesystem::directory_iterator(
               std::string(ss::test::built::source_dir) + "/tests/onnx/models"))
        if (f.is_regular_file())
          std::filesystem::copy_file(f.path(),
                                     std::filesystem::path(dir.path()) / f.path().filename());
    if (entry.example->language == "console")
      run_transcript(entry, dir, stand_in, mpi);
    else
      run_program(entry, dir);
    ++ran;
  }
  CHECK(ran >= 3);
}
