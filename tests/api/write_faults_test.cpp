// A write that fails midway (the disk full, a host's file access that
// refuses) leaves what was there before whole and says so with a code:
// a checkpoint, a sink's file and the standalone builds. The disk is
// "full" through the process's file size limit (RLIMIT_FSIZE, its signal
// ignored), which makes a write past it fail with EFBIG.
#include <doctest/doctest.h>
#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "shapescript/shapescript.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

namespace {

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The files in `dir` a write left behind (a temporary's name has ".tmp-"
// or ".build-").
int leftovers(const std::string& dir) {
  int n = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir)) {
    const std::string name = f.path().filename().string();
    n += name.find(".tmp-") != std::string::npos || name.find(".build-") != std::string::npos;
  }
  return n;
}

// While it lives, this process can't write a file past `bytes`.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &before_);
    signal_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit r = before_;
    r.rlim_cur = bytes;
    REQUIRE(setrlimit(RLIMIT_FSIZE, &r) == 0);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &before_);
    std::signal(SIGXFSZ, signal_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit before_{};
  void (*signal_)(int) = nullptr;
};

// `argv` under a file size limit of `kib` KiB (bash's ulimit -f), SIGXFSZ ignored.
ss::test::ProcessResult run_limited(int kib, const std::vector<std::string>& argv,
                                    const std::string& cwd) {
  std::vector<std::string> cmd = {
      "bash", "-c", "trap '' XFSZ; ulimit -f " + std::to_string(kib) + "; exec \"$@\"", "limited"};
  cmd.insert(cmd.end(), argv.begin(), argv.end());
  return ss::test::run_process(cmd, {.cwd = cwd, .merge_stderr = true});
}

std::string codes(const std::vector<ss::Diagnostic>& ds) {
  std::string out;
  for (const auto& d : ds) out += d.code + " ";
  return out;
}

const char* const kModel =
    "dim D = 64\nmodel Big:\n    param w: [D D] = normal(std=0.1)\n    param b: [D] = zeros\n";

}  // namespace

TEST_CASE("a checkpoint saved onto a full disk: E1706, the earlier one whole, no temporary") {
  const ss::test::TempDir dir;
  const ss::Engine engine;
  const ss::Module m = engine.load_source(kModel, "big.ss");
  REQUIRE(m);
  const ss::Value first = m.make("Big", {.seed = 1}), second = m.make("Big", {.seed = 2});
  const std::string path = dir.file("big.safetensors");
  REQUIRE(codes(m.save(first, path)).empty());
  const std::string earlier = bytes_of(path);
  REQUIRE(earlier.size() > 16384);
  {
    const FileSizeLimit full(earlier.size() / 2);
    const auto failed = m.save(second, path);
    REQUIRE(codes(failed) == "E1706 ");
    CHECK(failed[0].message.find("big.safetensors") != std::string::npos);
  }
  CHECK(bytes_of(path) == earlier);
  CHECK(leftovers(dir.path()) == 0);
  // The disk has room again: the save goes through, and loads back.
  REQUIRE(codes(m.save(second, path)).empty());
  CHECK(bytes_of(path) != earlier);
  CHECK(m.load("Big", path).tensors().at("w").to_floats() == second.tensors().at("w").to_floats());
}

TEST_CASE(
    "a host's file access that fails a checkpoint's write: E1706 with its reason, the earlier one "
    "whole") {
  const ss::test::TempDir dir;
  const std::string path = dir.write("big.safetensors", "the earlier checkpoint");
  ss::LoadOptions options;
  options.files.write = [](const std::string&, std::string_view, std::string* why) {
    *why = "the archive is full";
    return false;
  };
  const ss::Engine engine;
  const ss::Module m = engine.load_source(kModel, "big.ss", options);
  REQUIRE(m);
  const auto failed = m.save(m.make("Big"), path);
  REQUIRE(codes(failed) == "E1706 ");
  CHECK(failed[0].message.find("the archive is full") != std::string::npos);
  CHECK(bytes_of(path) == "the earlier checkpoint");
}

TEST_CASE(
    "a sink's file on a full disk: the run stops with E1706, the file ends with a whole record") {
  const ss::test::TempDir dir;
  const std::string program =
      dir.write("sink.ss",
                "sink metrics\n"
                "fn main():\n"
                "    for step in range(100000):\n"
                "        write(metrics, step=step, loss=1.0 / (step + 1.0))\n");
  for (const std::string name : {"metrics.csv", "metrics.jsonl"}) {
    CAPTURE(name);
    const auto r = run_limited(4, {ss::test::kCliPath, "run", program, "--sink", "metrics=" + name},
                               dir.path());
    CHECK(r.exit_code != 0);
    CHECK(r.out.find("E1706") != std::string::npos);
    const std::string text = bytes_of(dir.file(name));
    CHECK(text.size() > 1000);
    CHECK(text.size() <= 4096);
    REQUIRE(!text.empty());
    CHECK(text.back() == '\n');
    // Every line whole: as many fields (or braces) as the first record's.
    std::istringstream lines(text);
    std::string line;
    int n = 0;
    while (std::getline(lines, line)) {
      ++n;
      if (name == "metrics.csv")
        CHECK(std::count(line.begin(), line.end(), ',') == 1);
      else
        CHECK((line.front() == '{' && line.back() == '}'));
    }
    CHECK(n > 20);
  }
}

TEST_CASE(
    "a standalone build onto a full disk: a coded error, the earlier build whole, nothing left "
    "behind") {
  const ss::test::TempDir dir;
  // (Appended, not `std::string(kModel) + "..."`: through the precompiled
  // header gcc 12 warns falsely of that operator+'s copy, -Warray-bounds.)
  std::string source = kModel;
  source += "fn f(m: Big, x: [n D]) -> [n D] = tanh(x @ m.w + m.b)\n";
  const std::string program = dir.write("model.ss", source);
  SUBCASE("C++ source") {
    const std::string out = dir.write("model.cpp", "// the earlier build\n");
    const auto r = run_limited(1, {ss::test::kCliPath, "build", "--standalone", program, "-o", out},
                               dir.path());
    CHECK(r.exit_code != 0);
    CHECK(r.out.find("E1706") != std::string::npos);
    CHECK(bytes_of(out) == "// the earlier build\n");
    CHECK(leftovers(dir.path()) == 0);
  }
  SUBCASE("a shared object") {
    const std::string out = dir.write("model.so", "the earlier build");
    const auto r = run_limited(1, {ss::test::kCliPath, "build", program, "-o", out}, dir.path());
    CHECK(r.exit_code != 0);
    CHECK(r.out.find("error[E") != std::string::npos);
    CHECK(bytes_of(out) == "the earlier build");
    CHECK(leftovers(dir.path()) == 0);
  }
}
