#include "platform/bench/address_text.h"

#include <cstdlib>
#include <vector>

#include "models/common/address_map.h"
#include "models/common/errors.h"
#include "platform/util/size_text.h"

namespace kb {

namespace {

bool parse_u64(const std::string& s, uint64_t* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  if (errno != 0 || *end != '\0' || s[0] == '-') return false;
  *out = v;
  return true;
}

std::vector<unsigned> parse_dotted(const std::string& s, size_t n, bool* ok) {
  std::vector<unsigned> v;
  size_t start = 0;
  *ok = true;
  for (;;) {
    const size_t dot = s.find('.', start);
    uint64_t x = 0;
    if (!parse_u64(s.substr(start, dot - start), &x) || x > 0xFFFF) *ok = false;
    v.push_back(static_cast<unsigned>(x));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (v.size() != n) *ok = false;
  return v;
}

}  // namespace

uint64_t parse_address_text(const std::string& text, const std::string& what) {
  const std::string help =
      "; expected 0x<hex>, hbm:S.C.P+OFF, tcm:S.C.P+OFF, sram:S.C+OFF or host+OFF";
  uint64_t raw = 0;
  if (text.rfind("0x", 0) == 0 || text.rfind("0X", 0) == 0) {
    if (!parse_u64(text, &raw)) throw UsageError(what + "=" + text + ": not a hex address" + help);
    return raw;
  }
  const size_t plus = text.find('+');
  const std::string head = text.substr(0, plus);
  uint64_t offset = 0;
  if (plus != std::string::npos) {
    const auto off = parse_size_text(text.substr(plus + 1));
    if (!off)
      throw UsageError(what + "=" + text + ": bad offset '" + text.substr(plus + 1) +
                       "' (decimal, 0x hex, or a size such as 4KiB or 1MiB)" + help);
    offset = *off;
  }
  if (offset > addr_bits::kOffsetMask)
    throw UsageError(what + "=" + text + ": offset does not fit 40 bits");
  const size_t colon = head.find(':');
  const std::string space = head.substr(0, colon);
  const std::string where = colon == std::string::npos ? "" : head.substr(colon + 1);
  bool ok = false;
  Location loc;
  loc.offset = offset;
  if (space == "host" && colon == std::string::npos) {
    loc.space = Space::kHost;
    ok = true;
  } else if (space == "hbm" || space == "tcm") {
    auto v = parse_dotted(where, 3, &ok);
    loc.space = space == "hbm" ? Space::kHbm : Space::kTcm;
    if (ok) loc.sip = v[0], loc.cube = v[1], loc.pe = v[2];
  } else if (space == "sram") {
    auto v = parse_dotted(where, 2, &ok);
    loc.space = Space::kSram;
    if (ok) loc.sip = v[0], loc.cube = v[1];
  }
  if (!ok) throw UsageError(what + "=" + text + ": not an address" + help);
  try {
    return encode_address(loc);
  } catch (const std::invalid_argument&) {
    throw UsageError(what + "=" + text + ": a field is beyond the address map's limits");
  }
}

PeId parse_pe_text(const std::string& text, const std::string& what) {
  bool ok = false;
  auto v = parse_dotted(text, 3, &ok);
  if (!ok) throw UsageError(what + "=" + text + ": expected a PE as SIP.CUBE.PE, e.g. 0.3.5");
  return {v[0], v[1], v[2]};
}

}  // namespace kb
