// The one ranking of "did you mean" guesses (platform/util/spelling.h): edit
// distance, then a shared first letter, then the longer common subsequence.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "platform/util/spelling.h"

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

}  // namespace
}  // namespace kb
