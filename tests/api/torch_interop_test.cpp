// PyTorch interop, without PyTorch: a state dict PyTorch saved
// (tests/goldens/torch_cnn.safetensors, by make_torch_interop_goldens.py;
// torch_stack.safetensors, an nn.ModuleList's, by the same script)
// loads into a model written in PyTorch's layouts with generic models and a
// stack (tests/programs/interop/) and gives PyTorch's logits; what we save
// names and holds the same tensors (the scripts check that PyTorch's
// load_state_dict(strict=True) takes it).
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "runtime/data/safetensors.hpp"
#include "shapescript/shapescript.hpp"
#include "support/numerics.hpp"
#include "support/paths.hpp"

namespace {

std::string source(const std::string& relative) {
  return std::string(ss::test::kSourceDir) + "/" + relative;
}

// Loads PyTorch's state dict into `model` of `program`, matches PyTorch's
// logits on the first 32 test digits, and saves it again with PyTorch's
// names, shapes and bits.
void check_interop(const std::string& program, const std::string& model, const std::string& stem,
                   std::size_t tensors) {
  const ss::Engine engine;
  const ss::Module mod = engine.load_file(source(program));
  REQUIRE_MESSAGE(mod, (mod.diagnostics().empty() ? "" : mod.diagnostics()[0].render()));
  std::vector<ss::Diagnostic> errors;
  const ss::Value m =
      mod.load(model, source("tests/goldens/" + stem + ".safetensors"), {}, &errors);
  REQUIRE_MESSAGE(m, (errors.empty() ? "" : errors[0].render()));
  REQUIRE(m.tensors().size() == tensors);

  const auto test =
      ss::runtime::read_safetensors(source("examples/digits/digits-test.safetensors"));
  const auto pixels = test.at("pixels").values();
  const std::vector<float> first(pixels.begin(), pixels.begin() + 32 * 64);  // exact: f32 values
  const auto r = mod.call("logits", {m, ss::Tensor::view(first.data(), {32, 64})});
  REQUIRE_MESSAGE(r, (r.diagnostics.empty() ? "" : r.diagnostics[0].render()));
  const auto got = r.tensor().to_floats();

  std::ifstream in(source("tests/goldens/" + stem + "_logits.txt"));
  std::vector<double> want;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    double v = 0;
    while (s >> v) want.push_back(v);
  }
  REQUIRE(want.size() == 32 * 10);
  REQUIRE(got.size() == want.size());
  const auto& t = ss::test::tolerance("golden");
  for (std::size_t i = 0; i < got.size(); ++i)
    CHECK_MESSAGE(ss::test::agrees(got[i], want[i], 1, t),
                  "logit " << i << ": " << got[i] << ", PyTorch's " << want[i]);

  // Saved again: PyTorch's names, shapes and bits.
  std::string bytes;
  REQUIRE(mod.save_bytes(m, &bytes).empty());
  const ss::Value back = mod.load_bytes(model, bytes);
  REQUIRE(back);
  const auto original = m.tensors(), again = back.tensors();
  CHECK(again.size() == tensors);
  for (const auto& entry : original) {
    const std::string& name = entry.first;  // not a binding: clang 14's CAPTURE can't take one
    CAPTURE(name);
    REQUIRE(again.count(name));
    CHECK(again.at(name).to_floats() == entry.second.to_floats());
  }
}

}  // namespace

TEST_CASE("a PyTorch state dict loads into generic models in PyTorch's layouts, same logits") {
  check_interop("tests/programs/interop/torch_cnn.ss", "TorchCnn", "torch_cnn", 6);
}

TEST_CASE("an nn.ModuleList's state dict loads into a stack, blocks.0.up.weight, same logits") {
  check_interop("tests/programs/interop/torch_stack.ss", "TorchStack", "torch_stack", 22);
}
