// Element conversions of data mode (models/common/dtype_convert.h): fp16 and
// bf16 round to nearest, ties to even; overflow becomes ±inf; subnormals are
// kept; NaN stays NaN; int32 rounds to nearest and saturates.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "models/common/dtype_convert.h"

namespace kb {
namespace {

float bits_to_float(uint32_t x) {
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

uint32_t float_to_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  return x;
}

bool fp16_is_nan(uint16_t h) {
  return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0;
}

bool bf16_is_nan(uint16_t h) {
  return (h & 0x7f80u) == 0x7f80u && (h & 0x7fu) != 0;
}

// The value of an fp16 bit pattern computed independently (double).
double fp16_reference(uint16_t h) {
  const int sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  double v;
  if (exp == 0)
    v = std::ldexp(static_cast<double>(mant), -24);
  else if (exp == 31)
    v = std::numeric_limits<double>::infinity();
  else
    v = std::ldexp(1.0 + mant / 1024.0, exp - 15);
  return sign ? -v : v;
}

constexpr float kInfF32 = std::numeric_limits<float>::infinity();

TEST(DtypeConvert, EveryNonNanHalfRoundTripsThroughFloat) {
  unsigned checked = 0;
  for (uint32_t i = 0; i <= 0xffffu; ++i) {
    const auto h = static_cast<uint16_t>(i);
    if (fp16_is_nan(h)) continue;
    const float f = fp16_to_float(h);
    ASSERT_EQ(static_cast<double>(f), fp16_reference(h)) << std::hex << "0x" << i;
    ASSERT_EQ(std::signbit(f), (h & 0x8000u) != 0) << std::hex << "0x" << i;  // -0 keeps its sign
    ASSERT_EQ(float_to_fp16(f), h) << std::hex << "0x" << i;
    ++checked;
  }
  EXPECT_EQ(checked, 65536u - 2u * 1023u);  // all but the 2046 NaN patterns
}

TEST(DtypeConvert, PositiveHalvesAreStrictlyIncreasing) {
  for (uint32_t i = 1; i <= 0x7c00u; ++i)
    ASSERT_LT(fp16_to_float(static_cast<uint16_t>(i - 1)), fp16_to_float(static_cast<uint16_t>(i)))
        << std::hex << "0x" << i;
}

TEST(DtypeConvert, EveryNonNanBf16RoundTripsThroughFloat) {
  for (uint32_t i = 0; i <= 0xffffu; ++i) {
    const auto h = static_cast<uint16_t>(i);
    if (bf16_is_nan(h)) continue;
    const float f = bf16_to_float(h);
    ASSERT_EQ(float_to_bits(f), i << 16) << std::hex << "0x" << i;
    ASSERT_EQ(float_to_bf16(f), h) << std::hex << "0x" << i;
  }
}

TEST(DtypeConvert, Fp16RoundsToNearestTiesToEven) {
  const float ulp1 = std::ldexp(1.0f, -10);  // fp16 spacing in [1, 2)
  // Exactly halfway between 1 (even mantissa) and 1 + ulp: down to 1.
  EXPECT_EQ(float_to_fp16(1.0f + ulp1 / 2), 0x3c00u);
  // Halfway between 1 + ulp (odd) and 1 + 2 ulp (even): up.
  EXPECT_EQ(float_to_fp16(1.0f + 3 * ulp1 / 2), 0x3c02u);
  // Just above / below a tie: nearest.
  EXPECT_EQ(float_to_fp16(1.0f + ulp1 / 2 + std::ldexp(1.0f, -20)), 0x3c01u);
  EXPECT_EQ(float_to_fp16(1.0f + ulp1 / 2 - std::ldexp(1.0f, -20)), 0x3c00u);
  // Negative ties mirror the positive ones.
  EXPECT_EQ(float_to_fp16(-(1.0f + ulp1 / 2)), 0xbc00u);
  EXPECT_EQ(float_to_fp16(-(1.0f + 3 * ulp1 / 2)), 0xbc02u);
  // A tie that carries into the exponent: 2 - ulp/2 lies between 0x3fff (odd) and 2.0.
  EXPECT_EQ(float_to_fp16(2.0f - ulp1 / 2), 0x4000u);
  EXPECT_EQ(float_to_fp16(2.0f - ulp1 / 2 - std::ldexp(1.0f, -20)), 0x3fffu);
  // 2049 is halfway between 2048 and 2050 (spacing 2 at [2048, 4096)): to 2048 (even).
  EXPECT_EQ(fp16_to_float(float_to_fp16(2049.0f)), 2048.0f);
  EXPECT_EQ(fp16_to_float(float_to_fp16(2051.0f)), 2052.0f);
  // Every value rounds to one of its two fp16 neighbours, the nearer one.
  for (float v : {0.1f, 0.3333333f, 3.14159265f, -7.77f, 1000.1f, 0.0001234f}) {
    const float r = fp16_to_float(float_to_fp16(v));
    const double err = std::abs(static_cast<double>(r) - v);
    const int e = std::ilogb(v);
    const double ulp = std::ldexp(1.0, std::max(e, -14) - 10);
    EXPECT_LE(err, ulp / 2) << v;
  }
}

TEST(DtypeConvert, Bf16RoundsToNearestTiesToEven) {
  const float ulp1 = std::ldexp(1.0f, -7);                 // bf16 spacing in [1, 2)
  EXPECT_EQ(float_to_bf16(1.0f + ulp1 / 2), 0x3f80u);      // tie, down to even
  EXPECT_EQ(float_to_bf16(1.0f + 3 * ulp1 / 2), 0x3f82u);  // tie, up to even
  EXPECT_EQ(float_to_bf16(1.0f + ulp1 / 2 + std::ldexp(1.0f, -20)), 0x3f81u);
  EXPECT_EQ(float_to_bf16(1.0f + ulp1 / 2 - std::ldexp(1.0f, -20)), 0x3f80u);
  EXPECT_EQ(float_to_bf16(-(1.0f + 3 * ulp1 / 2)), 0xbf82u);
  // Bit-level ties: low half exactly 0x8000.
  EXPECT_EQ(float_to_bf16(bits_to_float(0x40490000u | 0x8000u)), 0x404au);  // odd 0x4049 -> up
  EXPECT_EQ(float_to_bf16(bits_to_float(0x404a0000u | 0x8000u)), 0x404au);  // even stays
  EXPECT_EQ(round_to(3.14159265f, DType::kBf16), 3.140625f);
}

TEST(DtypeConvert, OverflowBecomesInfinity) {
  EXPECT_EQ(float_to_fp16(65504.0f), 0x7bffu);  // fp16 max
  EXPECT_EQ(float_to_fp16(65519.0f), 0x7bffu);  // below the halfway point 65520
  EXPECT_EQ(float_to_fp16(65520.0f), 0x7c00u);  // tie with 65536 (even): overflows
  EXPECT_EQ(float_to_fp16(1e6f), 0x7c00u);
  EXPECT_EQ(float_to_fp16(-1e6f), 0xfc00u);
  EXPECT_EQ(float_to_fp16(std::numeric_limits<float>::max()), 0x7c00u);
  EXPECT_EQ(float_to_fp16(kInfF32), 0x7c00u);
  EXPECT_EQ(float_to_fp16(-kInfF32), 0xfc00u);
  EXPECT_EQ(fp16_to_float(0x7c00u), kInfF32);
  EXPECT_EQ(fp16_to_float(0xfc00u), -kInfF32);

  EXPECT_EQ(float_to_bf16(std::numeric_limits<float>::max()), 0x7f80u);
  EXPECT_EQ(float_to_bf16(-std::numeric_limits<float>::max()), 0xff80u);
  EXPECT_EQ(float_to_bf16(bits_to_float(0x7f7f7fffu)), 0x7f7fu);  // just below the tie: bf16 max
  EXPECT_EQ(float_to_bf16(kInfF32), 0x7f80u);
  EXPECT_EQ(float_to_bf16(-kInfF32), 0xff80u);
  EXPECT_EQ(round_to(1e6f, DType::kFp16), kInfF32);
  EXPECT_EQ(round_to(-1e6f, DType::kFp16), -kInfF32);
}

TEST(DtypeConvert, Fp16SubnormalsAreKeptAndRoundTiesToEven) {
  const float tiny = std::ldexp(1.0f, -24);  // smallest fp16 subnormal
  EXPECT_EQ(float_to_fp16(tiny), 0x0001u);
  EXPECT_EQ(float_to_fp16(-tiny), 0x8001u);
  EXPECT_EQ(float_to_fp16(1023 * tiny), 0x03ffu);            // largest subnormal
  EXPECT_EQ(float_to_fp16(std::ldexp(1.0f, -14)), 0x0400u);  // smallest normal
  EXPECT_EQ(float_to_fp16(tiny / 2), 0x0000u);               // tie with 0 (even)
  EXPECT_EQ(float_to_fp16(-tiny / 2), 0x8000u);              // signed zero
  EXPECT_EQ(float_to_fp16(3 * tiny / 2), 0x0002u);           // tie: up to even 2
  EXPECT_EQ(float_to_fp16(5 * tiny / 2), 0x0002u);           // tie: down to even 2
  EXPECT_EQ(float_to_fp16(tiny / 2 + std::ldexp(1.0f, -40)), 0x0001u);
  EXPECT_EQ(float_to_fp16(1023.5f * tiny), 0x0400u);  // tie rounds into the smallest normal
  EXPECT_EQ(float_to_fp16(std::ldexp(1.0f, -30)), 0x0000u);
  EXPECT_EQ(float_to_fp16(std::numeric_limits<float>::denorm_min()), 0x0000u);
  EXPECT_EQ(float_to_fp16(-std::numeric_limits<float>::denorm_min()), 0x8000u);
  EXPECT_EQ(fp16_to_float(0x0001u), tiny);
  EXPECT_EQ(fp16_to_float(0x03ffu), 1023 * tiny);

  // bf16 keeps float's subnormals.
  const float fsub = bits_to_float(0x00010000u);
  EXPECT_EQ(float_to_bf16(fsub), 0x0001u);
  EXPECT_EQ(bf16_to_float(0x0001u), fsub);
}

TEST(DtypeConvert, NanStaysNan) {
  for (uint32_t i = 0; i <= 0xffffu; ++i) {
    const auto h = static_cast<uint16_t>(i);
    if (fp16_is_nan(h)) {
      ASSERT_TRUE(std::isnan(fp16_to_float(h))) << std::hex << i;
      ASSERT_TRUE(fp16_is_nan(float_to_fp16(fp16_to_float(h)))) << std::hex << i;
    }
    if (bf16_is_nan(h)) {
      ASSERT_TRUE(std::isnan(bf16_to_float(h))) << std::hex << i;
      ASSERT_TRUE(bf16_is_nan(float_to_bf16(bf16_to_float(h)))) << std::hex << i;
    }
  }
  // NaNs whose payload lies only in the bits a narrowing conversion drops
  // (rounding or truncating them naively gives infinity).
  for (uint32_t bits : {0x7f800001u, 0xff800001u, 0x7fc00000u, 0x7f80ffffu, 0xffffffffu}) {
    const float nan = bits_to_float(bits);
    ASSERT_TRUE(std::isnan(nan));
    EXPECT_TRUE(fp16_is_nan(float_to_fp16(nan))) << std::hex << bits;
    EXPECT_TRUE(bf16_is_nan(float_to_bf16(nan))) << std::hex << bits;
    EXPECT_TRUE(std::isnan(round_to(nan, DType::kFp16))) << std::hex << bits;
    EXPECT_TRUE(std::isnan(round_to(nan, DType::kBf16))) << std::hex << bits;
    EXPECT_TRUE(std::isnan(round_to(nan, DType::kFp32))) << std::hex << bits;
  }
}

TEST(DtypeConvert, Int32RoundsToNearestAndSaturates) {
  const std::vector<float> in = {3e9f,  -3e9f,         kInfF32,        -kInfF32,      2.5f,  3.5f,
                                 -2.5f, 2147483520.0f, -2147483648.0f, 2147483648.0f, 0.49f, -7.6f};
  std::vector<uint8_t> bytes(4 * in.size());
  encode_elements(in.data(), in.size(), DType::kInt32, bytes.data());
  std::vector<int32_t> got(in.size());
  std::memcpy(got.data(), bytes.data(), bytes.size());
  const std::vector<int32_t> want = {std::numeric_limits<int32_t>::max(),
                                     std::numeric_limits<int32_t>::min(),
                                     std::numeric_limits<int32_t>::max(),
                                     std::numeric_limits<int32_t>::min(),
                                     2,
                                     4,
                                     -2,
                                     2147483520,
                                     std::numeric_limits<int32_t>::min(),
                                     std::numeric_limits<int32_t>::max(),
                                     0,
                                     -8};
  EXPECT_EQ(got, want);
  const std::vector<float> back = decode_elements(bytes.data(), in.size(), DType::kInt32);
  EXPECT_EQ(back[4], 2.0f);
  EXPECT_EQ(back[11], -8.0f);
  EXPECT_EQ(back[7], 2147483520.0f);
}

TEST(DtypeConvert, EncodeDecodeAreLittleEndianAndFp32IsBitExact) {
  const std::vector<float> v = {1.0f, -2.0f, 0.5f, bits_to_float(0x00000001u), -0.0f};
  std::vector<uint8_t> b(4 * v.size());
  encode_elements(v.data(), v.size(), DType::kFp32, b.data());
  const std::vector<float> back = decode_elements(b.data(), v.size(), DType::kFp32);
  for (size_t i = 0; i < v.size(); ++i) EXPECT_EQ(float_to_bits(back[i]), float_to_bits(v[i]));
  std::vector<uint8_t> h(2 * v.size());
  encode_elements(v.data(), v.size(), DType::kFp16, h.data());
  EXPECT_EQ(h[0], 0x00u);  // 1.0 = 0x3c00, little-endian
  EXPECT_EQ(h[1], 0x3cu);
  EXPECT_EQ(h[2], 0x00u);  // -2.0 = 0xc000
  EXPECT_EQ(h[3], 0xc0u);
  encode_elements(v.data(), v.size(), DType::kBf16, h.data());
  EXPECT_EQ(h[0], 0x80u);  // 1.0 = 0x3f80
  EXPECT_EQ(h[1], 0x3fu);
  const std::vector<float> hb = decode_elements(h.data(), v.size(), DType::kBf16);
  EXPECT_EQ(hb[2], 0.5f);
  EXPECT_TRUE(std::signbit(hb[4]));
}

}  // namespace
}  // namespace kb
