#include "models/common/dtype_convert.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace kb {

float fp16_to_float(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1u, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  float v;
  if (exp == 0)
    v = std::ldexp(static_cast<float>(mant), -24);  // zero / subnormal
  else if (exp == 31)
    v = mant ? std::numeric_limits<float>::quiet_NaN() : std::numeric_limits<float>::infinity();
  else
    v = std::ldexp(static_cast<float>(mant | 0x400u), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}

uint16_t float_to_fp16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t exp = (x >> 23) & 0xffu;
  uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));
  // Unbiased exponent; fp16 normal range is [-14, 15].
  int e = static_cast<int>(exp) - 127;
  if (e > 15) return static_cast<uint16_t>(sign | 0x7c00u);
  if (exp == 0) return sign;  // float subnormals are far below fp16's range
  mant |= 0x800000u;          // implicit bit: value = mant * 2^(e-23)
  // Shift so that the result counts units of 2^-24 (subnormal) or keeps 10 bits.
  int shift = e >= -14 ? 13 : 13 + (-14 - e);
  if (shift > 24) return sign;  // rounds to zero
  uint32_t q = mant >> shift;
  const uint32_t rem = mant & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (q & 1u))) ++q;
  if (e >= -14) {
    // q holds 11 bits (with the implicit one); carry may bump the exponent.
    auto he = static_cast<uint32_t>(e + 15);
    if (q >= 0x800u) {
      q >>= 1;
      ++he;
    }
    if (he >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
    return static_cast<uint16_t>(sign | (he << 10) | (q & 0x3ffu));
  }
  // Subnormal (q may round up into the smallest normal, which encodes itself).
  return static_cast<uint16_t>(sign | q);
}

float bf16_to_float(uint16_t h) {
  const uint32_t x = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

uint16_t float_to_bf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7f800000u) == 0x7f800000u && (x & 0x7fffffu))
    return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  const uint32_t lsb = (x >> 16) & 1u;
  x += 0x7fffu + lsb;  // round to nearest even
  return static_cast<uint16_t>(x >> 16);
}

std::vector<float> decode_elements(const uint8_t* bytes, uint64_t count, DType dtype) {
  std::vector<float> out(count);
  for (uint64_t i = 0; i < count; ++i) {
    switch (dtype) {
      case DType::kFp16: {
        uint16_t h;
        std::memcpy(&h, bytes + 2 * i, 2);
        out[i] = fp16_to_float(h);
        break;
      }
      case DType::kBf16: {
        uint16_t h;
        std::memcpy(&h, bytes + 2 * i, 2);
        out[i] = bf16_to_float(h);
        break;
      }
      case DType::kFp32:
        std::memcpy(&out[i], bytes + 4 * i, 4);
        break;
      case DType::kInt32: {
        int32_t v;
        std::memcpy(&v, bytes + 4 * i, 4);
        out[i] = static_cast<float>(v);
        break;
      }
    }
  }
  return out;
}

void encode_elements(const float* values, uint64_t count, DType dtype, uint8_t* out) {
  for (uint64_t i = 0; i < count; ++i) {
    switch (dtype) {
      case DType::kFp16: {
        const uint16_t h = float_to_fp16(values[i]);
        std::memcpy(out + 2 * i, &h, 2);
        break;
      }
      case DType::kBf16: {
        const uint16_t h = float_to_bf16(values[i]);
        std::memcpy(out + 2 * i, &h, 2);
        break;
      }
      case DType::kFp32:
        std::memcpy(out + 4 * i, &values[i], 4);
        break;
      case DType::kInt32: {
        const float r = std::nearbyint(values[i]);
        int32_t v = std::isnan(r)         ? 0
                    : r >= 2147483647.0f  ? 2147483647
                    : r <= -2147483648.0f ? static_cast<int32_t>(-2147483647 - 1)
                                          : static_cast<int32_t>(r);
        std::memcpy(out + 4 * i, &v, 4);
        break;
      }
    }
  }
}

float round_to(float v, DType dtype) {
  uint8_t buf[4];
  encode_elements(&v, 1, dtype, buf);
  return decode_elements(buf, 1, dtype)[0];
}

}  // namespace kb
