// Shape, a tensor's dimensions held inline: it must agree with a
// std::vector<int64_t> through the operations the code uses, below and past
// its inline capacity, and copies and moves must keep their own dimensions.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "models/commands/shape.h"

namespace kb {
namespace {

void expect_same(const Shape& s, const std::vector<int64_t>& v) {
  ASSERT_EQ(s.size(), v.size());
  EXPECT_EQ(s.empty(), v.empty());
  EXPECT_EQ(s.vec(), v);
  EXPECT_TRUE(std::equal(s.begin(), s.end(), v.begin(), v.end()));
}

TEST(Shape, AgreesWithAVectorBelowAndPastItsInlineCapacity) {
  Shape s;
  std::vector<int64_t> v;
  std::mt19937 rng(5);
  for (int step = 0; step < 20000; ++step) {
    const unsigned op = rng() % 8;
    const auto x = static_cast<int64_t>(rng() % 1000);
    if (op < 3 && v.size() < 9) {
      s.push_back(x);
      v.push_back(x);
    } else if (op == 3 && !v.empty()) {
      s.pop_back();
      v.pop_back();
    } else if (op == 4) {
      const size_t at = rng() % (v.size() + 1);
      auto* const it = s.insert(s.begin() + at, x);
      v.insert(v.begin() + static_cast<std::ptrdiff_t>(at), x);
      EXPECT_EQ(static_cast<size_t>(it - s.begin()), at);
    } else if (op == 5 && !v.empty()) {
      const size_t at = rng() % v.size();
      auto* const it = s.erase(s.begin() + at);
      v.erase(v.begin() + static_cast<std::ptrdiff_t>(at));
      EXPECT_EQ(static_cast<size_t>(it - s.begin()), at);
    } else if (op == 6) {
      const size_t n = rng() % 8;
      s.resize(n, x);
      v.resize(n, x);
    } else if (!v.empty()) {
      s.back() = x;
      v.back() = x;
      EXPECT_EQ(s.front(), v.front());
    }
    expect_same(s, v);
  }
}

TEST(Shape, CopiesAndMovesKeepTheirOwnDimensions) {
  for (const std::vector<int64_t>& dims :
       {std::vector<int64_t>{}, {7}, {2, 3, 4, 5}, {1, 2, 3, 4, 5, 6}}) {
    const Shape a(dims);
    Shape b = a;  // copy
    expect_same(b, dims);
    if (!b.empty()) b[0] = -1;
    expect_same(a, dims);  // the copy owns its storage
    Shape c = std::move(b);
    EXPECT_TRUE(b.empty());  // NOLINT(bugprone-use-after-move): a moved-from shape is empty
    Shape d;
    d = std::move(c);
    EXPECT_EQ(d.size(), dims.size());
    d = a;
    EXPECT_EQ(d, a);
    d = {9, 9};
    EXPECT_NE(d, a);
    expect_same(d, {9, 9});
  }
  const Shape s(3, 8);
  expect_same(s, {8, 8, 8});
  EXPECT_EQ(s.at(2), 8);
  EXPECT_THROW((void)s.at(3), std::out_of_range);
}

}  // namespace
}  // namespace kb
