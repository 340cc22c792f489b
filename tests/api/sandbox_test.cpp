// Sandboxing from a host: every file `load` and `save` touch goes through
// LoadOptions::files (the host's own read and write, or the real file
// system confined to a root, or no writes at all: E1707), and a run stops
// past LoadOptions::time_limit (E1609) or memory_limit (E1610).
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "shapescript/shapescript.hpp"
#include "support/process.hpp"
#include "support/program_run.hpp"

namespace {

constexpr const char* kSaveLoad = R"(model M:
    param w: [3] = ones

fn main():
    save(M(seed=0), "m.safetensors")
    m: M = load("m.safetensors")
    print("loaded", m.w)
)";

using Run = ss::test::ProgramRun;

Run run(const std::string& path, const ss::LoadOptions& options) {
  return ss::test::run_main(path, options);
}

}  // namespace

TEST_CASE("a host serves the program's files itself: nothing touches the disk") {
  ss::test::TempDir dir;
  const auto program = dir.write("prog.ss", kSaveLoad);
  std::map<std::string, std::string> store;  // the host's virtual files
  ss::LoadOptions options;
  options.files.write = [&](const std::string& path, std::string_view bytes, std::string*) {
    store[path] = std::string(bytes);
    return true;
  };
  options.files.read = [&](const std::string& path, std::string* bytes, std::string* why) {
    const auto it = store.find(path);
    if (it == store.end()) return *why = "not in the host's store", false;
    *bytes = it->second;
    return true;
  };
  store["/virtual/prog.ss"] = kSaveLoad;  // the program's source is served too
  const Run from_store = run("/virtual/prog.ss", options);
  REQUIRE_MESSAGE(from_store.diagnostics.empty(), from_store.diagnostics[0].render());
  CHECK(from_store.printed == "loaded [1. 1. 1.]\n");
  CHECK(store.count("/virtual/m.safetensors") == 1);  // saved beside it, in the store
  store.clear();
  const Run missing = run(program, options);  // on disk, but not in the host's store
  CHECK(missing.code() == "E1408");
  store[program] = kSaveLoad;
  const Run r = run(program, options);
  REQUIRE_MESSAGE(r.diagnostics.empty(), r.diagnostics[0].render());
  CHECK(r.printed == "loaded [1. 1. 1.]\n");
  REQUIRE(store.size() == 2);  // the program and what it saved
  CHECK(store.count(dir.file("m.safetensors")) == 1);
  CHECK_FALSE(ss::test::run_process({"test", "-e", dir.file("m.safetensors")}, {}).exit_code == 0);
}

TEST_CASE("a root confines the program's files, a read-only host refuses save: E1707") {
  ss::test::TempDir dir;
  ss::LoadOptions options;
  options.files.root = dir.path();
  CHECK(run(dir.write("inside.ss", kSaveLoad), options).diagnostics.empty());

  std::string escaping = kSaveLoad;
  escaping.replace(escaping.find("\"m.safetensors\")\n    m"), 15, "\"../m.safetensors\"");
  const Run out = run(dir.write("escape.ss", escaping), options);
  REQUIRE(out.code() == "E1707");
  CHECK(out.diagnostics[0].message.find("is outside the folder the host allows") !=
        std::string::npos);
  CHECK(out.diagnostics[0].location.line == 5);

  options.files.root.clear();
  options.files.allow_write = false;
  const Run refused = run(dir.write("write.ss", kSaveLoad), options);
  REQUIRE(refused.code() == "E1707");
  CHECK(refused.diagnostics[0].message.find("doesn't let this program write") != std::string::npos);
  options.files.allow_write = true;
  options.files.allow_read = false;
  CHECK(run(dir.write("read.ss", kSaveLoad), options).code() == "E1707");  // the load
}

TEST_CASE("a run past the host's time limit stops with E1609, and a quick one doesn't") {
  ss::test::TempDir dir;
  const auto spin = dir.write("spin.ss",
                              "fn main():\n    total = 0\n    for i in range(1000000000):\n"
                              "        total = total + i\n    print(total)\n");
  ss::LoadOptions options;
  options.time_limit = std::chrono::milliseconds(50);
  const Run r = run(spin, options);
  REQUIRE(r.code() == "E1609");
  CHECK(r.diagnostics[0].message == "the run went past the host's time limit of 50 ms");
  CHECK(r.printed.empty());
  options.time_limit = std::chrono::milliseconds(60000);
  CHECK(run(dir.write("quick.ss", "fn main():\n    print(1 + 2)\n"), options).printed == "3\n");
}

TEST_CASE("a run or a call past the host's memory limit stops with E1610 and frees what it held") {
  ss::test::TempDir dir;
  const auto big = dir.write("big.ss",
                             "dim M = 1000\ndim N = 1000\n\nfn main():\n    x = ones([M N]) * 2.0\n"
                             "    print(mean(mean(x, over=N), over=M))\n");
  ss::LoadOptions options;
  options.memory_limit = 1000000;
  const Run r = run(big, options);
  REQUIRE(r.code() == "E1610");
  CHECK(r.diagnostics[0].location.line == 5);
  options.memory_limit = 64 << 20;  // room for it
  CHECK(run(big, options).printed == "2.0\n");

  // A device function called by a host: the same limit, per call.
  options.memory_limit = 1000000;
  const ss::Module m =
      ss::Engine().load_source("fn f(x: [n]) -> [n] = x * 2.0 + 1.0\n", "f.ss", options);
  REQUIRE(m);
  std::vector<float> small(1000, 1.0f), large(1000000, 1.0f);
  CHECK(m.call("f", {ss::Tensor::view(small.data(), {1000})}));
  const auto refused = m.call("f", {ss::Tensor::view(large.data(), {1000000})});
  REQUIRE_FALSE(refused);
  CHECK(refused.diagnostics.at(0).code == "E1610");
  CHECK(m.call("f", {ss::Tensor::view(small.data(), {1000})}));  // nothing left charged
}
