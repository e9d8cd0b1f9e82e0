#include <gtest/gtest.h>

#include "models/common/address_map.h"

namespace kb {
namespace {

TopologyShape small_shape() {
  TopologyShape s;
  s.n_sips = 2;
  s.cubes_per_sip = 4;
  s.pes_per_cube = 2;
  s.hbm_bytes = 64 << 20;
  s.tcm_bytes = 1 << 20;
  s.sram_bytes = 8 << 20;
  s.host_bytes = 1 << 30;
  return s;
}

TEST(AddressMap, EncodeDecodeRoundTripForEverySpace) {
  for (Space sp : {Space::kHbm, Space::kTcm, Space::kSram, Space::kHost}) {
    for (const Location& loc :
         {Location{sp, 0, 0, 0, 0}, Location{sp, 63, 255, 63, addr_bits::kOffsetMask},
          Location{sp, 1, 3, 1, 0x12345}}) {
      const uint64_t a = encode_address(loc);
      auto back = decode_address(a);
      ASSERT_TRUE(back.has_value());
      EXPECT_EQ(*back, loc);
    }
  }
}

TEST(AddressMap, FieldsThatDoNotFitAreRejectedByTheEncoder) {
  EXPECT_THROW(encode_address({Space::kHbm, 64, 0, 0, 0}), std::invalid_argument);
  EXPECT_THROW(encode_address({Space::kHbm, 0, 256, 0, 0}), std::invalid_argument);
  EXPECT_THROW(encode_address({Space::kHbm, 0, 0, 64, 0}), std::invalid_argument);
  EXPECT_THROW(encode_address({Space::kHbm, 0, 0, 0, addr_bits::kMaxRegionBytes}),
               std::invalid_argument);
}

TEST(AddressMap, UnmappedSpaceDoesNotDecode) {
  EXPECT_FALSE(decode_address(0x0000000000001000ull).has_value());
  EXPECT_FALSE(decode_address(0x6000000000000000ull).has_value());
  EXPECT_FALSE(decode_address(0xF000000000000000ull).has_value());
}

TEST(AddressMap, ResolveAcceptsInRangeAndNamesWhyItRejects) {
  AddressMap m(small_shape());
  std::string why;
  EXPECT_TRUE(m.resolve(m.hbm(1, 3, 1, 100), 4096, &why).has_value());
  EXPECT_TRUE(m.resolve(m.tcm(0, 0, 0, (1 << 20) - 1), 1, &why).has_value());

  EXPECT_FALSE(m.resolve(0x0000000000001000ull, 4, &why));
  EXPECT_NE(why.find("unmapped"), std::string::npos) << why;
  EXPECT_FALSE(m.resolve(encode_address({Space::kHbm, 2, 0, 0, 0}), 4, &why));
  EXPECT_NE(why.find("sip 2"), std::string::npos) << why;
  EXPECT_FALSE(m.resolve(encode_address({Space::kHbm, 0, 4, 0, 0}), 4, &why));
  EXPECT_NE(why.find("cube 4"), std::string::npos) << why;
  EXPECT_FALSE(m.resolve(encode_address({Space::kTcm, 0, 0, 2, 0}), 4, &why));
  EXPECT_NE(why.find("pe 2"), std::string::npos) << why;
  // Crossing the end of the region, and a start beyond it.
  EXPECT_FALSE(m.resolve(m.tcm(0, 0, 0, (1 << 20) - 1), 2, &why));
  EXPECT_NE(why.find("leaves its TCM region"), std::string::npos) << why;
  EXPECT_FALSE(m.resolve(m.hbm(0, 0, 0, 64 << 20), 1, &why));
  // SRAM and HOST carry no PE / position fields.
  EXPECT_FALSE(m.resolve(encode_address({Space::kSram, 0, 0, 1, 0}), 1, &why));
  EXPECT_FALSE(m.resolve(encode_address({Space::kHost, 0, 1, 0, 0}), 1, &why));
  EXPECT_TRUE(m.resolve(m.sram(1, 2, 5), 1, &why).has_value());
  EXPECT_TRUE(m.resolve(m.host(5), 1, &why).has_value());
}

TEST(AddressMap, FormatNamesSpaceAndPosition) {
  AddressMap m(small_shape());
  EXPECT_EQ(format_address(m.hbm(1, 3, 1, 0x40)), "0x1040c10000000040 (HBM sip1.cube3.pe1+0x40)");
  EXPECT_EQ(format_address(0x10), "0x0000000000000010 (unmapped space)");
}

}  // namespace
}  // namespace kb
