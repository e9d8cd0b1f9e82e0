#include "platform/output/csv_table.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

namespace kb {

namespace {

std::string cell(const nlohmann::json& v) {
  std::string text;
  if (v.is_null()) return text;
  text = v.is_string() ? v.get<std::string>() : v.dump();
  const bool quote = text.find_first_of(",\"\r\n") != std::string::npos ||
                     (!text.empty() && (text.front() == ' ' || text.back() == ' '));
  if (!quote) return text;
  std::string q = "\"";
  for (char c : text) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// A point's cells by column: nested objects flattened to "outer.inner".
void flatten(const nlohmann::json& v, const std::string& prefix,
             std::vector<std::pair<std::string, const nlohmann::json*>>& out) {
  for (const auto& item : v.items()) {
    const std::string key = prefix.empty() ? item.key() : prefix + "." + item.key();
    if (item.value().is_object())
      flatten(item.value(), key, out);
    else
      out.emplace_back(key, &item.value());
  }
}

}  // namespace

std::string points_csv(const nlohmann::json& points) {
  std::vector<std::vector<std::pair<std::string, const nlohmann::json*>>> rows;
  std::vector<std::string> columns;
  for (const auto& p : points) {
    rows.emplace_back();
    if (p.is_object()) flatten(p, "", rows.back());
    // Keys in the order they first appear (nlohmann sorts an object's keys).
    for (const auto& [key, value] : rows.back())
      if (std::find(columns.begin(), columns.end(), key) == columns.end()) columns.push_back(key);
  }
  std::string out;
  for (size_t c = 0; c < columns.size(); ++c)
    out += (c ? "," : "") + cell(nlohmann::json(columns[c]));
  out += "\n";
  for (const auto& row : rows) {
    for (size_t c = 0; c < columns.size(); ++c) {
      if (c) out += ",";
      const auto it = std::find_if(row.begin(), row.end(),
                                   [&](const auto& kv) { return kv.first == columns[c]; });
      if (it != row.end()) out += cell(*it->second);
    }
    out += "\n";
  }
  return out;
}

}  // namespace kb
