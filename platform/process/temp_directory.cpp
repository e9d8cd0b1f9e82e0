#include "platform/process/temp_directory.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "models/common/errors.h"
#include "platform/process/stop_signals.h"

namespace kb {

TempDirectory::TempDirectory(const std::string& prefix) {
  std::error_code ec;
  std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec) base = "/tmp";
  std::string tmpl = (base / (prefix + "XXXXXX")).string();
  // No stop signal between the directory's creation and its registration.
  const StopSignalsHeld held;
  if (!mkdtemp(tmpl.data()))
    throw SimulationError("cannot create a temporary directory " + tmpl +
                          " (set TMPDIR to a writable directory)");
  path_ = tmpl;
  slots_.push_back(register_temp_dir(path_));
}

TempDirectory::~TempDirectory() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  for (int slot : slots_) release_temp_file(slot);
}

std::string TempDirectory::file(const std::string& name) {
  const std::string p = path_ + "/" + name;
  slots_.push_back(register_temp_file(p));
  return p;
}

}  // namespace kb
