// One output file written so that nothing is left half-written and nothing
// that was there is destroyed.
//
// A regular target (or one that does not exist yet) is written to a temporary
// file with a unique name in the target's own directory (".kb-XXXXXX.tmp",
// so the rename stays on one file system), then flushed, fsync'ed and renamed
// over the target by commit(). The target is the path's final target
// (final_target, output_paths.h): a symbolic link, dangling or not, stays a
// link and its target is replaced. Several files that must appear together
// are sealed and renamed by one OutputTransaction (output_transaction.h). Every write, the fsync
// and the rename are checked; a full disk is an OutputError. A temporary that is not committed is
// removed by the destructor, and also when the process is stopped by SIGINT, SIGTERM or SIGHUP (see
// stop_signals.h).
//
// A character device the user named (/dev/stdout, /dev/null, a terminal) is
// written straight into: there is nothing to replace and nothing to rename.
// Every other kind of existing target — a directory, a FIFO, a socket, a
// block device — is refused before anything is written (see output_paths.h).
#pragma once

#include <cstddef>
#include <string>

namespace kb {

class AtomicFile {
 public:
  // Opens the temporary (or the character device). Throws OutputError.
  explicit AtomicFile(const std::string& path, const std::string& temp_suffix = ".tmp");
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const char* data, size_t n);
  void write(const std::string& s) { write(s.data(), s.size()); }
  // Flushes, fsyncs and renames into place (regular targets). Throws OutputError.
  void commit();
  // commit()'s first half: the temporary flushed, fsync'ed and closed (a
  // character device: closed). Throws OutputError; the target is untouched.
  void seal();
  // Tells a sealed file that its temporary was renamed into place by its
  // owner (an OutputTransaction), so nothing removes it any more.
  void installed();
  // For writers that open the temporary themselves (the VCD): closes this
  // object's descriptor and leaves the file to them until commit().
  void release_descriptor();

  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return temp_; }
  bool direct() const { return direct_; }

 private:
  [[noreturn]] void fail(const std::string& what, int err);
  std::string path_, temp_;
  int fd_ = -1;
  int slot_ = -1;  // in the signal-cleanup registry
  bool direct_ = false, sealed_ = false, committed_ = false;
};

}  // namespace kb
