// A run of bursts carried as one TLM transaction (PE_DMA's stream
// transactions, pe.dma.transactions: stream; docs/ARCHITECTURE.md §1.6).
//
// The exact model moves a DMA descriptor as bursts: its rows (or, when the
// rows are contiguous on both sides, the whole run as one row) each cut into
// pieces of at most burst_bytes. A stream transaction stands for the pieces
// [first, end) of one side of such a descriptor. The payload's address is
// its lowest piece's (address_span() the space it reaches) and its data
// length the pieces' bytes; this extension
// gives every target the pieces themselves, so that each one prices the
// transaction as it would have priced the bursts: an HBM controller the
// bytes each pseudo-channel receives (models/hbm/hbm_ctrl.h). A memory
// port's time is its bytes either way. PE_DMA sends streams only between its
// own PE's memories: no link carries one. A payload without the extension, or with an
// empty run, is one plain burst.
#pragma once

#include <algorithm>
#include <cstdint>
#include <tlm>

namespace kb {

struct BurstRun : tlm::tlm_extension<BurstRun> {
  uint64_t base = 0;            // this side's address of row 0
  uint64_t row_bytes = 0;       // bytes per row
  uint64_t stride = 0;          // address step from a row to the next
  uint64_t piece_bytes = 0;     // a piece is at most this, never crossing a row
  uint64_t first = 0, end = 0;  // the pieces this transaction carries
  uint64_t ring = 0;  // addresses wrap within [base, base + ring) (0: none; DmaTransfer::dst_ring)

  tlm::tlm_extension_base* clone() const override { return new BurstRun(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const BurstRun&>(other);
  }

  uint64_t pieces_per_row() const { return (row_bytes + piece_bytes - 1) / piece_bytes; }
  uint64_t pieces() const { return end - first; }
  // Piece `p`'s address and bytes.
  uint64_t piece_address(uint64_t p) const {
    const uint64_t per_row = pieces_per_row();
    const uint64_t at = p / per_row * stride + p % per_row * piece_bytes;
    return base + (ring ? at % ring : at);
  }
  uint64_t piece_size(uint64_t p) const {
    const uint64_t off = p % pieces_per_row() * piece_bytes;
    return std::min(piece_bytes, row_bytes - off);
  }
  // f(address, bytes) for each piece in order.
  template <class F>
  void for_each_piece(F&& f) const {
    for (uint64_t p = first; p < end; ++p) f(piece_address(p), piece_size(p));
  }
  uint64_t bytes() const {
    uint64_t sum = 0;
    for_each_piece([&](uint64_t, uint64_t n) { sum += n; });
    return sum;
  }

  // The lowest address a piece touches, and the bytes of address space from
  // there to the end of the highest: a run's payload address is its lowest
  // (rows may overlap, or wrap in a ring).
  uint64_t lowest() const {
    if (plain_order()) return piece_address(first);
    uint64_t lo = piece_address(first);
    for_each_piece([&](uint64_t a, uint64_t) { lo = std::min(lo, a); });
    return lo;
  }
  uint64_t span() const {
    const uint64_t lo = lowest();
    if (plain_order()) return piece_address(end - 1) + piece_size(end - 1) - lo;
    uint64_t hi = lo;
    for_each_piece([&](uint64_t a, uint64_t n) { hi = std::max(hi, a + n); });
    return hi - lo;
  }

  // Pieces at rising addresses, none overlapping (no ring, rows apart).
  bool plain_order() const { return !ring && (stride >= row_bytes || end - first == 1); }

  // The payload's run, or null when it is a plain burst.
  static const BurstRun* of(const tlm::tlm_generic_payload& trans) {
    BurstRun* r = nullptr;
    trans.get_extension(r);
    return r && r->end > r->first ? r : nullptr;
  }
};

// The bytes of address space a payload reaches from its address: a run's
// span, else its data length (what routers and targets check against a region).
inline uint64_t address_span(const tlm::tlm_generic_payload& trans) {
  const BurstRun* r = BurstRun::of(trans);
  return r ? r->span() : trans.get_data_length();
}

}  // namespace kb
