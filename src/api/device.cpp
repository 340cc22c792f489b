#include <charconv>

#include "shapescript/engine.hpp"

namespace ss {

std::string Device::name() const {
  return kind == Kind::cpu ? std::string("cpu") : "cuda:" + std::to_string(index);
}

std::optional<Device> Device::parse(std::string_view text) {
  if (text == "cpu") return Device::cpu();
  if (text == "cuda") return Device::cuda(0);
  constexpr std::string_view kCuda = "cuda:";
  if (text.substr(0, kCuda.size()) != kCuda) return std::nullopt;
  const std::string_view digits = text.substr(kCuda.size());
  int index = -1;
  const auto [end, err] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (digits.empty() || err != std::errc() || end != digits.data() + digits.size() || index < 0)
    return std::nullopt;
  return Device::cuda(index);
}

}  // namespace ss

namespace ss {

std::optional<Precision> parse_precision(std::string_view text) {
  if (text == "f32") return Precision::f32;
  if (text == "tf32") return Precision::tf32;
  if (text == "bf16") return Precision::bf16;
  return std::nullopt;
}

std::optional<Numerics> parse_numerics(std::string_view text) {
  if (text == "fast") return Numerics::fast;
  if (text == "portable") return Numerics::portable;
  return std::nullopt;
}

}  // namespace ss
