// The one ranking of "did you mean" guesses (platform/util/spelling.h): edit
// distance, then a shared first letter, then the longer common subsequence;
// and the nearest existing file for a path that does not exist.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "platform/util/spelling.h"
#include "tests/support/cli_run.h"
#include "tests/support/test_support.h"

namespace kb {
namespace {

// The names --list-benches shows, in the registry's order.
const std::vector<std::string> kSpellingBenchNames = {
    "probe",     "dma",       "gemm",        "gemm-sweep",      "gqa-decode",
    "gqa-long",  "gqa-sweep", "gqa-prefill", "gqa-short",       "allreduce",
    "ccl-sweep", "simspeed",  "fidelity",    "gemm-strategies", "math",
    "llm",       "milestone"};

TEST(SpellingSuggestions, CommonSubsequenceLength) {
  EXPECT_EQ(common_subsequence("lama", "llm"), 2u);
  EXPECT_EQ(common_subsequence("llama3_7b", "llama3_70b"), 9u);
  EXPECT_EQ(common_subsequence("llama3_7b", "llama3_8b"), 8u);
  EXPECT_EQ(common_subsequence("", "abc"), 0u);
}

// 'dma' and 'llm' are both two edits from "lama": the one that starts like
// the word wins, whichever comes first in the list.
TEST(SpellingSuggestions, ATieGoesToTheCandidateWithTheSameFirstLetter) {
  EXPECT_EQ(spelling_distance("lama", "dma"), spelling_distance("lama", "llm"));
  EXPECT_EQ(nearest_spelling("lama", kSpellingBenchNames), "llm");
  EXPECT_EQ(nearest_spelling("lama", {"llm", "dma"}), "llm");
  EXPECT_TRUE(spelling_score("lama", "llm") < spelling_score("lama", "dma"));
}

TEST(SpellingSuggestions, ATieOfFirstLettersGoesToTheLongerCommonSubsequence) {
  EXPECT_EQ(nearest_spelling("llama3_7b", {"llama3_8b", "llama3_70b"}), "llama3_70b");
  EXPECT_EQ(nearest_spelling("llama3_7b", {"llama3_70b", "llama3_8b"}), "llama3_70b");
}

TEST(SpellingSuggestions, FewerEditsStillWinAndFarNamesGiveNone) {
  EXPECT_EQ(nearest_spelling("prbe", kSpellingBenchNames), "probe");
  EXPECT_EQ(nearest_spelling("gqa-sweeep", kSpellingBenchNames), "gqa-sweep");
  EXPECT_EQ(nearest_spelling("dam", kSpellingBenchNames), "dma");
  EXPECT_EQ(nearest_spelling("xyzzy", kSpellingBenchNames), "");
}

TEST(SpellingSuggestions, NearestFileIsInTheSameDirectoryWithTheSameExtension) {
  test::TempDir tmp;
  for (const char* f : {"tiny.yaml", "ahbm_1sip.yaml", "tinny.json", "tiny.yml"})
    test::write_text(tmp / f, "name: x\n");
  EXPECT_EQ(nearest_file(tmp / "tinny.yaml"), tmp / "tiny.yaml");
  EXPECT_EQ(nearest_file(tmp / "ahbm_1sp.yaml"), tmp / "ahbm_1sip.yaml");
  EXPECT_EQ(nearest_file(tmp / "tiny.jsn"), "");         // no file with that extension
  EXPECT_EQ(nearest_file(tmp / "mesh.yaml"), "");        // nothing close
  EXPECT_EQ(nearest_file(tmp / "none/tinny.yaml"), "");  // no such directory
  // Paths found another way take part, after the directory's files.
  EXPECT_EQ(nearest_file(tmp / "ring.yaml", {"topologies/rings.yaml"}), "topologies/rings.yaml");
  EXPECT_EQ(nearest_file(tmp / "tinny.yaml", {"topologies/tiny.yaml"}), tmp / "tiny.yaml");
}

}  // namespace
}  // namespace kb
