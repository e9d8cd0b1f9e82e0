// The physical address map (docs/ARCHITECTURE.md §1.5): one 64-bit address decodes to
// (space, sip, cube, pe, offset).
//
//   bits 63..60  space   1 = HBM, 2 = TCM, 3 = SRAM, 4 = HOST, 5 = IPCQ
//                        (0 and 6..15 unmapped)
//   bits 59..54  sip     0..63
//   bits 53..46  cube    0..255 (index within the SIP, row-major: y * cubes_x + x)
//   bits 45..40  pe      0..63  (index within the cube)
//   bits 39..0   offset  up to 1 TiB per region
//
// HBM, TCM and IPCQ (the PE_IPCQ's message registers) regions belong to a PE; SRAM to a cube (pe
// must be 0); HOST is one region (sip, cube and pe must be 0). Whether a decoded address exists on
// a given platform (indices in range, offset below the region size) is the
// AddressMap's job; the encoding itself is fixed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kb {

enum class Space : uint8_t { kHbm = 1, kTcm = 2, kSram = 3, kHost = 4, kIpcq = 5 };
const char* to_string(Space s);

struct Location {
  Space space = Space::kHbm;
  unsigned sip = 0;
  unsigned cube = 0;
  unsigned pe = 0;
  uint64_t offset = 0;
  bool operator==(const Location& o) const {
    return space == o.space && sip == o.sip && cube == o.cube && pe == o.pe && offset == o.offset;
  }
};

namespace addr_bits {
constexpr unsigned kSpaceShift = 60, kSipShift = 54, kCubeShift = 46, kPeShift = 40;
constexpr unsigned kMaxSips = 64, kMaxCubes = 256, kMaxPes = 64;
constexpr uint64_t kOffsetMask = (uint64_t{1} << kPeShift) - 1;
constexpr uint64_t kMaxRegionBytes = uint64_t{1} << kPeShift;
constexpr uint64_t kIpcqRegionBytes = 4096;  // a PE_IPCQ's register window
}  // namespace addr_bits

// Pure encoding; does not check against a platform. Throws std::invalid_argument
// when a field does not fit its bits.
uint64_t encode_address(const Location& loc);
// Pure decoding; nullopt for an unmapped space field. Inline: the fabric
// decodes an address at every hop.
inline std::optional<Location> decode_address(uint64_t addr) {
  using namespace addr_bits;
  const auto space = static_cast<unsigned>(addr >> kSpaceShift);
  if (space < 1 || space > 5) return std::nullopt;
  Location loc;
  loc.space = static_cast<Space>(space);
  loc.sip = static_cast<unsigned>((addr >> kSipShift) & (kMaxSips - 1));
  loc.cube = static_cast<unsigned>((addr >> kCubeShift) & (kMaxCubes - 1));
  loc.pe = static_cast<unsigned>((addr >> kPeShift) & (kMaxPes - 1));
  loc.offset = addr & kOffsetMask;
  return loc;
}
std::string format_address(uint64_t addr);  // "0x1000000000000040 (HBM sip0.cube0.pe0+0x40)"

struct TopologyShape {  // what the address map needs to know of a platform
  unsigned n_sips = 1, cubes_per_sip = 1, pes_per_cube = 1;
  uint64_t hbm_bytes = 0, tcm_bytes = 0, sram_bytes = 0, host_bytes = 0;
};

// The address map of one platform: decodes and validates. An unmapped address
// or one whose [addr, addr+len) leaves its region yields an error string.
class AddressMap {
 public:
  explicit AddressMap(const TopologyShape& shape) : shape_(shape) {}
  // The location of [addr, addr+len), or nullopt with `why` set.
  std::optional<Location> resolve(uint64_t addr, uint64_t len, std::string* why) const {
    const std::optional<Location> loc = decode_address(addr);
    if (loc && holds(*loc, len)) return loc;
    return refuse(addr, len, why);
  }
  uint64_t region_bytes(Space s) const {
    switch (s) {
      case Space::kHbm:
        return shape_.hbm_bytes;
      case Space::kTcm:
        return shape_.tcm_bytes;
      case Space::kSram:
        return shape_.sram_bytes;
      case Space::kHost:
        return shape_.host_bytes;
      case Space::kIpcq:
        return addr_bits::kIpcqRegionBytes;
    }
    return 0;
  }
  const TopologyShape& shape() const { return shape_; }

  uint64_t hbm(unsigned sip, unsigned cube, unsigned pe, uint64_t off = 0) const;
  uint64_t tcm(unsigned sip, unsigned cube, unsigned pe, uint64_t off = 0) const;
  uint64_t sram(unsigned sip, unsigned cube, uint64_t off = 0) const;
  uint64_t host(uint64_t off = 0) const;
  uint64_t ipcq(unsigned sip, unsigned cube, unsigned pe, uint64_t off = 0) const;

 private:
  // Whether the platform has `loc` and [offset, offset+len) stays in its region.
  bool holds(const Location& loc, uint64_t len) const {
    if (loc.sip >= shape_.n_sips || loc.cube >= shape_.cubes_per_sip ||
        loc.pe >= shape_.pes_per_cube)
      return false;
    if (loc.space == Space::kSram && loc.pe != 0) return false;
    if (loc.space == Space::kHost && (loc.sip | loc.cube | loc.pe) != 0) return false;
    const uint64_t size = region_bytes(loc.space);
    return loc.offset < size && len <= size - loc.offset;
  }
  // nullopt, with `why` saying which rule [addr, addr+len) breaks.
  std::optional<Location> refuse(uint64_t addr, uint64_t len, std::string* why) const;
  TopologyShape shape_;
};

}  // namespace kb
