// Sizes as people type them on the command line: "4096", "0x1000", "96KiB",
// "2MiB". Units are binary (B, KiB, MiB, GiB, TiB); a number without a unit
// is decimal, or hex with 0x (never octal: 010 is ten).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kb {

// The value, or nothing when the text is not such a size or exceeds 64 bits.
std::optional<uint64_t> parse_size_text(const std::string& text);

// An energy for a table, in the SI unit that gives it 1 to 3 integer digits
// and three significant digits: "7.52 J", "12.3 mJ", "415 nJ", "0 J".
std::string energy_text(double joules);

}  // namespace kb
