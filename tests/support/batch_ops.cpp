#include "support/batch_ops.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "support/numerics.hpp"
#include "support/paths.hpp"

namespace ss::test {

const std::map<std::string, std::int64_t> kBatchOpsFunctions = {
    {"grad_ce", 3},     {"grad_mean", 3},   {"grad_sum", 3},   {"grad_einsum", 2},
    {"grad_matmul", 3}, {"grad_reduce", 3}, {"grad_twice", 2}, {"logits", 0}};

Module load_batch_ops(const std::string& devices, const LoadOptions& options,
                      const EngineOptions& engine) {
  std::ifstream in(std::string(kSourceDir) + "/tests/programs/devices/batch_ops.ss");
  std::stringstream s;
  s << in.rdbuf();
  const std::string text = (devices.empty() ? "" : "devices " + devices + "\n") + s.str();
  return Engine(engine).load_source(text, "batch_ops.ss", options);
}

std::map<std::string, Tensor> batch_ops_inputs(std::int64_t b, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0, 0.7f);
  const auto draw = [&](std::size_t n) {
    std::vector<float> v(n);
    for (auto& x : v) x = normal(gen);
    return v;
  };
  std::vector<std::int32_t> labels(static_cast<std::size_t>(b));
  for (auto& y : labels) y = static_cast<std::int32_t>(gen() % 3);
  return {{"m.w", Tensor::of(draw(12), {4, 3})},
          {"m.v", Tensor::of(draw(4), {4})},
          {"m.c", Tensor::of(draw(3), {3})},
          {"batch.x", Tensor::of(draw(static_cast<std::size_t>(b) * 4), {b, 4})},
          {"batch.y", Tensor::of(labels, {b})}};
}

std::string rendered(const CallResult& r) {
  return r.diagnostics.empty() ? "" : r.diagnostics[0].render();
}

void check_close(const CallResult& one, const CallResult& several) {
  REQUIRE(one.outputs.size() == several.outputs.size());
  for (std::size_t o = 0; o < one.outputs.size(); ++o) {
    CAPTURE(o);
    CHECK(one.outputs[o].shape() == several.outputs[o].shape());
    const auto a = one.outputs[o].to_floats(), b = several.outputs[o].to_floats();
    REQUIRE(a.size() == b.size());
    const auto& t = ss::test::tolerance("devices");
    for (std::size_t i = 0; i < a.size(); ++i)
      CHECK_MESSAGE(ss::test::agrees(b[i], a[i], 1, t),
                    "element " << i << ": one device " << a[i] << ", several " << b[i]);
  }
}

void check_two_hosts(const Module& first, const Module& second) {
  REQUIRE(first);
  REQUIRE(second);
  const Module one = load_batch_ops("");
  const auto in = batch_ops_inputs(11);
  for (const std::string fn : {"grad_twice", "logits"}) {
    CAPTURE(fn);
    CallResult results[2];
    std::thread other([&] { results[1] = second.call(fn, {}, in); });
    results[0] = first.call(fn, {}, in);
    other.join();
    const auto r1 = one.call(fn, {}, in);
    for (const auto& r : results) {
      REQUIRE_MESSAGE(r, rendered(r));
      check_close(r1, r);
      REQUIRE(r.workers.size() == 2);
    }
    // Ranks 0-3 hold 3, 3, 3, 2 of the 11 examples.
    CHECK(results[0].workers[1].examples == 3);
    CHECK(results[1].workers[0].examples == 3);
    CHECK(results[1].workers[1].examples == 2);
    CHECK(results[1].workers[1].rank == 3);
  }
}

}  // namespace ss::test
