#include "platform/runtime/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "models/common/errors.h"

namespace kb {

namespace {

// Uncommitted temporaries, readable from a signal handler: fixed storage, a
// slot is claimed and released with an atomic flag.
constexpr int kSlots = 64;
struct Slot {
  std::atomic<int> used{0};
  char path[PATH_MAX];
};
Slot g_slots[kSlots];

int claim_slot(const std::string& path) {
  if (path.size() >= PATH_MAX) return -1;
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (g_slots[i].used.compare_exchange_strong(expected, 2)) {  // 2: being written
      std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
      g_slots[i].used.store(1);
      return i;
    }
  }
  return -1;  // more than kSlots at once: still removed by the destructor
}

void release_slot(int slot) {
  if (slot >= 0) g_slots[slot].used.store(0);
}

void write_all_stderr(const char* s) {
  size_t n = std::strlen(s);
  while (n > 0) {
    const ssize_t w = ::write(2, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

extern "C" void on_stop_signal(int sig) {
  for (Slot& s : g_slots)
    if (s.used.load() == 1) ::unlink(s.path);
  const char* name = sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP";
  write_all_stderr("kernbench: stopped by ");
  write_all_stderr(name);
  write_all_stderr("; unfinished output files removed\n");
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

mode_t file_mode() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return 0666 & ~mask;
}

}  // namespace

AtomicFile::AtomicFile(const std::string& path, const std::string& temp_suffix) : path_(path) {
  // A symbolic link to an existing file: write the file it names.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISCHR(st.st_mode)) {
      direct_ = true;
      fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
      if (fd_ < 0) fail("cannot open", errno);
      return;
    }
    if (!S_ISREG(st.st_mode))
      throw OutputError("cannot write '" + path +
                        "': it exists and is not a regular file (a directory, FIFO, socket or "
                        "block device is never replaced)");
    char real[PATH_MAX];
    if (::realpath(path.c_str(), real) != nullptr) path_ = real;
  }
  std::string tmpl = directory_of(path_) + "/.kb-XXXXXX" + temp_suffix;
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  fd_ = ::mkostemps(buf.data(), static_cast<int>(temp_suffix.size()), O_CLOEXEC);
  if (fd_ < 0) fail("cannot create a temporary file in '" + directory_of(path_) + "' for", errno);
  temp_ = buf.data();
  slot_ = claim_slot(temp_);
  if (::fchmod(fd_, file_mode()) != 0) fail("cannot set the mode of", errno);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
  release_slot(slot_);
}

void AtomicFile::fail(const std::string& what, int err) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_.empty()) ::unlink(temp_.c_str());
  temp_.clear();
  release_slot(slot_);
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

void AtomicFile::commit() {
  if (committed_) return;
  if (direct_) {
    const int fd = fd_;
    fd_ = -1;
    if (fd >= 0 && ::close(fd) != 0) fail("cannot write", errno);
    committed_ = true;
    return;
  }
  // The VCD writer closed its own stream: reopen to fsync what it wrote.
  if (fd_ < 0) fd_ = ::open(temp_.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd_ < 0) fail("cannot reopen the temporary of", errno);
  if (::fsync(fd_) != 0) fail("cannot write (fsync)", errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("cannot write (close)", errno);
  if (::rename(temp_.c_str(), path_.c_str()) != 0) fail("cannot rename into place", errno);
  committed_ = true;
  release_slot(slot_);
  slot_ = -1;
  const int dir = ::open(directory_of(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    ::fsync(dir);  // the rename's durability; a failure here loses nothing
    ::close(dir);
  }
}

void install_output_cleanup_on_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

}  // namespace kb
