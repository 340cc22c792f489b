// One optimiser step as IR (ir/optimizers), stepped five times on the
// reference runtime, against torch.optim's results for the same gradients
// (tests/goldens/optimizers.txt, made by make_training_goldens.py).
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "ir/optimizers.hpp"
#include "runtime/reference/interpreter.hpp"
#include "support/paths.hpp"

namespace {

using ss::runtime::DType;
using ss::runtime::Tensor;
using ss::types::ElemKind;
using ss::types::Type;

struct Case {
  std::string kind;                        // SGD, Adam, AdamW
  std::map<std::string, double> settings;  // as written in the golden file
  std::vector<std::vector<double>> after;  // the parameter after each step
};

std::vector<Case> read_golden() {
  std::ifstream in(std::string(ss::test::kSourceDir) + "/tests/goldens/optimizers.txt");
  std::vector<Case> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first.back() == ':') {
      auto& values = cases.back().after.emplace_back();
      for (double v; words >> v;) values.push_back(v);
      continue;
    }
    Case c;
    c.kind = first == "sgd" ? "SGD" : first == "adam" ? "Adam" : "AdamW";
    for (std::string setting; words >> setting;) {
      const auto eq = setting.find('=');
      c.settings[setting.substr(0, eq)] = std::stod(setting.substr(eq + 1));
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

// The formula the golden script's gradient uses.
Tensor gradient(int step) {
  Tensor g = Tensor::zeros(DType::f32, {2, 3});
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      g.set(i * 3 + j, static_cast<float>(std::sin(1.3 * step + i + 0.7 * j) + 0.1 * step));
  return g;
}

int input(ss::ir::Graph& g, const std::string& name, std::vector<ss::types::Axis> axes) {
  const int id = g.add({.op = ss::ir::Op::input,
                        .name = name,
                        .type = Type::tensor(std::move(axes), ss::types::Elem{ElemKind::f32})});
  g.inputs.push_back(id);
  return id;
}

}  // namespace

TEST_CASE("SGD, Adam and AdamW step as torch.optim does, for five steps") {
  const auto cases = read_golden();
  REQUIRE(cases.size() == 6);
  for (const auto& c : cases) {
    CAPTURE(c.kind);
    const ss::ir::OptimizerSpec* spec = ss::ir::optimizer_spec(c.kind);
    REQUIRE(spec);
    const std::vector<ss::types::Axis> shape = {ss::types::Axis::literal(2),
                                                ss::types::Axis::literal(3)};
    ss::ir::Graph g;
    const int p = input(g, "p", shape), grad = input(g, "g", shape);
    ss::ir::OptimizerNodes opt;
    for (const auto& [name, fallback] : spec->settings) opt.settings.push_back(input(g, name, {}));
    opt.step = input(g, "step", {});
    for (const auto& state : spec->state) opt.state.push_back({input(g, state, shape)});
    const auto updated = ss::ir::append_optimizer_step(g, *spec, opt, {p}, {grad}, {});
    g.outputs = {updated[0], opt.step};
    for (const auto& state : opt.state) g.outputs.push_back(state[0]);
    REQUIRE(ss::ir::verify(g) == "");

    std::map<std::string, Tensor> values;
    values["p"] = Tensor::from_values(DType::f32, {2, 3}, {0.5, -1.0, 0.25, 2.0, -0.75, 1.5});
    for (const auto& [name, fallback] : spec->settings) {
      const auto given = c.settings.find(name);
      values[name] =
          Tensor::scalar(DType::f32, given == c.settings.end() ? fallback : given->second);
    }
    values["step"] = Tensor::scalar(DType::f32, 0);
    for (const auto& state : spec->state) values[state] = Tensor::zeros(DType::f32, {2, 3});
    for (int step = 1; step <= 5; ++step) {
      CAPTURE(step);
      values["g"] = gradient(step);
      const auto out = ss::runtime::run_graph(g, values, {});
      values["p"] = out[0];
      values["step"] = out[1];
      for (std::size_t s = 0; s < spec->state.size(); ++s) values[spec->state[s]] = out[2 + s];
      const auto& want = c.after.at(static_cast<std::size_t>(step - 1));
      for (std::size_t k = 0; k < want.size(); ++k)
        CHECK(std::fabs(values["p"].get(static_cast<std::int64_t>(k)) - want[k]) <=
              2e-6 + 1e-5 * std::fabs(want[k]));
    }
  }
}
