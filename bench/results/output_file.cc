#include "bench/results/output_file.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace wirebench {

namespace {

Status Errno(const std::string& what, const std::string& path, int err) {
  return Status::IoError("cannot " + what + " " + path + ": " + std::strerror(err));
}

// Writes all of `data` to `fd`, retrying short writes and EINTR.
Status WriteAll(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return Errno("write", path, errno);
    }
    data.remove_prefix(size_t(n));
  }
  return Status::Ok();
}

std::string DirName(const std::string& path) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

// The path a write to `path` lands on: symbolic links followed, to any
// depth; a dangling link resolves to the file it names.
StatusOr<std::string> FollowLinks(std::string path) {
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
    char buf[PATH_MAX];
    const ssize_t n = ::readlink(path.c_str(), buf, sizeof(buf));
    if (n < 0) return Errno("read the symbolic link", path, errno);
    std::string target(buf, size_t(n));
    path = target.front() == '/' ? target : DirName(path) + "/" + target;
  }
  return Status::InvalidArgument(path + ": too many levels of symbolic links");
}

// A FIFO or character device: written in place, never replaced.
Status WriteThrough(const std::string& path, std::string_view contents) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return Errno("open", path, errno);
  Status s = WriteAll(fd, contents, path);
  if (::close(fd) != 0 && s.ok()) s = Errno("close", path, errno);
  return s;
}

// A regular file or a new one: temp file in the same directory, fsync,
// rename. `existing` is the mode of the file being replaced (0 = none),
// which the new file keeps.
Status WriteAtomically(const std::string& path, std::string_view contents, mode_t existing) {
  static std::atomic<unsigned> counter{0};
  const std::filesystem::path p(path);
  const std::string tmp = DirName(path) + "/." + p.filename().string() + ".tmp." +
                          std::to_string(::getpid()) + "." + std::to_string(counter++);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) return Errno("create a temporary file for", path, errno);
  Status s = WriteAll(fd, contents, path);
  if (s.ok() && existing != 0 && ::fchmod(fd, existing & 07777) != 0)
    s = Errno("set the mode of", path, errno);
  if (s.ok() && ::fsync(fd) != 0) s = Errno("sync", path, errno);
  if (::close(fd) != 0 && s.ok()) s = Errno("close", path, errno);
  if (s.ok() && std::rename(tmp.c_str(), path.c_str()) != 0) s = Errno("replace", path, errno);
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return s;
  }
  // Make the rename durable; a directory that cannot be opened or synced
  // (some file systems) leaves the file written all the same.
  const int dir = ::open(DirName(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir >= 0) {
    (void)::fsync(dir);
    ::close(dir);
  }
  return Status::Ok();
}

Status WriteStdout(std::string_view contents) {
  if (std::fflush(stdout) != 0) return Errno("write", "standard output", errno);
  return WriteAll(STDOUT_FILENO, contents, "standard output");
}

}  // namespace

Status WriteOutputFile(const std::string& path, std::string_view contents) {
  if (path.empty()) return Status::InvalidArgument("empty output path: give a file name or '-'");
  if (path == "-") return WriteStdout(contents);
  auto target = FollowLinks(path);
  if (!target.ok()) return target.status();
  struct stat st;
  if (::stat(target->c_str(), &st) != 0) {
    if (errno != ENOENT) return Errno("inspect", *target, errno);
    return WriteAtomically(*target, contents, 0);
  }
  if (S_ISREG(st.st_mode)) return WriteAtomically(*target, contents, st.st_mode);
  if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) return WriteThrough(*target, contents);
  const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                     : S_ISBLK(st.st_mode)  ? "a block device"
                     : S_ISSOCK(st.st_mode) ? "a socket"
                                            : "not a file";
  return Status::InvalidArgument("cannot write " + path + ": it is " + std::string(kind) +
                                 "; give the path of a file to create or replace, or '-' for "
                                 "standard output");
}

}  // namespace wirebench
