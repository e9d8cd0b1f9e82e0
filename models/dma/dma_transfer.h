// A DMA descriptor: a 2-D strided copy of `rows` rows of `row_bytes` from
// src to dst (addresses in the platform address map). A stride of 0 means the
// rows are contiguous (stride = row_bytes).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>

namespace kb {

struct DmaTransfer {
  uint64_t src = 0;
  uint64_t dst = 0;
  uint64_t row_bytes = 0;
  uint32_t rows = 1;
  uint64_t src_stride = 0;
  uint64_t dst_stride = 0;
  uint64_t cmd_id = 0;  // the issuing command, for logs and error messages
  // The destination is a ring of this many bytes at dst: byte i of a row
  // lands at dst + (row * dst stride + i) mod dst_ring (0: no ring). A
  // streamed GEMM's tiles pass through its staging slot this way
  // (docs/ARCHITECTURE.md §1.6); bursts never cross the ring's end.
  uint64_t dst_ring = 0;
  // When the first `mark_bytes` of the transfer have landed is reported as
  // DmaResult::first_ns (0: not asked).
  uint64_t mark_bytes = 0;

  uint64_t total_bytes() const { return row_bytes * rows; }
  // Rows that follow each other on both sides move as one contiguous run
  // (the engine coalesces them before splitting into bursts).
  bool coalescible() const {
    return (src_stride == 0 || src_stride == row_bytes) &&
           (dst_stride == 0 || dst_stride == row_bytes);
  }
  uint64_t src_row(uint32_t r) const { return src + r * (src_stride ? src_stride : row_bytes); }
  uint64_t dst_row(uint32_t r) const { return dst_at(r, 0); }
  uint64_t dst_step() const { return dst_stride ? dst_stride : row_bytes; }
  // Where byte `off` of row `r` lands.
  uint64_t dst_at(uint32_t r, uint64_t off) const {
    const uint64_t at = r * dst_step() + off;
    return dst + (dst_ring ? at % dst_ring : at);
  }
  // The destination bytes a row reaches from its start (a ring's at most).
  uint64_t dst_row_span() const { return dst_ring ? std::min(row_bytes, dst_ring) : row_bytes; }

  static DmaTransfer contiguous(uint64_t src, uint64_t dst, uint64_t bytes, uint64_t id = 0) {
    DmaTransfer t;
    t.src = src;
    t.dst = dst;
    t.row_bytes = bytes;
    t.cmd_id = id;
    return t;
  }
};

// Times in ns of simulated time.
struct DmaResult {
  double submitted_ns = 0;  // handed to the channel
  double started_ns = 0;    // first burst issued (after setup)
  double finished_ns = 0;   // last burst landed and every earlier transfer on the channel done
  // The first DmaTransfer::mark_bytes landed: with bursts, when the bursts
  // carrying them had all landed; with stream transactions (which say only
  // when their first burst and the rest landed), interpolated between the two.
  double first_ns = 0;
};

using DmaDoneCallback = std::function<void(const DmaTransfer&, const DmaResult&)>;

}  // namespace kb
