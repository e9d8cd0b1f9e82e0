// Element conversions for data mode. Every narrowing conversion rounds to
// nearest, ties to even; overflow becomes ±inf; NaN stays NaN (quiet).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "models/commands/tensor_handle.h"

namespace kb {

float fp16_to_float(uint16_t h);
uint16_t float_to_fp16(float f);
float bf16_to_float(uint16_t h);
uint16_t float_to_bf16(float f);

// Decodes `count` elements of `dtype` from raw little-endian bytes.
std::vector<float> decode_elements(const uint8_t* bytes, uint64_t count, DType dtype);
// Encodes values into `dtype` (int32: rounded to nearest, saturating).
void encode_elements(const float* values, uint64_t count, DType dtype, uint8_t* out);

// Rounds through `dtype` and back (what storing a value does to it).
float round_to(float v, DType dtype);

// An fp32 value's bit pattern, and back.
inline uint32_t fp32_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float fp32_from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
// Bit-for-bit equal, except that any two NaNs are equal (an RTL datapath
// returns one canonical NaN where C++ passes an operand's NaN through).
inline bool same_fp32(float a, float b) {
  return fp32_bits(a) == fp32_bits(b) || (std::isnan(a) && std::isnan(b));
}

}  // namespace kb
