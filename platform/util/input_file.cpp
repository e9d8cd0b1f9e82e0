#include "platform/util/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "models/common/errors.h"
#include "platform/util/spelling.h"

namespace kb {

std::string read_input_file(const std::string& path, const std::string& what, uint64_t max_bytes,
                            const std::vector<std::string>& also) {
  const std::string name = what + " '" + path + "'";
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    const std::string near = err == ENOENT ? nearest_file(path, also) : "";
    throw ConfigError("cannot open " + name + ": " + std::strerror(err) +
                      (near.empty() ? "" : "; did you mean '" + near + "'?"));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw ConfigError("cannot open " + name + ": " +
                      (S_ISDIR(st.st_mode) ? "Is a directory" : "not a regular file"));
  }
  auto too_big = [&](uint64_t n) {
    ::close(fd);
    return ConfigError("cannot open " + name + ": it is " + std::to_string(n) +
                       " bytes, over the " + std::to_string(max_bytes >> 20) +
                       " MiB a configuration file may have");
  };
  if (static_cast<uint64_t>(st.st_size) > max_bytes) throw too_big(st.st_size);
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      throw ConfigError("cannot read " + name + ": " + std::strerror(err));
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > max_bytes) throw too_big(text.size());  // it grew while read
  }
  ::close(fd);
  return text;
}

std::string yaml_error_message(const std::string& msg, const std::string& text, int line,
                               int column) {
  constexpr size_t kMaxPlainKey = 1024;  // YAML 1.2, "simple keys"
  if (msg != "illegal map value" || line < 0 || column < 0) return msg;
  size_t at = 0;
  for (int l = 0; l < line && at != std::string::npos; ++l) {
    at = text.find('\n', at);
    if (at != std::string::npos) ++at;
  }
  if (at == std::string::npos) return msg;
  const size_t end = std::min(text.find('\n', at), at + static_cast<size_t>(column));
  const std::string before = text.substr(at, end - at);  // the line up to the ':'
  const size_t key = before.find_first_not_of(" \t-");
  if (key == std::string::npos || before.size() - key <= kMaxPlainKey) return msg;
  return "a key of " + std::to_string(before.size() - key) + " characters: YAML reads at most " +
         std::to_string(kMaxPlainKey) + " before the ':' (yaml-cpp says: " + msg + ")";
}

}  // namespace kb
