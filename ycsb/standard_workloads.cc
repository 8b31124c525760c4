#include "ycsb/standard_workloads.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>

// The installed workloads folder relative to the installed binary's folder
// (from GNUInstallDirs, set in ycsb/CMakeLists.txt).
#ifndef WIREBENCH_WORKLOADS_FROM_BINDIR
#define WIREBENCH_WORKLOADS_FROM_BINDIR "../share/wirebench/workloads"
#endif

namespace wirebench::ycsb {

namespace fs = std::filesystem;

namespace {

const EmbeddedWorkload* FindEmbedded(std::string_view name) {
  for (const EmbeddedWorkload& w : EmbeddedWorkloads())
    if (w.name == name) return &w;
  return nullptr;
}

std::string EmbeddedNames() {
  std::string names;
  for (const EmbeddedWorkload& w : EmbeddedWorkloads())
    names += (names.empty() ? "" : ", ") + std::string(w.name);
  return names;
}

std::string TooLargeMessage(const std::string& path) {
  return "'" + path + "' is over " + std::to_string(kMaxWorkloadFileBytes >> 20) +
         " MiB: a YCSB property file is a few lines of key=value; is it the right file?";
}

}  // namespace

bool IsBuiltInWorkload(const std::string& spec) {
  return FindEmbedded(fs::path(spec).filename().string()) != nullptr;
}

WorkloadPlaces DefaultWorkloadPlaces() {
  WorkloadPlaces p;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec && !exe.empty())
    p.installed_dir = (exe.parent_path() / WIREBENCH_WORKLOADS_FROM_BINDIR).lexically_normal().string();
  return p;
}

StatusOr<FoundWorkload> FindWorkload(const std::string& spec, const WorkloadPlaces& places) {
  const fs::path given(spec);
  FoundWorkload f;
  f.name = given.filename().string();
  std::error_code ec;
  if (!spec.empty() && fs::exists(given, ec)) {
    // A device (/dev/zero, /dev/urandom) never ends: refused before it is read.
    const fs::file_status st = fs::status(given, ec);
    const char* kind = fs::is_character_file(st) ? "a character device"
                       : fs::is_block_file(st)   ? "a block device"
                       : fs::is_socket(st)       ? "a socket"
                                                 : nullptr;
    if (kind != nullptr)
      return Status::InvalidArgument("'" + spec + "' is " + kind +
                                     ", not a YCSB property file (a text file of key=value "
                                     "lines, like workloads/workloada)");
    if (fs::is_regular_file(st)) {
      const uintmax_t size = fs::file_size(given, ec);
      if (!ec && size > kMaxWorkloadFileBytes)
        return Status::InvalidArgument(TooLargeMessage(spec));
    }
    f.path = spec;
    f.source = spec;
    return f;
  }
  std::vector<std::string> tried = {spec.empty() ? "''" : fs::absolute(given, ec).string()};
  const std::string folder = given.lexically_normal().parent_path().string();
  const bool standard_form = !spec.empty() && given.is_relative() && !f.name.empty() &&
                             (folder.empty() || folder == "workloads");
  if (standard_form) {
    if (!places.installed_dir.empty()) {
      const std::string installed = (fs::path(places.installed_dir) / f.name).string();
      tried.push_back(installed);
      if (fs::exists(installed, ec)) {
        f.path = installed;
        f.source = installed;
        f.note = spec + " is not in " + fs::current_path(ec).string() + "; using " + installed;
        return f;
      }
    }
    if (places.embedded) {
      tried.push_back("the workloads built into wirebench (" + EmbeddedNames() + ")");
      if (const EmbeddedWorkload* w = FindEmbedded(f.name)) {
        f.text = std::string(w->text);
        f.source = f.name + " (built in)";
        f.note = spec + " is not in " + fs::current_path(ec).string() +
                 "; using the copy of " + f.name + " built into wirebench";
        return f;
      }
    }
  }
  std::string list;
  for (size_t i = 0; i < tried.size(); ++i)
    list += (i == 0 ? "" : i + 1 == tried.size() ? " and " : ", ") + tried[i];
  return Status::NotFound("'" + spec + "' not found; looked at " + list);
}

StatusOr<std::string> ReadWorkload(const FoundWorkload& found) {
  if (found.path.empty()) return found.text;
  std::ifstream in(found.path, std::ios::binary);
  if (!in)
    return Status::IoError("cannot open '" + found.path + "': " + std::strerror(errno));
  // Bounded: a pipe or a file that keeps growing is cut off, not read until
  // memory runs out.
  std::string text(kMaxWorkloadFileBytes + 1, '\0');
  in.read(text.data(), std::streamsize(text.size()));
  if (in.bad()) return Status::IoError("error reading '" + found.path + "'");
  text.resize(size_t(in.gcount()));
  if (text.size() > kMaxWorkloadFileBytes) return Status::InvalidArgument(TooLargeMessage(found.path));
  if (text.find('\0') != std::string::npos)
    return Status::InvalidArgument("'" + found.path +
                                   "' holds NUL bytes: it is not a YCSB property file (a text "
                                   "file of key=value lines, like workloads/workloada)");
  return text;
}

std::string WorkloadSpecForLetter(const std::string& w) {
  if (w.size() == 1 && w[0] >= 'a' && w[0] <= 'f') return "workloads/workload" + w;
  return w;
}

void NoteOnce(const std::string& note) {
  if (note.empty()) return;
  static std::mutex mu;
  static std::set<std::string> seen;
  std::lock_guard<std::mutex> lock(mu);
  if (!seen.insert(note).second) return;
  std::fprintf(stderr, "wirebench: %s\n", note.c_str());
}

}  // namespace wirebench::ycsb
