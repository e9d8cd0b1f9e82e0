// InstantIndex, the calendar's instant -> list map: it must agree with a
// std::map through any mix of inserts, finds and takes, across growth and
// the backward shifts of deletion (keys chosen to collide).
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>

#include "models/common/instant_index.h"

namespace kb {
namespace {

TEST(InstantIndex, AgreesWithAMapThroughInsertsFindsAndTakes) {
  InstantIndex idx;
  std::map<uint64_t, uint32_t> ref;
  std::mt19937_64 rng(7);
  // Few distinct keys, often multiples of a power of two (sc_time values in
  // ps: latencies of whole nanoseconds), so runs form and wrap.
  auto key = [&rng] { return (rng() % 4096) * 1000 + (rng() % 3 == 0 ? 1 : 0); };
  uint32_t next = 0;
  for (int step = 0; step < 200000; ++step) {
    const uint64_t k = key();
    const auto it = ref.find(k);
    uint32_t* found = idx.find(k);
    ASSERT_EQ(found != nullptr, it != ref.end()) << "step " << step << " key " << k;
    if (it != ref.end()) {
      ASSERT_EQ(*found, it->second);
      if (rng() % 2) {
        EXPECT_EQ(idx.take(k), it->second);
        ref.erase(it);
      }
    } else {
      idx.insert(k, next);
      ref[k] = next++;
    }
    ASSERT_EQ(idx.size(), ref.size());
  }
  for (const auto& [k, v] : ref) {
    ASSERT_NE(idx.find(k), nullptr);
    EXPECT_EQ(idx.take(k), v);
  }
  EXPECT_EQ(idx.size(), 0u);
  EXPECT_EQ(idx.find(1000), nullptr);
}

}  // namespace
}  // namespace kb
