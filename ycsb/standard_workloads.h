// YCSB's standard workloads (workloads/workloada..workloadf), found from any
// working directory.
//
// A workload given as a path is read from that path when it exists. When a
// relative path of YCSB's usual form ("workloads/workloada", "workloada")
// does not exist from the working directory, the copy installed beside the
// binary (<prefix>/share/wirebench/workloads/, located from /proc/self/exe)
// is used, else the copy built into the binary: cmake/embed_workloads.cmake
// turns workloads/ into a source file at build time, so a binary copied to
// another host, run under Valgrind or from `/` still has A-F. When nothing is
// found the error lists every place looked at.
// Thread-safety: all functions may be called from several threads.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace wirebench::ycsb {

// One workload file built into the binary: its file name and its bytes.
struct EmbeddedWorkload {
  std::string_view name;  // "workloada"
  std::string_view text;
};

// Every file of the source tree's workloads/ at build time, by name.
std::span<const EmbeddedWorkload> EmbeddedWorkloads();

// Where FindWorkload looks besides the path as given.
struct WorkloadPlaces {
  // The installed workloads folder, "" for none.
  std::string installed_dir;
  // Whether the built-in copies are used.
  bool embedded = true;
};
// The installed folder relative to this executable (<exe>/../share/wirebench/
// workloads with the default install layout; "" when /proc/self/exe is
// unreadable), and the built-in copies.
WorkloadPlaces DefaultWorkloadPlaces();

// A workload found: either a file on disk or built-in text.
struct FoundWorkload {
  std::string name;    // File name: "workloada".
  std::string path;    // The file to read; "" when built in.
  std::string text;    // The text, when built in.
  std::string source;  // For messages and property sources: the path, or "workloada (built in)".
  // Set when the path as given was not found and another copy is used: one
  // line saying which (see NoteOnce).
  std::string note;
};

// Looks for `spec`, a path (absolute or relative to the working directory).
// A relative path whose folder is "" or "workloads" and which does not exist
// is looked for by file name in places.installed_dir, then among the
// built-in copies. NotFound lists the places looked at.
[[nodiscard]] StatusOr<FoundWorkload> FindWorkload(
    const std::string& spec, const WorkloadPlaces& places = DefaultWorkloadPlaces());

// The most a workload file may hold: YCSB's are a few KiB.
inline constexpr size_t kMaxWorkloadFileBytes = size_t(1) << 20;

// Reads the workload: the file at found.path, or the built-in text. A file
// over kMaxWorkloadFileBytes, or holding NUL bytes, is refused (and FindWorkload
// refuses devices), so -P /dev/zero fails at once rather than filling memory.
[[nodiscard]] StatusOr<std::string> ReadWorkload(const FoundWorkload& found);

// True when `spec`'s file name is one of the workloads built into wirebench
// (workloada..workloadf): YCSB's own standard workloads.
bool IsBuiltInWorkload(const std::string& spec);

// compare's workload names: "a".."f" -> "workloads/workloada"..; anything
// else ("workloada", a path) is returned unchanged.
std::string WorkloadSpecForLetter(const std::string& w);

// Prints "wirebench: <note>" to stderr the first time this process sees that
// note; later calls with the same text print nothing. Empty notes are ignored.
void NoteOnce(const std::string& note);

}  // namespace wirebench::ycsb
