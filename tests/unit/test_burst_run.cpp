// BurstRun (models/common/burst_run.h): the pieces a stream transaction
// stands for, and the address space it reaches.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "models/common/burst_run.h"

namespace kb {
namespace {

std::vector<std::pair<uint64_t, uint64_t>> pieces(const BurstRun& r) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  r.for_each_piece([&](uint64_t a, uint64_t n) { out.emplace_back(a, n); });
  return out;
}

TEST(BurstRun, RowsAreCutIntoPiecesThatNeverCrossARow) {
  BurstRun r;
  r.base = 1000;
  r.row_bytes = 2500;
  r.stride = 4000;
  r.piece_bytes = 1024;
  r.first = 1;
  r.end = 5;  // rows of 3 pieces: 1024, 1024, 452
  EXPECT_EQ(r.pieces_per_row(), 3u);
  const std::vector<std::pair<uint64_t, uint64_t>> want = {
      {2024, 1024}, {3048, 452}, {5000, 1024}, {6024, 1024}};
  EXPECT_EQ(pieces(r), want);
  EXPECT_EQ(r.bytes(), 1024u + 452 + 1024 + 1024);
  EXPECT_EQ(r.lowest(), 2024u);
  EXPECT_EQ(r.span(), 7048u - 2024);
}

TEST(BurstRun, ARingWrapsItsPiecesAndSpansAtMostTheRing) {
  BurstRun r;
  r.base = 0x100;
  r.row_bytes = 8192;
  r.stride = 8192;
  r.piece_bytes = 1024;
  r.ring = 2048;
  r.first = 1;
  r.end = 7;
  const std::vector<std::pair<uint64_t, uint64_t>> want = {{0x100 + 1024, 1024}, {0x100, 1024},
                                                           {0x100 + 1024, 1024}, {0x100, 1024},
                                                           {0x100 + 1024, 1024}, {0x100, 1024}};
  EXPECT_EQ(pieces(r), want);
  EXPECT_EQ(r.lowest(), 0x100u);
  EXPECT_EQ(r.span(), 2048u);
  EXPECT_EQ(r.bytes(), 6u * 1024);
}

TEST(BurstRun, APayloadWithoutOneIsAPlainBurst) {
  tlm::tlm_generic_payload t;
  t.set_data_length(300);
  EXPECT_EQ(BurstRun::of(t), nullptr);
  EXPECT_EQ(address_span(t), 300u);
  auto* r = new BurstRun;  // owned by the payload
  t.set_extension(r);
  EXPECT_EQ(BurstRun::of(t), nullptr);  // an empty run
  r->row_bytes = 4096;
  r->stride = 4096;
  r->piece_bytes = 1024;
  r->end = 3;
  EXPECT_EQ(BurstRun::of(t), r);
  EXPECT_EQ(address_span(t), 3072u);
  t.clear_extension(r);
  delete r;
}

}  // namespace
}  // namespace kb
