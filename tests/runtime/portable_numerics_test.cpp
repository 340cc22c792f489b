// Numerics::portable: every graph of the test programs and the demos,
// forward and gradient, gives the same bits on every kernel path this CPU
// has (SHAPESCRIPT_ISA=avx512, avx2, scalar: each a child process, since
// the path is chosen once a process) and on one and two threads.
#include <doctest/doctest.h>
#include <xmmintrin.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "runtime/core/cpu_isa.hpp"
#include "runtime/fast/fast_executor.hpp"
#include "runtime/reference/interpreter.hpp"
#include "shapescript/shapescript.hpp"
#include "support/agreement.hpp"
#include "support/checked_program.hpp"
#include "support/fast_executor.hpp"
#include "support/lowered_graphs.hpp"
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

// The kernel paths this CPU runs (SHAPESCRIPT_ISA's names), widest
// first; each it can't, reported.
std::vector<std::string> runnable_paths() {
  std::vector<std::string> out;
  for (const auto isa :
       {ss::runtime::Isa::avx512, ss::runtime::Isa::avx2, ss::runtime::Isa::scalar}) {
    if (isa <= ss::runtime::cpu_isa())
      out.emplace_back(ss::runtime::isa_name(isa));
    else
      MESSAGE("not run: this CPU hasn't the " << std::string(ss::runtime::isa_name(isa))
                                              << " path");
  }
  return out;
}

// No function left to the reference's libm: elementwise nodes, softmax and
// log_softmax (any axis) all ran the portable code (`nodes`:
// runtime::executor_nodes).
void check_nothing_left_to_libm(std::map<std::string, std::int64_t>& nodes) {
  for (const char* op : {"unary", "binary", "softmax", "log_softmax"}) {
    CAPTURE(std::string(op));
    CHECK(nodes["reference " + std::string(op)] == 0);
  }
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
  std::map<std::string, std::int64_t> nodes;
  const auto one = ss::test::portable_hashes(1, &nodes), two = ss::test::portable_hashes(2);
  CHECK(one.size() > 40);
  check_nothing_left_to_libm(nodes);
  CHECK_MESSAGE(count_differing(one, two) == 0,
                "on " << std::string(ss::runtime::isa_name(ss::runtime::kernel_isa())) << ":"
                      << differences(one, two));
  // A child of the next case: its lines, for the parent to compare.
  if (const char* file = std::getenv("SS_TEST_PORTABLE_HASHES"))
    CHECK(ss::test::write_lines(file, one));
}

