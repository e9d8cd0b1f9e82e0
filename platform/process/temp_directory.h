// A temporary directory for the outputs of a run's child processes (a
// ccl-sweep's topologies): made under $TMPDIR (or /tmp), removed with
// everything in it when it goes out of scope, and registered with the stop
// signal cleanup (stop_signals.h), so a stop signal removes it too.
#pragma once

#include <string>
#include <vector>

namespace kb {

class TempDirectory {
 public:
  // "<tmp>/<prefix>XXXXXX"; a SimulationError when it cannot be made.
  explicit TempDirectory(const std::string& prefix);
  ~TempDirectory();
  TempDirectory(const TempDirectory&) = delete;
  TempDirectory& operator=(const TempDirectory&) = delete;

  const std::string& path() const { return path_; }
  // The path of a file that will be written in it, registered so that a stop
  // signal removes it before the directory.
  std::string file(const std::string& name);

 private:
  std::string path_;
  std::vector<int> slots_;
};

}  // namespace kb
