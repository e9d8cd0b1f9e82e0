// "Did you mean ...?" support for files typed by a user; the ranking of
// guesses every suggestion uses is models/common/spelling.h (included here).
#pragma once

#include <string>
#include <vector>

#include "models/common/spelling.h"

namespace kb {

// A file to suggest for `path`, which does not exist: of the regular files
// with its extension in its directory (spelled as in `path`, at most the
// first 4096 entries looked at) and the paths in `also` (files found another
// way, such as the embedded topologies), the one whose name without
// directory and extension is nearest_spelling's guess; "" when none is close.
std::string nearest_file(const std::string& path, const std::vector<std::string>& also = {});

// `s` without leading and trailing white space.
std::string trim(const std::string& s);

}  // namespace kb