TEST_CASE("portable numerics: every graph gives the same bits without the JIT module") {
  // Each node alone: elementwise formulas through the JIT's steps run in
  // C++ (runtime/fast/portable/portable_steps), the rest as with the JIT.
  if (std::string(ss::test::kJitPath).empty()) {
    ss::test::skip("no JIT module in this build to compare with");
    return;
  }
  std::map<std::string, std::int64_t> nodes;
  const auto with = ss::test::portable_hashes(1),
             without = ss::test::portable_hashes(1, &nodes, false);
  CHECK_MESSAGE(count_differing(with, without) == 0,
                "with the JIT and without:" << differences(with, without));
  CHECK(nodes["loops"] > 100);  // the elementwise nodes ran alone
  check_nothing_left_to_libm(nodes);
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
  for (const std::string& name : runnable_paths()) {
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

namespace {

// A product of subnormal inputs, exps that land in the subnormals, and
// products that do: what flush-to-zero and denormals-are-zero change.
constexpr const char* kSubnormals = R"(fn f(x: [b 4], w: [4 3]) -> ([b 3], [b 4], [b 4]):
    return x @ w, exp(x * 1e36 - 101.0), x * 1e-3
)";

// The inputs, made before any test changes the state (subnormals among them).
struct Inputs {
  std::vector<float> x = std::vector<float>(8 * 4), w = std::vector<float>(4 * 3);
  Inputs() {
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = 1e-38f * static_cast<float>(i % 5 + 1) / 7;
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = 0.5f + static_cast<float>(i) / 16;
  }
};

// f's outputs, the call made under MXCSR `state` (the host's), read after
// the host's own state is back.
std::vector<std::vector<float>> run_subnormals(const ss::Module& mod, Inputs& in, unsigned state) {
  const unsigned before = _mm_getcsr();
  _mm_setcsr(state);
  const auto r =
      mod.call("f", {ss::Tensor::view(in.x.data(), {8, 4}), ss::Tensor::view(in.w.data(), {4, 3})});
  const unsigned after = _mm_getcsr();
  _mm_setcsr(before);
  CHECK((after & ~0x3Fu) == (state & ~0x3Fu));  // the host's state, put back (flags aside)
  REQUIRE_MESSAGE(r, r.diagnostics.at(0).render());
  std::vector<std::vector<float>> out;
  for (std::size_t o = 0; o < 3; ++o) out.push_back(r.tensor(o).to_floats());
  return out;
}

}  // namespace

TEST_CASE(
    "portable numerics: a host's flush-to-zero changes no bit, and is put back after a call") {
  constexpr unsigned kFtzDaz = 0x8040;  // MXCSR's flush-to-zero and denormals-are-zero
  Inputs in;
  for (const int threads : {1, 2}) {
    CAPTURE(threads);
    const ss::Engine engine({.jit_library = ss::test::kJitPath,
                             .threads = threads,
                             .numerics = ss::Numerics::portable});
    const ss::Module mod = engine.load_source(kSubnormals, "subnormals.ss");
    REQUIRE(mod);
    const unsigned host = _mm_getcsr() & ~0x3Fu;  // (its sticky flags left out)
    const auto plain = run_subnormals(mod, in, host);
    const auto flushed = run_subnormals(mod, in, host | kFtzDaz);
    for (std::size_t o = 0; o < plain.size(); ++o) {
      CAPTURE(o);
      CHECK(std::memcmp(plain[o].data(), flushed[o].data(), plain[o].size() * 4) == 0);
    }
    // The inputs do reach the subnormals: the fast numerics, which keep
    // the host's state, see it.
    const ss::Engine fast({.jit_library = ss::test::kJitPath, .threads = threads});
    const ss::Module fast_mod = fast.load_source(kSubnormals, "subnormals.ss");
    const auto fast_flushed = run_subnormals(fast_mod, in, host | kFtzDaz);
    bool any_differs = false;
    for (std::size_t o = 0; o < plain.size(); ++o)
      any_differs |= std::memcmp(plain[o].data(), fast_flushed[o].data(), plain[o].size() * 4) != 0;
    CHECK(any_differs);
  }
}

TEST_CASE("portable numerics: digits trained 30 epochs saves the same bytes on every path") {
  if (std::string(ss::test::kJitPath).empty() || std::string(ss::test::kCliPath).empty()) {
    ss::test::skip("no JIT module or CLI in this build");
    return;
  }
  // The demo as README.md runs it (train, print each epoch's loss and
  // accuracy, save the weights), in a folder of its own per run.
  const std::string digits = std::string(ss::test::kSourceDir) + "/examples/digits/";
  std::string first_weights, first_lines, first_run;
  int runs = 0;
  for (const std::string& name : runnable_paths()) {
    for (const int threads : {1, 2}) {
      const std::string run = name + ", " + std::to_string(threads) + " thread(s)";
      CAPTURE(run);
      const ss::test::TempDir dir;
      for (const char* file : {"digits.ss", "digits-train.safetensors", "digits-test.safetensors"})
        dir.write(file, ss::test::read_file(digits + file));
      const auto r = ss::test::run_process(
          {ss::test::kCliPath, "run", "digits.ss", "--numerics", "portable", "--threads",
           std::to_string(threads), "--sink", "metrics=/dev/null", "--no-code-cache"},
          {.env = {{"SHAPESCRIPT_ISA", name}, {"SHAPESCRIPT_JIT", ss::test::kJitPath}},
           .cwd = dir.path()});
      REQUIRE_MESSAGE(r.exit_code == 0, r.out << r.err);
      const std::string weights = ss::test::read_file(dir.file("mlp.safetensors"));
      REQUIRE(weights.size() > 30000);
      if (runs++ == 0) {
        first_weights = weights;
        first_lines = r.out;
        first_run = run;
        CHECK(r.out.find("epoch 29 loss") != std::string::npos);
        continue;
      }
      CHECK_MESSAGE(weights == first_weights, "the weights differ from " << first_run << "'s");
      CHECK_MESSAGE(r.out == first_lines, r.out << "\n" << first_lines);
    }
  }
  MESSAGE(runs << " runs of digits' 30 epochs, one set of weights");
}

TEST_CASE("portable numerics agree with the reference within the portable row") {
  if (std::string(ss::test::kJitPath).empty()) {
    ss::test::skip("no JIT module in this build");
    return;
  }
  int graphs = 0;
  const ss::test::Agreement a = ss::test::portable_agreement(&graphs);
  MESSAGE(graphs << " graphs; worst difference " << a.worst << " of the scale, " << a.flipped
                 << " integer or bool elements of " << a.elements << " flipped");
  CHECK(graphs > 40);
  CHECK(a.worst <= ss::test::tolerance("portable").relative);
  CHECK(a.flipped <= 2);  // an argmax of two nearly equal values
}

TEST_CASE("portable numerics: logsumexp over any axes and softmax off the last axis run portable") {
  // Those axes moved last, not left to the reference's libm; the results
  // the reference's within the portable row, with and without the JIT.
  const auto program = ss::test::check_source_text(R"(dim A = 6
dim B = 5
dim C = 19

fn across(x: [A B C]) -> ([B C], [B], [A 1 C], [A B C], [A B C]):
    return logsumexp(x, over=A), logsumexp(x, over=[A C]), logsumexp(x, over=B, keep=true), softmax(x, over=A), log_softmax(x, over=B)
)");
  REQUIRE(program);
  const auto graphs = ss::test::lowered_graphs(*program);
  const ss::ir::Graph* g = ss::test::lowered_graph(graphs, "across");
  REQUIRE(g);
  const auto& dims = program->typed.dims;
  const auto inputs = ss::test::made_up_inputs(*g, dims, 5, 4.0);
  const auto want = ss::runtime::run_graph(*g, inputs, dims);
  for (const bool jit : {true, false}) {
    CAPTURE(jit);
    const auto fast = ss::test::make_fast_executor(
        {.portable = true, .fuse = jit, .jit_library = std::string(ss::test::kJitPath)});
    ss::test::Agreement a;
    ss::test::compare(want, ss::runtime::run_graph(*g, inputs, dims, nullptr, fast.get()), a);
    CHECK(a.worst <= ss::test::tolerance("portable").relative);
    auto nodes = ss::runtime::executor_nodes(*fast);
    CHECK(nodes["reference reduce"] == 0);
    check_nothing_left_to_libm(nodes);
  }
}
