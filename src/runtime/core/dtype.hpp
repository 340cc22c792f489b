// Element types as stored: f32, bf16, f16, i32 (Index[C] values too) and
// bool (one byte), with the conversions the reference runtime needs.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ss::runtime {

enum class DType : std::uint8_t { f32, bf16, f16, i32, boolean };

std::size_t dtype_size(DType t);
const char* dtype_name(DType t);  // "f32", "bf16", "f16", "i32", "bool"
bool is_float(DType t);

// IEEE binary16 and bfloat16 from and to float, rounding to nearest even;
// infinities and NaN survive both ways.
std::uint16_t float_to_half(float f);
float half_to_float(std::uint16_t h);
std::uint16_t float_to_bfloat(float f);
float bfloat_to_float(std::uint16_t b);

}  // namespace ss::runtime
