// The code cache: compiled kernels kept by content in memory for the
// process and, through the engine's CodeCache (the CLI's XDG cache), on disk,
// so a second run of a program compiles nothing and gives the same results;
// a damaged or foreign entry is compiled afresh, never run.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "runtime/fast/compiled_code.hpp"
#include "runtime/fast/jit_module.hpp"
#include "shapescript/shapescript.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"
#include "support/skip.hpp"

namespace {

using ss::test::run_process;

// Constants no other test uses, so the kernels are this test's own.
constexpr const char* kProgram =
    "fn f(x: [n 4]) -> [n 4]:\n"
    "    return tanh(x * 0.7310987 + 0.2519) * exp(x - 1.5071) + sigmoid(x * -2.213)\n";
constexpr const char* kArg = "x=[[0.5, -1.0, 2.0, 0.25], [1.5, 0.0, -0.75, 3.0]]";

struct Counts {
  int compiled = -1, found = -1;
};

Counts counts(const std::string& stats) {
  std::smatch m;
  static const std::regex pattern("(\\d+) fused kernels compiled, (\\d+) found in the code cache");
  if (!std::regex_search(stats, m, pattern)) return {};
  return {std::stoi(m[1]), std::stoi(m[2])};
}

std::vector<std::filesystem::path> entries(const std::string& dir) {
  std::vector<std::filesystem::path> out;
  if (std::filesystem::exists(dir))
    for (const auto& e : std::filesystem::directory_iterator(dir)) out.push_back(e.path());
  return out;
}

}  // namespace

TEST_CASE("a second run compiles nothing: its kernels come from the code cache") {
  if (std::string(ss::test::kJitPath).empty()) {
    ss::test::skip("no JIT module in this build");
    return;
  }
  ss::test::TempDir dir;
  const std::string program = dir.file("cached.ss"), cache = dir.file("cache");
  std::ofstream(program) << kProgram;
  const auto run = [&](std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {ss::test::kCliPath, "run", program, "f", "--arg", kArg,
                                     "--stats"};
    if (extra.empty()) extra = {"--code-cache", cache};
    argv.insert(argv.end(), extra.begin(), extra.end());
    auto r = run_process(argv);
    REQUIRE_MESSAGE(r.exit_code == 0, r.err);
    return r;
  };
  const auto first = run();
  const Counts compiled = counts(first.err);
  CHECK_MESSAGE(compiled.compiled >= 1, first.err);
  CHECK(compiled.found == 0);
  REQUIRE(entries(cache).size() == 1);  // one entry: the graph's kernels, one object

  const auto second = run();
  CHECK(counts(second.err).compiled == 0);
  CHECK(counts(second.err).found == compiled.compiled);
  CHECK(second.out == first.out);

  // Damage the entry's object (its section headers, at the end): the run
  // compiles again, gives the same results and writes a sound entry back.
  const auto entry = entries(cache).front();
  const auto size = std::filesystem::file_size(entry);
  {
    std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size - 256));
    f << std::string(256, '\xff');
  }
  const auto damaged = run();
  CHECK(counts(damaged.err).compiled == compiled.compiled);
  CHECK(damaged.out == first.out);
  CHECK(counts(run().err).found == compiled.compiled);

  // An entry whose identity isn't these kernels' (a hash clash, another
  // CPU or LLVM) is not taken, even with a sound object for this key.
  {
    std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(std::string("shapescript kernels 2\n").size() + 8 + 4));
    f << '9';  // "abi 3" becomes "abi 9"
  }
  const auto foreign = run();
  CHECK(counts(foreign.err).compiled == compiled.compiled);
  CHECK(foreign.out == first.out);

  // --no-code-cache compiles and stores nothing; without --code-cache the
  // CLI uses $XDG_CACHE_HOME/shapescript.
  const auto before = std::filesystem::last_write_time(entry);
  CHECK(counts(run({"--no-code-cache"}).err).compiled == compiled.compiled);
  CHECK(std::filesystem::last_write_time(entry) == before);
  const std::string xdg = dir.file("xdg");
  auto argv = std::vector<std::string>{ss::test::kCliPath, "run", program, "f", "--arg", kArg};
  const auto from_xdg = run_process(argv, {.env = {{"XDG_CACHE_HOME", xdg}}});
  REQUIRE_MESSAGE(from_xdg.exit_code == 0, from_xdg.err);
  CHECK(entries(xdg + "/shapescript").size() == 1);
}

