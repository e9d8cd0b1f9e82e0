// Addresses as a user types them on the command line:
//   0x1000000000000040      a raw 64-bit address (hex)
//   hbm:S.C.P+OFF           HBM of PE P in cube C of SIP S
//   tcm:S.C.P+OFF           TCM of that PE
//   sram:S.C+OFF            SRAM of cube C of SIP S
//   host+OFF                host memory
// OFF is decimal or 0x-hex and may be omitted ("+0"). A PE is "S.C.P".
#pragma once

#include <cstdint>
#include <string>

#include "platform/platform.h"

namespace kb {

// Throws UsageError naming `what` (e.g. "--param src") on malformed text.
uint64_t parse_address_text(const std::string& text, const std::string& what);
PeId parse_pe_text(const std::string& text, const std::string& what);

}  // namespace kb
