#include "models/pe/pe_data.h"

#include "models/common/dtype_convert.h"

namespace kb {

uint64_t PeData::offset_of(const TensorHandle& h) const {
  auto loc = decode_address(h.addr);
  if (!loc || loc->space != Space::kTcm || loc->sip != pe_.sip || loc->cube != pe_.cube ||
      loc->pe != pe_.pe)
    throw MathError("tensor " + h.describe() + " is not in this PE's TCM");
  return loc->offset;
}

NdArray PeData::read(const TensorHandle& h) const {
  NdArray out;
  out.shape = h.shape;
  const uint64_t base = offset_of(h), esize = dtype_bytes(h.dtype);
  const int64_t rows = h.rows(), cols = h.cols();
  out.data.reserve(static_cast<size_t>(rows * cols));
  std::vector<uint8_t> row(static_cast<size_t>(cols) * esize);
  for (int64_t r = 0; r < rows; ++r) {
    tcm_.read(base + static_cast<uint64_t>(r * h.stride()) * esize, row.data(), row.size());
    const auto vals = decode_elements(row.data(), static_cast<uint64_t>(cols), h.dtype);
    out.data.insert(out.data.end(), vals.begin(), vals.end());
  }
  return out;
}

void PeData::write(const TensorHandle& h, const NdArray& v) {
  if (v.numel() != h.numel())
    throw MathError("result of " + std::to_string(v.numel()) + " elements does not fit " +
                    h.describe());
  const uint64_t base = offset_of(h), esize = dtype_bytes(h.dtype);
  const int64_t rows = h.rows(), cols = h.cols();
  std::vector<uint8_t> row(static_cast<size_t>(cols) * esize);
  for (int64_t r = 0; r < rows; ++r) {
    encode_elements(v.data.data() + r * cols, static_cast<uint64_t>(cols), h.dtype, row.data());
    tcm_.write(base + static_cast<uint64_t>(r * h.stride()) * esize, row.data(), row.size());
  }
}

NdArray tile_of(const NdArray& full, int64_t M, int64_t N, int64_t m0, int64_t mm, int64_t n0,
                int64_t nn) {
  // View the operand as [R, C] with R in {1, M} and C in {1, N}.
  int64_t R = 1, C = 1;
  if (full.shape.size() >= 2) {
    R = full.numel() / full.shape.back();
    C = full.shape.back();
  } else if (full.shape.size() == 1) {
    C = full.shape[0];
  }
  if (!((R == 1 || R == M) && (C == 1 || C == N)))
    throw MathError("an epilogue operand of " + std::to_string(R) + "x" + std::to_string(C) +
                    " does not broadcast against the " + std::to_string(M) + "x" +
                    std::to_string(N) + " output");
  NdArray t;
  t.shape = {R == 1 ? 1 : mm, C == 1 ? 1 : nn};
  for (int64_t i = 0; i < t.shape[0]; ++i)
    for (int64_t j = 0; j < t.shape[1]; ++j)
      t.data.push_back(
          full.data[static_cast<size_t>((R == 1 ? 0 : m0 + i) * C + (C == 1 ? 0 : n0 + j))]);
  return t;
}

}  // namespace kb
