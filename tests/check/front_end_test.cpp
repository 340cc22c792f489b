// The front end as a whole: valid programs check clean, mistakes give their
// codes with their spans, and no input makes it crash.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>

#include "check/program_source.hpp"
#include "diag/codes.hpp"
#include "shapescript/shapescript.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

namespace {

std::vector<ss::Diagnostic> check(const std::string& source) {
  static const ss::Engine engine;
  return engine.check_source(source, "t.ss");
}

std::vector<std::string> codes(const std::vector<ss::Diagnostic>& diagnostics) {
  std::vector<std::string> out;
  for (const auto& d : diagnostics) out.push_back(d.code);
  return out;
}

std::string render_all(const std::vector<ss::Diagnostic>& diagnostics) {
  std::string out;
  for (const auto& d : diagnostics) out += d.render();
  return out;
}

}  // namespace

TEST_CASE("every valid program checks with no error") {
  const std::filesystem::path root = ss::test::kSourceDir;
  std::vector<std::filesystem::path> files = {root / "examples/digits/digits.ss",
                                              root / "examples/tinylm/tinylm.ss"};
  for (const char* folder : {"tests/programs/valid", "tests/programs/training"})
    for (const auto& entry : std::filesystem::directory_iterator(root / folder))
      files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  CHECK(files.size() >= 8);
  const ss::Engine engine;
  for (const auto& file : files) {
    CAPTURE(file.string());
    const auto diagnostics = engine.check_file(file.string());
    CHECK_MESSAGE(diagnostics.empty(), render_all(diagnostics));
  }
}

TEST_CASE("the design's E0603 example renders as the design shows") {
  const std::string program =
      "dim D = 64\ndim H = 128\ndim C = 10\n\nmodel Mlp:\n    param w1: [D H] = normal(std=0.1)\n"
      "    param w2: [H C] = normal(std=0.1)\n\nfn logits(m: Mlp, x: [b D]) -> [b C]:\n"
      "    h = x @ m.w1\n    h = relu(h)\n    h = x @ m.w2\n    return h\n";
  const auto diagnostics = check(program);
  REQUIRE(codes(diagnostics) == std::vector<std::string>{"E0603"});
  CHECK(diagnostics[0].render() ==
        "error[E0603]: `@` contracts D with H\n"
        "  --> t.ss:12:9\n"
        "   |\n"
        "12 |     h = x @ m.w2\n"
        "   |         ^^^^^^^^ left ends in D, right starts with H\n"
        "   = help: did you mean m.w1? It is [D H].\n");
}

TEST_CASE("diagnostics carry structured spans and convert to JSON") {
  const auto diagnostics = check("dim D = 4\ndim E = 4\nfn f(x: [D], y: [E]) -> [D] = x + y\n");
  REQUIRE(diagnostics.size() == 1);
  const auto& d = diagnostics[0];
  CHECK(d.code == "E0601");
  CHECK(d.location.line == 3);
  CHECK(d.location.column == 31);
  REQUIRE(d.labels.size() == 2);
  CHECK(d.labels[0].primary);
  CHECK(d.labels[0].text == "[D]");
  CHECK_FALSE(d.labels[1].primary);
  CHECK(d.labels[1].text == "[E]");
  CHECK(d.help.find("dims compare by name") != std::string::npos);
  const std::string json = ss::to_json(d);
  CHECK(
      json.rfind(
          "{\"code\":\"E0601\",\"severity\":\"error\",\"file\":\"t.ss\",\"line\":3,\"column\":31,",
          0) == 0);
  CHECK(json.find("\"labels\":[{\"line\":3,\"column\":31,\"length\":1,\"text\":\"[D]\",\"primary\":"
                  "true,\"line_text\":\"fn f(x: [D], y: [E]) -> [D] = x + y\"}") !=
        std::string::npos);

  ss::Diagnostic quoted;
  quoted.message = "a \"quote\", a \\ and a\nnewline\x01";
  CHECK(ss::to_json(quoted).find(
            "\"message\":\"a \\\"quote\\\", a \\\\ and a\\nnewline\\u0001\"") != std::string::npos);
}

TEST_CASE("parse errors recover: one report per broken statement or item") {
  const auto diagnostics = check(
      "dim D = 4\n"
      "fn f(x: [D]) -> [D]:\n"
      "    y = x +\n"
      "    return x\n"
      "fn g(x: [D]) -> [D]:\n"
      "    z = x * * 2\n"
      "    return x\n"
      "dim = 3\n"
      "fn h(x: [D]) -> [D] = x\n");
  CHECK(codes(diagnostics) == std::vector<std::string>{"E0201", "E0201", "E0204"});
  CHECK(diagnostics[0].location.line == 3);
  CHECK(diagnostics[2].location.line == 8);
}

