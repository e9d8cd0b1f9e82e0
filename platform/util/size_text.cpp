#include "platform/util/size_text.h"

#include <cctype>
#include <cmath>
#include <iomanip>
#include <iterator>
#include <sstream>

namespace kb {

std::optional<uint64_t> parse_size_text(const std::string& text) {
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  size_t i = hex ? 2 : 0;
  const size_t digits_start = i;
  uint64_t v = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    unsigned d = 0;
    if (std::isdigit(static_cast<unsigned char>(c)))
      d = static_cast<unsigned>(c - '0');
    else if (hex && std::isxdigit(static_cast<unsigned char>(c)))
      d = static_cast<unsigned>(std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
    else
      break;
    const uint64_t base = hex ? 16 : 10;
    if (v > (UINT64_MAX - d) / base) return std::nullopt;
    v = v * base + d;
  }
  if (i == digits_start) return std::nullopt;
  const std::string unit = text.substr(i);
  if (unit.empty()) return v;
  if (hex) return std::nullopt;
  int shift = -1;
  if (unit == "B") shift = 0;
  if (unit == "KiB") shift = 10;
  if (unit == "MiB") shift = 20;
  if (unit == "GiB") shift = 30;
  if (unit == "TiB") shift = 40;
  if (shift < 0 || (shift > 0 && v > (UINT64_MAX >> shift))) return std::nullopt;
  return v << shift;
}

std::string energy_text(double joules) {
  static const char* const kUnits[] = {"J", "mJ", "uJ", "nJ", "pJ"};
  if (joules == 0 || !std::isfinite(joules)) return "0 J";
  double v = joules;
  unsigned u = 0;
  while (std::abs(v) < 1 && u + 1 < std::size(kUnits)) {
    v *= 1000;
    ++u;
  }
  const int decimals = std::abs(v) >= 100 ? 0 : std::abs(v) >= 10 ? 1 : 2;
  std::ostringstream os;
  os << std::fixed << std::setprecision(decimals) << v << " " << kUnits[u];
  return os.str();
}

}  // namespace kb
