// Element conversions for data mode. Every narrowing conversion rounds to
// nearest, ties to even; overflow becomes ±inf; NaN stays NaN (quiet).
#pragma once

#include <cstdint>
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

}  // namespace kb
