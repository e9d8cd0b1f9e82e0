#include "models/common/address_map.h"

#include <cstdio>
#include <stdexcept>

namespace kb {

const char* to_string(Space s) {
  switch (s) {
    case Space::kHbm:
      return "HBM";
    case Space::kTcm:
      return "TCM";
    case Space::kSram:
      return "SRAM";
    case Space::kHost:
      return "HOST";
    case Space::kIpcq:
      return "IPCQ";
  }
  return "?";
}

uint64_t encode_address(const Location& loc) {
  using namespace addr_bits;
  if (loc.sip >= kMaxSips || loc.cube >= kMaxCubes || loc.pe >= kMaxPes || loc.offset > kOffsetMask)
    throw std::invalid_argument("address field out of range");
  return (uint64_t{static_cast<uint8_t>(loc.space)} << kSpaceShift) |
         (uint64_t{loc.sip} << kSipShift) | (uint64_t{loc.cube} << kCubeShift) |
         (uint64_t{loc.pe} << kPeShift) | loc.offset;
}

std::string format_address(uint64_t addr) {
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%016llx", static_cast<unsigned long long>(addr));
  std::string s = hex;
  auto loc = decode_address(addr);
  if (!loc) return s + " (unmapped space)";
  char off[32];
  std::snprintf(off, sizeof off, "+0x%llx", static_cast<unsigned long long>(loc->offset));
  s += " (";
  s += to_string(loc->space);
  switch (loc->space) {
    case Space::kHbm:
    case Space::kTcm:
    case Space::kIpcq:
      s += " sip" + std::to_string(loc->sip) + ".cube" + std::to_string(loc->cube) + ".pe" +
           std::to_string(loc->pe);
      break;
    case Space::kSram:
      s += " sip" + std::to_string(loc->sip) + ".cube" + std::to_string(loc->cube);
      break;
    case Space::kHost:
      break;
  }
  return s + off + ")";
}

// The checks of holds(), in order, each with its reason (all passing, which
// resolve() has ruled out, would give the location).
std::optional<Location> AddressMap::refuse(uint64_t addr, uint64_t len, std::string* why) const {
  auto fail = [&](const std::string& reason) -> std::optional<Location> {
    if (why) *why = "address " + format_address(addr) + " " + reason;
    return std::nullopt;
  };
  auto loc = decode_address(addr);
  if (!loc) return fail("is unmapped (space field must be 1..5)");
  if (loc->sip >= shape_.n_sips)
    return fail("names sip " + std::to_string(loc->sip) + " but the platform has " +
                std::to_string(shape_.n_sips));
  if (loc->cube >= shape_.cubes_per_sip)
    return fail("names cube " + std::to_string(loc->cube) + " but a SIP has " +
                std::to_string(shape_.cubes_per_sip));
  if (loc->pe >= shape_.pes_per_cube)
    return fail("names pe " + std::to_string(loc->pe) + " but a cube has " +
                std::to_string(shape_.pes_per_cube));
  if (loc->space == Space::kSram && loc->pe != 0) return fail("is SRAM with a non-zero pe field");
  if (loc->space == Space::kHost && (loc->sip | loc->cube | loc->pe) != 0)
    return fail("is HOST with non-zero sip/cube/pe fields");
  const uint64_t size = region_bytes(loc->space);
  if (loc->offset >= size || len > size - loc->offset)
    return fail("with length " + std::to_string(len) + " leaves its " + to_string(loc->space) +
                " region of " + std::to_string(size) + " bytes");
  return loc;
}

uint64_t AddressMap::hbm(unsigned sip, unsigned cube, unsigned pe, uint64_t off) const {
  return encode_address({Space::kHbm, sip, cube, pe, off});
}
uint64_t AddressMap::tcm(unsigned sip, unsigned cube, unsigned pe, uint64_t off) const {
  return encode_address({Space::kTcm, sip, cube, pe, off});
}
uint64_t AddressMap::sram(unsigned sip, unsigned cube, uint64_t off) const {
  return encode_address({Space::kSram, sip, cube, 0, off});
}
uint64_t AddressMap::ipcq(unsigned sip, unsigned cube, unsigned pe, uint64_t off) const {
  return encode_address({Space::kIpcq, sip, cube, pe, off});
}
uint64_t AddressMap::host(uint64_t off) const {
  return encode_address({Space::kHost, 0, 0, 0, off});
}

}  // namespace kb
