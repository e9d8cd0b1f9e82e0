// Reading a configuration file a user named (a topology, a sweep spec) with
// a size cap: only a regular file is read, and never more than `max_bytes`,
// so `--topology /dev/zero` or a FIFO is an error, not an endless read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kb {

constexpr uint64_t kMaxConfigFileBytes = 16ull << 20;  // 16 MiB

// The whole file. Throws ConfigError "cannot open <what> '<path>': ..." when
// it is missing (with the nearest_file guess of the files beside it and
// `also`: "; did you mean '<file>'?"), unreadable, not a regular file or
// larger than max_bytes.
std::string read_input_file(const std::string& path, const std::string& what,
                            uint64_t max_bytes = kMaxConfigFileBytes,
                            const std::vector<std::string>& also = {});

// yaml-cpp's message `msg` for a syntax error at 0-based `line`, `column` of
// `text`, said plainly where it is cryptic: a plain key longer than the 1024
// characters YAML allows reads as "illegal map value".
std::string yaml_error_message(const std::string& msg, const std::string& text, int line,
                               int column);

}  // namespace kb
