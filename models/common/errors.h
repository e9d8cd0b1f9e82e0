// Error kinds that map to kernbench exit codes (see platform/cli).
//   ConfigError     -> 2  bad topology YAML, bad --set value
//   UsageError      -> 2  bad command line, unknown bench or --param
//   OutputError     -> 2  an output file cannot be written after the run (a
//                         full disk, a failed rename); the paths themselves are
//                         checked before it, as UsageErrors
//   SimulationError -> 3  a fault while simulating (names the module path)
// Any other exception is an internal error (exit 1).
#pragma once

#include <stdexcept>
#include <string>

namespace kb {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace kb
