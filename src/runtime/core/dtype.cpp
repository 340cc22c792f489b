#include "runtime/core/dtype.hpp"

#include <cmath>
#include <cstring>

namespace ss::runtime {

std::size_t dtype_size(DType t) {
  switch (t) {
    case DType::f32:
      return 4;
    case DType::bf16:
      return 2;
    case DType::f16:
      return 2;
    case DType::i32:
      return 4;
    case DType::boolean:
      return 1;
  }
  return 4;
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::f32:
      return "f32";
    case DType::bf16:
      return "bf16";
    case DType::f16:
      return "f16";
    case DType::i32:
      return "i32";
    case DType::boolean:
      return "bool";
  }
  return "?";
}

bool is_float(DType t) {
  return t == DType::f32 || t == DType::bf16 || t == DType::f16;
}

namespace {

std::uint32_t bits_of(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float float_of(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

}  // namespace

std::uint16_t float_to_bfloat(float f) {
  const std::uint32_t u = bits_of(f);
  if (std::isnan(f)) return static_cast<std::uint16_t>((u >> 16) | 0x40);  // stay a (quiet) NaN
  const std::uint32_t rounding = 0x7FFF + ((u >> 16) & 1);  // to nearest, ties to even
  return static_cast<std::uint16_t>((u + rounding) >> 16);
}

float bfloat_to_float(std::uint16_t b) {
  return float_of(static_cast<std::uint32_t>(b) << 16);
}

std::uint16_t float_to_half(float f) {
  const std::uint32_t u = bits_of(f);
  const std::uint32_t sign = (u >> 16) & 0x8000;
  const std::uint32_t abs = u & 0x7FFFFFFF;
  if (abs >= 0x7F800000)
    return static_cast<std::uint16_t>(sign | 0x7C00 | (abs > 0x7F800000 ? 0x200 : 0));
  if (abs >= 0x477FF000)
    return static_cast<std::uint16_t>(sign | 0x7C00);  // rounds past 65504: infinity
  if (abs < 0x38800000) {
    // A subnormal half (or zero): scale by 2^24 and round to an integer.
    const float scaled = float_of(abs) * 16777216.0f;
    return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(std::nearbyint(scaled)));
  }
  const std::uint32_t rounding = 0xFFF + ((abs >> 13) & 1);
  return static_cast<std::uint16_t>(sign | ((abs - 0x38000000 + rounding) >> 13));
}

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1F;
  const std::uint32_t mantissa = h & 0x3FF;
  if (exponent == 0) {
    const float value = static_cast<float>(mantissa) / 16777216.0f;  // subnormal: m * 2^-24
    return sign ? -value : value;
  }
  if (exponent == 31) return float_of(sign | 0x7F800000 | (mantissa << 13));
  return float_of(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

}  // namespace ss::runtime