TEST_CASE("kernels compiled once in a process serve every module of the same program it holds") {
  if (std::string(ss::test::kJitPath).empty()) {
    ss::test::skip("no JIT module in this build");
    return;
  }
  const std::string text = std::string(kProgram) + "# a second copy\n";
  std::map<std::string, std::string> stored;
  int loads = 0;
  const ss::CodeCache memory{
      [&](const std::string& key, std::string* bytes) {
        ++loads;
        if (!stored.count(key)) return false;
        *bytes = stored.at(key);
        return true;
      },
      [&](const std::string& key, std::string_view bytes) { stored[key] = std::string(bytes); }};
  const ss::Engine engine({.jit_library = ss::test::kJitPath, .code_cache = memory});
  const auto x = ss::Tensor::of(std::vector<float>(8, 0.5f), {2, 4});
  std::vector<float> results[2];
  ss::ExecutorStats stats[2];
  std::vector<ss::Module> held;  // both at once: code is linked while a module holds it
  for (int k = 0; k < 2; ++k) {
    const ss::Module& mod = held.emplace_back(engine.load_source(text, "cached.ss"));
    REQUIRE(mod);
    const auto r = mod.call("f", {x});
    REQUIRE(r);
    results[k] = r.tensor().to_floats();
    stats[k] = mod.executor_stats();
  }
  // The first module compiled them or found them (another test in this
  // process may hold the same kernels); the second found them in the
  // process without asking the store.
  CHECK(stats[0].kernels_compiled + stats[0].kernels_from_memory + stats[0].kernels_from_cache >=
        1);
  CHECK(stats[1].kernels_compiled == 0);
  CHECK(stats[1].kernels_from_memory >= 1);
  CHECK(loads <= 1);
  CHECK(results[0] == results[1]);
  // Per function: f ran once on the fast executor, through its fused kernel.
  const ss::FunctionStats& f = stats[1].functions.at("f");
  CHECK(f.kind == "device");
  CHECK(f.executor == "fast");
  CHECK(f.calls == 1);
  CHECK(f.fused_kernels >= 1);
  CHECK(f.nodes.at("fused") >= 2);
  // Once no module holds them they are unloaded: the next module links the
  // store's object, compiling nothing.
  held.clear();
  const ss::Module again = engine.load_source(text, "cached.ss");
  REQUIRE(again);
  CHECK(again.executor_stats().kernels_compiled == 0);
  CHECK(again.executor_stats().kernels_from_memory == 0);
  CHECK(again.executor_stats().kernels_from_cache >= 1);
  CHECK(again.call("f", {x}).tensor().to_floats() == results[0]);
}

TEST_CASE("a kernel set's identity covers the target and every step, its key is a hash of it") {
  auto jit = ss::runtime::JitModule::load(ss::test::kJitPath);
  if (!jit) {
    ss::test::skip("no JIT module in this build");
    return;
  }
  SsJitStep steps[] = {{SS_JIT_LOAD, 0, 0, 0, 0, 0},
                       {SS_JIT_CONSTANT, 0, 0, 0, 0, 2.0f},
                       {SS_JIT_BINARY, 2, 0, 1, 0, 0}};
  std::uint8_t broadcast[] = {0};
  const std::vector<SsJitKernelDesc> one = {{steps, 3, 1, broadcast}};
  const auto identity = ss::runtime::kernel_identity(jit->api(), one);
  CHECK(identity.find(jit->api().target_id()) != std::string::npos);
  CHECK(ss::runtime::kernel_identity(jit->api(), one) == identity);
  const auto key = ss::runtime::code_key(identity);
  CHECK(key.size() == 19);
  CHECK(key.rfind("k1-", 0) == 0);
  steps[1].value = 3.0f;  // another constant: another identity and key
  const auto other = ss::runtime::kernel_identity(jit->api(), one);
  CHECK(other != identity);
  CHECK(ss::runtime::code_key(other) != key);
  broadcast[0] = 1;
  CHECK(ss::runtime::kernel_identity(jit->api(), one) != other);
}
