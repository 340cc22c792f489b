// Stacks of layers and scans (wave2.md §2): `blocks: [L] Block` and
// `for k in m.blocks` lower to one loop node whose body is lowered once
// whatever L is; its gradient is one backward loop; a stacked model trains
// to the same losses as the same layers written out one by one
// (tests/programs/training/stacked_digits*.ss), on one device and on
// cpu[0 1 2]; its checkpoints name layers as nn.ModuleList does.
// Gradients against finite differences and the executors' agreement are
// tests/programs/gradients/ops.ss's and valid/operations.ss's scan functions.
#include <doctest/doctest.h>

#include <filesystem>
#include <sstream>

#include "ir/attributes.hpp"
#include "ir/autodiff.hpp"
#include "lower/lower.hpp"
#include "runtime/data/safetensors.hpp"
#include "shapescript/shapescript.hpp"
#include "support/checked_program.hpp"
#include "support/paths.hpp"
#include "support/process.hpp"

namespace {

std::string source(const std::string& relative) {
  return std::string(ss::test::kSourceDir) + "/" + relative;
}

std::string stack_program(int layers) {
  return "dim D = 8\ndim L = " + std::to_string(layers) +
         "\n"
         "model Block:\n"
         "    param w: [D D] = glorot\n"
         "    param b: [D] = zeros\n"
         "model Net:\n"
         "    blocks: [L] Block\n"
         "fn f(m: Net, x: [n D]) -> []:\n"
         "    h = x\n"
         "    for k in m.blocks:\n"
         "        h = h + tanh(h @ k.w + k.b)\n"
         "    return sum(h * h)\n";
}

int count(const ss::ir::Graph& g, ss::ir::Op op) {
  int n = 0;
  for (const auto& node : g.nodes) n += node.op == op;
  return n;
}

// The loss curve a program's `metrics` sink wrote, one loss a line.
std::vector<double> curve(const std::string& path) {
  std::istringstream lines(ss::test::read_file(path));
  std::string line;
  std::getline(lines, line);  // the header
  std::vector<double> out;
  while (std::getline(lines, line)) out.push_back(std::stod(line));
  return out;
}

}  // namespace

TEST_CASE("a stack's loop body is lowered once: its size doesn't grow with L") {
  std::size_t body_nodes = 0;
  for (const int layers : {2, 8, 32}) {
    CAPTURE(layers);
    const auto program = ss::test::check_source_text(stack_program(layers));
    ss::ir::Graph g = ss::lower::lower_function(program->typed, "f");
    REQUIRE(count(g, ss::ir::Op::loop) == 1);
    const ss::ir::Node* loop = nullptr;
    for (const auto& n : g.nodes)
      if (n.op == ss::ir::Op::loop) loop = &n;
    if (body_nodes == 0) body_nodes = loop->body->nodes.size();
    CHECK(loop->body->nodes.size() == body_nodes);
    // Outside the body: an input per layer's parameter, their stacks, the loop.
    CHECK(g.nodes.size() <= static_cast<std::size_t>(2 * layers + 8));
    // Its gradient is one loop more, backwards, whatever L is.
    std::vector<int> wrt;
    for (const int id : g.inputs) wrt.push_back(id);
    const auto grads = ss::ir::append_gradients(g, g.outputs[0], wrt, program->typed.dims);
    for (const int gid : grads) CHECK(gid >= 0);
    CHECK(count(g, ss::ir::Op::loop) == 2);
    CHECK(ss::ir::verify(g) == "");
  }
}

