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

// A map keyed by module path ("system.sip0.cube0.pe0"): one entry per
// module, not a figure of the point.
bool keyed_by_module(const nlohmann::json& v) {
  const auto items = v.items();
  return std::any_of(items.begin(), items.end(),
                     [](const auto& item) { return item.key().find('.') != std::string::npos; });
}

// A point's cells by column: nested objects flattened to "outer.inner";
// lists and per-module maps left out.
void flatten(const nlohmann::json& v, const std::string& prefix,
             std::vector<std::pair<std::string, const nlohmann::json*>>& out) {
  for (const auto& item : v.items()) {
    const nlohmann::json& value = item.value();
    const std::string key = prefix.empty() ? item.key() : prefix + "." + item.key();
    if (value.is_array() || (value.is_object() && keyed_by_module(value))) continue;
    if (value.is_object())
      flatten(value, key, out);
    else
      out.emplace_back(key, &value);
  }
}

}  // namespace

std::string points_csv(const nlohmann::json& points) {
  std::vector<std::vector<std::pair<std::string, const nlohmann::json*>>> cells;
  CsvTable t;
  for (const auto& p : points) {
    cells.emplace_back();
    if (p.is_object()) flatten(p, "", cells.back());
    // Keys in the order they first appear (nlohmann sorts an object's keys).
    for (const auto& [key, value] : cells.back())
      if (std::find(t.columns.begin(), t.columns.end(), key) == t.columns.end())
        t.columns.push_back(key);
  }
  for (const auto& row : cells) {
    std::vector<nlohmann::json>& values = t.rows.emplace_back(t.columns.size());
    for (const auto& [key, value] : row)
      values[static_cast<size_t>(std::find(t.columns.begin(), t.columns.end(), key) -
                                 t.columns.begin())] = *value;
  }
  return table_csv(t);
}

std::string table_csv(const CsvTable& table) {
  std::string out;
  for (size_t c = 0; c < table.columns.size(); ++c)
    out += (c ? "," : "") + cell(nlohmann::json(table.columns[c]));
  out += "\n";
  for (const auto& row : table.rows) {
    for (size_t c = 0; c < table.columns.size(); ++c) {
      if (c) out += ",";
      if (c < row.size()) out += cell(row[c]);
    }
    out += "\n";
  }
  return out;
}

std::string csv_table_path(const std::string& csv, const std::string& name) {
  const size_t slash = csv.find_last_of('/');
  const size_t name_at = slash == std::string::npos ? 0 : slash + 1;
  const size_t dot = csv.find_last_of('.');
  // A dot that starts the file name (".hidden") is not an extension's.
  const bool has_ext = dot != std::string::npos && dot > name_at;
  return has_ext ? csv.substr(0, dot) + "." + name + csv.substr(dot) : csv + "." + name;
}

}  // namespace kb
