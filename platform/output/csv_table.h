// A bench's points as a flat CSV table (--csv FILE): one row per point, one
// column per key any point has (in the order the keys first appear; a nested
// object's keys as "outer.inner"), RFC 4180 quoting. Numbers are written as in
// the JSON result, strings as they are, arrays as their compact JSON text, a
// missing key or a null as an empty cell.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>

namespace kb {

std::string points_csv(const nlohmann::json& points);

}  // namespace kb
