// The JIT's code lives as long as a module holds it: a process that loads
// program after program (a game reloading scripts, a fuzzer, a server
// taking models) keeps only the code of the modules it holds. Each linked
// object is unloaded when the last module running it goes, its memory and
// mappings given back; before, every object stayed linked and a process
// ran out of mappings (vm.max_map_count) after a few thousand programs,
// the JIT then failing every load.
#include <doctest/doctest.h>

#include <algorithm>

#include <malloc.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "runtime/fast/compiled_code.hpp"
#include "shapescript/shapescript.hpp"
#include "support/paths.hpp"
#include "support/skip.hpp"

namespace {

// Bytes malloc has handed out and not had back, over every arena.
std::size_t heap_in_use() {
  return mallinfo2().uordblks;
}

std::size_t mappings() {
  std::ifstream maps("/proc/self/maps");
  std::size_t n = 0;
  for (std::string line; std::getline(maps, line);) ++n;
  return n;
}

// A program of its own code for each k: the kernel's constant and the
// controller's branches differ (`count` prints, so it runs in the
// controller).
std::string program(int k) {
  std::string s = "dim D = 4\n\nfn f(x: [b D]) -> [b D]:\n    return relu(x) * " +
                  std::to_string(k) + ".5 + x\n\nfn count(steps: int) -> int:\n    total = 0\n" +
                  "    print(f\"counting {steps}\")\n    for i in range(steps):\n";
  for (int b = 0; b <= k % 5; ++b)
    s += "        if i % " + std::to_string(b + 2) + " == 0:\n            total = total + " +
         std::to_string(b + 1) + "\n";
  return s + "    return total\n";
}

// What count(steps) returns, by the program's own arithmetic.
std::int64_t expected_count(int k, std::int64_t steps) {
  std::int64_t total = 0;
  for (std::int64_t i = 0; i < steps; ++i)
    for (int b = 0; b <= k % 5; ++b)
      if (i % (b + 2) == 0) total += b + 1;
  return total;
}

std::int64_t made(const ss::ExecutorStats& s) {
  return s.kernels_compiled + s.kernels_from_memory + s.kernels_from_cache;
}

}  // namespace

TEST_CASE("a process that loads and drops program after program holds no more JIT code") {
  if (std::string(ss::test::kJitPath).empty()) {
    ss::test::skip("no JIT module in this build: nothing is linked");
    return;
  }
  const ss::Engine engine({.jit_library = ss::test::kJitPath});
  std::string printed;
  ss::LoadOptions options;
  options.print = [&](std::string_view line) { printed = line; };
  const auto x = ss::Tensor::of(std::vector<float>{-1, 2, -3, 4, 0.5f, -0.5f, 1, -2}, {2, 4});
  const auto run = [&](int k) {
    CAPTURE(k);
    const ss::Module m = engine.load_source(program(k), "p" + std::to_string(k) + ".ss", options);
    REQUIRE_MESSAGE(m, m.diagnostics()[0].render());
    const auto r = m.call("f", {x});
    REQUIRE(r);
    const auto y = r.tensor().to_floats();
    const auto in = x.to_floats();
    for (std::size_t i = 0; i < in.size(); ++i)
      CHECK(y[i] == (in[i] > 0 ? in[i] : 0.0f) * (static_cast<float>(k) + 0.5f) + in[i]);
    const auto c = m.call("count", {ss::Arg(7 + k % 3)});
    REQUIRE(c);
    CHECK(c.value().number() == expected_count(k, 7 + k % 3));
    CHECK(printed == "counting " + std::to_string(7 + k % 3) + "\n");
    const auto stats = m.executor_stats();
    CHECK_MESSAGE(stats.jit_failures == 0, stats.jit_error);
    CHECK(made(stats) >= 1);
    CHECK(stats.functions.at("count").executor == "compiled");
  };
  run(0);  // the JIT's session and its first mappings
  const std::size_t linked = ss::runtime::linked_code_count();
  const std::size_t before = mappings();
  constexpr int kPrograms = 600;
  // The first 400 grow the JIT's tables to their size for good (the last
  // few KB of it by about the 400th: measured over 1,200, it then grows
  // by 1 KB in 800 programs). The baseline is the most the heap held over
  // the last 20 of them; a leak grows with every program.
  std::size_t heap = 0;
  for (int k = 1; k <= kPrograms * 2 / 3; ++k) {
    run(k);
    if (k > kPrograms * 2 / 3 - 20) heap = std::max(heap, heap_in_use());
  }
  for (int k = kPrograms * 2 / 3 + 1; k <= kPrograms; ++k) run(k);
  // Each program linked two objects or more (its kernels, its controller
  // function), each of a few mappings: kept, they would be over a thousand.
  CHECK(ss::runtime::linked_code_count() == linked);
  CHECK(mappings() < before + 40);
  // Nor any memory: the JIT's names of the code it dropped went too (LLVM's
  // symbol pool keeps each name until told to drop the unused ones: 65
  // bytes a program, 13 KB over the last 200).
  MESSAGE("heap in use: " << heap << " then " << heap_in_use() << " bytes");
  CHECK(heap_in_use() < heap + 8192);  // (a leak of the names: 13 KB)
}

TEST_CASE("JIT code two modules share outlives the first one dropped, then goes with the last") {
  if (std::string(ss::test::kJitPath).empty()) {
    ss::test::skip("no JIT module in this build: nothing is linked");
    return;
  }
  const ss::Engine engine({.jit_library = ss::test::kJitPath});
  const auto x = ss::Tensor::of(std::vector<float>{-1, 2, -3, 4}, {1, 4});
  const std::size_t linked = ss::runtime::linked_code_count();
  const std::string text = program(1000);
  {
    auto first = std::make_unique<ss::Module>(engine.load_source(text, "a.ss"));
    REQUIRE(*first);
    const ss::Module second = engine.load_source(text, "b.ss");
    REQUIRE(second);
    CHECK(second.executor_stats().kernels_from_memory >= 1);  // the first's code, shared
    CHECK(ss::runtime::linked_code_count() > linked);
    first.reset();
    const auto r = second.call("f", {x});  // runs the code the first linked
    REQUIRE(r);
    CHECK(r.tensor().to_floats() == std::vector<float>{-1, 2 + 2 * 1000.5f, -3, 4 + 4 * 1000.5f});
    const auto c = second.call("count", {ss::Arg(9)});
    REQUIRE(c);
    CHECK(c.value().number() == expected_count(1000, 9));
    CHECK(ss::runtime::linked_code_count() > linked);
  }
  CHECK(ss::runtime::linked_code_count() == linked);
  // Gone with the last module: a third links it afresh.
  const ss::Module third = engine.load_source(text, "c.ss");
  REQUIRE(third);
  CHECK(third.executor_stats().kernels_from_memory == 0);
  CHECK(made(third.executor_stats()) >= 1);
  CHECK(third.call("f", {x}).tensor().to_floats() ==
        std::vector<float>{-1, 2 + 2 * 1000.5f, -3, 4 + 4 * 1000.5f});
}
