// A DMA descriptor: a 2-D strided copy of `rows` rows of `row_bytes` from
// src to dst (addresses in the platform address map). A stride of 0 means the
// rows are contiguous (stride = row_bytes).
#pragma once

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

  uint64_t total_bytes() const { return row_bytes * rows; }
  // Rows that follow each other on both sides move as one contiguous run
  // (the engine coalesces them before splitting into bursts).
  bool coalescible() const {
    return (src_stride == 0 || src_stride == row_bytes) &&
           (dst_stride == 0 || dst_stride == row_bytes);
  }
  uint64_t src_row(uint32_t r) const { return src + r * (src_stride ? src_stride : row_bytes); }
  uint64_t dst_row(uint32_t r) const { return dst + r * (dst_stride ? dst_stride : row_bytes); }

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
};

using DmaDoneCallback = std::function<void(const DmaTransfer&, const DmaResult&)>;

}  // namespace kb
