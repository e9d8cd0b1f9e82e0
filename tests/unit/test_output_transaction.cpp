// The rules of a run's outputs: links followed to their final target, and a
// set of files renamed into place all together or not at all.
#include "platform/output/output_transaction.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "models/common/errors.h"
#include "platform/output/output_paths.h"
#include "tests/support/cli_run.h"

namespace kb {
namespace {

namespace fs = std::filesystem;
using test::names_in;
using test::read_text;
using test::TempDir;
using test::write_text;

TEST(FinalTarget, FollowsLinksWhoseTargetDoesNotExistYet) {
  TempDir tmp;
  ASSERT_EQ(::symlink("b.txt", (tmp / "a.txt").c_str()), 0);
  ASSERT_EQ(::symlink("c.txt", (tmp / "b.txt").c_str()), 0);
  EXPECT_EQ(final_target(tmp / "a.txt"), tmp / "c.txt");
  ASSERT_EQ(::symlink((tmp / "sub/d.txt").c_str(), (tmp / "abs.txt").c_str()), 0);
  EXPECT_EQ(final_target(tmp / "abs.txt"), tmp / "sub/d.txt");
  EXPECT_EQ(final_target(tmp / "plain.txt"), tmp / "plain.txt");
}

TEST(FinalTarget, ALoopOfLinksIsAUsageError) {
  TempDir tmp;
  ASSERT_EQ(::symlink("y", (tmp / "x").c_str()), 0);
  ASSERT_EQ(::symlink("x", (tmp / "y").c_str()), 0);
  try {
    final_target(tmp / "x", "--csv");
    FAIL() << "a loop was followed";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--csv"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("loop"), std::string::npos) << e.what();
  }
}

TEST(OutputPaths, TwoOutputsThroughADanglingLinkAreOneFile) {
  TempDir tmp;
  ASSERT_EQ(::symlink("log.jsonl", (tmp / "view.json").c_str()), 0);
  EXPECT_THROW(check_output_paths({{"--oplog", tmp / "log.jsonl"}, {"--trace", tmp / "view.json"}}),
               UsageError);
  EXPECT_NO_THROW(
      check_output_paths({{"--oplog", tmp / "log.jsonl"}, {"--trace", tmp / "t.json"}}));
}

TEST(OutputTransaction, CommitsEveryFileAndLeavesLinksAsLinks) {
  TempDir tmp;
  write_text(tmp / "old.json", "earlier\n");
  ASSERT_EQ(::symlink("target.csv", (tmp / "link.csv").c_str()), 0);  // dangling
  {
    OutputTransaction tx;
    tx.stage(tmp / "old.json").write("new json\n");
    tx.stage(tmp / "link.csv").write("new csv\n");
    tx.stage(tmp / "fresh.txt").write("fresh\n");
    tx.commit();
  }
  EXPECT_EQ(read_text(tmp / "old.json"), "new json\n");
  EXPECT_EQ(read_text(tmp / "target.csv"), "new csv\n");
  struct stat st {};
  ASSERT_EQ(::lstat((tmp / "link.csv").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  EXPECT_EQ(names_in(tmp),
            (std::vector<std::string>{"fresh.txt", "link.csv", "old.json", "target.csv"}));
}

TEST(OutputTransaction, NotCommittedTouchesNoTarget) {
  TempDir tmp;
  write_text(tmp / "a.json", "A\n");
  {
    OutputTransaction tx;
    tx.stage(tmp / "a.json").write("new\n");
    tx.stage(tmp / "b.json").write("new\n");
  }
  EXPECT_EQ(read_text(tmp / "a.json"), "A\n");
  EXPECT_EQ(names_in(tmp), std::vector<std::string>{"a.json"});
}

// A target that cannot be replaced any more when the commit comes (here it
// became a directory during the run) fails the whole commit: the targets
// before it in the transaction keep their earlier contents.
TEST(OutputTransaction, AFailedCommitLeavesEveryTargetAsItWas) {
  TempDir tmp;
  write_text(tmp / "a.json", "A\n");
  write_text(tmp / "c.json", "C\n");
  OutputTransaction tx;
  tx.stage(tmp / "a.json").write("new a\n");
  tx.stage(tmp / "c.json").write("new c\n");
  tx.stage(tmp / "b.json").write("new b\n");
  fs::create_directory(tmp / "b.json");
  EXPECT_THROW(tx.commit(), OutputError);
  EXPECT_EQ(read_text(tmp / "a.json"), "A\n");
  EXPECT_EQ(read_text(tmp / "c.json"), "C\n");
  EXPECT_TRUE(fs::is_directory(tmp / "b.json"));
  std::vector<std::string> left;
  for (const std::string& n : names_in(tmp))
    if (n.rfind(".kb-", 0) == 0 && n.size() > 4 && n.substr(n.size() - 4) == ".old")
      left.push_back(n);
  EXPECT_EQ(left, std::vector<std::string>{}) << "a backup was left behind";
}

}  // namespace
}  // namespace kb
