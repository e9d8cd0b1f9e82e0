#include "platform/bench/child_bench.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "models/common/errors.h"
#include "platform/util/subprocess.h"

namespace kb {

ChildCost child_cost(const std::vector<std::string>& argv) {
  char out[] = "/tmp/kb_child_XXXXXX";
  const int fd = mkstemp(out);
  ChildCost c;
  if (fd < 0) return c;
  close(fd);
  const ChildExit e = run_child(argv, out);
  if (e.code >= 0) {
    c.wall_s = e.wall_s;
    c.status = e.code < 128 ? e.code : -1;
    std::ifstream in(out);
    std::string line;
    while (std::getline(in, line)) {
      const size_t at = line.find("peak RSS ");
      if (at != std::string::npos) c.max_rss_mb = std::stod(line.substr(at + 9));
    }
  }
  std::remove(out);
  return c;
}

std::string own_exe(const BenchContext& ctx) {
  return ctx.kernbench_exe.empty() ? self_executable() : ctx.kernbench_exe;
}

std::string temp_path(const std::string& stem, const std::string& ext) {
  static unsigned n = 0;
  return (std::filesystem::temp_directory_path() /
          (stem + "_" + std::to_string(getpid()) + "_" + std::to_string(++n) + ext))
      .string();
}

ChildCost child_bench(const std::string& bench, std::vector<std::string> argv,
                      const std::string& what, nlohmann::json* result) {
  const std::string json_out = temp_path("kb_child", ".json");
  // Not --quiet: that drops the closing line child_cost reads the peak RSS
  // from. The child's stdout goes to a file; its progress lines (stderr)
  // reach the user, which an hour-long whole-token run needs.
  argv.insert(argv.end(), {"--json", json_out});
  const ChildCost c = child_cost(argv);
  if (c.status != 0)
    throw SimulationError(bench + ": " + what + " failed (exit " + std::to_string(c.status) + ")");
  std::ifstream in(json_out);
  *result = nlohmann::json::parse(in);
  std::remove(json_out.c_str());
  return c;
}

}  // namespace kb
