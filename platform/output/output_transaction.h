// Every output of a run as one transaction: after commit() every target holds
// this run's complete file, and if anything fails first, or a stop signal
// arrives before the commit, every target is as it was before the run.
//
// Each file is staged as an AtomicFile (its temporary beside its final
// target, removed on a stop signal) and written in full. commit() then
//   1. seals every temporary (flushed, fsync'ed, closed): a full disk fails
//      here, before any target is touched;
//   2. with SIGINT, SIGTERM and SIGHUP held back, keeps each existing target
//      under a backup name beside it (a hard link, or where links are not
//      allowed a rename), then renames each temporary over its target; if
//      any of this fails, the targets already replaced get their backups
//      back, the new ones are removed, and the error is thrown;
//   3. removes the backups and records that the outputs are in place, so a
//      stop signal taken when the signals are released says so.
// A character device among the outputs (/dev/stdout) is written straight
// into while staged: it cannot take part in the transaction.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "platform/output/atomic_file.h"

namespace kb {

class OutputTransaction {
 public:
  OutputTransaction() = default;
  OutputTransaction(const OutputTransaction&) = delete;
  OutputTransaction& operator=(const OutputTransaction&) = delete;
  // Not committed: every staged temporary is removed, no target touched.
  ~OutputTransaction() = default;

  // A new file to write for `path` (its temporary is written until commit()).
  AtomicFile& stage(const std::string& path, const std::string& temp_suffix = ".tmp");
  // A file its writer opened itself (the VCD, written while simulating).
  void adopt(std::unique_ptr<AtomicFile> file);

  // All staged files into place, or none (throws OutputError).
  void commit();
  bool empty() const { return files_.empty(); }

 private:
  std::vector<std::unique_ptr<AtomicFile>> files_;
  bool committed_ = false;
};

}  // namespace kb
