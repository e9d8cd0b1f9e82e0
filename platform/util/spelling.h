// "Did you mean ...?" support for names typed by a user (benches, params).
#pragma once

#include <string>
#include <vector>

namespace kb {

// Levenshtein distance.
unsigned spelling_distance(const std::string& a, const std::string& b);
// The candidate closest to `word`, or "" when none is reasonably close.
std::string nearest_spelling(const std::string& word, const std::vector<std::string>& candidates);

// `s` without leading and trailing white space.
std::string trim(const std::string& s);

}  // namespace kb
