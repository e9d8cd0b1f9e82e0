// A service queue's depth samples as the trace's busy-share counter
// (DepthTrack in models/common/service_queue.h).
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "models/common/service_queue.h"

namespace kb {
namespace {

using Shares = std::vector<std::pair<int64_t, double>>;

TEST(DepthTrack, SettledDepthKeepsTheLastChangeOfAnInstant) {
  DepthTrack t;
  t.sample(0, 1);
  t.sample(0, 2);  // same instant: replaces
  t.sample(5, 2);  // no change: dropped
  t.sample(7, 0);
  EXPECT_EQ(t.samples, (std::vector<std::pair<int64_t, unsigned>>{{0, 2}, {7, 0}}));
}

TEST(DepthTrack, BusyShareSplitsBusySpansOverBins) {
  DepthTrack t;
  t.sample(250, 1);  // busy 250..1500 (depth 1 then 3)
  t.sample(1000, 3);
  t.sample(1500, 0);
  t.sample(3000, 1);  // busy from 3000 to the end
  EXPECT_EQ(t.busy_share(3500, 1000), (Shares{{0, 0.75}, {1000, 0.5}, {2000, 0.0}, {3000, 1.0}}));
  // One bin over the whole span; a last bin shorter than the others.
  EXPECT_EQ(t.busy_share(3500, 4000), (Shares{{0, 1750.0 / 3500}}));
  EXPECT_EQ(t.busy_share(1200, 1000), (Shares{{0, 0.75}, {1000, 1.0}}));
}

TEST(DepthTrack, IdleQueueIsNeverBusyAndEmptySpansGiveNothing) {
  DepthTrack t;
  EXPECT_EQ(t.busy_share(2000, 1000), (Shares{{0, 0.0}}));
  EXPECT_TRUE(t.busy_share(0, 1000).empty());
  EXPECT_TRUE(t.busy_share(1000, 0).empty());
}

}  // namespace
}  // namespace kb
