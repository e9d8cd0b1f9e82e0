#include "platform/output/output_paths.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <map>

#include "models/common/errors.h"
#include "platform/process/stop_signals.h"

namespace kb {

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string final_target(const std::string& path, const std::string& flag) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    // It exists: a regular file is replaced where it really lies; a device
    // (/dev/stdout, /dev/fd/1) is written as named.
    char real[PATH_MAX];
    if (S_ISREG(st.st_mode) && ::realpath(path.c_str(), real) != nullptr) return real;
    return path;
  }
  // Absent, or a link whose target is absent: follow the links by hand.
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    std::string target(PATH_MAX, '\0');
    const ssize_t n = ::readlink(p.c_str(), target.data(), target.size());
    if (n <= 0) return p;
    target.resize(static_cast<size_t>(n));
    const std::string dir = directory_of(p);
    p = target.front() == '/' || (dir == "." && p.rfind("./", 0) != 0) ? target
                                                                       : dir + "/" + target;
  }
  throw UsageError(flag + " " + path + ": a loop of symbolic links (over 40 links followed)");
}

namespace {

std::string base_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISCHR(m)) return "a character device";
  return "not a regular file";
}

[[noreturn]] void refuse(const OutputRequest& o, const std::string& why) {
  throw UsageError(o.flag + " " + o.path + ": " + why);
}

// Creates and removes a temporary in `dir`, the way the output will be written.
// A stop signal is held back meanwhile, so it cannot leave the probe behind.
void probe_directory(const OutputRequest& o, const std::string& dir) {
  std::string tmpl = dir + "/.kb-XXXXXX.probe";
  int fd = -1, err = 0;
  {
    const StopSignalsHeld held;  // a held stop signal is taken after the unlink
    fd = ::mkostemps(tmpl.data(), 6, O_CLOEXEC);
    err = errno;
    if (fd >= 0) {
      ::close(fd);
      ::unlink(tmpl.c_str());
    }
  }
  if (fd < 0) refuse(o, "cannot create files in directory '" + dir + "': " + std::strerror(err));
}

// What makes two outputs the same file: device and inode when it exists,
// else its absolute, normalised path.
std::string identity(const std::string& path, const struct stat* st) {
  if (st) return std::to_string(st->st_dev) + ":" + std::to_string(st->st_ino);
  std::error_code ec;
  const auto p = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  return ec ? path : p.string();
}

// One output on its own: its name, what exists there, its directory. Returns
// false for a character device (written straight into; not compared for
// identity), true otherwise with `exists` and `st` describing the target.
// True when the file's attributes (chattr) forbid replacing it: a file that
// is append-only or immutable can be neither renamed over nor linked.
bool cannot_be_replaced(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return false;
  int flags = 0;
  const bool known = ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
  ::close(fd);
  return known && (flags & (FS_APPEND_FL | FS_IMMUTABLE_FL)) != 0;
}

// One output on its own: its name, what exists at its final target (`target`,
// its links followed), its directory. Returns false for a character device
// (written straight into; not compared for identity), true otherwise with
// `exists` and `st` describing the target.
bool check_one(const OutputRequest& o, const std::string& target, bool& exists, struct stat& st) {
  if (o.path.empty()) throw UsageError(o.flag + ": the file name is empty");
  if (o.path.size() >= PATH_MAX || target.size() >= PATH_MAX)
    refuse(o, "the path is " + std::to_string(std::max(o.path.size(), target.size())) +
                  " characters, over the " + std::to_string(PATH_MAX - 1) + " Linux allows");
  const bool linked = target != o.path && ::stat(o.path.c_str(), &st) != 0;
  const std::string via = linked ? "is a symbolic link to '" + target + "', whose " : "";
  const std::string dir = directory_of(target), name = base_name(target);
  if (name.empty() || name == "." || name == "..") refuse(o, "names a directory; give a file name");
  const long name_max = ::pathconf(dir.c_str(), _PC_NAME_MAX);
  const size_t limit = name_max > 0 ? static_cast<size_t>(name_max) : NAME_MAX;
  if (name.size() > limit)
    refuse(o, (linked ? via : std::string("the ")) + "file name is " + std::to_string(name.size()) +
                  " characters, longer than the " + std::to_string(limit) +
                  " the file system allows");
  exists = ::stat(target.c_str(), &st) == 0;
  const int err = errno;
  if (exists) {
    if (S_ISCHR(st.st_mode)) {
      if (!o.allow_char_device)
        refuse(o, "is a character device; this output needs a regular file");
      const int fd = ::open(target.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
      if (fd < 0) refuse(o, std::string("cannot open for writing: ") + std::strerror(errno));
      ::close(fd);
      return false;  // the same device may take several outputs, one after another
    }
    if (!S_ISREG(st.st_mode))
      refuse(o, std::string("exists and is ") + kind_of(st.st_mode) +
                    "; outputs replace only regular files");
    if (::access(target.c_str(), W_OK) != 0)
      refuse(o, std::string("cannot be written: ") + std::strerror(errno));
    if (cannot_be_replaced(target))
      refuse(o,
             "is append-only or immutable (lsattr shows it; chattr -a -i clears it); an "
             "output replaces its file whole, so it cannot be written");
  } else if (err != ENOENT) {
    refuse(o, std::strerror(err));
  } else {
    struct stat dst {};
    if (::stat(dir.c_str(), &dst) != 0 || !S_ISDIR(dst.st_mode))
      refuse(o, (linked ? via : std::string()) + "directory '" + dir + "' does not exist");
  }
  probe_directory(o, dir);
  return true;
}

}  // namespace

void check_output_paths(const std::vector<OutputRequest>& outputs) {
  std::map<std::string, const OutputRequest*> seen;
  for (const OutputRequest& o : outputs) {
    bool exists = false;
    struct stat st {};
    const std::string target = final_target(o.path, o.flag);
    if (!check_one(o, target, exists, st)) continue;
    const std::string id = identity(target, exists ? &st : nullptr);
    const auto [it, fresh] = seen.emplace(id, &o);
    if (!fresh)
      throw UsageError(it->second->flag + " " + it->second->path + " and " + o.flag + " " + o.path +
                       " name the same file; give each output its own path");
  }
}

}  // namespace kb
