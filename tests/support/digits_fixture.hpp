// The digits MLP's parameters and inputs by the formulas of
// tests/goldens/make_digits_goldens.py, and the results numpy computed.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ss::test::digits {

inline constexpr std::int64_t D = 64, H = 128, C = 10;

struct Array {
  std::vector<float> values;
  std::vector<std::int64_t> shape;
};

// "m.w1", "m.b1", "m.w2", "m.b2"
std::map<std::string, Array> parameters();
Array pixels(std::int64_t batch);
std::vector<std::int32_t> labels(std::int64_t batch);
// "logits 64", "loss 64", "accuracy 64"
const std::vector<double>& golden(const std::string& key);

}  // namespace ss::test::digits
