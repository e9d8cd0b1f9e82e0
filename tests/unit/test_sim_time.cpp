// Time conversions: TransferTime gives what transfer_time() gives, whatever
// sizes it is asked for and in which order.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "models/common/sim_time.h"

namespace kb {
namespace {

TEST(TransferTime, GivesTransferTimeForEverySizeAskedRepeatedOrNot) {
  const double gbps = 51.2;  // not a round number of ps per byte
  TransferTime of(gbps);
  const std::vector<uint64_t> sizes = {0, 1024, 1024, 1, 0, 4096, 1024, 1024, 3, 0};
  for (const uint64_t bytes : sizes)
    EXPECT_EQ(of(bytes), transfer_time(bytes, gbps)) << bytes << " bytes";
}

TEST(TransferTime, ZeroBytesTakeNoTimeBeforeAnythingElseIsAsked) {
  TransferTime of(64);
  EXPECT_EQ(of(0), sc_core::SC_ZERO_TIME);
  EXPECT_GT(of(64), sc_core::SC_ZERO_TIME);
}

}  // namespace
}  // namespace kb
