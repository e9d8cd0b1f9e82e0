// Progress lines of long benches: silent at first and with --quiet; in a log
// (not a terminal) a line per tenth of the total and one at the end.
#include "platform/bench/progress.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>

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

// A run no Progress counts still shows it is alive: the heartbeat's line
// after its quiet delay, none with --quiet, none for a short run.
TEST(Heartbeat, ALongRunShowsItIsRunning) {
  std::ostringstream captured;
  std::streambuf* old = std::cerr.rdbuf(captured.rdbuf());
  {
    const Heartbeat h("bench", false, 0.05, 0.02);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  {
    const Heartbeat quiet("quiet", true, 0.0, 0.01);
    const Heartbeat brief("brief", false, 3600, 0.01);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::cerr.rdbuf(old);
  const std::string out = captured.str();
  EXPECT_EQ(out.rfind("bench: running, ", 0), 0u) << out;
  EXPECT_EQ(out.find("quiet"), std::string::npos) << out;
  EXPECT_EQ(out.find("brief"), std::string::npos) << out;
}

// Between a long Progress's lines the heartbeat says how far it has come.
TEST(Heartbeat, SaysWhereTheRunningProgressIs) {
  std::ostringstream captured;
  std::streambuf* old = std::cerr.rdbuf(captured.rdbuf());
  {
    const Heartbeat h("llm", false, 0.05, 0.02);
    Progress p("llm", "layer", 80, false, 3600);  // its own lines not due for an hour
    p.step();
    p.step();
    p.step();
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  std::cerr.rdbuf(old);
  const std::string out = captured.str();
  EXPECT_EQ(out.rfind("llm: running, ", 0), 0u) << out;
  EXPECT_NE(out.find(" s, layer 3/80, ETA "), std::string::npos) << out;
  EXPECT_EQ(out.find("llm: layer"), std::string::npos) << out;  // no Progress line
}

}  // namespace
}  // namespace kb
