#include "common/status.h"

namespace wirebench {

namespace {
const char* CodeName(Status::Code code) {
  switch (code) {
    case Status::Code::kOk: return "OK";
    case Status::Code::kInvalidArgument: return "Invalid argument";
    case Status::Code::kCorruption: return "Corruption";
    case Status::Code::kNotFound: return "Not found";
    case Status::Code::kUnavailable: return "Unavailable";
    case Status::Code::kResourceExhausted: return "Resource exhausted";
    case Status::Code::kIoError: return "I/O error";
    case Status::Code::kInternal: return "Internal error";
    case Status::Code::kUnimplemented: return "Unimplemented";
    case Status::Code::kAborted: return "Aborted";
  }
  return "Unknown";
}
}  // namespace

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out = CodeName(state_->code);
  out += ": ";
  out += state_->msg;
  return out;
}

}  // namespace wirebench