TEST_CASE("a stacked model trains as its layers written out do, on one device and on cpu[0 1 2]") {
  ss::test::TempDir dir;
  for (const char* file : {"digits-train.safetensors", "digits-test.safetensors"})
    std::filesystem::copy_file(source(std::string("examples/digits/") + file), dir.file(file));
  const std::string stacked =
      ss::test::read_file(source("tests/programs/training/stacked_digits.ss"));
  const std::string flat =
      ss::test::read_file(source("tests/programs/training/stacked_digits_flat.ss"));
  const std::vector<std::pair<std::string, std::string>> runs = {
      {"stacked", stacked}, {"flat", flat}, {"three", "devices cpu[0 1 2]\n" + stacked}};
  std::map<std::string, std::vector<double>> curves;
  for (const auto& run : runs) {
    const std::string& name = run.first;
    CAPTURE(name);
    const std::string program = dir.write(name + ".ss", run.second);
    const std::string metrics = dir.file(name + ".csv");
    const auto result =
        ss::test::run_process({ss::test::kCliPath, "run", program, "--sink", "metrics=" + metrics});
    REQUIRE_MESSAGE(result.exit_code == 0, result.err);
    curves[name] = curve(metrics);
    if (name == "stacked") {
      // Checkpoint names as nn.ModuleList's: blocks.0.up.w ... blocks.3.up.b.
      const auto saved = ss::runtime::read_safetensors(dir.file("deep.safetensors"));
      CHECK(saved.size() == 12);
      for (int k = 0; k < 4; ++k)
        for (const char* p : {".up.w", ".up.b"}) {
          const std::string key = "blocks." + std::to_string(k) + p;
          CAPTURE(key);
          CHECK(saved.count(key) == 1);
        }
    }
  }
  REQUIRE(curves["stacked"].size() == 46);  // 1438 examples in batches of 64, two epochs
  for (const char* other : {"flat", "three"}) {
    CAPTURE(other);
    REQUIRE(curves[other].size() == curves["stacked"].size());
    const double tolerance = std::string(other) == "flat" ? 1e-6 : 1e-4;
    for (std::size_t i = 0; i < curves[other].size(); ++i) {
      const double want = curves["stacked"][i], got = curves[other][i];
      CHECK_MESSAGE(std::abs(got - want) <= tolerance * (1 + std::abs(want)),
                    "step " << i << ": " << got << ", stacked " << want);
    }
  }
  CHECK(curves["stacked"].back() < 0.8 * curves["stacked"].front());
}

TEST_CASE("a host sees a stack's layers by their names, and loads them back") {
  const ss::Engine engine;
  const ss::Module mod = engine.load_source(stack_program(3), "stack.ss");
  REQUIRE_MESSAGE(mod, (mod.diagnostics().empty() ? "" : mod.diagnostics()[0].render()));
  const ss::Value m = mod.make("Net", {.seed = 1});
  REQUIRE(m);
  const auto tensors = m.tensors();
  CHECK(tensors.size() == 6);
  CHECK(tensors.at("blocks.2.w").shape() == std::vector<std::int64_t>{8, 8});
  // Layers draw as three members would: each its own draw.
  CHECK(tensors.at("blocks.0.w").to_floats() != tensors.at("blocks.1.w").to_floats());
  std::string bytes;
  REQUIRE(mod.save_bytes(m, &bytes).empty());
  const ss::Value back = mod.load_bytes("Net", bytes);
  REQUIRE(back);
  CHECK(back.tensors().at("blocks.1.w").to_floats() == tensors.at("blocks.1.w").to_floats());
  const std::vector<float> x(16, 0.5f);
  const auto a = mod.call("f", {m, ss::Tensor::view(x.data(), {2, 8})});
  const auto b = mod.call("f", {back, ss::Tensor::view(x.data(), {2, 8})});
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a.tensor().to_floats() == b.tensor().to_floats());
}

TEST_CASE("a dropout inside a scan draws each step's mask from the seed and the step's number") {
  const auto program = ss::test::check_source_text(
      "dim D = 4\nmodel Block:\n    param w: [D D] = glorot\nmodel Net:\n    blocks: [3] Block\n"
      "fn loss(m: Net, x: [n D]) -> []:\n    h = x\n    for k in m.blocks:\n"
      "        h = h + dropout(tanh(h @ k.w), rate=0.5)\n    return sum(h * h)\n"
      "fn g(m: Net, x: [n D]) -> []:\n    l, grads = value_and_grad(loss, m, x)\n    return l\n");
  const ss::ir::Graph g = ss::lower::lower_function(program->typed, "g");
  const ss::ir::Node* loop = nullptr;
  for (const auto& n : g.nodes)
    if (n.op == ss::ir::Op::loop && !loop) loop = &n;
  REQUIRE(loop);
  // Stepped: the layers' w and the steps' numbers (an arange); the draw's
  // seed is computed in the body from them.
  CHECK(ss::ir::loop_of(*loop).stacked == 2);
  CHECK(g.nodes[static_cast<std::size_t>(loop->in[2])].op == ss::ir::Op::arange);
  bool drawn = false;
  for (const auto& n : loop->body->nodes)
    if (n.op == ss::ir::Op::random) {
      drawn = true;
      CHECK(loop->body->nodes[static_cast<std::size_t>(n.in.at(0))].op == ss::ir::Op::binary);
    }
  CHECK(drawn);
}

