// A rpc::PendingCall that records how its one call ended, for tests that
// drive a client channel by hand.
#pragma once

#include <string>

#include "common/bytes.h"
#include "common/status.h"
#include "rpc/call_channel.h"

namespace wirebench::testing {

struct CallOutcome final : rpc::PendingCall {
  bool done = false;
  bool failed = false;
  rpc::CallHeader header;
  std::string payload;
  Status failure;
  void OnReply(const rpc::CallHeader& h, ByteView p) override {
    done = true;
    header = h;
    payload = p.ToString();
  }
  void OnFailure(const Status& s) override {
    done = true;
    failed = true;
    failure = s;
  }
};

}  // namespace wirebench::testing
