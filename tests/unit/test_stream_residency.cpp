// What a decode or prefill step keeps in TCM (fw::stream_residency): the
// partial sums, xn whole, or xn in K-chunks that fit with their accumulator.
#include <gtest/gtest.h>

#include "firmware/kernels/transformer_step.h"

namespace kb {
namespace {

// 8 rows of hidden 1000 in bf16: xn is 16 000 bytes, the partial sums 32 000.
constexpr int64_t kRows = 8, kHidden = 1000, kAlign = 64, kAccCols = 20;
constexpr uint64_t kXn = 16000, kPartial = 32000, kAcc = kRows * kAccCols * 4;

fw::StreamResidency where(uint64_t partial_limit, uint64_t xn_limit, int64_t align = kAlign) {
  return fw::stream_residency(kRows, kHidden, DType::kBf16, partial_limit, xn_limit, kAccCols,
                              align);
}

TEST(StreamResidency, XnWholeInTcmWhenItFitsBesideThePartialSums) {
  const fw::StreamResidency r = where(kPartial, kPartial + kXn);
  EXPECT_TRUE(r.partial_in_tcm);
  EXPECT_TRUE(r.xn_in_tcm);
  EXPECT_EQ(r.xn_chunk_cols, kHidden);
  // Partial sums in HBM leave xn the whole limit.
  const fw::StreamResidency h = where(kPartial - 1, kXn);
  EXPECT_FALSE(h.partial_in_tcm);
  EXPECT_TRUE(h.xn_in_tcm);
}

TEST(StreamResidency, ElseTwoChunkBuffersAndTheAccumulatorFitTheLimit) {
  const uint64_t limit = kPartial + kXn - 1;
  const fw::StreamResidency r = where(kPartial, limit);
  EXPECT_TRUE(r.partial_in_tcm);
  EXPECT_FALSE(r.xn_in_tcm);
  // (limit - partial - acc) / (2 buffers x 8 rows x 2 bytes) = 479 columns,
  // 448 in whole blocks of 64 rows of the weights.
  EXPECT_EQ(r.xn_chunk_cols, 448);
  EXPECT_LE(kPartial + kAcc + 2 * kRows * 2 * static_cast<uint64_t>(r.xn_chunk_cols), limit);
  EXPECT_GT(kPartial + kAcc + 2 * kRows * 2 * static_cast<uint64_t>(r.xn_chunk_cols + kAlign),
            limit);
}

TEST(StreamResidency, XnStreamsFromHbmWhenNotOneBlockOfColumnsFits) {
  // Room for 63 columns: less than a block.
  const fw::StreamResidency r = where(kPartial, kPartial + kAcc + 63 * 2 * kRows * 2);
  EXPECT_FALSE(r.xn_in_tcm);
  EXPECT_EQ(r.xn_chunk_cols, 0);
  EXPECT_EQ(where(kPartial, kPartial + kAcc + 64 * 2 * kRows * 2).xn_chunk_cols, 64);
  // No alignment given (the callers that only ask where the stream lives).
  EXPECT_EQ(where(kPartial, kPartial + kXn - 1, 0).xn_chunk_cols, 0);
}

}  // namespace
}  // namespace kb