TEST_CASE("the checker reports independent mistakes in one run, in source order") {
  const auto diagnostics = check(
      "dim D = 4\ndim C = 3\n"
      "fn f(x: [D]) -> [C] = x\n"
      "fn g(x: [D]) -> [D] = y\n"
      "fn h(x: [D]) -> [D] = exp(x) @ 2.0\n");
  CHECK(codes(diagnostics) == std::vector<std::string>{"E0605", "E0301", "E0604"});
}

TEST_CASE("the seed's several-device programs give their codes, and check clean on one device") {
  const std::string several =
      ss::test::read_file(std::string(ss::test::kSourceDir) + "/docs/errors.md");
  for (const char* code : {"E1801", "E1802", "E1803", "E1804"}) {
    CAPTURE(code);
    const std::string one_device =
        ss::test::read_file(std::string(ss::test::kSourceDir) + "/tests/programs/valid/seed_" +
                            code + "_one_device.ss");
    REQUIRE_FALSE(one_device.empty());
    CHECK(check(one_device).empty());
    // The same program with the seed's several devices.
    std::string program = one_device;
    const auto at = program.find("devices cuda[0]");
    REQUIRE(at != std::string::npos);
    program.replace(at, 15,
                    std::string(code) == "E1802" || std::string(code) == "E1804"
                        ? "devices cuda[0 1]"
                        : "devices cuda[0 1 2]");
    CHECK(codes(check(program)) == std::vector<std::string>{code});
    CHECK(several.find(program.substr(program.find("devices"))) != std::string::npos);
  }
}

TEST_CASE("several devices: operations with a lowering pass, others don't") {
  const std::string head = "devices cpu[0 1]\ndim D = 4\ndata Ex:\n    x: [D]\n";
  CHECK(check(head + "fn f(batch: [b] Ex) -> [D] = mean(batch.x, over=b)\n").empty());
  CHECK(check(head + "fn f(batch: [b] Ex) -> [D D] = einsum(batch.x, batch.x, b d, b e -> d e)\n")
            .empty());
  CHECK(check(head + "fn f(batch: [b] Ex) -> [D] = reduce(batch.x, b d -> d, sum)\n").empty());
  CHECK(codes(check(head + "fn f(batch: [b] Ex) -> [D] = reduce(batch.x, b d -> d, max)\n")) ==
        std::vector<std::string>{"E1801"});
  CHECK(codes(check(head + "fn f(batch: [b] Ex) -> [D] = logsumexp(batch.x, over=b)\n")) ==
        std::vector<std::string>{"E1801"});
  CHECK(codes(check(head + "fn f(batch: [64] Ex) -> [D] = mean(batch.x, over=0)\n")) ==
        std::vector<std::string>{"E1802"});
  // One device: the same operations are fine.
  CHECK(check("dim D = 4\ndata Ex:\n    x: [D]\nfn f(batch: [b] Ex) -> [D] = reduce(batch.x, b d "
              "-> d, max)\n")
            .empty());
}

TEST_CASE("a 10,000-line program checks clean") {
  const std::string program = ss::test::large_program(10000);
  CHECK(std::count(program.begin(), program.end(), '\n') >= 10000);
  const auto start = std::chrono::steady_clock::now();
  const auto diagnostics = check(program);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  CHECK_MESSAGE(diagnostics.empty(), render_all(diagnostics));
  MESSAGE("checked 10,000 lines in " << ms << " ms");
}

TEST_CASE("deep nesting ends in E0205, never in a crash") {
  const auto nested = [](const std::string& open, const std::string& middle,
                         const std::string& close, int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += open;
    s += middle;
    for (int i = 0; i < n; ++i) s += close;
    return s;
  };
  for (const std::string& body :
       {nested("(", "1.0", ")", 5000), nested("-", "1.0", "", 5000),
        nested("not ", "true", "", 5000), nested("[", "1.0", "]", 5000),
        nested("f(", "1.0", ")", 5000), nested("1.0 ** ", "2.0", "", 5000),
        // Left-associative chains build a tree as deep as they are long
        // (fuzz_source's find: 800 operators overflowed lowering's stack).
        nested("1.0 + ", "1.0", "", 5000), nested("2.0 * ", "1.0", "", 5000),
        nested("true and ", "true", "", 5000), nested("false or ", "true", "", 5000),
        nested("1.0 < ", "1.0", "", 5000), nested("1.0 |> ", "f", "", 5000)}) {
    const auto d = check("fn f() -> [] = " + body + "\n");
    REQUIRE_FALSE(d.empty());
    CHECK(d[0].code == "E0205");
  }
  // Blocks nested past the bound.
  std::string blocks = "fn main():\n";
  for (int i = 0; i < 300; ++i) blocks += std::string(4 * (i + 1), ' ') + "if true:\n";
  blocks += std::string(4 * 301, ' ') + "print(1)\n";
  CHECK(codes(check(blocks)) == std::vector<std::string>{"E0205"});
  // And just inside the bound, fine.
  CHECK(check("fn f() -> [] = " + nested("(", "1.0", ")", 150) + "\n").empty());
  CHECK(check("fn f() -> [] = " + nested("1.0 + ", "1.0", "", 150) + "\n").empty());
}

