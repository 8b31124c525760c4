// The glue that binds a codec and a region into the RPC server's Service:
// for each call it decodes the request with the connection's codec, hands
// it to the region, and encodes the region's response with the same codec.
// This is the only place where rpc/, codecs/ and regions meet.
// Thread-safety: RegionService is shared; each CallHandler it makes owns
// one codec instance and one RegionScratch, used by one thread at a time.
#pragma once

#include <memory>

#include "nullregion/region.h"
#include "rpc/service.h"

namespace wirebench {

// What RegionService::NewCallHandler returns: a codec's handler whose
// requests can be placed in a table (codecs carry none; the HBase transport
// knows it from the region a call names and answers plain calls through it).
class TableCallHandler : public rpc::CallHandler {
 public:
  // The table of the requests the next calls decode (see Mutation::table);
  // empty (the default) = the default table. The bytes must stay valid
  // until the calls have been handled.
  virtual void set_table(ByteView table) = 0;
};

class RegionService final : public rpc::Service {
 public:
  // `region` must outlive the service.
  explicit RegionService(Region* region) : region_(region) {}
  // A TableCallHandler for the codec.
  StatusOr<std::unique_ptr<rpc::CallHandler>> NewCallHandler(const CodecInfo& codec) override;
  void AppendStats(nlohmann::json* out) override;

 private:
  Region* region_;
};

}  // namespace wirebench
