// HopStack: the frames of a path come back last in, first out, however long
// the path (the first ones are kept in the stack itself, the rest after), and
// a copy carries them all.
#include <gtest/gtest.h>

#include <memory>

#include "models/common/hop_stack.h"

namespace kb {
namespace {

HopStack::Frame frame(int i) {
  return {i, reinterpret_cast<void*>(static_cast<intptr_t>(1000 + i))};
}

void expect_frame(const HopStack::Frame& f, int i) {
  EXPECT_EQ(f.port, i);
  EXPECT_EQ(f.state, frame(i).state);
}

TEST(HopStack, PopsFramesLastInFirstOutOnPathsLongerThanItsOwnFrames) {
  HopStack h;
  for (const int n : {1, 14, 15, 40}) {  // within, at and past the frames kept in place
    for (int i = 0; i < n; ++i) h.push(frame(i));
    EXPECT_EQ(h.size(), static_cast<size_t>(n));
    for (int i = n - 1; i >= 0; --i) expect_frame(h.pop(), i);
    EXPECT_EQ(h.size(), 0u);
  }
}

TEST(HopStack, PushesAndPopsInterleavedAsResponsesComeBackPartWay) {
  HopStack h;
  for (int i = 0; i < 20; ++i) h.push(frame(i));
  for (int i = 19; i >= 10; --i) expect_frame(h.pop(), i);
  for (int i = 10; i < 30; ++i) h.push(frame(100 + i));
  for (int i = 29; i >= 10; --i) expect_frame(h.pop(), 100 + i);
  for (int i = 9; i >= 0; --i) expect_frame(h.pop(), i);
}

TEST(HopStack, ACloneCarriesEveryFrame) {
  HopStack h;
  for (int i = 0; i < 25; ++i) h.push(frame(i));
  std::unique_ptr<HopStack> copy(static_cast<HopStack*>(h.clone()));
  HopStack& c = *copy;
  HopStack d;
  d.copy_from(h);
  for (int i = 24; i >= 0; --i) {
    expect_frame(c.pop(), i);
    expect_frame(d.pop(), i);
  }
}

}  // namespace
}  // namespace kb