TEST_CASE("stacks nest, a function takes one, and an unrolled loop's number picks a layer") {
  const std::string program =
      "dim D = 4\nmodel Block:\n    param w: [D D] = glorot\nmodel Pair:\n    inner: [2] Block\n"
      "model Net:\n    blocks: [3] Pair\n"
      "fn run(blocks: [3] Pair, x: [n D]) -> [n D]:\n    h = x\n    for p in blocks:\n"
      "        for k in p.inner:\n            h = tanh(h @ k.w)\n    return h\n"
      "fn flat(m: Net, x: [n D]) -> [n D]:\n    h = x\n    for i in range(COUNT):\n"
      "        h = tanh(h @ m.blocks[i].inner[0].w)\n        h = tanh(h @ "
      "m.blocks[i].inner[-1].w)\n"
      "    return h\n"
      "fn nested(m: Net, x: [n D]) -> [n D] = run(m.blocks, x)\n";
  const auto with_count = [&](const char* count) {
    std::string text = program;
    text.replace(text.find("COUNT"), 5, count);
    return text;
  };
  const ss::Engine engine;
  const ss::Module mod = engine.load_source(with_count("3"), "nest.ss");
  REQUIRE_MESSAGE(mod, (mod.diagnostics().empty() ? "" : mod.diagnostics()[0].render()));
  const ss::Value m = mod.make("Net", {.seed = 2});
  CHECK(m.tensors().count("blocks.2.inner.1.w") == 1);
  const std::vector<float> x = {0.5f, -0.25f, 1.0f, 0.1f, 0.3f, 0.2f, -0.7f, 0.9f};
  const auto a = mod.call("nested", {m, ss::Tensor::view(x.data(), {2, 4})});
  const auto b = mod.call("flat", {m, ss::Tensor::view(x.data(), {2, 4})});
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a.tensor().to_floats() == b.tensor().to_floats());
  // A number past the stack is E1513 when the program loads, reported once.
  const ss::Module bad = engine.load_source(with_count("4"), "nest.ss");
  REQUIRE(bad.diagnostics().size() == 1);
  CHECK(bad.diagnostics()[0].code == "E1513");
}

TEST_CASE("a break in an unrolled device loop stops it there, inside a scan too") {
  const ss::Engine engine;
  const ss::Module mod = engine.load_source(
      "dim D = 2\nmodel Block:\n    param w: [D] = ones\nmodel Net:\n    blocks: [3] Block\n"
      "fn f(x: [D]) -> [D]:\n    y = x\n    for i in range(3):\n        y = y * 2.0\n"
      "        break\n    return y\n"
      "fn g(m: Net, x: [D]) -> [D]:\n    y = x\n    for k in m.blocks:\n"
      "        for i in range(4):\n            y = y + k.w\n            break\n    return y\n",
      "break.ss");
  REQUIRE_MESSAGE(mod, (mod.diagnostics().empty() ? "" : mod.diagnostics()[0].render()));
  const std::vector<float> x = {1.0f, 3.0f};
  const auto f = mod.call("f", {ss::Tensor::view(x.data(), {2})});
  REQUIRE(f);
  CHECK(f.tensor().to_floats() == std::vector<float>{2.0f, 6.0f});
  const auto g = mod.call("g", {mod.make("Net"), ss::Tensor::view(x.data(), {2})});
  REQUIRE(g);
  CHECK(g.tensor().to_floats() == std::vector<float>{4.0f, 6.0f});  // one add per layer
}
