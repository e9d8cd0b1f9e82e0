// The transformer step's phase names and their op classes
// (firmware/kernels/transformer_phases.h).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "firmware/kernels/transformer_phases.h"

namespace kb {
namespace {

TEST(TransformerPhases, EachPhaseHasItsOpClass) {
  EXPECT_STREQ(fw::phase_class(fw::phase::kQkv), "gemm");
  EXPECT_STREQ(fw::phase_class(fw::phase::kLmHead), "gemm");
  EXPECT_STREQ(fw::phase_class(fw::phase::kAttention), "attention");
  EXPECT_STREQ(fw::phase_class(fw::phase::kOReduceScatter), "allreduce");
  EXPECT_STREQ(fw::phase_class(fw::phase::kFinalNormGather), "allreduce");
  EXPECT_STREQ(fw::phase_class(fw::phase::kPpSend), "pipeline");
  EXPECT_STREQ(fw::phase_class(fw::phase::kSiluMul), "norm_elementwise");
  EXPECT_STREQ(fw::phase_class(fw::phase::kKvAppend), "norm_elementwise");
}

// A name that is not a phase is an error, not a silent class.
TEST(TransformerPhases, AnUnknownNameIsAnError) {
  EXPECT_THROW(fw::phase_class("qkv_gathr"), std::invalid_argument);
}

}  // namespace
}  // namespace kb
