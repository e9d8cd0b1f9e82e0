// A bench's points as a tidy CSV table (--csv FILE): one row per point, one
// column per figure any point has (in the order the keys first appear; a
// nested object's keys as "outer.inner"), RFC 4180 quoting. Numbers are
// written as in the JSON result, strings as they are, a missing key or a null
// as an empty cell. What is not one figure per point stays in the JSON only:
// lists, and maps keyed by module path (a key with a '.', such as a
// measurement window's per-PE command ids and counters).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kb {

std::string points_csv(const nlohmann::json& points);

// A further table a bench writes beside its points (BenchResult::csv_tables):
// its columns in order, and its rows, one value per column (null: an empty
// cell), written with the same quoting.
struct CsvTable {
  std::string name;
  std::vector<std::string> columns;
  std::vector<std::vector<nlohmann::json>> rows;
};
std::string table_csv(const CsvTable& table);

// Where a bench's further table `name` (BenchResult::csv_tables) goes beside
// --csv FILE: FILE's stem, "." name, FILE's extension ("run.csv" with
// "phases" is "run.phases.csv"; "run" is "run.phases").
std::string csv_table_path(const std::string& csv, const std::string& name);

}  // namespace kb
