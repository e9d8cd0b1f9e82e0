#include "platform/output/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "models/common/errors.h"
#include "platform/output/output_paths.h"
#include "platform/process/stop_signals.h"

namespace kb {

namespace {

mode_t file_mode() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

}  // namespace

AtomicFile::AtomicFile(const std::string& path, const std::string& temp_suffix)
    : path_(final_target(path)) {
  // A symbolic link, dangling or not: write the file it names.
  struct stat st {};
  if (::stat(path_.c_str(), &st) == 0) {
    if (S_ISCHR(st.st_mode)) {
      direct_ = true;
      fd_ = ::open(path_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
      if (fd_ < 0) fail("cannot open", errno);
      return;
    }
    if (!S_ISREG(st.st_mode))
      throw OutputError("cannot write '" + path +
                        "': it exists and is not a regular file (a directory, FIFO, socket or "
                        "block device is never replaced)");
  }
  std::string tmpl = directory_of(path_) + "/.kb-XXXXXX" + temp_suffix;
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  // A stop signal is held back until the temporary is registered for removal.
  int err = 0;
  {
    const StopSignalsHeld held;
    fd_ = ::mkostemps(buf.data(), static_cast<int>(temp_suffix.size()), O_CLOEXEC);
    err = errno;
    if (fd_ >= 0) {
      temp_ = buf.data();
      slot_ = register_temp_file(temp_);
    }
  }
  if (fd_ < 0) fail("cannot create a temporary file in '" + directory_of(path_) + "' for", err);
  if (::fchmod(fd_, file_mode()) != 0) fail("cannot set the mode of", errno);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
  release_temp_file(slot_);
}

void AtomicFile::fail(const std::string& what, int err) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
  release_temp_file(slot_);
  slot_ = -1;
  throw OutputError(what + " '" + path_ + "': " + std::strerror(err));
}

void AtomicFile::write(const char* data, size_t n) {
  if (fd_ < 0) throw OutputError("cannot write '" + path_ + "': not open");
  while (n > 0) {
    const ssize_t w = ::write(fd_, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      fail("cannot write", errno);
    }
    if (w == 0) fail("cannot write", ENOSPC);
    data += w;
    n -= static_cast<size_t>(w);
  }
}

void AtomicFile::release_descriptor() {
  if (fd_ >= 0 && ::close(fd_) != 0) fail("cannot close", errno);
  fd_ = -1;
}

void AtomicFile::seal() {
  if (sealed_) return;
  if (direct_) {
    const int fd = fd_;
    fd_ = -1;
    if (fd >= 0 && ::close(fd) != 0) fail("cannot write", errno);
    sealed_ = true;
    return;
  }
  // The VCD writer closed its own stream: reopen to fsync what it wrote.
  if (fd_ < 0) fd_ = ::open(temp_.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd_ < 0) fail("cannot reopen the temporary of", errno);
  if (::fsync(fd_) != 0) fail("cannot write (fsync)", errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("cannot write (close)", errno);
  sealed_ = true;
}

void AtomicFile::installed() {
  committed_ = true;
  release_temp_file(slot_);
  slot_ = -1;
}

void AtomicFile::commit() {
  if (committed_) return;
  seal();
  if (direct_) {
    committed_ = true;
    return;
  }
  if (::rename(temp_.c_str(), path_.c_str()) != 0) fail("cannot rename into place", errno);
  installed();
  const int dir = ::open(directory_of(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);  // the rename's durability; a failure here loses nothing
    ::close(dir);
  }
}

}  // namespace kb
