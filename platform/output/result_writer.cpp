#include "platform/output/result_writer.h"

#include "platform/output/atomic_file.h"

namespace kb {

void write_file_atomically(const std::string& path, const std::string& content) {
  AtomicFile f(path);
  f.write(content);
  f.commit();
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
