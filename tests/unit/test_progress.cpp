// Progress lines of long benches: silent at first and with --quiet; in a log
// (not a terminal) a line per tenth of the total and one at the end.
#include "platform/bench/progress.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <sstream>
#include <string>

namespace kb {
namespace {

// Runs `steps` steps of a Progress and returns what it wrote on std::cerr.
std::string stderr_of(int64_t total, int64_t steps, bool quiet, double after_s) {
  std::ostringstream captured;
  std::streambuf* old = std::cerr.rdbuf(captured.rdbuf());
  {
    Progress p("bench", "point", total, quiet, after_s);
    for (int64_t i = 0; i < steps; ++i) p.step();
  }
  std::cerr.rdbuf(old);
  return captured.str();
}

TEST(Progress, ALogGetsALinePerTenthAndTheLast) {
  const std::string out = stderr_of(25, 25, false, 0);
  // Tenths of 25 are steps of 2: 2, 4, ..., 24, then 25.
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 13) << out;
  EXPECT_EQ(out.rfind("bench: point 2/25, ", 0), 0u) << out;
  EXPECT_NE(out.find("bench: point 25/25, "), std::string::npos) << out;
  EXPECT_NE(out.find(" s, ETA 0 s\n"), std::string::npos) << out;
}

TEST(Progress, QuietOrShortRunsPrintNothing) {
  EXPECT_EQ(stderr_of(10, 10, true, 0), "");
  EXPECT_EQ(stderr_of(10, 10, false, 3600), "");  // done long before the first line is due
}

}  // namespace
}  // namespace kb
