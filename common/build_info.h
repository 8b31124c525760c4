// Facts about this build that every result records: the git revision of the
// tree it was built from (taken at build time; "-dirty" when tracked files
// had uncommitted changes) and the CMake build type.
// Thread-safety: pure functions returning static strings.
#pragma once

namespace wirebench {

const char* GitRevision();
const char* BuildType();

}  // namespace wirebench
