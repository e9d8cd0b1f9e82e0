// Writing result files so that nothing is left half-written and no special
// file is replaced (platform/output/atomic_file.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace kb {

// Throws OutputError naming the path when it cannot be written.
void write_file_atomically(const std::string& path, const std::string& content);
void write_json_atomically(const std::string& path, const nlohmann::json& j);

// The text write_json_atomically writes: 2-space indented, one trailing
// newline; bytes that are not valid UTF-8 are written as U+FFFD.
std::string format_json(const nlohmann::json& j);

}  // namespace kb
