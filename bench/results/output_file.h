// Writing an output file (result JSON, text report, .hlog, compare tables)
// without ever destroying what the path names:
//   - "-"                      written to stdout;
//   - a FIFO or char device    written straight through (a reader gets the
//                              bytes; /dev/null swallows them; /dev/full
//                              reports ENOSPC as an error);
//   - a regular file, or a     written atomically: a temp file in the same
//     path that does not exist directory, fsync'ed, renamed over it (an
//                              interrupted run never leaves half a file);
//   - a symlink                followed (to any depth) and its target
//                              written as above: the link stays a link;
//   - a directory, socket or   refused with an error naming the path.
//     block device
// Every write, fsync and close result is checked: a failure is a Status.
// Thread-safety: safe to call concurrently for different paths.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace wirebench {

[[nodiscard]] Status WriteOutputFile(const std::string& path, std::string_view contents);

}  // namespace wirebench
