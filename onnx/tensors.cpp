#include "onnx/tensors.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "onnx/import_error.hpp"

namespace ss::onnx_import {
namespace {

using TP = onnx::TensorProto;

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = (h & 0x8000u) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1fu;
  std::uint32_t mantissa = h & 0x3ffu;
  std::uint32_t bits = 0;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      int shift = 0;
      while (!(mantissa & 0x400u)) {
        mantissa <<= 1;
        ++shift;
      }
      mantissa &= 0x3ffu;
      bits = sign | ((127 - 15 - shift + 1) << 23) | (mantissa << 13);
    }
  } else {
    bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
  }
  return std::bit_cast<float>(bits);
}

std::uint16_t float_to_half(float f) {  // round to nearest even
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u)
    return static_cast<std::uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0));
  if (abs >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // overflows to inf
  if (abs < 0x38800000u) {                                                    // subnormal half
    const float scaled = std::bit_cast<float>(abs) * 16777216.0f;             // * 2^24
    return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(std::nearbyint(scaled)));
  }
  const std::uint32_t rounded = abs + 0xfffu + ((abs >> 13) & 1u);
  return static_cast<std::uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}

template <typename T>
T load_le(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace

std::string ss_dtype(int t) {
  switch (t) {
    case TP::FLOAT:
      return "f32";
    case TP::FLOAT16:
      return "f16";
    case TP::BFLOAT16:
      return "bf16";
    case TP::INT32:
    case TP::INT64:
      return "i32";
    case TP::BOOL:
      return "bool";
    default:
      return "";
  }
}

std::string onnx_type_name(int t) {
  if (TP::DataType_IsValid(t)) return TP::DataType_Name(static_cast<TP::DataType>(t));
  return "type " + std::to_string(t);
}

bool Constant::is_float() const {
  return onnx_type == TP::FLOAT || onnx_type == TP::FLOAT16 || onnx_type == TP::BFLOAT16 ||
         onnx_type == TP::DOUBLE;
}

std::int64_t Constant::count() const {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

Constant read_constant(const TP& t, const std::string& folder) {
  Constant c;
  c.onnx_type = t.data_type();
  c.shape.assign(t.dims().begin(), t.dims().end());
  for (auto d : c.shape)
    if (d < 0) fail("E2002", "initializer `" + t.name() + "` has a negative dim");
  const std::int64_t n = c.count();
  const bool external = t.data_location() == TP::EXTERNAL;
  const std::string raw = external ? read_external(t, folder, nullptr) : t.raw_data();
  const bool has_raw = external || t.has_raw_data();
  auto size_check = [&](std::size_t width) {
    if (raw.size() != static_cast<std::size_t>(n) * width)
      fail("E2002", "initializer `" + t.name() + "` holds " + std::to_string(raw.size()) +
                        " bytes for " + std::to_string(n) + " elements");
  };
  auto typed_check = [&](int have) {
    if (have != n)
      fail("E2002", "initializer `" + t.name() + "` holds " + std::to_string(have) +
                        " values for " + std::to_string(n) + " elements");
  };
  switch (c.onnx_type) {
    case TP::FLOAT:
      if (has_raw) {
        size_check(4);
        for (std::int64_t i = 0; i < n; ++i) c.floats.push_back(load_le<float>(raw.data() + 4 * i));
      } else {
        typed_check(t.float_data_size());
        c.floats.assign(t.float_data().begin(), t.float_data().end());
      }
      break;
    case TP::DOUBLE:
      if (has_raw) {
        size_check(8);
        for (std::int64_t i = 0; i < n; ++i)
          c.floats.push_back(load_le<double>(raw.data() + 8 * i));
      } else {
        typed_check(t.double_data_size());
        c.floats.assign(t.double_data().begin(), t.double_data().end());
      }
      break;
    case TP::FLOAT16:
    case TP::BFLOAT16: {
      const bool half = c.onnx_type == TP::FLOAT16;
      auto widen = [&](std::uint16_t b) {
        return half ? half_to_float(b) : std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
      };
      if (has_raw) {
        size_check(2);
        for (std::int64_t i = 0; i < n; ++i)
          c.floats.push_back(widen(load_le<std::uint16_t>(raw.data() + 2 * i)));
      } else {
        typed_check(t.int32_data_size());
        for (auto v : t.int32_data()) c.floats.push_back(widen(static_cast<std::uint16_t>(v)));
      }
      break;
    }
    case TP::INT64:
      if (has_raw) {
        size_check(8);
        for (std::int64_t i = 0; i < n; ++i)
          c.ints.push_back(load_le<std::int64_t>(raw.data() + 8 * i));
      } else {
        typed_check(t.int64_data_size());
        c.ints.assign(t.int64_data().begin(), t.int64_data().end());
      }
      break;
    case TP::INT32:
      if (has_raw) {
        size_check(4);
        for (std::int64_t i = 0; i < n; ++i)
          c.ints.push_back(load_le<std::int32_t>(raw.data() + 4 * i));
      } else {
        typed_check(t.int32_data_size());
        c.ints.assign(t.int32_data().begin(), t.int32_data().end());
      }
      break;
    case TP::BOOL:
    case TP::UINT8:
    case TP::INT8:
      if (has_raw) {
        size_check(1);
        for (std::int64_t i = 0; i < n; ++i)
          c.ints.push_back(c.onnx_type == TP::INT8 ? static_cast<std::int8_t>(raw[i])
                                                   : static_cast<std::uint8_t>(raw[i]));
      } else {
        typed_check(t.int32_data_size());
        c.ints.assign(t.int32_data().begin(), t.int32_data().end());
      }
      break;
    default:
      fail("E2006",
           "initializer `" + t.name() + "` is " + onnx_type_name(c.onnx_type) +
               ", an element type shapescript doesn't have",
           "shapescript's element types are float32, float16, bfloat16, int32 (int64 narrowed) and "
           "bool");
  }
  return c;
}

std::string element_bytes(const Constant& c, const std::string& what) {
  const std::string dtype = ss_dtype(c.onnx_type);
  std::string out;
  const std::size_t n = static_cast<std::size_t>(c.count());
  if (dtype == "f32") {
    out.resize(4 * n);
    for (std::size_t i = 0; i < n; ++i) {
      const float v = static_cast<float>(c.floats[i]);
      std::memcpy(out.data() + 4 * i, &v, 4);
    }
  } else if (dtype == "f16" || dtype == "bf16") {
    out.resize(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
      const float f = static_cast<float>(c.floats[i]);
      const std::uint16_t b =
          dtype == "f16" ? float_to_half(f)
                         : static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(f) >> 16);
      std::memcpy(out.data() + 2 * i, &b, 2);
    }
  } else if (dtype == "i32") {
    out.resize(4 * n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t v = c.ints[i];
      if (v < std::numeric_limits<std::int32_t>::min() ||
          v > std::numeric_limits<std::int32_t>::max())
        fail(
            "E2010", what + " holds " + std::to_string(v) + ", outside int32's range",
            "shapescript holds int64 tensors as int32: values must lie in -2147483648..2147483647");
      const auto w = static_cast<std::int32_t>(v);
      std::memcpy(out.data() + 4 * i, &w, 4);
    }
  } else if (dtype == "bool") {
    out.resize(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = c.ints[i] != 0 ? 1 : 0;
  } else {
    fail("E2006", what + " is " + onnx_type_name(c.onnx_type) +
                      ", an element type shapescript doesn't have");
  }
  return out;
}

}  // namespace ss::onnx_import
