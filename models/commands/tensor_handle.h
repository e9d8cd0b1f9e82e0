// A tensor as the PE's commands see it: where it lives, its shape and type,
// and an identity for hazard tracking. Part of the command-descriptor
// interface shared by models/ and firmware/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/commands/shape.h"

namespace kb {

enum class DType : uint8_t { kFp16, kBf16, kFp32, kInt32 };
unsigned dtype_bytes(DType t);

// The bytes of a dense tensor of `shape`, or nothing when a dimension is
// negative or the size does not fit in 63 bits.
std::optional<uint64_t> checked_numel_bytes(const Shape& shape, DType dtype);
const char* to_string(DType t);

struct TensorHandle {
  uint64_t id = 0;    // identity (hazards compare ids); 0 = none
  uint64_t addr = 0;  // platform address of element [0, 0, ...]
  Shape shape;        // row-major; the last dimension is contiguous
  DType dtype = DType::kFp16;
  int64_t row_stride = 0;  // elements between rows in memory; 0 = shape.back()
  // Tiled layout (2-D, HBM operands of a composite): the matrix is stored as
  // a grid of block_rows x block_cols blocks, each contiguous and row-major
  // inside, the blocks in row-major grid order or, with block_col_major, in
  // column-major grid order (so a column slice of whole blocks is itself
  // contiguous). The last block row and column may be shorter (compact: a
  // ragged weight shard needs no padding). 0 = plain row-major (row_stride applies). A composite
  // streams a tiled operand one block per DMA run when its tiles are the
  // blocks, instead of a strided row per tile row.
  uint32_t block_rows = 0, block_cols = 0;
  bool block_col_major = false;
  // Tiled: a window of whole block rows of a stored matrix (row_window): the
  // stored matrix has grid_rows rows (0 = rows(): the handle is the whole
  // matrix), this handle's row 0 is its row grid_row0, and addr is still the
  // stored matrix's.
  int64_t grid_rows = 0, grid_row0 = 0;

  bool valid() const { return id != 0; }
  int64_t numel() const;
  uint64_t bytes() const { return static_cast<uint64_t>(numel()) * dtype_bytes(dtype); }
  int64_t rows() const;  // product of all dimensions but the last (1 for a vector)
  int64_t cols() const;  // the last dimension
  int64_t stride() const { return row_stride ? row_stride : cols(); }
  bool in_tcm() const;  // decoded from the address: a TCM operand needs no DMA_READ
  bool in_hbm() const;
  std::string describe() const;  // "#7 [32,64] fp16 @0x..."
  // "#7 [32,64] fp16": a handle not yet given an address (an allocation).
  std::string describe_unplaced() const;

  bool tiled() const { return block_rows != 0; }
  // Tiled: the byte offset from addr of the block whose first element is
  // (r0, c0) (block-aligned), in this handle's own grid.
  uint64_t block_offset(int64_t r0, int64_t c0) const;
  // Tiled: the element offset of (r, c) from addr.
  int64_t tiled_index(int64_t r, int64_t c) const;
  // Tiled: rows [row0, row0 + count) of this handle as a handle of the same
  // storage (a K-slice of a weight), with a fresh identity left to the
  // caller. row0 starts a block row; throws std::invalid_argument otherwise
  // or when the rows run past this handle's.
  TensorHandle row_window(int64_t row0, int64_t count) const;
};

}  // namespace kb
