#include "bench/ycsb/standard_workloads.h"

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
// (from GNUInstallDirs, set in bench/ycsb/CMakeLists.txt).
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

}  // namespace

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
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return Status::IoError("error reading '" + found.path + "'");
  return ss.str();
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
