#include "platform/output/output_transaction.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

#include "models/common/errors.h"
#include "platform/output/output_paths.h"
#include "platform/process/stop_signals.h"

namespace kb {

namespace {

// An existing target kept aside while it is replaced.
struct Backup {
  std::string path;     // "" when the target did not exist
  bool linked = false;  // a hard link (the target stays in place), else renamed away
};

// Keeps the regular file `target` under a fresh ".kb-XXXXXX.old" beside it.
Backup keep_aside(const std::string& target) {
  struct stat st {};
  if (::lstat(target.c_str(), &st) != 0) {
    if (errno == ENOENT) return {};
    throw OutputError("cannot replace '" + target + "': " + std::strerror(errno));
  }
  if (!S_ISREG(st.st_mode))
    throw OutputError("cannot replace '" + target +
                      "': it is no longer a regular file (it changed during the run)");
  std::string name = directory_of(target) + "/.kb-XXXXXX.old";
  const int fd = ::mkostemps(name.data(), 4, O_CLOEXEC);
  if (fd < 0)
    throw OutputError("cannot keep the earlier '" + target +
                      "' while replacing it: " + std::strerror(errno));
  ::close(fd);
  ::unlink(name.c_str());
  if (::link(target.c_str(), name.c_str()) == 0) return {name, true};
  if (::rename(target.c_str(), name.c_str()) == 0) return {name, false};
  const int err = errno;
  throw OutputError("cannot replace '" + target + "': " + std::strerror(err) +
                    (err == EPERM ? " (append-only or immutable? lsattr shows it)" : ""));
}

struct Step {
  AtomicFile* file;
  Backup backup;
  bool installed = false;
};

// Puts every target of `steps` back as it was before the commit began.
void roll_back(std::vector<Step>& steps) {
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    const std::string& target = it->file->path();
    const Backup& b = it->backup;
    if (b.path.empty()) {
      if (it->installed) ::unlink(target.c_str());
    } else if (it->installed || !b.linked) {
      ::rename(b.path.c_str(), target.c_str());
    } else {
      ::unlink(b.path.c_str());
    }
  }
}

}  // namespace

AtomicFile& OutputTransaction::stage(const std::string& path, const std::string& temp_suffix) {
  files_.push_back(std::make_unique<AtomicFile>(path, temp_suffix));
  return *files_.back();
}

void OutputTransaction::adopt(std::unique_ptr<AtomicFile> file) {
  files_.push_back(std::move(file));
}

void OutputTransaction::commit() {
  if (committed_) return;
  for (const auto& f : files_) f->seal();
  std::vector<Step> steps;
  {
    const StopSignalsHeld held;
    try {
      for (const auto& f : files_)
        if (!f->direct()) steps.push_back({f.get(), keep_aside(f->path())});
      for (Step& s : steps) {
        if (::rename(s.file->temp_path().c_str(), s.file->path().c_str()) != 0)
          throw OutputError("cannot rename into place '" + s.file->path() +
                            "': " + std::strerror(errno));
        s.installed = true;
      }
    } catch (...) {
      roll_back(steps);
      throw;
    }
    std::set<std::string> dirs;
    for (Step& s : steps) {
      s.file->installed();
      if (!s.backup.path.empty()) ::unlink(s.backup.path.c_str());
      dirs.insert(directory_of(s.file->path()));
    }
    for (const std::string& d : dirs) {
      const int dir = ::open(d.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dir >= 0) {
        ::fsync(dir);  // the renames' durability; a failure here loses nothing
        ::close(dir);
      }
    }
    committed_ = true;
    set_outputs_committed(!files_.empty());
  }
}

}  // namespace kb
