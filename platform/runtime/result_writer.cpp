#include "platform/runtime/result_writer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace kb {

void write_file_atomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write '" + path + "': " + std::strerror(errno));
    out << content;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      throw std::runtime_error("cannot write '" + path + "': " + std::strerror(errno));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string err = std::strerror(errno);
    std::remove(tmp.c_str());
    throw std::runtime_error("cannot write '" + path + "': " + err);
  }
}

std::string format_json(const nlohmann::json& j) {
  // Strings a user typed (a topology name, --set and --param values) need not
  // be UTF-8; JSON text must be. The default (strict) dump throws on an
  // invalid byte, which cost a finished run its result (found by
  // tests/fuzz/fuzz_set_override): invalid bytes become U+FFFD instead.
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void write_json_atomically(const std::string& path, const nlohmann::json& j) {
  write_file_atomically(path, format_json(j));
}

}  // namespace kb