TEST_CASE("huge numbers, odd bytes and random input end in diagnostics or success") {
  CHECK(codes(check("dim D = 99999999999999999999999\n")) == std::vector<std::string>{"E0108"});
  CHECK(codes(check("fn f() -> [] = 1e999999\n")) == std::vector<std::string>{"E0108"});
  CHECK(codes(check("fn f() -> [] = 2x\n")) == std::vector<std::string>{"E0108"});
  CHECK(codes(check(std::string("dim D = 4\0\n", 11))) == std::vector<std::string>{"E0105"});
  CHECK(codes(check("\xC3")) == std::vector<std::string>{"E0102"});
  CHECK(check("").empty());
  CHECK(check("\n\n   \n# only a comment").empty());

  std::mt19937 rng(7);
  for (int i = 0; i < 300; ++i) {
    std::string bytes(rng() % 400, '\0');
    for (auto& c : bytes)
      c = static_cast<char>(rng() % 96 + 32);  // printable ASCII: reaches the parser
    for (const auto& d : check(bytes)) CHECK_FALSE(d.code.empty());
  }
}

TEST_CASE("every registered code is explained, with its title and example") {
  for (const auto c : ss::diag::kAllCodes) {
    const std::string code(ss::diag::code_name(c));
    CAPTURE(code);
    const std::string text = ss::explain(code);
    CHECK(text.rfind("### " + code + ": " + std::string(ss::diag::code_title(c)) + "\n", 0) == 0);
    // Chapter 00 (shapescript's own bugs) has no program that shows it.
    CHECK((text.find("Example (`") != std::string::npos ||
           (code.rfind("E00", 0) == 0 && text.find("\nNo example:") != std::string::npos)));
    CHECK(text.find("\nSee [") != std::string::npos);
  }
  CHECK(ss::explain("E9999").empty());
  CHECK(ss::explain("nonsense").empty());
  CHECK(ss::explain("").empty());
}

TEST_CASE("hints name what is meant: built-ins, model members, a stack of models") {
  const auto help_of = [](const std::string& program) {
    const auto ds = check(program);
    REQUIRE(ds.size() == 1);
    return ds[0].code + ": " + ds[0].help;
  };
  CHECK(help_of("dim D = 4\nfn f(x: [D]) -> [D] = layernorm(x, over=D)\n") ==
        "E0301: did you mean `layer_norm`?");
  // The program's own names come before a built-in's.
  CHECK(help_of("dim D = 4\nfn f(x: [D], sums: [D]) -> [D] = sum2\n") ==
        "E0301: did you mean `sums`?");
  CHECK(help_of("dim D = 4\nmodel M:\n    param bias: [D] = zeros\n    param weight: [D] = "
                "zeros\nfn f(m: M) -> [D] = m.bias1\n") ==
        "E1101: did you mean `bias`? its members are `bias` and `weight`");
  // A stack is a value of its own type, named as written.
  const auto ds = check(
      "dim D = 4\ndim L = 2\nmodel Block:\n    param w: [D] = zeros\nmodel Net:\n    layers: [L] "
      "Block\nfn f(n: Net) -> [D] = n.layers\n");
  REQUIRE(ds.size() == 1);
  CHECK(ds[0].code == "E0904");
  CHECK(ds[0].message == "`f` returns [L] Block, declared [D]");
}

TEST_CASE("a format in an f-string is checked: an unknown one, or one on a tensor") {
  CHECK(codes(check("fn main():\n    x = 0.5\n    print(f\"{x:q}\")\n")) ==
        std::vector<std::string>{"E0209"});
  CHECK(codes(check("fn main():\n    x = 0.5\n    print(f\"{x:1000f}\")\n")) ==
        std::vector<std::string>{"E0209"});
  CHECK(check("fn main():\n    x = 0.5\n    print(f\"{x:8.3f} {x:.1%} {x:e} {x:}\")\n").empty());
  CHECK(codes(check("dim D = 3\nfn main():\n    t = zeros([D])\n    print(f\"{t:.2f}\")\n")) ==
        std::vector<std::string>{"E0505"});
}
