// Strict-FIFO read-write hazard tracking between composites (docs/ARCHITECTURE.md §3).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "models/scheduler/hazard_tracker.h"

namespace kb {
namespace {

using Ids = std::vector<uint64_t>;

TEST(HazardTracker, FirstCompositeIsAdmissible) {
  HazardTracker h;
  const uint64_t a = h.arrive({1, 2});
  EXPECT_TRUE(h.admissible(a));
  EXPECT_TRUE(h.blockers(a).empty());
  EXPECT_EQ(h.unfinished(), 1u);
}

TEST(HazardTracker, ReadAfterWriteOnTheSameHandleWaitsForRetirement) {
  HazardTracker h;
  const uint64_t writer = h.arrive({7});
  const uint64_t reader = h.arrive({7});
  EXPECT_TRUE(h.admissible(writer));
  EXPECT_FALSE(h.admissible(reader));
  EXPECT_EQ(h.blockers(reader), Ids{writer});
  h.retire(writer);
  EXPECT_TRUE(h.admissible(reader));
  EXPECT_EQ(h.unfinished(), 1u);
}

TEST(HazardTracker, WriteAfterWriteOnTheSameHandleWaitsForRetirement) {
  HazardTracker h;
  // Both write O (and each also touches a private handle).
  const uint64_t first = h.arrive({100, 1});
  const uint64_t second = h.arrive({2, 100});
  EXPECT_FALSE(h.admissible(second));
  EXPECT_EQ(h.blockers(second), Ids{first});
  h.retire(first);
  EXPECT_TRUE(h.admissible(second));
  h.retire(second);
  EXPECT_EQ(h.unfinished(), 0u);
}

TEST(HazardTracker, DisjointHandlesProceed) {
  HazardTracker h;
  const uint64_t a = h.arrive({1, 2, 3});
  const uint64_t b = h.arrive({4, 5});
  const uint64_t c = h.arrive({});
  EXPECT_TRUE(h.admissible(a));
  EXPECT_TRUE(h.admissible(b));
  EXPECT_TRUE(h.admissible(c));  // no rw_handles: never blocked
  EXPECT_EQ(h.unfinished(), 3u);
}

TEST(HazardTracker, StrictFifoBehindTwoEarlierWriters) {
  HazardTracker h;
  const uint64_t w1 = h.arrive({10});
  const uint64_t w2 = h.arrive({20});
  const uint64_t third = h.arrive({10, 20});
  EXPECT_TRUE(h.admissible(w1));
  EXPECT_TRUE(h.admissible(w2));
  EXPECT_FALSE(h.admissible(third));
  EXPECT_EQ(h.blockers(third), (Ids{w1, w2}));
  // Retiring one of the two is not enough.
  h.retire(w2);
  EXPECT_FALSE(h.admissible(third));
  EXPECT_EQ(h.blockers(third), Ids{w1});
  h.retire(w1);
  EXPECT_TRUE(h.admissible(third));
}

TEST(HazardTracker, StrictFifoBehindTwoEarlierWritersOfTheSameHandle) {
  HazardTracker h;
  const uint64_t w1 = h.arrive({10});
  const uint64_t w2 = h.arrive({10});
  const uint64_t third = h.arrive({10});
  EXPECT_EQ(h.blockers(third), (Ids{w1, w2}));
  EXPECT_EQ(h.blockers(w2), Ids{w1});
  h.retire(w1);
  EXPECT_TRUE(h.admissible(w2));
  EXPECT_FALSE(h.admissible(third));  // still behind w2
  h.retire(w2);
  EXPECT_TRUE(h.admissible(third));
}

TEST(HazardTracker, LaterNonConflictingCompositeIsAdmissibleWhileAnEarlierOneIsBlocked) {
  HazardTracker h;
  const uint64_t a = h.arrive({1});
  const uint64_t b = h.arrive({1, 2});  // blocked by a
  const uint64_t c = h.arrive({3});     // shares nothing with a or b
  const uint64_t d = h.arrive({2});     // shares 2 with the blocked b: waits for it
  EXPECT_FALSE(h.admissible(b));
  EXPECT_TRUE(h.admissible(c));
  EXPECT_FALSE(h.admissible(d));
  EXPECT_EQ(h.blockers(d), Ids{b});
  h.retire(c);
  h.retire(a);
  EXPECT_TRUE(h.admissible(b));
  EXPECT_FALSE(h.admissible(d));
  h.retire(b);
  EXPECT_TRUE(h.admissible(d));
}

TEST(HazardTracker, OnlyEarlierCompositesBlock) {
  HazardTracker h;
  const uint64_t a = h.arrive({5});
  const uint64_t b = h.arrive({5});
  EXPECT_TRUE(h.admissible(a));  // a later composite never blocks an earlier one
  EXPECT_TRUE(h.blockers(a).empty());
  EXPECT_FALSE(h.admissible(b));
}

TEST(HazardTracker, TicketsAreIssuedInArrivalOrder) {
  HazardTracker h;
  const uint64_t a = h.arrive({1}), b = h.arrive({2}), c = h.arrive({3});
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  h.retire(b);
  EXPECT_EQ(h.unfinished(), 2u);
  EXPECT_TRUE(h.blockers(b).empty());  // unknown (retired) ticket: nothing to wait for
}

}  // namespace
}  // namespace kb
