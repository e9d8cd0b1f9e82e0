#include "models/commands/tensor_handle.h"

#include <algorithm>
#include <stdexcept>

#include "models/common/address_map.h"
#include "models/common/checked_math.h"

namespace kb {

unsigned dtype_bytes(DType t) {
  switch (t) {
    case DType::kFp16:
    case DType::kBf16:
      return 2;
    case DType::kFp32:
    case DType::kInt32:
      return 4;
  }
  return 0;
}

const char* to_string(DType t) {
  switch (t) {
    case DType::kFp16:
      return "fp16";
    case DType::kBf16:
      return "bf16";
    case DType::kFp32:
      return "fp32";
    case DType::kInt32:
      return "int32";
  }
  return "?";
}

namespace {

// The product of dims [0, end); hosts check shapes with checked_numel()
// before they allocate, so an overflow here is a bug, not an input error.
int64_t product(const Shape& shape, size_t end) {
  uint64_t n = 1;
  for (size_t i = 0; i < end; ++i) {
    const auto p = checked_product({static_cast<int64_t>(n), shape[i]});
    if (!p) throw std::overflow_error("tensor shape overflows 64 bits");
    n = *p;
  }
  return static_cast<int64_t>(n);
}

}  // namespace

std::optional<uint64_t> checked_numel_bytes(const Shape& shape, DType dtype) {
  uint64_t n = 1;
  for (int64_t d : shape) {
    const auto p = checked_product({static_cast<int64_t>(n), d});
    if (!p) return std::nullopt;
    n = *p;
  }
  return checked_product({static_cast<int64_t>(n), static_cast<int64_t>(dtype_bytes(dtype))});
}

int64_t TensorHandle::numel() const {
  return shape.empty() ? 0 : product(shape, shape.size());
}

int64_t TensorHandle::rows() const {
  return shape.empty() ? 1 : product(shape, shape.size() - 1);
}

int64_t TensorHandle::cols() const {
  return shape.empty() ? 0 : shape.back();
}

int64_t TensorHandle::tiled_index(int64_t r, int64_t c) const {
  // Blocks in the last block row or column are as tall or wide as what is
  // left (stored compact), so the matrix's dimensions need not be multiples
  // of the block; with whole blocks everywhere this is the plain grid.
  // A window's rows are the stored matrix's from grid_row0 on.
  const int64_t br = block_rows, bc = block_cols, C = cols();
  const int64_t R = grid_rows ? grid_rows : rows();
  r += grid_row0;
  const int64_t rb = r / br, cb = c / bc;
  const int64_t h = std::min(br, R - rb * br), w = std::min(bc, C - cb * bc);
  const int64_t base = block_col_major ? cb * bc * R + rb * br * w : rb * br * C + cb * bc * h;
  return base + (r - rb * br) * w + (c - cb * bc);
}

TensorHandle TensorHandle::row_window(int64_t row0, int64_t count) const {
  if (!tiled() || shape.size() != 2 || row0 < 0 || count <= 0 || row0 % block_rows != 0 ||
      row0 + count > rows())
    throw std::invalid_argument("row_window: rows [" + std::to_string(row0) + ", " +
                                std::to_string(row0 + count) + ") of " + describe() +
                                " are not whole block rows of a tiled matrix");
  TensorHandle v = *this;
  v.shape[0] = count;
  v.grid_rows = grid_rows ? grid_rows : rows();
  v.grid_row0 = grid_row0 + row0;
  return v;
}

uint64_t TensorHandle::block_offset(int64_t r0, int64_t c0) const {
  return static_cast<uint64_t>(tiled_index(r0, c0)) * dtype_bytes(dtype);
}

bool TensorHandle::in_tcm() const {
  auto loc = decode_address(addr);
  return loc && loc->space == Space::kTcm;
}

bool TensorHandle::in_hbm() const {
  auto loc = decode_address(addr);
  return loc && loc->space == Space::kHbm;
}

std::string TensorHandle::describe_unplaced() const {
  std::string s = "#" + std::to_string(id) + " [";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  s += "] ";
  s += to_string(dtype);
  return s;
}

std::string TensorHandle::describe() const {
  std::string s = describe_unplaced() + " @" + format_address(addr);
  if (tiled())
    s += " tiled " + std::to_string(block_rows) + "x" + std::to_string(block_cols) +
         (block_col_major ? " column-major" : "");
  return s;
}

}  // namespace kb
