#include "platform/config/topology_config.h"

#include <cctype>
#include <vector>

#include "models/topology/fabric_route.h"

namespace kb {

FabricRouting TopologyConfig::routing() const {
  return {sip.cubes_x,   sip.cubes_y,         sip.topology,   sip.io_cube,
          system.n_sips, system.sip_topology, system.host_sip};
}

#ifndef KB_HAVE_RTL
#define KB_HAVE_RTL 0
#endif

bool rtl_cosim_available() {
  return KB_HAVE_RTL != 0;
}

namespace {

std::string strip(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// The selectors of a rtl_pes spec; each is three fields (-1 = "*").
// Returns false with `error` set when the spec is malformed.
bool parse_rtl_pes(const std::string& spec, std::vector<std::vector<long>>* out,
                   std::string* error) {
  const std::string all = strip(spec);
  if (all == "*") {
    out->push_back({-1, -1, -1});
    return true;
  }
  size_t start = 0;
  for (;;) {
    const size_t comma = all.find(',', start);
    const std::string item = strip(all.substr(start, comma - start));
    std::vector<long> fields;
    size_t f = 0;
    for (;;) {
      const size_t dot = item.find('.', f);
      const std::string field = item.substr(f, dot - f);
      if (field == "*") {
        fields.push_back(-1);
      } else if (!field.empty() && field.size() <= 6 &&
                 field.find_first_not_of("0123456789") == std::string::npos) {
        fields.push_back(std::stol(field));
      } else {
        fields.clear();
        break;
      }
      if (dot == std::string::npos) break;
      f = dot + 1;
    }
    if (fields.size() != 3) {
      *error = "'" + item +
               "' is not a PE selector: write \"*\" for every PE, or a comma-separated list of "
               "S.C.P (SIP, cube, PE; each a number or *), e.g. \"0.0.0, 0.1.*\"";
      return false;
    }
    out->push_back(fields);
    if (comma == std::string::npos) return true;
    start = comma + 1;
  }
}

}  // namespace

std::string rtl_pes_error(const std::string& spec, unsigned sips, unsigned cubes, unsigned pes) {
  std::vector<std::vector<long>> sel;
  std::string error;
  if (!parse_rtl_pes(spec, &sel, &error)) return error;
  if (sips == 0) return "";
  const char* what[3] = {"SIP", "cube", "PE"};
  const long count[3] = {static_cast<long>(sips), static_cast<long>(cubes), static_cast<long>(pes)};
  for (const auto& s : sel) {
    std::string text;
    for (int i = 0; i < 3; ++i)
      text += (i ? "." : "") + (s[i] < 0 ? std::string("*") : std::to_string(s[i]));
    for (int i = 0; i < 3; ++i)
      if (s[i] >= count[i])
        return "'" + text + "' names " + what[i] + " " + std::to_string(s[i]) +
               ", but the topology has " + std::to_string(count[i]) + " " + what[i] +
               (count[i] == 1 ? "" : "s") +
               (i == 0   ? ""
                : i == 1 ? " per SIP"
                         : " per cube");
  }
  return "";
}

bool rtl_pes_selects(const std::string& spec, unsigned sip, unsigned cube, unsigned pe) {
  std::vector<std::vector<long>> sel;
  std::string error;
  if (!parse_rtl_pes(spec, &sel, &error)) return false;
  const long at[3] = {static_cast<long>(sip), static_cast<long>(cube), static_cast<long>(pe)};
  for (const auto& s : sel) {
    bool match = true;
    for (int i = 0; i < 3; ++i) match = match && (s[i] < 0 || s[i] == at[i]);
    if (match) return true;
  }
  return false;
}

}  // namespace kb
